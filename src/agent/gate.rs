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
use crate::tools::{Tool, ToolKind};
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

/// The mode matrix alone (SPEC §5 layer 4): read-only → Allow; bypass → Allow; acceptEdits +
/// file write → Allow; everything else → Ask. Used where no rules are configured and in tests.
pub struct ModeMatrix;

impl Gate for ModeMatrix {
    fn check(&self, mode: Mode, _call: &ToolCall, tool: &dyn Tool) -> Verdict {
        let file_write = tool.kind() == ToolKind::WritesPath;
        let rule_name = tool.rule_name();
        match (tool.permission_read_only(), mode) {
            (true, _) | (false, Mode::Bypass) => Verdict::Allow,
            (false, Mode::AcceptEdits) if file_write => Verdict::Allow,
            (false, _) => Verdict::Ask { reason: format!("{rule_name} changes things; mode {mode} asks first") },
        }
    }

    fn remember(&self, _call: &ToolCall, _tool: &dyn Tool) -> Result<Option<Remembered>, String> {
        Ok(None)
    }

    fn hook_may_allow(&self, _mode: Mode, _call: &ToolCall, _tool: &dyn Tool) -> bool {
        // Every Ask of the matrix is the mode's.
        true
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
mod tests {
    use super::*;

    fn call(command: &str) -> ToolCall {
        ToolCall { id: "1".into(), name: "bash".into(), input: serde_json::json!({"command": command}).to_string() }
    }

    #[test]
    fn the_mode_matrix_lets_accept_edits_run_file_writers_only() {
        let tools = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
        let tool = |rule: &str| tools.iter().find(|tool| tool.rule_name() == rule).unwrap().as_ref();
        let verdict = |mode: Mode, rule: &str| ModeMatrix.check(mode, &call("ls"), tool(rule));
        assert_eq!(verdict(Mode::AcceptEdits, "Write"), Verdict::Allow);
        assert_eq!(verdict(Mode::AcceptEdits, "Edit"), Verdict::Allow);
        assert!(matches!(verdict(Mode::AcceptEdits, "Bash"), Verdict::Ask { .. }));
        assert!(matches!(verdict(Mode::Default, "Write"), Verdict::Ask { .. }));
        assert_eq!(verdict(Mode::Default, "Read"), Verdict::Allow);
        assert_eq!(verdict(Mode::Bypass, "Bash"), Verdict::Allow);
    }

    #[test]
    fn a_hook_asks_over_any_allow_and_allows_only_where_the_mode_asked() {
        let allow = || Some(HookPermission::Allow { reason: None });
        let ask = || Some(HookPermission::Ask { reason: "sure?".into() });
        let mode_ask = || Verdict::Ask { reason: "default mode asks".into() };
        let deny =
            || Verdict::Deny { by: RefusedBy::Rule(None), message: "denied by rule (user): Bash(curl *)".into() };
        let never = || -> bool { panic!("may_allow is only asked for an allow over an ask") };
        assert_eq!(with_hook(Verdict::Allow, None, never), Verdict::Allow);
        assert_eq!(with_hook(mode_ask(), None, never), mode_ask());
        assert_eq!(with_hook(Verdict::Allow, ask(), never), Verdict::Ask { reason: "a hook asks: sure?".into() });
        assert_eq!(
            with_hook(mode_ask(), ask(), never),
            Verdict::Ask { reason: "default mode asks; a hook asks: sure?".into() }
        );
        assert_eq!(with_hook(mode_ask(), allow(), || true), Verdict::Allow);
        assert_eq!(with_hook(mode_ask(), allow(), || false), mode_ask(), "self-protection or a sensitive file");
        assert_eq!(with_hook(Verdict::Allow, allow(), never), Verdict::Allow);
        assert_eq!(with_hook(deny(), allow(), never), deny());
        assert_eq!(with_hook(deny(), ask(), never), deny());
    }

    #[test]
    fn a_hook_may_allow_only_what_the_mode_matrix_asked() {
        let dir = std::env::temp_dir().join(format!("mewcode-gate-hook-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = std::fs::canonicalize(&dir).unwrap();
        let gate = EngineGate::new(root.clone(), None, Owner::none(), Vec::new());
        let tools = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
        let bash = tools.iter().find(|tool| tool.rule_name() == "Bash").unwrap().as_ref();
        let read = tools.iter().find(|tool| tool.rule_name() == "Read").unwrap().as_ref();
        // The default mode asks before a command: a hook's allow may lift that.
        assert!(gate.hook_may_allow(Mode::Default, &call("make"), bash));
        // A sensitive file asks at the sandbox layer, and the blacklist denies: a hook lifts neither.
        let secret = ToolCall { id: "2".into(), name: "read_file".into(), input: r#"{"path":".env"}"#.into() };
        assert!(!gate.hook_may_allow(Mode::Default, &secret, read));
        assert!(!gate.hook_may_allow(Mode::Default, &call("rm -rf /"), bash));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn always_persists_an_exact_rule_once_and_applies_it_at_once() {
        let dir = std::env::temp_dir().join(format!("mewcode-gate-{}", std::process::id()));
        let root = dir.join("proj");
        std::fs::create_dir_all(&root).unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        let owner = Owner::from_key([1; 32]);
        let gate = EngineGate::new(root.clone(), None, owner.clone(), Vec::new());
        let wipe = call("rm -rf build/*");
        let bash = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
        let bash = bash.iter().find(|tool| tool.rule_name() == "Bash").unwrap().as_ref();
        assert!(matches!(gate.check(Mode::Default, &wipe, bash), Verdict::Ask { .. }));
        let layer = |command: &str| gate.explain(Mode::Bypass, &CallInfo::named("Bash", &call(command).input), false);
        // A glob below the root cannot reach the root's control files; one at the root reaches
        // those that exist.
        std::fs::write(root.join("AGENTS.md"), "planted\n").unwrap();
        assert_eq!(layer("rm -rf build/*").decision, Decision::Allow);
        assert_eq!(layer("rm -rf *").decision, Decision::Allow, "bypass mode allows even self-protected writes");
        let protected = gate.explain(Mode::AcceptEdits, &CallInfo::named("Bash", &call("rm -rf *").input), false);
        assert!(protected.reason.contains("control files"), "{protected:?}");
        let nested = gate.explain(Mode::AcceptEdits, &CallInfo::named("Bash", &call("rm -rf sub/.g*").input), false);
        assert!(nested.reason.contains("control files"), "{nested:?}");
        let local = root.join(store::LOCAL_SETTINGS);
        let saved = gate.remember(&wipe, bash).unwrap().unwrap();
        let rules = vec!["Bash(=rm -rf 'build/*')".to_string()];
        assert_eq!(saved, Remembered { rules, file: local.clone(), set_aside: None });
        assert_eq!(saved.describe(), format!("saved allow rule Bash(=rm -rf 'build/*') to {}", local.display()));
        gate.remember(&wipe, bash).unwrap();
        let text = std::fs::read_to_string(&local).unwrap();
        assert_eq!(text.matches("Bash(").count(), 1, "{text}");
        assert_eq!(gate.check(Mode::Default, &wipe, bash), Verdict::Allow);
        assert!(matches!(gate.check(Mode::Default, &call("rm -rf src"), bash), Verdict::Ask { .. }));
        assert!(matches!(gate.check(Mode::Default, &call("rm -rf build/* src"), bash), Verdict::Ask { .. }));
        // A second rule joins the first, in the file and in the session.
        assert_eq!(gate.remember(&call("make"), bash).unwrap().unwrap().set_aside, None);
        assert_eq!(gate.check(Mode::Default, &wipe, bash), Verdict::Allow);
        assert_eq!(gate.check(Mode::Default, &call("make"), bash), Verdict::Allow);
        // A fresh gate over the file's rules (as the next start-up loads them) agrees.
        let (texts, mark) = store::load_local_rule_texts(&local, &owner).unwrap();
        assert_eq!(mark, store::Mark::Ours);
        let reloaded = EngineGate::new(root.clone(), None, owner, vec![(Level::Local, texts)]);
        assert_eq!(reloaded.check(Mode::Default, &wipe, bash), Verdict::Allow);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn always_over_a_planted_local_file_keeps_it_aside_and_the_session_follows_the_new_file() {
        let dir = std::env::temp_dir().join(format!("mewcode-gate-planted-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".mewcode")).unwrap();
        let root = std::fs::canonicalize(&dir).unwrap();
        let local = root.join(store::LOCAL_SETTINGS);
        std::fs::write(&local, "permissions:\n  allow: [\"Bash(*)\"]\n  deny: [\"Bash(=pwd)\"]\n").unwrap();
        let owner = Owner::from_key([1; 32]);
        // As start-up loads it: unmarked, so its allow rules were dropped; its deny rules apply.
        let (mut texts, mark) = store::load_local_rule_texts(&local, &owner).unwrap();
        assert_eq!(mark, store::Mark::Missing);
        texts.allow.clear();
        let gate = EngineGate::new(root.clone(), None, owner.clone(), vec![(Level::Local, texts)]);
        let bash = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
        let bash = bash.iter().find(|tool| tool.rule_name() == "Bash").unwrap().as_ref();
        assert!(matches!(gate.check(Mode::Default, &call("ls"), bash), Verdict::Ask { .. }), "Bash(*) is not applied");
        assert!(matches!(gate.check(Mode::Bypass, &call("pwd"), bash), Verdict::Deny { .. }));
        let saved = gate.remember(&call("ls"), bash).unwrap().unwrap();
        let rejected = root.join(".mewcode/settings.local.yaml.rejected");
        let expected = Remembered {
            rules: vec!["Bash(=ls)".to_string()],
            file: local.clone(),
            set_aside: Some((rejected.clone(), store::Mark::Missing.why())),
        };
        assert_eq!(saved, expected);
        let notice = saved.describe();
        assert!(
            notice.starts_with(&format!("saved allow rule Bash(=ls) to {}, a new file", local.display())),
            "{notice}"
        );
        assert!(notice.contains(&rejected.display().to_string()) && notice.contains("no mewcode mark"), "{notice}");
        assert!(std::fs::read_to_string(&rejected).unwrap().contains("Bash(*)"));
        // The file holds the new rule only, and so does the session: the deny went with the file.
        let (texts, mark) = store::load_local_rule_texts(&local, &owner).unwrap();
        assert_eq!(
            (texts, mark),
            (RuleTexts { allow: vec!["Bash(=ls)".to_string()], deny: Vec::new() }, store::Mark::Ours)
        );
        assert_eq!(gate.check(Mode::Default, &call("ls"), bash), Verdict::Allow);
        assert!(matches!(gate.check(Mode::Default, &call("make"), bash), Verdict::Ask { .. }));
        assert_eq!(gate.check(Mode::Bypass, &call("pwd"), bash), Verdict::Allow);
        // Without a key, "always" saves nothing and says why; the call was allowed once.
        let keyless = EngineGate::new(root.clone(), None, Owner::none(), Vec::new());
        assert!(keyless.remember(&call("make"), bash).unwrap_err().contains("no key"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
