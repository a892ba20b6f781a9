//! The reviewed table of options and environment variables that turn a development tool into a
//! runner of code nobody named in the rule: git, the JavaScript package managers (npm, npx,
//! pnpm, yarn) and cargo. `wrappers::exec_risk` reads the options, the rules read the
//! variables (`NAME=value cmd`, `export NAME=…`).
//!
//! Invariant: a command using one of these is exec-class — a broad allow rule (`Bash(git *)`,
//! `Bash(npm test*)`) never allows it, only an exact rule does, so the user sees it first. The
//! tables also record what was reviewed and found harmless, so the review can be redone and
//! grown; an option in no table counts as harmless. It does not judge the tool's ordinary work:
//! `npm test` runs the project's own scripts and `cargo test` its build scripts, which is what
//! the rule's author allowed. It only spots what the command line says; configuration files the
//! repository itself carries (`.npmrc`, `.cargo/config.toml`, a bare-repository layout) are the
//! hardened child environment's concern, not this table's.

/// Whether a directory argument names the project itself (`.`, or the root however spelled).
pub(crate) type ProjectDir<'a> = &'a dyn Fn(&str) -> bool;

// ---------------------------------------------------------------------------------------------
// git. Reviewed global options: `-c`/`--config-env` (any key, e.g. core.pager, core.fsmonitor,
// alias.x=!sh) RUN; `--exec-path=DIR` RUNS (helpers from DIR); `-p`/`--paginate` RUNS the
// configured pager; `--git-dir`, `--work-tree`, `--bare` RUN (another repository's config and
// hooks); `-C DIR` RUNS unless DIR is the project (a nested clone brings its own config);
// `--no-pager`, `--literal-pathspecs`, `--namespace` harmless. Subcommands: `config` (writing)
// RUNS later; `submodule foreach`, `bisect run`, `rebase --exec/-x`, `filter-branch`,
// `difftool`, `mergetool`, `instaweb`, `hook run` RUN; `init`/`clone --template` RUN later
// (hooks copied from the template); `clone/fetch/pull/ls-remote/archive -u/--upload-pack`,
// `push --receive-pack/--exec`, `--ext-diff`, `--textconv`, `grep -O`, `send-email
// --sendmail-cmd/--to-cmd/--cc-cmd/--header-cmd/--smtp-server` RUN; `--output` writes a file.
// `status`, `log`, `diff` (without the options above), `add`, `commit`, `show` harmless here
// (repository hooks are the self-protection layer's and the child environment's concern).
// `credential` (fill/approve/reject) and the `credential-*` helpers (`credential-cache`,
// `credential-store`, `credential-libsecret`, …, also run as `git-credential-*` programs) RUN
// the configured helpers and print stored passwords: a rule for git must name them itself.
// ---------------------------------------------------------------------------------------------

