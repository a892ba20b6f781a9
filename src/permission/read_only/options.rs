//! A command's options as written, for the read-only check: the first short-option cluster
//! holding a letter, or the first long option naming (or abbreviating, as getopt allows) a name.
//!
//! Invariant: only what precedes `--` is an option, and a letter anywhere in a cluster counts
//! (`-ro` has `o`), so an option is never missed for its spelling; an operand that looks like an
//! option may be taken for one, which only refuses more. It knows no program's option syntax.

/// A command's options as written, read up to `--`.
pub(super) struct Options<'a> {
    pub(super) args: &'a [String],
}

impl<'a> Options<'a> {
    pub(super) fn new(args: &'a [String]) -> Options<'a> {
        let end = args.iter().position(|arg| arg == "--").unwrap_or(args.len());
        Options { args: &args[..end] }
    }

    /// The first short-option cluster holding one of `letters` (`-o`, `-ro`, `-oFILE`).
    pub(super) fn short(&self, letters: &str) -> Option<&'a str> {
        self.args
            .iter()
            .find(|arg| {
                arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg.contains(|c| letters.contains(c))
            })
            .map(String::as_str)
    }

    /// The first long option naming one of `names`, also abbreviated as getopt allows
    /// (`--out`, `--output=x`).
    pub(super) fn long(&self, names: &[&str]) -> Option<&'a str> {
        self.args.iter().map(String::as_str).find(|arg| {
            let Some(long) = arg.strip_prefix("--") else { return false };
            let name = long.split_once('=').map_or(long, |(name, _)| name);
            !name.is_empty() && names.iter().any(|full| full.starts_with(name))
        })
    }
}
