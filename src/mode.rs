//! The four permission modes (SPEC §5 layer 4) as plain vocabulary: parse and display only.
//!
//! Invariant: the spelling here (`default|acceptEdits|plan|bypass`) is the one the CLI flag, the
//! REPL status line and `check` output use; nothing else in the crate spells a mode.

/// How much the agent may do without asking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Reads run; writes and commands ask.
    #[default]
    Default,
    /// Reads and file edits run; commands ask.
    AcceptEdits,
    /// Only read-only tools are offered; the default matrix stays as a backstop.
    Plan,
    /// Everything runs except what the blacklist, the sandbox or a deny rule stops.
    Bypass,
}

/// An unknown mode name, carrying the text that was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMode(pub String);

impl std::fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown mode {:?}: expected default, acceptEdits, plan or bypass", self.0)
    }
}

impl Mode {
    /// Every mode in Shift-Tab cycling order.
    pub const ALL: [Mode; 4] = [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::Bypass];

    /// Parses the exact spelling of SPEC §1.1.
    pub fn parse(text: &str) -> Result<Mode, UnknownMode> {
        match text {
            "default" => Ok(Mode::Default),
            "acceptEdits" => Ok(Mode::AcceptEdits),
            "plan" => Ok(Mode::Plan),
            "bypass" => Ok(Mode::Bypass),
            other => Err(UnknownMode(other.to_string())),
        }
    }

    /// The spelling of SPEC §1.1.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::Bypass => "bypass",
        }
    }

    /// The next mode in Shift-Tab order (wraps around).
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

impl std::str::FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(text: &str) -> Result<Mode, UnknownMode> {
        Mode::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_spellings_round_trip_and_reject_others() {
        for mode in Mode::ALL {
            assert_eq!(Mode::parse(mode.as_str()), Ok(mode));
            assert_eq!(mode.to_string(), mode.as_str());
        }
        for bad in ["", "Default", "acceptedits", "bypassPermissions", "yolo"] {
            assert_eq!(Mode::parse(bad), Err(UnknownMode(bad.to_string())));
        }
        assert_eq!(Mode::Bypass.next(), Mode::Default);
    }
}
