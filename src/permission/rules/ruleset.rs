//! The rule levels and the decision over them: deny at any level wins, then ask at any level,
//! then allow at any level, else no match.
//!
//! Invariant: a malformed deny or ask rule is reported as fatal (SPEC: it stops start-up, because
//! skipping it would silently drop the user's protection); a malformed allow rule is a warning
//! and skipped. Two well-formed allow rules load and apply but warn, because they grant more
//! than they seem to: a negated one (everything it does not name) and an unanchored regex
//! (every command or path that merely contains a match). Each problem says which it is
//! (`Effect`), so the report at start-up always agrees with what the engine does.

use super::{Anchor, Level, Rule, RuleList, parse_rule, target_kind, unanchored_regex};
use crate::permission::kind::TargetKind;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// The rule texts of one level, as the settings file lists them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleTexts {
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
}

impl RuleTexts {
    /// The texts of one list.
    pub(crate) fn list(&self, list: RuleList) -> &Vec<String> {
        match list {
            RuleList::Allow => &self.allow,
            RuleList::Ask => &self.ask,
            RuleList::Deny => &self.deny,
        }
    }

    /// The texts of one list, to change.
    pub(crate) fn list_mut(&mut self, list: RuleList) -> &mut Vec<String> {
        match list {
            RuleList::Allow => &mut self.allow,
            RuleList::Ask => &mut self.ask,
            RuleList::Deny => &mut self.deny,
        }
    }
}

/// The parsed rules of one level.
#[derive(Clone, Debug, Default)]
pub struct LevelRules {
    pub allow: Vec<Rule>,
    pub ask: Vec<Rule>,
    pub deny: Vec<Rule>,
}

impl LevelRules {
    fn list(&self, list: RuleList) -> &Vec<Rule> {
        match list {
            RuleList::Allow => &self.allow,
            RuleList::Ask => &self.ask,
            RuleList::Deny => &self.deny,
        }
    }
}

/// All rules, nearest level first.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    pub levels: Vec<(Level, LevelRules)>,
}

/// A problem found while loading rules, and what became of the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleProblem {
    pub level: Level,
    pub list: RuleList,
    pub text: String,
    pub message: String,
    pub effect: Effect,
}

/// What loading did with a rule that has a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A malformed deny or ask rule: start-up must stop.
    Fatal,
    /// A malformed allow rule: left out of the rule set.
    Skipped,
    /// A well-formed rule that is in the rule set and applies, but deserves a second look.
    Applied,
}

impl RuleProblem {
    /// True when start-up must stop (a deny or ask rule that cannot be parsed).
    pub fn is_fatal(&self) -> bool {
        self.effect == Effect::Fatal
    }
}

impl std::fmt::Display for RuleProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} rule {:?}: {}", self.level.as_str(), self.list.as_str(), self.text, self.message)?;
        match self.effect {
            Effect::Fatal => Ok(()),
            Effect::Skipped => f.write_str("; rule skipped"),
            Effect::Applied => f.write_str("; the rule applies"),
        }
    }
}

impl RuleSet {
    /// Parses every level's rule texts; returns the usable rules and every problem.
    pub fn from_texts(levels: Vec<(Level, RuleTexts)>) -> (RuleSet, Vec<RuleProblem>) {
        let mut problems = Vec::new();
        let mut set = RuleSet::default();
        for (level, texts) in levels {
            let mut rules = LevelRules::default();
            for (list, sources) in
                [(RuleList::Allow, &texts.allow), (RuleList::Ask, &texts.ask), (RuleList::Deny, &texts.deny)]
            {
                for text in sources {
                    match parse_rule(text) {
                        Ok(rule) => {
                            if list == RuleList::Allow
                                && let Some(message) = allow_rule_warning(&rule)
                            {
                                problems.push(RuleProblem {
                                    level,
                                    list,
                                    text: text.clone(),
                                    message,
                                    effect: Effect::Applied,
                                });
                            }
                            match list {
                                RuleList::Allow => rules.allow.push(rule),
                                RuleList::Ask => rules.ask.push(rule),
                                RuleList::Deny => rules.deny.push(rule),
                            }
                        }
                        Err(error) => problems.push(RuleProblem {
                            level,
                            list,
                            text: text.clone(),
                            message: error.to_string(),
                            effect: if list == RuleList::Allow { Effect::Skipped } else { Effect::Fatal },
                        }),
                    }
                }
            }
            set.levels.push((level, rules));
        }
        (set, problems)
    }
}

/// Why a well-formed allow rule grants more than it seems to, if it does. Negation is the
/// seed's syntax (SPEC keeps `!inner` without restriction), so such rules apply; they are only
/// pointed out.
fn allow_rule_warning(rule: &Rule) -> Option<String> {
    let pattern = rule.pattern.as_ref()?;
    if pattern.source.starts_with('!') {
        return Some("a negated allow rule allows everything it does not name".into());
    }
    unanchored_regex(&pattern.matcher).map(|regex| {
        format!(
            "the regex {regex:?} is not anchored, so it allows every target that merely contains a match; \
             write ~^(?:{regex})$ to match the whole target"
        )
    })
}

/// The outcome of layer 3.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RuleDecision {
    Deny {
        level: Level,
        rule: String,
    },
    /// An ask rule matched: a person decides, whatever allow rules and the mode say.
    Ask {
        level: Level,
        rule: String,
    },
    Allow {
        level: Level,
        rule: String,
    },
    NoMatch,
}

