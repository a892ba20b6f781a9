//! The agent's port to the permission system: one decision per call, what "always" does for a
//! call (saved exact rules, or the session's grant of file edits), and the session's rule book,
//! which `/permissions` lists and changes. The loop does not know which layers exist behind it.
//!
//! Invariant: a `Deny` message already starts with the stable refusal prefix of SPEC §1.1, so it
//! can be fed back to the model as it is. A change of the rules is saved to its file first, then
//! applied to the engine every agent of the session shares: the next call is decided by it.

use crate::hooks::HookPermission;
use crate::mode::Mode;
use crate::msg::ToolCall;
use crate::permission::book::{RuleBook, RuleFiles, Source, Which};
use crate::permission::rules::{Level, RuleList, RuleSet, RuleTexts};
use crate::permission::store::{self, RuleEdit, Saved};
use crate::permission::{CallInfo, Check, Decision, Engine, ReadFilter, RefusedBy, refused_by};
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

/// What answering "always" (`a`) to a call's approval does, said in the question before the key
/// is pressed, and done by `Gate::remember` after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Always {
    /// Save these exact allow rules to the local settings file (a command, a sensitive read, an
    /// MCP tool): the same call runs without asking from now on, in later sessions too.
    Save { rules: Vec<String> },
    /// File edits run without asking for the rest of this session, as in acceptEdits mode (what
    /// Claude Code's "allow all edits during this session" does); nothing is saved.
    EditsThisSession,
    /// Nothing lifts this ask for good: `a` runs the call this once. `why` says why.
    Once { why: String },
}

