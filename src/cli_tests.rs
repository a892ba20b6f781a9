//! The command line of SPEC §1.1, parsed: every flag, value form and usage error.

use super::*;

fn parse(line: &str) -> Result<Command, UsageError> {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    parse_args(&args)
}

fn error(line: &str) -> String {
    match parse(line) {
        Err(UsageError(message)) => message,
        Ok(command) => panic!("{line:?} parsed as {command:?}"),
    }
}

#[test]
fn the_help_states_the_agents_own_defaults() {
    // The text is a constant; this keeps it saying what the agent does.
    let cap = format!("(default {}; any positive number)", crate::agent::MAX_ITERATIONS);
    assert!(HELP.contains(&cap), "--max-iterations help must say {cap}");
}

#[test]
fn print_mode_with_every_option() {
    let command = parse(
        "-p hello --output-format stream-json --config x.yaml --provider p --model m --mode acceptEdits -C /tmp --max-iterations 5 --trust -q --allowedTools Edit,Read --disallowed-tools=Bash --allowed-tools Glob --add-dir ../lib --add-dir=/docs:ro",
    )
    .unwrap();
    let expected = Options {
        prompt: Some(PromptSource::Arg("hello".into())),
        output_format: Some(OutputFormat::StreamJson),
        config: Some("x.yaml".into()),
        provider: Some("p".into()),
        model: Some("m".into()),
        mode: Some(Mode::AcceptEdits),
        cwd: Some("/tmp".into()),
        resume: Resume::No,
        max_iterations: Some(5),
        trust: true,
        quiet: true,
        verbose: false,
        first_prompt: None,
        append_system_prompt: None,
        allowed_tools: vec!["Edit".into(), "Read".into(), "Glob".into()],
        disallowed_tools: vec!["Bash".into()],
        add_dirs: vec!["../lib".into(), "/docs:ro".into()],
        images: Vec::new(),
    };
    assert_eq!(command, Command::Run(expected));
}

#[test]
fn add_dir_is_taken_by_runs_check_and_doctor_only_and_never_empty() {
    let args = |words: &[&str]| parse_args(&words.iter().map(|word| word.to_string()).collect::<Vec<_>>());
    let Ok(Command::Run(options)) = args(&["--add-dir", "a", "--add-dir", "b:ro"]) else { panic!() };
    assert_eq!(options.add_dirs, ["a", "b:ro"]);
    assert!(matches!(args(&["doctor", "--add-dir", "a"]), Ok(Command::Doctor(_))));
    let Err(UsageError(message)) = args(&["sessions", "--add-dir", "a"]) else { panic!() };
    assert_eq!(message, "--add-dir: not with sessions");
    let Err(UsageError(message)) = args(&["-p", "x", "--add-dir", " "]) else { panic!() };
    assert_eq!(message, "--add-dir: empty value");
}

#[test]
fn image_is_repeatable_and_belongs_to_runs_only() {
    let args = |words: &[&str]| parse_args(&words.iter().map(|word| word.to_string()).collect::<Vec<_>>());
    let Ok(Command::Run(options)) = args(&["-p", "x", "--image", "a.png", "--image=b c.jpg"]) else { panic!() };
    assert_eq!(options.images, [std::path::PathBuf::from("a.png"), "b c.jpg".into()]);
    let Err(UsageError(message)) = args(&["doctor", "--image", "a.png"]) else { panic!() };
    assert_eq!(message, "--image: only with -p, not with doctor");
    let Err(UsageError(message)) = args(&["-p", "x", "--image", ""]) else { panic!() };
    assert!(message.starts_with("--image"), "{message}");
}

#[test]
fn allowed_tools_take_rules_with_spaces_inside_their_parentheses_and_refuse_bad_ones() {
    let args = |words: &[&str]| parse_args(&words.iter().map(|word| word.to_string()).collect::<Vec<_>>());
    let Ok(Command::Run(options)) = args(&["-p", "x", "--allowedTools", "Bash(git log *) Edit"]) else { panic!() };
    assert_eq!(options.allowed_tools, ["Bash(git log *)", "Edit"]);
    let Err(UsageError(message)) = args(&["-p", "x", "--disallowedTools", "Bash(git"]) else { panic!() };
    assert!(message.starts_with("--disallowedTools: \"Bash(git\" is not a rule"), "{message}");
    let Err(UsageError(message)) = args(&["doctor", "--allowedTools", "Edit"]) else { panic!() };
    assert_eq!(message, "--allowedTools/--disallowedTools: not with doctor");
}

#[test]
fn equals_form_and_stdin_prompt() {
    let Command::Run(options) = parse("--output-format=json -p - --mode=plan").unwrap() else { panic!() };
    assert_eq!(options.prompt, Some(PromptSource::Stdin));
    assert_eq!(options.output_format, Some(OutputFormat::Json));
    assert_eq!(options.mode, Some(Mode::Plan));
    for line in ["-p", "-p --model m", "--print -q"] {
        let Command::Run(options) = parse(line).unwrap() else { panic!() };
        assert_eq!(options.prompt, Some(PromptSource::Stdin), "{line}");
    }
}