/// Why these git arguments may run a program other than git, or `None`.
pub(crate) fn git_risk(args: &[String], project_dir: ProjectDir<'_>) -> Option<&'static str> {
    let mut index = 0;
    // Global options come before the subcommand; the first positional is the subcommand.
    while let Some(arg) = args.get(index) {
        if arg == "-c" || arg.starts_with("-c") || arg.starts_with("--config-env") {
            return Some("git -c can set program-running configuration");
        }
        if arg.starts_with("--exec-path=") || arg == "-p" || arg == "--paginate" {
            return Some("git can run a pager or helper programs");
        }
        if arg.starts_with("--git-dir") || arg.starts_with("--work-tree") || arg == "--bare" {
            return Some("git with another repository's configuration can run its programs");
        }
        if arg == "-C" && !args.get(index + 1).is_some_and(|dir| project_dir(dir)) {
            return Some("git -C another directory runs with that repository's configuration");
        }
        if ["-C", "--namespace", "--super-prefix"].contains(&arg.as_str()) {
            index += 2;
            continue;
        }
        if !arg.starts_with('-') {
            break;
        }
        index += 1;
    }
    let subcommand = args.get(index).map(String::as_str).unwrap_or_default();
    let rest = args.get(index + 1..).unwrap_or_default();
    // Long options also take `--opt=value`; short ones also an attached value (`-Osh`).
    let flagged = |flags: &[&str]| {
        rest.iter().any(|arg| {
            flags.iter().any(|flag| {
                let short = flag.len() == 2 && !flag.starts_with("--");
                arg == flag || arg.starts_with(&format!("{flag}=")) || (short && arg.starts_with(flag))
            })
        })
    };
    if is_credential_command(subcommand) {
        return Some("git credential runs credential helpers and prints stored passwords");
    }
    match subcommand {
        "config" => {
            let reads = ["--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list"];
            (!rest.iter().any(|arg| reads.contains(&arg.as_str()))).then_some("git config can set program-running keys")
        }
        "submodule" if rest.iter().any(|arg| arg == "foreach") => Some("git submodule foreach runs commands"),
        "bisect" if rest.iter().any(|arg| arg == "run") => Some("git bisect run runs commands"),
        "hook" => Some("git hook runs repository hooks"),
        "filter-branch" | "difftool" | "mergetool" | "instaweb" => Some("git runs external programs"),
        "rebase" if flagged(&["--exec", "-x"]) => Some("git rebase --exec runs commands"),
        "grep" if flagged(&["-O", "--open-files-in-pager"]) => Some("git grep -O runs a pager"),
        "init" | "clone" if flagged(&["--template"]) => Some("git --template installs hooks that run later"),
        "clone" | "fetch" | "pull" | "ls-remote" | "archive" if flagged(&["-u", "-c", "--config"]) => {
            Some("git can run an upload-pack program or set configuration in a new repository")
        }
        _ if flagged(&[
            "--output",
            "--ext-diff",
            "--textconv",
            "--upload-pack",
            "--receive-pack",
            "--exec",
            "--config",
            "--sendmail-cmd",
            "--smtp-server",
            "--to-cmd",
            "--cc-cmd",
            "--header-cmd",
        ]) =>
        {
            Some("git option can run a program or write a file")
        }
        _ => None,
    }
}

/// `credential`, `credential-cache`, `credential-store`, … — as a git subcommand, or as the
/// `git-credential-*` program's name.
pub(crate) fn is_credential_command(name: &str) -> bool {
    name == "credential" || name.starts_with("credential-")
}

// ---------------------------------------------------------------------------------------------
// Package managers. npm and pnpm read every configuration key as a `--key=value` option
// anywhere before `--` (after it, words belong to the script), accept `_` for `-` and unique
// abbreviations (`--node-opt`), and read the same keys from `npm_config_*` variables.
// ---------------------------------------------------------------------------------------------

/// One reviewed package-manager option.
struct PackageOption {
    /// The programs that read it.
    tools: &'static [&'static str],
    /// The long name as documented.
    long: &'static str,
    /// Its one-letter alias, if any.
    short: Option<char>,
    /// Why it makes the tool run code nobody named; `None` when reviewed and harmless.
    runs: Option<&'static str>,
}

const NPM: &[&str] = &["npm", "npx"];
const NPM_PNPM: &[&str] = &["npm", "npx", "pnpm", "pnpx"];
const ALL: &[&str] = &["npm", "npx", "pnpm", "pnpx", "yarn"];

/// Options whose value is a directory; naming the project itself is harmless.
const DIRECTORY_OPTIONS: &[&str] = &["prefix", "dir", "cwd"];

const fn runs(tools: &'static [&'static str], long: &'static str, why: &'static str) -> PackageOption {
    PackageOption { tools, long, short: None, runs: Some(why) }
}

const fn harmless(tools: &'static [&'static str], long: &'static str, short: Option<char>) -> PackageOption {
    PackageOption { tools, long, short, runs: None }
}

