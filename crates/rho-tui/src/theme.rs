//! Colour themes. The views paint with the terminal's named colours, chosen for a dark
//! background; a theme maps them onto the frame once it is drawn, so every widget follows the
//! theme without knowing of it. `light` swaps the colours that vanish on a white background,
//! and `NO_COLOR` (<https://no-color.org>) removes every colour, keeping bold, italic and
//! reverse so the highlight still shows.

use ratatui::buffer::Buffer;
use ratatui::style::Color;

use crate::terminal_report::Background;

/// The `theme` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThemeChoice {
    /// Light text on a dark background.
    Dark,
    /// Dark text on a light background.
    Light,
    /// Follow the terminal's background.
    Auto,
}

impl ThemeChoice {
    /// Reads the setting's value; anything else (or nothing) is `Auto`.
    pub fn parse(value: Option<&str>) -> Self {
        match value {
            Some("dark") => ThemeChoice::Dark,
            Some("light") => ThemeChoice::Light,
            _ => ThemeChoice::Auto,
        }
    }
}

/// The theme in effect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// The views' own colours.
    #[default]
    Dark,
    /// Colours readable on a light background.
    Light,
    /// No colours at all (`NO_COLOR`).
    NoColor,
}

impl Theme {
    /// The theme for `choice`, given the environment's `NO_COLOR` and `COLORFGBG`.
    ///
    /// `Auto` reads `COLORFGBG` (set by rxvt, Konsole, iTerm2 and others: `fg;bg`, a background
    /// of 7 or 15 is light) and otherwise assumes dark; once the terminal is taken over, the
    /// background it reports to OSC 11 replaces that guess ([`Theme::for_background`]).
    pub fn resolve(choice: ThemeChoice, no_color: Option<&str>, colorfgbg: Option<&str>) -> Self {
        // no-color.org: set and not empty.
        if no_color.is_some_and(|v| !v.is_empty()) {
            return Theme::NoColor;
        }
        match choice {
            ThemeChoice::Dark => Theme::Dark,
            ThemeChoice::Light => Theme::Light,
            ThemeChoice::Auto => match colorfgbg.and_then(|v| v.rsplit(';').next()) {
                Some("7" | "15") => Theme::Light,
                _ => Theme::Dark,
            },
        }
    }

    /// The theme for a background the terminal reported.
    pub fn for_background(background: Background) -> Self {
        match background {
            Background::Dark => Theme::Dark,
            Background::Light => Theme::Light,
        }
    }

    /// The theme's name as the settings write it.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Dark => "dark",
            Theme::Light => "light",
            Theme::NoColor => "none",
        }
    }

    /// Recolours a drawn frame.
    pub fn apply(self, buffer: &mut Buffer) {
        if self == Theme::Dark {
            return;
        }
        for cell in &mut buffer.content {
            let fg = self.map(cell.fg, Layer::Fg);
            let bg = self.map(cell.bg, Layer::Bg);
            cell.set_fg(fg);
            cell.set_bg(bg);
        }
    }

    /// One colour under this theme, as a foreground or a background.
    pub fn map(self, color: Color, layer: Layer) -> Color {
        match self {
            Theme::Dark => color,
            Theme::NoColor => Color::Reset,
            Theme::Light => match color {
                // Dark grey (the dim text) reads on white as it is; light grey does not.
                Color::White | Color::Gray => Color::Black,
                Color::Yellow | Color::LightYellow => Color::Rgb(0x8a, 0x6d, 0x00),
                Color::Cyan | Color::LightCyan => Color::Rgb(0x00, 0x6b, 0x8f),
                Color::Green | Color::LightGreen => Color::Rgb(0x1a, 0x7f, 0x37),
                Color::Red | Color::LightRed => Color::Rgb(0xb3, 0x1d, 0x28),
                Color::Blue | Color::LightBlue => Color::Rgb(0x0b, 0x5c, 0xad),
                Color::Magenta | Color::LightMagenta => Color::Rgb(0x8e, 0x2d, 0x9e),
                Color::Rgb(r, g, b) => {
                    let sum = u16::from(r) + u16::from(g) + u16::from(b);
                    match layer {
                        // Backgrounds drawn for a dark screen (blocks, diffs) become pale.
                        Layer::Bg if sum < 200 => Color::Rgb(255 - r / 3, 255 - g / 3, 255 - b / 3),
                        // Pale text (the syntax colours) darkens.
                        Layer::Fg if sum > 450 => Color::Rgb(r / 2, g / 2, b / 2),
                        _ => color,
                    }
                }
                other => other,
            },
        }
    }
}

/// Which side of a cell a colour paints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// The text.
    Fg,
    /// Behind the text.
    Bg,
}
