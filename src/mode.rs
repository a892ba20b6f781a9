//! The four permission modes and their names, and the Shift-Tab cycle through them.
//!
//! Invariant: plain data; the permission engine takes the mode as an argument, never stores it.
//! Bypass is never one keystroke away: `next` reaches it only when the caller says bypass is
//! in the cycle (the session started in bypass, or the user's own config asks for it).

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

    /// The next mode in the Shift-Tab cycle: default → acceptEdits → plan → default, with
    /// bypass after plan only when `bypass_in_cycle` (SPEC §9: it joins the cycle only when the
    /// session started in bypass or the config allows it). Leaving bypass always goes to default.
    pub fn next(self, bypass_in_cycle: bool) -> Mode {
        match self {
            Mode::Default => Mode::AcceptEdits,
            Mode::AcceptEdits => Mode::Plan,
            Mode::Plan if bypass_in_cycle => Mode::Bypass,
            Mode::Plan | Mode::Bypass => Mode::Default,
        }
    }

    /// How the status line names the mode: bypass is spelled `BYPASS`, so that it stands out even
    /// without colour (NO_COLOR, TERM=dumb).
    pub fn shown(self) -> &'static str {
        match self {
            Mode::Bypass => "BYPASS",
            Mode::Default | Mode::AcceptEdits | Mode::Plan => self.as_str(),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
#[path = "mode_tests.rs"]
mod tests;