/// The permission system as the agent sees it.
pub trait Gate: Send + Sync {
    /// Decides one call of `tool`, by what the tool declares (its friendly name, kind and
    /// whether its read-only claim counts for permission).
    fn check(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> Verdict;
    /// What "always" would do for this call, asked in `mode`. By default it runs it once.
    fn always(&self, _mode: Mode, _call: &ToolCall, _tool: &dyn Tool) -> Always {
        Always::Once { why: "this session keeps no rules".to_string() }
    }
    /// Does what `always` said: saves the rules or grants the edits, applied from the next call.
    /// What was done, `None` when nothing was; a message on failure (the call ran once).
    fn remember(&self, _always: &Always) -> Result<Option<Remembered>, String> {
        Ok(None)
    }
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
    /// Whether bypass mode would run this call: not when an ask rule or a deny names it. Yes by
    /// default.
    fn bypass_allows(&self, _call: &ToolCall, _tool: &dyn Tool) -> bool {
        true
    }
    /// The rules in force as `/permissions` lists them; `None` when this gate keeps no rules.
    fn rule_book(&self) -> Option<RuleBook> {
        None
    }
    /// `/permissions add`: checks `rule` with the engine's parser, saves it to `level`'s file
    /// (the session keeps `Level::Session` rules) and applies it; what was done, for the person.
    fn add_rule(&self, _list: RuleList, _level: Level, _rule: &str) -> Result<String, String> {
        Err("this session keeps no rules".to_string())
    }
    /// `/permissions remove`: takes a rule (or the grant of edits) out of its file or the
    /// session and applies it; what was done, for the person.
    fn remove_rule(&self, _which: &Which) -> Result<String, String> {
        Err("this session keeps no rules".to_string())
    }
}

/// A call of `tool` as the permission engine sees it.
fn call_info<'a>(call: &'a ToolCall, tool: &'a dyn Tool) -> CallInfo<'a> {
    CallInfo { rule_name: tool.rule_name(), input: &call.input, kind: tool.kind() }
}

/// What an "always" answer did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remembered {
    /// The rules it saved, the file they went to, and where the file that was there went when
    /// it was not mewcode's own (then its rules no longer apply).
    Saved {
        rules: Vec<String>,
        file: PathBuf,
        /// The unmarked file's new name, and why it was not mewcode's (`Mark::why`).
        set_aside: Option<(PathBuf, &'static str)>,
    },
    /// File edits run without asking for the rest of the session.
    EditsGranted,
}

impl Remembered {
    /// The notice the person sees: `saved allow rule Bash(=ls) to /p/.mewcode/settings.local.yaml`,
    /// and when the file there was not mewcode's, where it went and that its rules do not apply;
    /// or that edits no longer ask, and how to take that back.
    pub(crate) fn describe(&self) -> String {
        let (rules, file, set_aside) = match self {
            Remembered::EditsGranted => {
                return "file edits run without asking for the rest of this session (nothing saved; \
                        /permissions lists the grant and removes it)"
                    .to_string();
            }
            Remembered::Saved { rules, file, set_aside } => (rules, file, set_aside),
        };
        let noun = if rules.len() == 1 { "rule" } else { "rules" };
        let saved = format!("saved allow {noun} {} to {}", rules.join(" and "), file.display());
        match set_aside {
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

/// The real permission system: the engine over the session's rule book, with "always" answers
/// and `/permissions` changes saved to their settings files and applied at once in this session.
pub(crate) struct EngineGate {
    engine: std::sync::RwLock<Engine>,
    /// The rules in force and their files. Locked before `engine` whenever both are.
    book: std::sync::Mutex<RuleBook>,
    /// This installation's key, which marks the local file as mewcode's own.
    owner: Owner,
}

impl EngineGate {
    /// A gate over rule texts that were already loaded and checked (no fatal problems), whose
    /// files are under `root` (see `with_rule_files`).
    pub(crate) fn new(
        root: PathBuf,
        user_home: Option<PathBuf>,
        owner: Owner,
        texts: Vec<(Level, RuleTexts)>,
    ) -> EngineGate {
        let book = RuleBook::new(RuleFiles::under(root.clone()), texts);
        let engine = Engine::new(root, user_home, book.ruleset());
        EngineGate { engine: std::sync::RwLock::new(engine), book: std::sync::Mutex::new(book), owner }
    }

    /// The gate for commands that all run in the sandbox's namespace view: read-only ones then
    /// run without asking (`Engine::with_read_only_commands`), also after "always" answers.
    pub(crate) fn with_read_only_commands(self, in_view: bool) -> EngineGate {
        let engine = crate::sync::read(&self.engine).clone().with_read_only_commands(in_view);
        EngineGate { engine: std::sync::RwLock::new(engine), ..self }
    }

    /// The gate whose file tools may also reach the added directories (`Engine::with_added_dirs`).
    pub(crate) fn with_added_dirs(self, added: &[crate::config::AddDir]) -> EngineGate {
        let engine = crate::sync::read(&self.engine).clone().with_added_dirs(added);
        EngineGate { engine: std::sync::RwLock::new(engine), ..self }
    }

    /// Where the rules came from: the user's file, the project's trust, the local file's mark.
    pub(crate) fn with_rule_files(self, files: RuleFiles) -> EngineGate {
        let book = crate::sync::lock(&self.book).clone().with_files(files);
        EngineGate { book: std::sync::Mutex::new(book), ..self }
    }

    /// The full decision object (for `mewcode check`).
    pub(crate) fn explain(&self, mode: Mode, call: &CallInfo<'_>, read_only: bool) -> Check {
        crate::sync::read(&self.engine).check(mode, call, read_only)
    }

    /// The decision for a call of `tool`: in the default mode, a file edit is decided as in
    /// acceptEdits once the session granted edits.
    fn decide(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> Check {
        let granted = crate::sync::lock(&self.book).edits_granted();
        let mode = if granted && mode == Mode::Default && tool.kind() == ToolKind::WritesPath {
            Mode::AcceptEdits
        } else {
            mode
        };
        self.explain(mode, &call_info(call, tool), tool.permission_read_only())
    }

    /// Builds the engine again over the book's rules: the next call is decided by them.
    fn apply(&self, book: &RuleBook) {
        let mut engine = crate::sync::write(&self.engine);
        *engine = engine.with_rules(book.ruleset());
    }

    /// Saves `edit` to `level`'s file (nothing for the session's rules) and applies it.
    fn save(
        &self,
        book: &mut RuleBook,
        level: Level,
        list: RuleList,
        edit: RuleEdit<'_>,
    ) -> Result<Option<(PathBuf, Saved)>, String> {
        let saved = match book.files().file(level) {
            // The session's and this run's rules live in memory only.
            None if matches!(level, Level::Session | Level::Invocation) => None,
            None => return Err(format!("the {} settings file is not known in this session", level.as_str())),
            Some((base, rel)) => {
                let saved = if level == Level::Local {
                    store::save_local_rules(&base, &self.owner, list, edit)?
                } else {
                    store::save_plain_rules(&base, rel, list, edit)?
                };
                Some((base.join(rel), saved))
            }
        };
        let fresh = saved.as_ref().is_some_and(|(_, saved)| saved.set_aside.is_some());
        book.apply(level, list, edit, fresh);
        self.apply(book);
        Ok(saved)
    }
}

impl Gate for EngineGate {
    fn check(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> Verdict {
        let check = self.decide(mode, call, tool);
        match check.decision {
            Decision::Allow => Verdict::Allow,
            Decision::Ask => Verdict::Ask { reason: check.reason },
            Decision::Deny => {
                let by = refused_by(&check).unwrap_or(RefusedBy::Approval);
                Verdict::Deny { by, message: by.text(&check.reason) }
            }
        }
    }

    fn always(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> Always {
        let info = call_info(call, tool);
        let read_only = tool.permission_read_only();
        let book = crate::sync::lock(&self.book);
        let engine = crate::sync::read(&self.engine);
        if tool.kind() == ToolKind::WritesPath {
            // An edit is granted for the session, never saved: only where the mode's ask is what
            // stands in its way (not a control file, a sensitive file or an ask rule).
            let granted =
                mode == Mode::Default && engine.check(Mode::AcceptEdits, &info, read_only).decision == Decision::Allow;
            return if granted {
                Always::EditsThisSession
            } else {
                Always::Once { why: "this ask holds even for granted edits; an allow rule (/permissions add) can lift a sensitive file's".to_string() }
            };
        }
        let rules = engine.always_allow_rules(&info);
        if rules.is_empty() {
            return Always::Once { why: "no exact rule can allow this call".to_string() };
        }
        let trial = engine.with_rules(book.ruleset_with_allowed(&rules));
        if trial.check(mode, &info, read_only).decision != Decision::Allow {
            return Always::Once { why: "an allow rule would not lift this ask".to_string() };
        }
        Always::Save { rules }
    }

    fn allowing_rules(&self, call: &ToolCall, tool: &dyn Tool) -> Vec<String> {
        crate::sync::read(&self.engine).always_allow_rules(&call_info(call, tool))
    }

    fn remember(&self, always: &Always) -> Result<Option<Remembered>, String> {
        let mut book = crate::sync::lock(&self.book);
        match always {
            Always::Once { .. } => Ok(None),
            Always::EditsThisSession => {
                book.grant_edits();
                Ok(Some(Remembered::EditsGranted))
            }
            Always::Save { rules } => {
                let saved = self.save(&mut book, Level::Local, RuleList::Allow, RuleEdit::Add(rules))?;
                let Some((file, saved)) = saved else { return Ok(None) };
                let set_aside = saved.set_aside.map(|(rejected, mark)| (rejected, mark.why()));
                Ok(Some(Remembered::Saved { rules: rules.clone(), file, set_aside }))
            }
        }
    }

    fn read_filter(&self) -> Option<ReadFilter> {
        Some(crate::sync::read(&self.engine).read_filter())
    }

    fn hook_may_allow(&self, mode: Mode, call: &ToolCall, tool: &dyn Tool) -> bool {
        crate::permission::hook_may_allow(&self.decide(mode, call, tool))
    }

    fn bypass_allows(&self, call: &ToolCall, tool: &dyn Tool) -> bool {
        self.decide(Mode::Bypass, call, tool).decision == Decision::Allow
    }

    fn rule_book(&self) -> Option<RuleBook> {
        Some(crate::sync::lock(&self.book).clone())
    }

    fn add_rule(&self, list: RuleList, level: Level, rule: &str) -> Result<String, String> {
        let mut book = crate::sync::lock(&self.book);
        let rule = book.check_addition(list, level, rule)?;
        let rules = [rule.clone()];
        let saved = self.save(&mut book, level, list, RuleEdit::Add(&rules))?;
        let what = format!("{} rule {rule}", list.as_str());
        let mut said = match &saved {
            None => format!("added {what} for this session (not saved)"),
            Some((file, _)) => format!("added {what} to {} ({})", file.display(), level.as_str()),
        };
        said.push_str(&match (list, book.files().allow_ignored(level)) {
            (RuleList::Allow, Some(why)) => format!("; it does not apply: this file's allow rules are {why}"),
            _ => "; it applies from the next tool call".to_string(),
        });
        if let Some((_, saved)) = &saved {
            said.push_str(&side_effects(saved));
        }
        if level == Level::Project && book.files().project_trusted {
            said.push_str("; the project's trust covers this file, so the next start asks you to trust it again");
        }
        // Well-formed rules that grant more than they seem to (the start-up report's notes).
        let texts = RuleTexts { allow: rules.to_vec(), ..RuleTexts::default() };
        if list == RuleList::Allow {
            for problem in RuleSet::from_texts(vec![(level, texts)]).1 {
                said.push_str(&format!("; note: {}", problem.message));
            }
        }
        Ok(said)
    }

    fn remove_rule(&self, which: &Which) -> Result<String, String> {
        let mut book = crate::sync::lock(&self.book);
        let entry = book.find_removable(which)?;
        let level = match entry.source {
            Source::Rule(level) => level,
            Source::EditsGrant => {
                book.revoke_edits();
                return Ok("removed the session's grant of file edits: edits ask again".to_string());
            }
            Source::BuiltIn => {
                return Err(format!("entry {} is built into mewcode: it cannot be removed", entry.number));
            }
        };
        let saved = self.save(&mut book, level, entry.list, RuleEdit::Remove(&entry.text))?;
        let what = format!("{} rule {}", entry.list.as_str(), entry.text);
        Ok(match saved {
            None => format!("removed {what} from this session; it no longer applies"),
            Some((file, saved)) => {
                format!("removed {what} from {}; it no longer applies{}", file.display(), side_effects(&saved))
            }
        })
    }
}

/// What else saving a settings file did: a file set aside, comments kept in a copy.
fn side_effects(saved: &Saved) -> String {
    let mut said = String::new();
    if let Some((rejected, mark)) = &saved.set_aside {
        said.push_str(&format!(
            "; the local file there was not mewcode's, as {}: it is kept at {}, with none of its rules applied",
            mark.why(),
            rejected.display()
        ));
    }
    if let Some(backup) = &saved.backup {
        said.push_str(&format!("; its comments are not kept, the previous version is at {}", backup.display()));
    }
    said
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
