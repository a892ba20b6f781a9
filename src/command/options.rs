//! A command's options as written, read two ways: split GNU-style into long flags, short letters
//! and operands (the blacklist's family checks), and looked up by short letter or long name (the
//! read-only check).
//!
//! Invariant: options are read up to `--`, and a short cluster counts every letter (`-rf` is
//! `-r -f`, `-ro` has `o`), so no spelling of a flag hides it. It knows no program's option
//! syntax: a value may be read as more letters or an operand, and an operand that looks like an
//! option may be taken for one — both only ever add candidates, so a check built on it refuses
//! more, never less.

/// Options and operands of a GNU-style command line.
pub(crate) struct CommandLine<'a> {
    /// Long names (without dashes and without `=value`) given before `--`.
    pub(crate) flags: Vec<&'a str>,
    /// Short option letters given before `--`, clusters concatenated.
    pub(crate) short: String,
    pub(crate) operands: Vec<&'a str>,
}

/// Splits `args` into long flags, short letters and operands (GNU permutation, `--` ends options).
pub(crate) fn split_options(args: &[String]) -> CommandLine<'_> {
    let mut line = CommandLine { flags: Vec::new(), short: String::new(), operands: Vec::new() };
    let mut options_done = false;
    for arg in args {
        if options_done || arg == "-" || !arg.starts_with('-') {
            line.operands.push(arg);
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            line.flags.push(long.split('=').next().unwrap_or(long));
        } else {
            line.short.push_str(&arg[1..]);
        }
    }
    line
}

/// A command's options as written, read up to `--`.
pub(crate) struct Options<'a> {
    pub(crate) args: &'a [String],
}

impl<'a> Options<'a> {
    pub(crate) fn new(args: &'a [String]) -> Options<'a> {
        let end = args.iter().position(|arg| arg == "--").unwrap_or(args.len());
        Options { args: &args[..end] }
    }

    /// The first short-option cluster holding one of `letters` (`-o`, `-ro`, `-oFILE`).
    pub(crate) fn short(&self, letters: &str) -> Option<&'a str> {
        self.args
            .iter()
            .find(|arg| {
                arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg.contains(|c| letters.contains(c))
            })
            .map(String::as_str)
    }

    /// The first long option naming one of `names`, also abbreviated as getopt allows
    /// (`--out`, `--output=x`).
    pub(crate) fn long(&self, names: &[&str]) -> Option<&'a str> {
        self.args.iter().map(String::as_str).find(|arg| {
            let Some(long) = arg.strip_prefix("--") else { return false };
            let name = long.split_once('=').map_or(long, |(name, _)| name);
            !name.is_empty() && names.iter().any(|full| full.starts_with(name))
        })
    }
}
