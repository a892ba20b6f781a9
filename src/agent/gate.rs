//! The agent's port to the permission system: one decision per call, and persistence of
//! "always" answers. The loop does not know which layers exist behind it.
//!
//! Invariant: a `Deny` message already starts with the stable refusal prefix of SPEC §1.1, so it
//! can be fed back to the model as it is.

use crate::hooks::HookPermission;
use crate::mode::Mode;
use crate::msg::ToolCall;
use crate::permission::rules::{Level, RuleSet, RuleTexts};
use crate::permission::{CallInfo, Check, Decision, Engine, ReadFilter, RefusedBy, refused_by, store};
use crate::session::Owner;
use crate::tools::Tool;
use std::path::PathBuf;

/// What the gate decided for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Ask the human; in -p mode this becomes a "needs approval:" denial.
    Ask {
        reason: String,
    },
    /// Refused by `by`; `message` starts with its prefix (`denied by sandbox: ...`).
    Deny {
        by: RefusedBy,
        message: String,
    },
}

/// The permission system as the agent sees it.
pub trait Gate: Send + Sync {
    /// Decides one call of `tool`, by what the tool declares (its friendly name, kind and
    /// whether its read-only claim counts for permission).
    fn check(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> Verdict;
    /// Persists an exact allow rule for this call ("always"): what was saved and where, `None`
    /// when this gate keeps no file; a message on failure.
    fn remember(&self, call: &ToolCall, tool: &dyn Tool) -> Result<Option<Remembered>, String>;
    /// The exact allow rules that "always" would save for this call (none when no rule can).
    fn allowing_rules(&self, _call: &ToolCall, _tool: &dyn Tool) -> Vec<String> {
        Vec::new()
    }
    /// What the walks of grep and glob must leave out, as the rules stand now; `None` leaves the
    /// tools their built-in sandbox and sensitive-file checks.
    fn read_filter(&self) -> Option<ReadFilter> {
        None
    }
    /// Whether a PreToolUse hook's "allow" may turn this call's Ask into a run: only an ask of
    /// the mode matrix (`permission::hook_may_allow`). No by default.
    fn hook_may_allow(&self, _mode: Mode, _call: &ToolCall, _tool: &dyn Tool) -> bool {
        false
    }
}

/// A call of `tool` as the permission engine sees it.
fn call_info<'a>(call: &'a ToolCall, tool: &'a dyn Tool) -> CallInfo<'a> {
    CallInfo { rule_name: tool.rule_name(), input: &call.input, kind: tool.kind() }
}

/// The rules an "always" answer saved, the file they went to, and where the file that was there
/// went when it was not mewcode's own (then its rules no longer apply).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remembered {
    pub rules: Vec<String>,
    pub file: PathBuf,
    /// The unmarked file's new name, and why it was not mewcode's (`Mark::why`).
    pub set_aside: Option<(PathBuf, &'static str)>,
}

impl Remembered {
    /// The notice the person sees: `saved allow rule Bash(=ls) to /p/.mewcode/settings.local.yaml`,
    /// and when the file there was not mewcode's, where it went and that its rules do not apply.
    pub(crate) fn describe(&self) -> String {
        let noun = if self.rules.len() == 1 { "rule" } else { "rules" };
        let saved = format!("saved allow {noun} {} to {}", self.rules.join(" and "), self.file.display());
        match &self.set_aside {
            None => saved,
            Some((rejected, why)) => format!(
                "{saved}, a new file: the one there was not mewcode's, as {why}. It is kept at {}, with none \
                 of its rules applied: review it, then delete it or move the rules you want to \
                 .mewcode/settings.yaml",
                rejected.display()
            ),
        }
    }
}

/// The verdict once a PreToolUse hook's permission decision is applied (pure): a hook's ask
/// holds even where rules or the mode allow (its reason joins the gate's); its allow runs the
/// call only where `may_allow` (the gate's `hook_may_allow`, asked only then) says the ask was
/// the mode's. A deny stays a deny: a hook never lifts the blacklist, the sandbox or a rule.
pub(crate) fn with_hook(verdict: Verdict, hook: Option<HookPermission>, may_allow: impl FnOnce() -> bool) -> Verdict {
    match (verdict, hook) {
        (Verdict::Allow, Some(HookPermission::Ask { reason })) => {
            Verdict::Ask { reason: format!("a hook asks: {reason}") }
        }
        (Verdict::Ask { reason }, Some(HookPermission::Ask { reason: hook })) => {
            Verdict::Ask { reason: format!("{reason}; a hook asks: {hook}") }
        }
        (Verdict::Ask { .. }, Some(HookPermission::Allow { .. })) if may_allow() => Verdict::Allow,
        (verdict, _) => verdict,
    }
}

/// The real permission system: the five-layer engine over the loaded rules, with "always"
/// answers persisted to the local settings file and applied at once in this session.
pub(crate) struct EngineGate {
    engine: std::sync::RwLock<Engine>,
    /// The rule texts of every level as loaded (allow rules of untrusted levels already removed).
    texts: std::sync::Mutex<Vec<(Level, RuleTexts)>>,
    root: PathBuf,
    /// This installation's key, which marks the local file as mewcode's own.
    owner: Owner,
}

impl EngineGate {
    /// A gate over rule texts that were already loaded and checked (no fatal problems).
    pub(crate) fn new(
        root: PathBuf,
        user_home: Option<PathBuf>,
        owner: Owner,
        texts: Vec<(Level, RuleTexts)>,
    ) -> EngineGate {
        let (rules, _) = RuleSet::from_texts(texts.clone());
        let engine = Engine::new(root.clone(), user_home, rules);
        EngineGate { engine: std::sync::RwLock::new(engine), texts: std::sync::Mutex::new(texts), root, owner }
    }

