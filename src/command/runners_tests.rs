//! Table tests of the reviewed code-running options (git, package managers, cargo) and variables.

use super::*;

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// The test project is `/proj`; `.` and its absolute spelling name it.
fn project(dir: &str) -> bool {
    matches!(dir, "." | "./" | "/proj")
}

/// (command line, expected risk) — the whole value, so a reason changing is seen too.
fn check(cases: &[(&str, Option<&str>)]) {
    let mut failures = Vec::new();
    for (command, expected) in cases {
        let all = words(command);
        let (program, args) = (all[0].as_str(), &all[1..]);
        let got = match program {
            "git" => git_risk(args, &project),
            "cargo" => cargo_risk(args, &project),
            _ => package_manager_risk(program, args, &project),
        };
        if got != *expected {
            failures.push(format!("{command:?}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

const NODE_OPTIONS: Option<&str> = Some("--node-options loads code into every node process (--require)");
const SCRIPT_SHELL: Option<&str> = Some("--script-shell picks the program that runs package scripts");
const USERCONFIG: Option<&str> = Some("--userconfig loads another npmrc, which can set node-options");
const PREFIX: Option<&str> = Some("--prefix runs the scripts of the package in another directory");
const CALL: Option<&str> = Some("npm exec -c runs a shell command line");
const CONFIG_SET: Option<&str> = Some("config set can set program-running keys (node-options, script-shell)");
const ABBREVIATED: Option<&str> = Some("an abbreviated option may be one that runs code");

#[test]
fn package_manager_options_that_run_code_are_exec_class() {
    check(&[
        ("npm test", None),
        ("npm test -- --watch", None),
        ("npm test -- --node-options=--require=./x.js", None),
        ("npm run build -- --script-shell=x", None),
        ("npm test --node-options=--require=./x.js", NODE_OPTIONS),
        ("npm test --node-options --require=./x.js", NODE_OPTIONS),
        ("npm test --node_options=x", NODE_OPTIONS),
        ("npm test --NODE-OPTIONS=x", NODE_OPTIONS),
        ("npm --node-options=x test", NODE_OPTIONS),
        ("npm test --node-opt=x", ABBREVIATED),
        ("npm test --scr=x", ABBREVIATED),
        ("npm test --script-shell=./evil.sh", SCRIPT_SHELL),
        ("npm test --userconfig=./x", USERCONFIG),
        ("npm test --globalconfig ./x", Some("--globalconfig loads another npmrc, which can set node-options")),
        ("npm test --prefix sub", PREFIX),
        ("npm test --prefix=/tmp/x", PREFIX),
        ("npm test -C sub", PREFIX),
        ("npm test -Csub", PREFIX),
        ("npm test --prefix .", None),
        ("npm test --prefix=/proj", None),
        ("npm test -C .", None),
        ("npm exec -c 'rm x'", CALL),
        ("npm exec --call=x", CALL),
        ("npx -c x", CALL),
        ("npx --shell=./evil cowsay", Some("--shell picks the program npm exec and explore run")),
        ("npm install --git=./evil x", Some("--git picks the program npm runs for git dependencies")),
        ("npm install --python=./evil", Some("--python picks the program node-gyp runs")),
        ("npm init --init-module=./x.js", Some("--init-module is code npm init runs")),
        ("npm install -g typescript", None),
        ("npm install --save-exact x", None),
        ("npm ci --ignore", None),
        ("npm install --global typescript", None),
        ("npm install --registry=https://r.example x", None),
        ("npm ci --ignore-scripts", None),
        ("npm install -D --save-dev x", None),
        ("npm config get prefix", None),
        ("npm config list", None),
        ("npm config", None),
        ("npm config set node-options=--require=./x.js", CONFIG_SET),
        ("npm config edit", CONFIG_SET),
        ("npm c set script-shell x", CONFIG_SET),
        ("npm set script-shell x", CONFIG_SET),
        ("npm explore lodash -- sh", Some("npm explore runs a command in a dependency's directory")),
        ("pnpm test --node-options=x", NODE_OPTIONS),
        ("pnpm --config.node-options=x test", NODE_OPTIONS),
        ("pnpm -C sub test", Some("--dir runs the scripts of the package in another directory")),
        ("pnpm --dir . test", None),
        ("pnpm -c exec 'rm x'", Some("pnpm exec -c runs a shell command line")),
        ("pnpm config set node-options x", CONFIG_SET),
        ("pnpm install", None),
        ("yarn test", None),
        ("yarn test --node-options=x", NODE_OPTIONS),
        ("yarn --cwd sub test", Some("--cwd runs the scripts of the package in another directory")),
        ("yarn --cwd . test", None),
        ("yarn --use-yarnrc ./x test", Some("--use-yarnrc loads another yarnrc, which can set yarn-path")),
        ("yarn run --require ./x.js test", Some("--require loads a module into node")),
        ("yarn exec 'rm x'", Some("yarn exec runs a shell command line")),
        ("yarn dlx cowsay", Some("runs a package's program, which the rule does not name")),
        ("npm exec cowsay", Some("runs a package's program, which the rule does not name")),
        ("npm x -- cowsay", Some("runs a package's program, which the rule does not name")),
        ("pnpm dlx cowsay", Some("runs a package's program, which the rule does not name")),
        ("yarn config set yarn-path ./x", CONFIG_SET),
        // yarn does not expand abbreviations, so an unknown prefix is just unknown.
        ("yarn test --node", None),
    ]);
}

#[test]
fn git_options_that_run_code_are_exec_class() {
    check(&[
        ("git status", None),
        ("git -C . status", None),
        ("git -C /proj status", None),
        ("git -C sub status", Some("git -C another directory runs with that repository's configuration")),
        ("git -C /tmp/x status", Some("git -C another directory runs with that repository's configuration")),
        ("git -C", Some("git -C another directory runs with that repository's configuration")),
        ("git --bare status", Some("git with another repository's configuration can run its programs")),
        ("git init --template=./t", Some("git --template installs hooks that run later")),
        ("git init --template ./t", Some("git --template installs hooks that run later")),
        ("git clone --template=./t url", Some("git --template installs hooks that run later")),
        ("git init", None),
        ("git hook run pre-commit", Some("git hook runs repository hooks")),
        ("git instaweb", Some("git runs external programs")),
        ("git send-email --to-cmd=./x", Some("git option can run a program or write a file")),
        ("git -c core.pager=sh log", Some("git -c can set program-running configuration")),
        ("git --paginate log", Some("git can run a pager or helper programs")),
        ("git -p log", Some("git can run a pager or helper programs")),
        ("git --exec-path=/tmp log", Some("git can run a pager or helper programs")),
        ("git --no-pager log", None),
        ("git diff --output-indicator-new=+", None),
        ("git submodule update --init", None),
        ("git submodule foreach make", Some("git submodule foreach runs commands")),
        ("git bisect start", None),
        ("git bisect run make", Some("git bisect run runs commands")),
        ("git rebase main", None),
        ("git rebase --exec make main", Some("git rebase --exec runs commands")),
        ("git grep foo", None),
        ("git grep -O foo", Some("git grep -O runs a pager")),
        ("git diff --output=x.patch", Some("git option can run a program or write a file")),
    ]);
}

#[test]
fn cargo_options_that_run_code_are_exec_class() {
    check(&[
        ("cargo test", None),
        ("cargo test --release -p mewcode", None),
        ("cargo test -- --config x", None),
        ("cargo test --config target.x.runner='sh'", Some("cargo --config can set the programs cargo runs")),
        ("cargo --config=x.toml build", Some("cargo --config can set the programs cargo runs")),
        ("cargo -C sub build", Some("cargo -C builds the package in another directory")),
        ("cargo -C . build", None),
    ]);
}

#[test]
fn variables_that_name_programs_or_configuration_are_dangerous() {
    let cases: &[(&str, bool)] = &[
        ("NODE_OPTIONS", true),
        ("npm_config_node_options", true),
        ("NPM_CONFIG_SCRIPT_SHELL", true),
        ("npm_config_userconfig", true),
        ("YARN_YARN_PATH", true),
        ("GIT_DIR", true),
        ("GIT_WORK_TREE", true),
        ("LD_PRELOAD", true),
        ("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", true),
        ("RUSTC_WRAPPER", true),
        ("HOME", true),
        ("MANPAGER", true),
        ("SUDO_EDITOR", true),
        ("BASH_FUNC_ls%%", true),
        ("PATH", true),
        ("LANG", false),
        ("RUST_LOG", false),
        ("CI", false),
        ("NODE_ENV", false),
        ("TZ", false),
    ];
    for (name, dangerous) in cases {
        assert_eq!(is_dangerous_variable(name), *dangerous, "{name}");
    }
}

#[test]
fn the_package_option_table_is_consistent() {
    let mut seen = Vec::new();
    for option in PACKAGE_OPTIONS {
        for tool in option.tools {
            let key = (*tool, option.long);
            assert!(!seen.contains(&key), "{key:?} is reviewed twice");
            seen.push(key);
            if let Some(short) = option.short {
                let clash = PACKAGE_OPTIONS
                    .iter()
                    .filter(|other| other.tools.contains(tool) && other.short == Some(short))
                    .count();
                assert_eq!(clash, 1, "{tool} -{short} is in the table {clash} times");
            }
        }
        assert!(!option.tools.is_empty() && !option.long.starts_with('-'), "{}", option.long);
    }
    // Directory options must be code-running ones, or naming the project would not matter.
    for name in DIRECTORY_OPTIONS {
        assert!(PACKAGE_OPTIONS.iter().any(|option| option.long == *name && option.runs.is_some()), "{name}");
    }
}

#[test]
fn the_program_option_table_spots_options_that_run_programs() {
    let words = |text: &str| text.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let cases: &[(&str, bool)] = &[
        ("sort --compress-program=gzip a", true),
        ("sort --compress-program gzip a", true),
        ("sort -o out a", false),
        ("ssh -o ProxyCommand=x host", true),
        ("ssh -oproxycommand=x host", true),
        ("ssh -o LocalCommand=x host", true),
        ("ssh -o ConnectTimeout=5 host", false),
        ("ssh host uptime", false),
        ("ssh -Fcfg host", true),
        ("scp -S prog a b", true),
        ("vim +!id a", true),
        ("vim -c !id a", true),
        ("vim -R a", false),
        ("less +!id a", true),
        ("less -R a", false),
        ("man -Pcat ls", true),
        ("man --pager=cat ls", true),
        ("man ls", false),
        ("go test -exec prog ./...", true),
        ("go build -toolexec=prog .", true),
        ("go test ./...", false),
        ("sqlite3 db .shell id", true),
        ("sqlite3 db select", false),
        ("tar -Iprog -cf a src", true),
        ("tar -xf a", false),
        ("find . -exec id ;", true),
        ("find . -name x", false),
        ("rg -z x", true),
        ("rsync -avze ssh a b", true),
        ("zip -TT id a.zip a", true),
        ("make --eval=x", true),
        ("sort -- --compress-program=x", false),
    ];
    for (command, risky) in cases {
        let words = words(command);
        let (program, args) = words.split_first().unwrap();
        assert_eq!(program_option_risk(program, args).is_some(), *risky, "{command}");
    }
}

const CREDENTIAL: Option<&str> = Some("git credential runs credential helpers and prints stored passwords");

#[test]
fn git_credential_commands_and_helpers_are_exec_class() {
    check(&[
        ("git credential fill", CREDENTIAL),
        ("git credential approve", CREDENTIAL),
        ("git credential reject", CREDENTIAL),
        ("git credential --help", CREDENTIAL),
        ("git credential-cache get", CREDENTIAL),
        ("git credential-cache exit", CREDENTIAL),
        ("git credential-store --file x get", CREDENTIAL),
        ("git credential-libsecret get", CREDENTIAL),
        ("git --no-pager credential fill", CREDENTIAL),
        ("git -C . credential fill", CREDENTIAL),
        // Reading the configured helper's name, or the help page, prints no password.
        ("git config --get credential.helper", None),
        ("git help credential", None),
        ("git log --grep credential", None),
        ("git show credential-store", None),
    ]);
}
