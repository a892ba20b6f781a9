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
mod tests {
    use super::*;

    /// The modes Shift-Tab visits from `start` until it comes back.
    fn cycle(start: Mode, bypass_in_cycle: bool) -> Vec<Mode> {
        let mut seen = vec![start];
        let mut mode = start.next(bypass_in_cycle);
        while mode != start && seen.len() < 10 {
            seen.push(mode);
            mode = mode.next(bypass_in_cycle);
        }
        seen
    }

    #[test]
    fn shift_tab_never_reaches_bypass_unless_it_is_in_the_cycle() {
        use Mode::*;
        assert_eq!(cycle(Default, false), vec![Default, AcceptEdits, Plan]);
        assert_eq!(cycle(Plan, false), vec![Plan, Default, AcceptEdits]);
        assert_eq!(cycle(Default, true), vec![Default, AcceptEdits, Plan, Bypass]);
        assert_eq!(cycle(Bypass, true), vec![Bypass, Default, AcceptEdits, Plan]);
        // Set by `/mode bypass` in a session without it in the cycle: one press leaves it, and it
        // does not come back.
        assert_eq!(Bypass.next(false), Default);
        assert_eq!(cycle(Bypass.next(false), false), vec![Default, AcceptEdits, Plan]);
    }

    #[test]
    fn bypass_is_shown_in_capitals() {
        assert_eq!(Mode::Bypass.shown(), "BYPASS");
        assert_eq!(Mode::AcceptEdits.shown(), "acceptEdits");
        for mode in [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::Bypass] {
            assert_eq!(Mode::parse(mode.as_str()), Some(mode));
        }
    }
}
