//! The hook events of Claude Code's contract that mewcode fires, and one configured hook command.

/// The hook events of Claude Code's contract that mewcode fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
}

impl HookEvent {
    /// Parses the config name (`PreToolUse`, ...).
    pub fn parse(name: &str) -> Option<HookEvent> {
        match name {
            "PreToolUse" => Some(HookEvent::PreToolUse),
            "PostToolUse" => Some(HookEvent::PostToolUse),
            "UserPromptSubmit" => Some(HookEvent::UserPromptSubmit),
            "Stop" => Some(HookEvent::Stop),
            _ => None,
        }
    }

    /// The config and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
        }
    }
}

/// One hook command. `matcher` is matched against the tool's friendly name (empty or `*`:
/// every tool); `timeout_s` None means the 60 s default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookConfig {
    pub event: HookEvent,
    pub matcher: String,
    pub command: String,
    pub timeout_s: Option<u64>,
    pub source: String,
    /// Run inside the command sandbox: a project's hook (the repository wrote it). The user's
    /// own hooks (user config, `--config`) run as the user, as Claude Code runs them.
    pub confined: bool,
}
