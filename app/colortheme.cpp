#include "app/colortheme.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace ks {

namespace {

const QString kSettingsKey = QStringLiteral("view/theme");

// What the application looked like before any theme was applied: System goes back to it.
struct StartupLook {
    QString style;
    QPalette palette;
};

const StartupLook& startupLook()
{
    static const StartupLook look{QApplication::style()->name(), QApplication::palette()};
    return look;
}

QPalette darkPalette()
{
    const QColor window(45, 47, 51), base(32, 34, 37), text(225, 227, 230), mid(95, 98, 104);
    const QColor highlight(53, 132, 228), disabledText(125, 128, 133);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabledText);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 110, 110));
    p.setColor(QPalette::Light, window.lighter(150));
    p.setColor(QPalette::Midlight, window.lighter(125));
    p.setColor(QPalette::Mid, mid);
    p.setColor(QPalette::Dark, base.darker(130));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, highlight.lighter(130));
    p.setColor(QPalette::LinkVisited, QColor(170, 130, 230));
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabledText);
    p.setColor(QPalette::Disabled, QPalette::Highlight, mid);
    return p;
}

} // namespace

QString colorThemeKey(ColorTheme theme)
{
    switch (theme) {
    case ColorTheme::Light: return QStringLiteral("light");
    case ColorTheme::Dark: return QStringLiteral("dark");
    case ColorTheme::System: break;
    }
    return QStringLiteral("system");
}

ColorTheme colorThemeFromKey(const QString& key)
{
    if (key == QLatin1String("light"))
        return ColorTheme::Light;
    if (key == QLatin1String("dark"))
        return ColorTheme::Dark;
    return ColorTheme::System;
}

void applyColorTheme(ColorTheme theme)
{
    const StartupLook& startup = startupLook(); // taken before the first change
    if (theme == ColorTheme::System) {
        QApplication::setStyle(QStyleFactory::create(startup.style));
        QApplication::setPalette(startup.palette);
        return;
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(theme == ColorTheme::Dark ? darkPalette() : QApplication::style()->standardPalette());
}

ColorTheme savedColorTheme() { return colorThemeFromKey(QSettings().value(kSettingsKey).toString()); }

QMenu* addColorThemeMenu(QMenu& parent)
{
    QMenu* menu = parent.addMenu(QCoreApplication::translate("ColorTheme", "T&heme"));
    auto* group = new QActionGroup(menu);
    const ColorTheme current = savedColorTheme();
    const std::pair<ColorTheme, QString> choices[] = {
        {ColorTheme::System, QCoreApplication::translate("ColorTheme", "&System Theme")},
        {ColorTheme::Light, QCoreApplication::translate("ColorTheme", "&Light Theme")},
        {ColorTheme::Dark, QCoreApplication::translate("ColorTheme", "&Dark Theme")},
    };
    for (const auto& choice : choices) {
        const ColorTheme theme = choice.first; // a copy: lambdas cannot capture bindings before clang 16
        QAction* action = menu->addAction(choice.second);
        action->setCheckable(true);
        action->setChecked(theme == current);
        action->setData(colorThemeKey(theme));
        group->addAction(action);
        QObject::connect(action, &QAction::triggered, menu, [theme] {
            applyColorTheme(theme);
            QSettings().setValue(kSettingsKey, colorThemeKey(theme));
        });
    }
    return menu;
}

} // namespace ks
