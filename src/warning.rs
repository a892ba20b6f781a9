//! A non-fatal problem found while loading or starting something, returned as a value.
//!
//! Invariant: warnings are always shown to the user (REPL banner, stderr, doctor), never swallowed.

/// One warning: where it comes from (a file, a server, a rule) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub source: String,
    pub message: String,
}

impl Warning {
    /// A warning about `source` (a file name, `mcp server github`, ...).
    pub fn new(source: impl Into<String>, message: impl Into<String>) -> Warning {
        Warning { source: source.into(), message: message.into() }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.source.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.source, self.message)
        }
    }
}

#[cfg(test)]
#[path = "warning_tests.rs"]
mod tests;
