//! The `notify:` key: how an approval that waits calls the person back to the terminal.
//!
//! Invariant: only fixed sequences are ever written (no configured text reaches the terminal):
//! a BEL, or an OSC 9 / OSC 777 desktop notification with mewcode's own words.

/// How a waiting approval calls the person.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Notify {
    /// The terminal bell (BEL): every terminal knows it; most can flash or badge instead.
    #[default]
    Bell,
    /// OSC 9 (iTerm2, WezTerm, Windows Terminal, foot, kitty): a desktop notification.
    Osc9,
    /// OSC 777 (urxvt, Ghostty, some VTE terminals): a desktop notification.
    Osc777,
    /// Nothing.
    Off,
}

impl Notify {
    /// The values the key takes, for its error message.
    pub(crate) const CHOICES: &'static str = "bell, osc9, osc777 or off";

    /// Parses the key's value.
    pub(crate) fn parse(name: &str) -> Option<Notify> {
        match name.trim().to_ascii_lowercase().as_str() {
            "bell" => Some(Notify::Bell),
            "osc9" => Some(Notify::Osc9),
            "osc777" => Some(Notify::Osc777),
            "off" | "none" => Some(Notify::Off),
            _ => None,
        }
    }

    /// The bytes that call the person about `what`, on a terminal that takes escape sequences
    /// (`rich`); a plain one gets the bell for every choice but `off`.
    pub(crate) fn sequence(self, rich: bool) -> &'static str {
        match (self, rich) {
            (Notify::Off, _) => "",
            (Notify::Bell, _) | (Notify::Osc9 | Notify::Osc777, false) => "\x07",
            (Notify::Osc9, true) => "\x1b]9;mewcode: an approval is waiting\x07",
            (Notify::Osc777, true) => "\x1b]777;notify;mewcode;an approval is waiting\x07",
        }
    }
}

#[cfg(test)]
#[path = "notify_tests.rs"]
mod tests;