#[test]
fn resume_forms() {
    let resume = |line: &str| match parse(line).unwrap() {
        Command::Run(options) => options.resume,
        other => panic!("{other:?}"),
    };
    assert_eq!(resume("--resume"), Resume::Picker);
    assert_eq!(resume("--resume 20261202-131500-a1b2"), Resume::Id("20261202-131500-a1b2".into()));
    assert_eq!(resume("--resume=abc"), Resume::Id("abc".into()));
    assert_eq!(resume("--resume nosuch -p x"), Resume::Id("nosuch".into()));
    assert_eq!(resume("--resume -p x"), Resume::Picker);
    assert_eq!(resume("-c"), Resume::Latest);
}

#[test]
fn subcommands() {
    assert_eq!(
        parse("mcp list --json --url http://x/mcp").unwrap(),
        Command::McpList { options: Options::default(), json: true, url: Some("http://x/mcp".into()) }
    );
    assert_eq!(
        parse("mcp call gh search {}").unwrap(),
        Command::McpCall {
            options: Options::default(),
            target: "gh".into(),
            tool: "search".into(),
            json: Some("{}".into())
        }
    );
    assert_eq!(parse("sessions --json").unwrap(), Command::Sessions { options: Options::default(), json: true });
    let check = parse("check Bash {\"command\":\"ls\"} --mode plan").unwrap();
    let Command::Check { options, tool, .. } = check else { panic!() };
    assert_eq!((tool.as_str(), options.mode), ("Bash", Some(Mode::Plan)));
    assert_eq!(parse("doctor --trust").unwrap(), Command::Doctor(Options { trust: true, ..Options::default() }));
    assert_eq!(parse("-V").unwrap(), Command::Version);
    assert_eq!(parse("doctor --help").unwrap(), Command::Help);
}

#[test]
fn usage_errors_name_the_flag() {
    let cases = [
        ("--frobnicate", "unknown flag --frobnicate"),
        ("--output-format xml -p x", "--output-format: expected text|json|stream-json, got \"xml\""),
        ("--mode yolo", "--mode: expected default|acceptEdits|plan|bypass, got \"yolo\""),
        ("--max-iterations 0 -p x", "--max-iterations: must be a positive number, got 0"),
        ("--max-iterations x -p y", "--max-iterations: expected a number, got \"x\""),
        ("--max-iterations ten -p x", "--max-iterations: expected a number, got \"ten\""),
        ("--model", "--model: missing value"),
        ("--provider --model x", "--provider: missing value"),
        ("mcp", "mcp: expected list, call, accept, add or remove"),
        ("mcp lst", "mcp: unknown subcommand \"lst\" (expected list, call, accept, add or remove)"),
        ("mcp accept", "mcp accept: expected SERVER"),
        ("mcp accept a b", "mcp accept: unexpected argument \"b\""),
        ("mcp call gh", "mcp call: expected SERVER|URL TOOL [JSON]"),
        ("check Bash", "check: expected TOOL JSON"),
        ("doctor extra", "doctor: unexpected argument \"extra\""),
        ("doctr", "unknown command \"doctr\" (did you mean doctor?); to start with it as the prompt: mewcode -- doctr"),
        ("--max-turns 3", "unknown flag --max-turns; mewcode's is --max-iterations N"),
        ("--dangerously-skip-permissions", "unknown flag --dangerously-skip-permissions; mewcode's is --mode bypass"),
        ("--max-iteration 3", "unknown flag --max-iteration (did you mean --max-iterations?)"),
        ("--contineu", "unknown flag --contineu (did you mean --continue?)"),
        ("-p x fix it", "give the prompt once: -p PROMPT, or mewcode \"PROMPT\""),
        ("doctor --append-system-prompt x", "--append-system-prompt: not with doctor"),
        ("doctor --output-format json", "--output-format: only with -p, not with doctor"),
        ("sessions -q", "-q/--quiet: only with -p, not with sessions"),
        ("doctor --json", "--json: only with mcp list or sessions, not with doctor"),
        ("--url http://x", "--url: only with mcp list, not with the REPL or -p"),
        ("mcp list --continue", "--continue/--resume: not with mcp list"),
        ("sessions --mode plan", "--mode: not with sessions"),
    ];
    for (line, expected) in cases {
        assert_eq!(error(line), expected, "{line}");
    }
}

