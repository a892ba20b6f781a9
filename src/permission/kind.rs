//! What a tool does, as the permission engine judges it: each tool declares its kind, and the
//! engine decides by it (which argument is the target, which checks apply), never by the name.
//!
//! Invariant: a tool that declares nothing is `Opaque`, and exec-class unless read-only — the
//! strictest. A new built-in that writes files declares `WritesPath` and so gets the path
//! sandbox, self-protection, path rules and acceptEdits exactly as write_file does. Rules name
//! tools by their friendly names, so a rule's target is read from the same table.

/// What a tool does with its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// Reads at its `path` argument. `root_by_default`: no path means the project root (a
    /// search); `pattern`: its glob `pattern` is relative to the path and must stay inside too.
    ReadsPath { root_by_default: bool, pattern: bool },
    /// Writes the file at its `path` argument.
    WritesPath,
    /// Runs its `command` argument in a shell.
    RunsCommand,
    /// Anything else (MCP tools, `task`): a rule matches its name only.
    Opaque,
}

impl ToolKind {
    /// What a rule on such a tool matches: its command, its path, or nothing but its name.
    pub fn target(self) -> TargetKind {
        match self {
            ToolKind::RunsCommand => TargetKind::Command,
            ToolKind::ReadsPath { .. } | ToolKind::WritesPath => TargetKind::Path,
            ToolKind::Opaque => TargetKind::None,
        }
    }
}

/// What a tool's rules are matched against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// Bash: the command, per sub-command, with command globs.
    Command,
    /// Read/Write/Edit/Glob/Grep: a path, with path globs.
    Path,
    /// Everything else: only the tool name.
    None,
}

/// A built-in tool's model-facing name, its friendly name in permission rules, and its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ToolNames {
    /// What the model calls (`read_file`).
    pub name: &'static str,
    /// What permission rules and hooks match on (`Read`).
    pub rule: &'static str,
    pub kind: ToolKind,
}

pub(crate) const READ_FILE: ToolNames =
    ToolNames { name: "read_file", rule: "Read", kind: ToolKind::ReadsPath { root_by_default: false, pattern: false } };
pub(crate) const WRITE_FILE: ToolNames = ToolNames { name: "write_file", rule: "Write", kind: ToolKind::WritesPath };
pub(crate) const EDIT_FILE: ToolNames = ToolNames { name: "edit_file", rule: "Edit", kind: ToolKind::WritesPath };
pub(crate) const GLOB: ToolNames =
    ToolNames { name: "glob", rule: "Glob", kind: ToolKind::ReadsPath { root_by_default: true, pattern: true } };
pub(crate) const GREP: ToolNames =
    ToolNames { name: "grep", rule: "Grep", kind: ToolKind::ReadsPath { root_by_default: true, pattern: false } };
pub(crate) const BASH: ToolNames = ToolNames { name: "bash", rule: "Bash", kind: ToolKind::RunsCommand };
/// Every built-in of `tools/` (the `task` tool lives in `agent/`, is `Opaque` and names itself).
pub(crate) const BUILTIN_NAMES: [ToolNames; 6] = [READ_FILE, WRITE_FILE, EDIT_FILE, GLOB, GREP, BASH];

/// The kind of the tool a rule names: a built-in's own, `Opaque` for any other name.
pub(crate) fn kind_of_rule_tool(rule_tool: &str) -> ToolKind {
    BUILTIN_NAMES.iter().find(|names| names.rule == rule_tool).map_or(ToolKind::Opaque, |names| names.kind)
}
