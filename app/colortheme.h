#pragma once
// The application's colours (View ▸ Theme): the system's, or Fusion with a light or a dark
// palette. The views take their colours from the palette and follow a change of it
// (TimelineChrome, followPalette), so a switch needs no restart. Kept in QSettings.
#include <QString>

class QMenu;

namespace ks {

enum class ColorTheme { System, Light, Dark };

// "system", "light", "dark": the QSettings value; anything else reads as System.
QString colorThemeKey(ColorTheme theme);
ColorTheme colorThemeFromKey(const QString& key);

// The style and palette of the whole application. System restores those it started with.
void applyColorTheme(ColorTheme theme);
// The theme in QSettings (view/theme), System when none was chosen.
ColorTheme savedColorTheme();

// Adds a "Theme" submenu to `parent`: one checked action per theme; choosing one applies it
// and saves it.
QMenu* addColorThemeMenu(QMenu& parent);

} // namespace ks