#[test]
fn rewind_lists_restores_a_turn_or_undoes() {
    let request = |line: &str| match parse(line) {
        Ok(Command::Rewind { request, .. }) => request,
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(request("rewind").target, None);
    assert_eq!(
        request("rewind 3"),
        RewindRequest { target: Some(RewindTarget::Turn(3)), code: true, conversation: true, keep_changed: None }
    );
    assert_eq!(
        request("rewind #2 --code --keep-changed"),
        RewindRequest {
            target: Some(RewindTarget::Turn(2)),
            code: true,
            conversation: false,
            keep_changed: Some(true)
        }
    );
    assert_eq!(
        request("rewind 2 --conversation --overwrite-changed"),
        RewindRequest {
            target: Some(RewindTarget::Turn(2)),
            code: false,
            conversation: true,
            keep_changed: Some(false)
        }
    );
    assert_eq!(
        request("rewind undo"),
        RewindRequest { target: Some(RewindTarget::Undo), code: true, conversation: false, keep_changed: None }
    );
    assert!(
        matches!(parse("rewind -c --json"), Ok(Command::Rewind { json: true, options, .. }) if options.resume == Resume::Latest)
    );
    assert!(
        matches!(parse("rewind --resume ID 1"), Ok(Command::Rewind { options, .. }) if options.resume == Resume::Id("ID".into()))
    );
    for (line, needle) in [
        ("rewind 0", "expected a turn number or undo"),
        ("rewind 1 2", "at most one TURN"),
        ("rewind --code", "needs a TURN"),
        ("rewind 1 --keep-changed --overwrite-changed", "exclude each other"),
        ("rewind undo --conversation", "--conversation needs a TURN"),
        ("doctor --code", "--code applies to mewcode rewind only"),
        ("rewind --url x", "rewind"),
    ] {
        assert!(error(line).contains(needle), "{line}: {}", error(line));
    }
}

#[test]
fn words_that_are_no_command_start_the_repl_with_them_as_the_first_message() {
    let first = |line: &str| match parse(line) {
        Ok(Command::Run(options)) => (options.first_prompt, options.prompt),
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(first("fix the bug"), (Some("fix the bug".into()), None));
    assert_eq!(first("--mode plan \"fix the bug\""), (Some("\"fix the bug\"".into()), None));
    assert_eq!(first("-- doctr"), (Some("doctr".into()), None));
    assert_eq!(first("-- mcp list"), (Some("mcp list".into()), None));
    assert_eq!(first("refactor"), (Some("refactor".into()), None));
    assert!(matches!(parse("doctor"), Ok(Command::Doctor(_))));
    let Ok(Command::Run(options)) = parse("--append-system-prompt be-terse -p x") else { panic!() };
    assert_eq!(options.append_system_prompt.as_deref(), Some("be-terse"));
}

#[test]
fn mcp_add_takes_the_servers_command_line_whole_and_global_flags_before_it() {
    let Command::McpAdd { options, request } = parse("-C /tmp mcp add fs -- npx -y pkg --root .").unwrap() else {
        panic!()
    };
    assert_eq!(options.cwd, Some(PathBuf::from("/tmp")));
    assert_eq!(request.name, "fs");
    assert_eq!(
        request.transport,
        crate::config::McpTransport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "pkg".into(), "--root".into(), ".".into()],
            env: Vec::new()
        }
    );
    assert_eq!(
        parse("mcp remove fs --scope project").unwrap(),
        Command::McpRemove { options: Options::default(), server: "fs".into(), scope: Some(McpScope::Project) }
    );
    // The words are the subcommand's: a prompt that starts with them is quoted.
    assert!(matches!(parse("-- mcp add fs").unwrap(), Command::Run(_)));
    assert_eq!(error("mcp add"), "mcp add: expected NAME (mcp add NAME -- COMMAND [ARGS...])");
    assert_eq!(
        error("mcp add fs --json -- x"),
        "mcp add: unknown flag --json (expected --scope, --env, --header, --url, --transport, --force; the server's own flags go after --)"
    );
    assert_eq!(error("--json mcp add fs -- x"), "--json: only with mcp list or sessions, not with mcp add");
    assert_eq!(error("--mode plan mcp remove fs"), "--mode: not with mcp remove");
    assert_eq!(error("mcp remove"), "mcp remove: expected NAME");
    assert_eq!(error("mcp frob"), "mcp: unknown subcommand \"frob\" (expected list, call, accept, add or remove)");
}

#[test]
fn verbose_is_for_the_repl_and_p_and_never_with_quiet() {
    let Command::Run(options) = parse("-p hi --verbose").unwrap() else { panic!() };
    assert!(options.verbose);
    assert!(matches!(parse("--verbose"), Ok(Command::Run(options)) if options.verbose && options.prompt.is_none()));
    let both = parse("-p hi --verbose -q").unwrap_err();
    assert!(both.0.contains("contradict"), "{both:?}");
    assert!(parse("doctor --verbose").unwrap_err().0.contains("--verbose: not with"));
}
