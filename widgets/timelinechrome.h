#pragma once
// The timeline's own colours (backgrounds, headers, grid, text), from the system palette:
// a light palette keeps the tuned light scheme, a dark one (lightness of Window < 128)
// derives them from the palette's roles. Slice colours are not part of it.
#include <QColor>
#include <QPalette>

namespace ks {

struct TimelineChrome {
    QColor background{250, 250, 250};
    QColor trackShade{240, 241, 244};
    QColor header{222, 226, 233};
    QColor labelBackground{235, 237, 241};
    QColor grid{226, 227, 230};
    QColor rulerEdge{150, 150, 150};
    QColor tick{110, 110, 110};
    QColor text{40, 40, 40};
    QColor headerText{20, 20, 20};
    QColor mutedText{110, 110, 110};
    QColor separator{210, 212, 218};
    QColor labelEdge{170, 170, 170};
    QColor metricBackground{246, 247, 250};
    QColor washTarget{245, 245, 245}; // slices that do not match a search fade towards it

    static bool isDark(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

    static TimelineChrome fromPalette(const QPalette& palette)
    {
        TimelineChrome chrome;
        if (!isDark(palette))
            return chrome;
        const QColor base = palette.color(QPalette::Base);
        const QColor window = palette.color(QPalette::Window);
        chrome.background = base;
        chrome.trackShade = base.lighter(115);
        chrome.header = window.lighter(135);
        chrome.labelBackground = window;
        chrome.grid = base.lighter(140);
        chrome.rulerEdge = palette.color(QPalette::Mid);
        chrome.tick = palette.color(QPalette::Mid).lighter(130);
        chrome.text = palette.color(QPalette::Text);
        chrome.headerText = palette.color(QPalette::WindowText);
        chrome.mutedText = palette.color(QPalette::PlaceholderText);
        chrome.separator = window.lighter(150);
        chrome.labelEdge = palette.color(QPalette::Mid);
        chrome.metricBackground = base.lighter(108);
        chrome.washTarget = base;
        return chrome;
    }
};

} // namespace ks