const PACKAGE_OPTIONS: &[PackageOption] = &[
    runs(ALL, "node-options", "--node-options loads code into every node process (--require)"),
    runs(ALL, "script-shell", "--script-shell picks the program that runs package scripts"),
    runs(NPM_PNPM, "shell", "--shell picks the program npm exec and explore run"),
    runs(NPM_PNPM, "userconfig", "--userconfig loads another npmrc, which can set node-options"),
    runs(NPM_PNPM, "globalconfig", "--globalconfig loads another npmrc, which can set node-options"),
    PackageOption {
        tools: NPM,
        long: "prefix",
        short: Some('C'),
        runs: Some("--prefix runs the scripts of the package in another directory"),
    },
    PackageOption {
        tools: &["pnpm", "pnpx"],
        long: "dir",
        short: Some('C'),
        runs: Some("--dir runs the scripts of the package in another directory"),
    },
    runs(&["yarn"], "cwd", "--cwd runs the scripts of the package in another directory"),
    PackageOption { tools: NPM, long: "call", short: Some('c'), runs: Some("npm exec -c runs a shell command line") },
    PackageOption {
        tools: &["pnpm", "pnpx"],
        long: "shell-mode",
        short: Some('c'),
        runs: Some("pnpm exec -c runs a shell command line"),
    },
    runs(NPM, "git", "--git picks the program npm runs for git dependencies"),
    runs(NPM, "editor", "--editor picks a program npm runs"),
    runs(NPM, "browser", "--browser picks a program npm runs"),
    runs(NPM, "viewer", "--viewer picks a program npm runs"),
    runs(NPM, "init-module", "--init-module is code npm init runs"),
    runs(NPM, "onload-script", "--onload-script is code npm loads at start"),
    runs(NPM_PNPM, "node-gyp", "--node-gyp picks the program that builds native modules"),
    runs(NPM_PNPM, "python", "--python picks the program node-gyp runs"),
    runs(&["yarn"], "use-yarnrc", "--use-yarnrc loads another yarnrc, which can set yarn-path"),
    runs(&["yarn"], "require", "--require loads a module into node"),
    // Reviewed and harmless: where packages come from (any package name can already be
    // malicious), installing outside the project (the OS sandbox's concern), output and
    // selection switches.
    harmless(ALL, "registry", None),
    harmless(ALL, "global", Some('g')),
    harmless(ALL, "workspace", Some('w')),
    harmless(ALL, "ignore-scripts", None),
    harmless(ALL, "dry-run", None),
    harmless(ALL, "loglevel", None),
    harmless(ALL, "silent", Some('s')),
    harmless(ALL, "cache", None),
    harmless(ALL, "save-dev", Some('D')),
    harmless(ALL, "legacy-peer-deps", None),
    harmless(ALL, "foreground-scripts", None),
    harmless(ALL, "if-present", None),
    harmless(ALL, "package", Some('p')),
];

/// Programs parsed with nopt, which expands unique abbreviations of long options.
const ABBREVIATING: &[&str] = &["npm", "npx", "pnpm", "pnpx"];

/// Why these package-manager arguments may run code nobody named, or `None`.
pub(crate) fn package_manager_risk(
    program: &str,
    args: &[String],
    project_dir: ProjectDir<'_>,
) -> Option<&'static str> {
    let options = || PACKAGE_OPTIONS.iter().filter(|option| option.tools.contains(&program));
    let mut index = 0;
    let mut operands = Vec::new();
    while let Some(arg) = args.get(index) {
        index += 1;
        if arg == "--" {
            break;
        }
        let next = args.get(index).map(String::as_str);
        if let Some(long) = arg.strip_prefix("--").filter(|long| !long.is_empty()) {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let name = name.to_ascii_lowercase().replace('_', "-");
            let name = name.strip_prefix("config.").unwrap_or(&name);
            match options().find(|option| option.long == name) {
                Some(option) => {
                    if let Some(why) = option.runs {
                        let dir = value.or(next).unwrap_or_default();
                        if !(DIRECTORY_OPTIONS.contains(&option.long) && project_dir(dir)) {
                            return Some(why);
                        }
                    }
                }
                None if ABBREVIATING.contains(&program)
                    && name.len() >= 3
                    && options().any(|option| option.runs.is_some() && option.long.starts_with(name)) =>
                {
                    return Some("an abbreviated option may be one that runs code");
                }
                None => {}
            }
        } else if arg.len() > 1 && arg.starts_with('-') {
            for (offset, letter) in arg.char_indices().skip(1) {
                let Some(option) = options().find(|option| option.short == Some(letter)) else { continue };
                let attached = &arg[offset + 1..];
                let dir = if attached.is_empty() { next.unwrap_or_default() } else { attached };
                if let Some(why) = option.runs
                    && !(DIRECTORY_OPTIONS.contains(&option.long) && project_dir(dir))
                {
                    return Some(why);
                }
            }
        } else {
            operands.push(arg.as_str());
        }
    }
    match (program, operands.as_slice()) {
        ("npm" | "pnpm" | "yarn", ["config" | "c", action, ..]) if !matches!(*action, "get" | "list" | "ls") => {
            Some("config set can set program-running keys (node-options, script-shell)")
        }
        ("npm", ["set", ..]) => Some("config set can set program-running keys (node-options, script-shell)"),
        ("npm", ["explore", ..]) => Some("npm explore runs a command in a dependency's directory"),
        ("yarn", ["exec", ..]) => Some("yarn exec runs a shell command line"),
        // npm-exec(1), pnpm dlx, yarn dlx: fetch a package and run its program.
        ("npm" | "pnpm", ["exec" | "x", ..]) | ("pnpm" | "yarn", ["dlx", ..]) => {
            Some("runs a package's program, which the rule does not name")
        }
        _ => None,
    }
}