    /// The gate for commands that all run in the sandbox's namespace view: read-only ones then
    /// run without asking (`Engine::with_read_only_commands`), also after "always" answers.
    pub(crate) fn with_read_only_commands(self, in_view: bool) -> EngineGate {
        let engine = crate::sync::read(&self.engine).clone().with_read_only_commands(in_view);
        EngineGate { engine: std::sync::RwLock::new(engine), ..self }
    }

    /// The full decision object (for `mewcode check`).
    pub(crate) fn explain(&self, mode: Mode, call: &CallInfo<'_>, read_only: bool) -> Check {
        crate::sync::read(&self.engine).check(mode, call, read_only)
    }
}

impl Gate for EngineGate {
    fn check(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> Verdict {
        let check = self.explain(mode, &call_info(call, tool), tool.permission_read_only());
        match check.decision {
            Decision::Allow => Verdict::Allow,
            Decision::Ask => Verdict::Ask { reason: check.reason },
            Decision::Deny => {
                let by = refused_by(&check).unwrap_or(RefusedBy::Approval);
                Verdict::Deny { by, message: by.text(&check.reason) }
            }
        }
    }

    fn allowing_rules(&self, call: &ToolCall, tool: &dyn Tool) -> Vec<String> {
        crate::sync::read(&self.engine).always_allow_rules(&call_info(call, tool))
    }

    fn remember(&self, call: &ToolCall, tool: &dyn Tool) -> Result<Option<Remembered>, String> {
        let rules = self.allowing_rules(call, tool);
        if rules.is_empty() {
            return Err("no exact rule can allow this call (it was allowed once)".to_string());
        }
        let saved = store::save_local_allow_rules(&self.root, &self.owner, &rules)?;
        let mut texts = crate::sync::lock(&self.texts);
        match texts.iter_mut().find(|(level, _)| *level == Level::Local) {
            // The session follows the file: what was set aside (its deny rules too) is gone.
            Some((_, local_texts)) if saved.set_aside.is_some() => {
                *local_texts = RuleTexts { allow: rules.clone(), deny: Vec::new() };
            }
            Some((_, local_texts)) => {
                for rule in &rules {
                    if !local_texts.allow.contains(rule) {
                        local_texts.allow.push(rule.clone());
                    }
                }
            }
            None => texts.insert(0, (Level::Local, RuleTexts { allow: rules.clone(), deny: Vec::new() })),
        }
        let (ruleset, _) = RuleSet::from_texts(texts.clone());
        let mut engine = crate::sync::write(&self.engine);
        *engine = engine.with_rules(ruleset);
        let set_aside = saved.set_aside.map(|(rejected, mark)| (rejected, mark.why()));
        Ok(Some(Remembered { rules, file: self.root.join(store::LOCAL_SETTINGS), set_aside }))
    }

    fn read_filter(&self) -> Option<ReadFilter> {
        Some(crate::sync::read(&self.engine).read_filter())
    }

    fn hook_may_allow(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> bool {
        crate::permission::hook_may_allow(&self.explain(mode, &call_info(call, tool), tool.permission_read_only()))
    }
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