/// A path call's target in every spelling a rule may be written against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PathTarget {
    /// The fully resolved path (from the sandbox).
    pub resolved: PathBuf,
    /// The lexical path (root joined, not resolved): deny rules also see this spelling.
    pub lexical: PathBuf,
    pub root: PathBuf,
    pub home: Option<PathBuf>,
}

/// The spelling of `path` a pattern with `anchor` is matched against: the absolute path, the
/// path relative to `root` (`.` for the root itself), or `~/` and the path relative to `home`;
/// `None` when the path is not under that anchor (or not UTF-8), so the pattern cannot match.
fn spelling<'p>(path: &'p Path, anchor: Anchor, root: &Path, home: Option<&Path>) -> Option<Cow<'p, str>> {
    match anchor {
        Anchor::Absolute => path.to_str().map(Cow::Borrowed),
        Anchor::Root => {
            path.strip_prefix(root).ok()?.to_str().map(|rel| if rel.is_empty() { Cow::from(".") } else { rel.into() })
        }
        Anchor::Home => path.strip_prefix(home?).ok()?.to_str().map(|rel| Cow::Owned(format!("~/{rel}"))),
    }
}

/// What the rules see of one call.
#[derive(Clone, Debug)]
pub(crate) enum CallTarget<'a> {
    /// No target: only the tool name matters (MCP, Task, unknown tools).
    None,
    /// A bash command; `root` resolves redirection targets.
    Command {
        command: &'a str,
        root: &'a Path,
    },
    Path(PathTarget),
}

/// A call as the rule layer sees it: the friendly or full tool name and its target.
#[derive(Clone, Debug)]
pub(crate) struct CallView<'a> {
    pub tool: &'a str,
    pub target: CallTarget<'a>,
}

/// Layer 3: deny at any level wins, then ask at any level, then allow at any level, else no
/// match. An ask rule names a call as a deny rule would (any sub-command, any spelling): it is
/// the user's protection too.
pub(crate) fn check_rules(ruleset: &RuleSet, call: &CallView<'_>) -> RuleDecision {
    let rules = |list: RuleList| {
        ruleset.levels.iter().flat_map(move |(level, rules)| {
            rules.list(list).iter().filter(|rule| rule.matches_tool(call.tool)).map(move |rule| (*level, rule))
        })
    };
    let decide = |list: RuleList, level: Level, rule: &Rule| match list {
        RuleList::Deny => RuleDecision::Deny { level, rule: rule.text.clone() },
        RuleList::Ask => RuleDecision::Ask { level, rule: rule.text.clone() },
        RuleList::Allow => RuleDecision::Allow { level, rule: rule.text.clone() },
    };
    let protective = [RuleList::Deny, RuleList::Ask];
    match &call.target {
        CallTarget::Command { command, root } => {
            let analysis = super::command_rules::analyze(command, root);
            for list in protective {
                for (level, rule) in rules(list) {
                    if analysis.deny_targets.iter().any(|target| pattern_matches(rule, target)) {
                        return decide(list, level, rule);
                    }
                }
            }
            let allow: Vec<(Level, &Rule)> = rules(RuleList::Allow).collect();
            analysis
                .allowed_by(&allow)
                .map_or(RuleDecision::NoMatch, |(level, rule)| RuleDecision::Allow { level, rule: rule.text.clone() })
        }
        CallTarget::Path(target) => {
            for list in protective {
                for (level, rule) in rules(list) {
                    if [&target.resolved, &target.lexical].iter().any(|path| path_rule_matches(rule, target, path)) {
                        return decide(list, level, rule);
                    }
                }
            }
            for (level, rule) in rules(RuleList::Allow) {
                if path_rule_matches(rule, target, &target.resolved) {
                    return RuleDecision::Allow { level, rule: rule.text.clone() };
                }
            }
            RuleDecision::NoMatch
        }
        CallTarget::None => [RuleList::Deny, RuleList::Ask, RuleList::Allow]
            .into_iter()
            .find_map(|list| rules(list).next().map(|(level, rule)| decide(list, level, rule)))
            .unwrap_or(RuleDecision::NoMatch),
    }
}

/// A rule with no pattern matches every target; with one, its matcher decides.
fn pattern_matches(rule: &Rule, target: &str) -> bool {
    rule.pattern.as_ref().is_none_or(|pattern| pattern.matcher.matches(target))
}

fn path_rule_matches(rule: &Rule, target: &PathTarget, path: &Path) -> bool {
    path_rule_names(rule, path, &target.root, target.home.as_deref())
}

/// True when a path rule names `path` (one spelling of a file under `root`): a rule without a
/// pattern names every path. The one path matcher of `check_rules`, shared with the walk's
/// `ReadFilter`.
pub(crate) fn path_rule_names(rule: &Rule, path: &Path, root: &Path, home: Option<&Path>) -> bool {
    let Some(pattern) = &rule.pattern else { return true };
    // A rule on a non-path tool name (a glob like `Re*`) has no pattern, so this is a path rule.
    debug_assert!(target_kind(&rule.tool) == TargetKind::Path || rule.tool.contains(['*', '?']));
    spelling(path, pattern.matcher.anchor(), root, home).is_some_and(|spelling| pattern.matcher.matches(&spelling))
}
