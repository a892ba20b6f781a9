//! The four permission modes and their names.
//!
//! Invariant: plain data; the permission engine takes the mode as an argument, never stores it.

/// How much the agent may do without asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Default,
    AcceptEdits,
    Plan,
    Bypass,
}

impl Mode {
    /// Parses the CLI / config / `/mode` name.
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "default" => Some(Mode::Default),
            "acceptEdits" => Some(Mode::AcceptEdits),
            "plan" => Some(Mode::Plan),
            "bypass" => Some(Mode::Bypass),
            _ => None,
        }
    }

    /// The canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::Bypass => "bypass",
        }
    }

    /// The next mode in the Shift-Tab cycle: default → acceptEdits → plan → bypass → default.
    pub fn next(self) -> Mode {
        match self {
            Mode::Default => Mode::AcceptEdits,
            Mode::AcceptEdits => Mode::Plan,
            Mode::Plan => Mode::Bypass,
            Mode::Bypass => Mode::Default,
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
