//! What a script carries from one command to the next, for the blacklist: the variables it
//! assigns literally and the directory its `cd`s lead to, so `cd / && rm -rf *`,
//! `cd -P ~; rm -rf .` and `cd /tmp && cd .. && rm -rf *` are judged where they would run.
//!
//! Invariant: the working directory errs towards "critical". A move we cannot follow (`cd $X`
//! with X unknown, `popd`, `pushd +1`) leaves the script somewhere critical if any directory it
//! visited before was; a `cd $X` whose variable has several known values may have gone to each
//! of them (and somewhere unknown), and a path is judged from every one. Subshells are not
//! modelled: a `cd` inside `( … )` still counts afterwards, which can only add denials. Pure: the
//! real working directory is never read; a script starts in an unknown directory (the project)
//! taken as not critical, and a nested script (`bash -c`, `find -exec`) starts where its parent
//! was, with its parent's variables (exported or not: more candidates, never fewer).

use crate::command::normalize::{self, HOME, Variables};
use crate::command::wrappers;

/// Paths longer than this are not followed, so hostile `cd a; cd a; …` chains stay linear.
const MAX_TRACKED_PATH: usize = 1024;

/// Candidate directories kept at once (a `cd $X` with many known values of X).
const MAX_PLACES: usize = 16;

/// The state of a script at one command.
#[derive(Clone, Debug, Default)]
pub(super) struct Scope {
    pub(super) variables: Variables,
    cwd: Place,
    /// Where the script was before its last move, for `cd -`.
    previous: Place,
    /// Some directory the script moved to was critical.
    visited_critical: bool,
    /// The script's standard input is network data (a `bash -c` script fed by a download).
    pub(super) stdin_from_network: bool,
}

/// Where a script may be, as far as it tells.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    /// Directories it may be in, cleaned (absolute or [`HOME`]-based).
    paths: Vec<String>,
    /// It may also be somewhere we cannot spell: where it started, or after `cd $UNKNOWN`.
    unknown: bool,
    /// One of those directories is `/`, home, a system directory or a parent of one.
    critical: bool,
}

impl Default for Place {
    /// The start: the project, unknown and taken as not critical.
    fn default() -> Place {
        Place { paths: Vec::new(), unknown: true, critical: false }
    }
}

impl Place {
    /// The place at one spelled path; a path too long to follow counts as unknown.
    fn at(path: &str) -> Place {
        if path.len() > MAX_TRACKED_PATH {
            // Critical places are at most two levels deep; after giving up on a very long path
            // a later `..` counts as critical, as from any unknown directory.
            return Place::default();
        }
        let cleaned = normalize::clean_path(path);
        let critical = normalize::is_critical_target(&cleaned, false);
        Place { paths: vec![cleaned], unknown: false, critical }
    }

    /// Widens `self` to also cover `other`.
    fn merge(&mut self, other: Place) {
        for path in other.paths {
            if self.paths.contains(&path) {
                continue;
            }
            if self.paths.len() < MAX_PLACES {
                self.paths.push(path);
            } else {
                self.unknown = true;
            }
        }
        self.unknown |= other.unknown;
        self.critical |= other.critical;
    }
}

/// Where a `cd`-like command goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Move {
    To(String),
    Home,
    Back,
    Unknown,
}

impl Scope {
    /// True when the current directory may be `/`, home, a system directory or their parent.
    pub(super) fn cwd_is_critical(&self) -> bool {
        self.cwd.critical
    }

    /// True when `test` holds for some file `word` may name from here: relative to each
    /// directory the script may be in, and as written when that directory may be unknown.
    pub(super) fn names(&self, word: &str, test: impl Fn(&str) -> bool) -> bool {
        if word.starts_with(['/', '~']) {
            return test(word);
        }
        self.cwd.paths.iter().any(|base| test(&format!("{base}/{word}"))) || (self.cwd.unknown && test(word))
    }

    /// True when deleting `word` recursively from here would wreck the system or home.
    pub(super) fn is_critical(&self, word: &str) -> bool {
        if word.starts_with(['/', '~']) {
            return normalize::is_critical_target(word, false);
        }
        self.cwd.paths.iter().any(|base| normalize::is_critical_target(&format!("{base}/{word}"), false))
            || (self.cwd.unknown && normalize::is_critical_target(word, self.cwd.critical))
    }

    /// Applies the moves of every spelling of one command (variable variants): the script may
    /// then be wherever any spelling leads.
    pub(super) fn change_directory(&mut self, moves: &[Move]) {
        if moves.is_empty() {
            return;
        }
        let mut next = Place { paths: Vec::new(), unknown: false, critical: false };
        for step in moves {
            next.merge(self.destination(step));
        }
        self.visited_critical |= next.critical;
        self.previous = std::mem::replace(&mut self.cwd, next);
    }

    fn destination(&self, step: &Move) -> Place {
        match step {
            Move::Home => Place::at(HOME),
            Move::Back => self.previous.clone(),
            Move::Unknown => {
                Place { paths: Vec::new(), unknown: true, critical: self.visited_critical || self.cwd.critical }
            }
            Move::To(target) if target.contains(['$', '`']) => self.destination(&Move::Unknown),
            Move::To(target) if target.starts_with(['/', '~']) => Place::at(target),
            Move::To(target) => {
                // From an unknown directory only `..` (or staying put somewhere critical) can be
                // told apart.
                let from_unknown = self.cwd.unknown && normalize::is_critical_target(target, self.cwd.critical);
                let mut place = Place { paths: Vec::new(), unknown: self.cwd.unknown, critical: from_unknown };
                for base in &self.cwd.paths {
                    place.merge(Place::at(&format!("{base}/{target}")));
                }
                place
            }
        }
    }
}

/// The move `words` make when they are `cd`, `pushd` or `popd` (options such as `cd -P`
/// skipped), or `None` for any other command.
pub(super) fn directory_move(words: &[String]) -> Option<Move> {
    let program = wrappers::program_name(words.first()?);
    let args = &words[1..];
    let mut operands = args.iter().skip_while(|arg| arg.len() > 1 && arg.starts_with('-') && *arg != "--");
    let operand = match operands.clone().next() {
        Some(dashes) if dashes == "--" => {
            operands.next();
            operands.next()
        }
        _ => operands.next(),
    };
    let no_change = args.iter().any(|arg| arg == "-n");
    match program {
        "cd" | "chdir" => Some(match operand.map(String::as_str) {
            None => Move::Home,
            Some("-") => Move::Back,
            Some(target) => Move::To(target.to_string()),
        }),
        "pushd" if no_change => None,
        // `pushd +1` / `pushd -1` rotate the directory stack, which we do not keep.
        "pushd" if args.iter().any(|arg| is_stack_rotation(arg)) => Some(Move::Unknown),
        "pushd" => Some(match operand.map(String::as_str) {
            None => Move::Back,
            Some(target) => Move::To(target.to_string()),
        }),
        "popd" if no_change => None,
        "popd" => Some(Move::Unknown),
        _ => None,
    }
}

fn is_stack_rotation(arg: &str) -> bool {
    arg.strip_prefix(['+', '-']).is_some_and(|digits| !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
}