/// cargo: `--config KEY=VALUE|FILE` can set `target.<triple>.runner`, `build.rustc-wrapper`,
/// aliases — programs run by `cargo test`; `-C DIR` builds another package. Reviewed and
/// harmless: `--manifest-path` inside the project (outside it, the path check asks),
/// `--target-dir`, `--features`, `-p`, `--release`, `--offline`, `-Z` flags, and everything
/// after `--` (it belongs to the test binary).
pub(crate) fn cargo_risk(args: &[String], project_dir: ProjectDir<'_>) -> Option<&'static str> {
    for (index, arg) in args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        if arg == "--config" || arg.starts_with("--config=") {
            return Some("cargo --config can set the programs cargo runs");
        }
        if arg == "-C" && !args.get(index + 1).is_some_and(|dir| project_dir(dir)) {
            return Some("cargo -C builds the package in another directory");
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Other programs: options that make a program run another program (or a shell command line)
// that the rule never named. One row per option, with the manual it was read from. Reviewed and
// harmless (no row): `sort -o`, `ssh` remote commands (they run on the other host), `less -R`,
// `man -k`, `go build/test/vet` without the rows below (they build and run the project's own
// code, as `cargo test` does), `tar -x`, `zip -r`, `rsync -a`.
// ---------------------------------------------------------------------------------------------

/// How a row's option is written on the command line.
#[derive(Clone, Copy)]
enum Spelling {
    /// `--name`, `--name=value`, or a single-dash word option (`-exec`, `-TT`).
    Word(&'static str),
    /// A letter inside a short-option cluster (`-e`, `-avze`).
    Short(char),
    /// Any argument starting with this text (`+cmd`, `-Pcat`, `.shell`).
    Prefix(&'static str),
    /// The value of an option (`-o KEY…`, `-oKEY…`) starting with one of these keys,
    /// compared case-insensitively.
    Value(&'static str, &'static [&'static str]),
}

/// One reviewed option.
struct ProgramOption {
    programs: &'static [&'static str],
    spelling: Spelling,
    why: &'static str,
    /// Where the behaviour is documented.
    #[expect(dead_code, reason = "a record for whoever redoes the review; nothing reads it at run time")]
    source: &'static str,
}

const fn row(
    programs: &'static [&'static str],
    spelling: Spelling,
    why: &'static str,
    source: &'static str,
) -> ProgramOption {
    ProgramOption { programs, spelling, why, source }
}

const FIND: &[&str] = &["find"];
const TAR: &[&str] = &["tar", "gtar"];
const SSH: &[&str] = &["ssh", "scp", "sftp"];
const VIM: &[&str] = &["vi", "vim", "nvim", "view", "vimdiff", "ex", "gvim", "rvim"];
const MAKE: &[&str] = &["make", "gmake"];
const SSH_COMMANDS: &[&str] = &["proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match"];

const PROGRAM_OPTIONS: &[ProgramOption] = &[
    row(FIND, Spelling::Word("-exec"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-execdir"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-ok"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-okdir"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-delete"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-fls"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-fprint"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-fprint0"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(FIND, Spelling::Word("-fprintf"), "find can run programs or delete files", "find(1) ACTIONS"),
    row(&["rg"], Spelling::Word("--pre"), "rg can run preprocessors", "rg(1) --pre"),
    row(&["rg"], Spelling::Word("--hostname-bin"), "rg can run preprocessors", "rg(1) --hostname-bin"),
    row(&["rg"], Spelling::Word("--search-zip"), "rg can run preprocessors", "rg(1) --search-zip"),
    row(&["rg"], Spelling::Short('z'), "rg can run preprocessors", "rg(1) -z"),
    row(TAR, Spelling::Word("--to-command"), "tar can run programs", "tar(1) --to-command"),
    row(TAR, Spelling::Word("--checkpoint-action"), "tar can run programs", "tar(1) --checkpoint-action=exec"),
    row(TAR, Spelling::Word("--use-compress-program"), "tar can run programs", "tar(1) -I"),
    row(TAR, Spelling::Word("--info-script"), "tar can run programs", "tar(1) -F"),
    row(TAR, Spelling::Word("--new-volume-script"), "tar can run programs", "tar(1) -F"),
    row(TAR, Spelling::Prefix("-I"), "tar can run programs", "tar(1) -I"),
    row(TAR, Spelling::Prefix("-F"), "tar can run programs", "tar(1) -F"),
    row(&["rsync"], Spelling::Word("--rsh"), "rsync can run a remote shell", "rsync(1) -e"),
    row(&["rsync"], Spelling::Short('e'), "rsync can run a remote shell", "rsync(1) -e"),
    row(&["zip"], Spelling::Word("-TT"), "zip can run a test command", "zip(1) -TT"),
    row(&["zip"], Spelling::Word("--unzip-command"), "zip can run a test command", "zip(1) -TT"),
    row(MAKE, Spelling::Word("--eval"), "make runs recipes given on the command line or another shell", "make(1) -E"),
    row(MAKE, Spelling::Word("-E"), "make runs recipes given on the command line or another shell", "make(1) -E"),
    row(&["sort"], Spelling::Word("--compress-program"), "sort can run a compressor", "sort(1)"),
    row(SSH, Spelling::Value("-o", SSH_COMMANDS), "ssh can run a local command", "ssh_config(5)"),
    row(SSH, Spelling::Prefix("-F"), "ssh reads a configuration that can run commands", "ssh(1) -F"),
    row(&["scp", "sftp"], Spelling::Prefix("-S"), "scp/sftp run the given program as ssh", "scp(1) -S"),
    row(VIM, Spelling::Prefix("+"), "vim runs an Ex command (:!cmd runs a program)", "vim(1) +cmd"),
    row(VIM, Spelling::Prefix("-c"), "vim runs an Ex command (:!cmd runs a program)", "vim(1) -c"),
    row(VIM, Spelling::Word("--cmd"), "vim runs an Ex command (:!cmd runs a program)", "vim(1) --cmd"),
    row(VIM, Spelling::Prefix("-S"), "vim sources a script", "vim(1) -S"),
    row(VIM, Spelling::Prefix("-s"), "vim replays typed commands from a file", "vim(1) -s"),
    row(VIM, Spelling::Prefix("-u"), "vim reads another vimrc", "vim(1) -u"),
    row(
        &["less", "more"],
        Spelling::Prefix("+"),
        "less runs a command at start (+!cmd runs a program)",
        "less(1) +cmd",
    ),
    row(&["man"], Spelling::Prefix("-P"), "man runs the given pager", "man(1) -P"),
    row(&["man"], Spelling::Word("--pager"), "man runs the given pager", "man(1) --pager"),
    row(&["man"], Spelling::Prefix("-H"), "man runs a browser", "man(1) -H"),
    row(&["man"], Spelling::Word("--html"), "man runs a browser", "man(1) --html"),
    row(&["go"], Spelling::Word("-exec"), "go runs the binary through the given program", "go help test, go help run"),
    row(&["go"], Spelling::Word("--exec"), "go runs the binary through the given program", "go help test"),
    row(&["go"], Spelling::Word("-toolexec"), "go runs the toolchain through the given program", "go help build"),
    row(&["go"], Spelling::Word("-vettool"), "go vet runs the given program", "go help vet"),
    row(&["npm", "npx"], Spelling::Word("--call"), "npm exec runs a shell command line", "npm-exec(1) --call"),
    row(&["npx"], Spelling::Word("-c"), "npx runs a shell command line", "npm-exec(1) -c"),
    row(&["sqlite3"], Spelling::Prefix(".shell"), "sqlite3 runs a shell command", "sqlite3(1) .shell"),
    row(&["sqlite3"], Spelling::Prefix(".system"), "sqlite3 runs a shell command", "sqlite3(1) .system"),
    row(&["sqlite3"], Spelling::Word("-cmd"), "sqlite3 runs dot-commands (.shell)", "sqlite3(1) -cmd"),
    row(&["sqlite3"], Spelling::Word("-init"), "sqlite3 runs dot-commands (.shell)", "sqlite3(1) -init"),
    row(&["wget"], Spelling::Word("--use-askpass"), "wget runs the askpass program", "wget(1) --use-askpass"),
    row(&["hg"], Spelling::Word("--config"), "hg --config can set hooks and aliases", "hg help config"),
    row(&["emacs"], Spelling::Word("--eval"), "emacs evaluates Lisp", "emacs(1) --eval"),
    row(&["emacs"], Spelling::Word("-l"), "emacs loads Lisp", "emacs(1) -l"),
    row(&["emacs"], Spelling::Word("--load"), "emacs loads Lisp", "emacs(1) --load"),
    row(&["gdb"], Spelling::Word("-ex"), "gdb runs commands (shell included)", "gdb(1) -ex"),
    row(&["gdb"], Spelling::Word("-x"), "gdb runs a command file", "gdb(1) -x"),
];

/// Why these arguments make `program` run another program, per the reviewed table, or `None`.
/// Options are read up to `--`.
pub(crate) fn program_option_risk(program: &str, args: &[String]) -> Option<&'static str> {
    let rows: Vec<&ProgramOption> = PROGRAM_OPTIONS.iter().filter(|row| row.programs.contains(&program)).collect();
    if rows.is_empty() {
        return None;
    }
    for (index, arg) in args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        for row in &rows {
            let hit = match row.spelling {
                Spelling::Word(flag) => arg == flag || arg.strip_prefix(flag).is_some_and(|rest| rest.starts_with('=')),
                Spelling::Short(letter) => {
                    arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(letter)
                }
                Spelling::Prefix(prefix) => arg.starts_with(prefix),
                Spelling::Value(flag, keys) => {
                    let value =
                        if arg == flag { args.get(index + 1).map(String::as_str) } else { arg.strip_prefix(flag) };
                    value.is_some_and(|value| {
                        let value = value.trim_start().to_ascii_lowercase();
                        keys.iter().any(|key| value.starts_with(key))
                    })
                }
            };
            if hit {
                return Some(row.why);
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Environment variables (compared case-insensitively: npm reads `npm_config_*` in any case).
// ---------------------------------------------------------------------------------------------

/// Variables that name a program, a module to load, or where configuration comes from.
const DANGEROUS_VARIABLES: &[&str] = &[
    // The shell itself.
    "PATH",
    "IFS",
    "ENV",
    "BASH_ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "SHELL",
    "CDPATH",
    "EXECIGNORE",
    "BASH_LOADABLES_PATH",
    // Where per-user configuration (~/.gitconfig, ~/.npmrc) is read from.
    "HOME",
    "XDG_CONFIG_HOME",
    // Programs other programs start.
    "VISUAL",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    // Interpreters' preloads and search paths.
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PERL5OPT",
    "PERL5LIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    // Compilers and their flags, run by build scripts (`-B DIR`, `-fplugin`, `-C linker=`).
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "AS",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "MAKEFLAGS",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTDOC",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
];

/// Families of variables: the dynamic loader, git's and cargo's whole configuration, npm's and
/// yarn's configuration keys, bash's exported functions (`BASH_FUNC_ls%%`).
const DANGEROUS_PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_", "CARGO_", "NPM_CONFIG_", "YARN_", "BASH_FUNC_"];

/// `PAGER`, `MANPAGER`, `GIT_PAGER`, `EDITOR`, `SUDO_EDITOR`, …: each names a program.
const DANGEROUS_SUFFIXES: &[&str] = &["PAGER", "EDITOR"];

/// True when assigning `name` for a command can change what it runs or loads.
pub(crate) fn is_dangerous_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    DANGEROUS_VARIABLES.contains(&upper.as_str())
        || DANGEROUS_PREFIXES.iter().any(|prefix| upper.starts_with(prefix))
        || DANGEROUS_SUFFIXES.iter().any(|suffix| upper.ends_with(suffix))
}

#[cfg(test)]
#[path = "runners_tests.rs"]
mod tests;
