//! What discovery remembers per endpoint (`$MEWCODE_HOME/discovery.json`, issue 31), as the user
//! sees it: doctor and the REPL's `/status` show the remembered window, where it came from and its
//! age; a REPL request that fails for the window forgets it, as a `-p` run does.

use crate::support::{FakeModel, Reply, TestEnv};

/// A server reporting a 4,096-token window at `/props`, reached through the environment.
fn server_and_env(label: &str) -> (FakeModel, TestEnv) {
    let model = FakeModel::start();
    model.route("GET", "/props", 200, r#"{"n_ctx":4096}"#);
    let mut env = TestEnv::new(label);
    env.vars = vec![
        ("OPENAI_BASE_URL".to_string(), format!("{}/v1", model.url())),
        ("MEWCODE_MODEL".to_string(), "m".to_string()),
    ];
    (model, env)
}

#[test]
fn doctor_shows_the_remembered_window_with_where_it_came_from_and_its_age() {
    let (model, env) = server_and_env("discovery-doctor");
    let before = env.run(&["doctor"]);
    assert!(before.stdout.contains("remembered: nothing yet (the next run asks the server)"), "{}", before.stdout);
    model.push(Reply::fixture("openai-text.sse"));
    assert_eq!(env.run(&["-p", "hi"]).code, 0);
    let after = env.run(&["doctor"]);
    let file = env.home.join("discovery.json");
    let line = after.stdout.lines().find(|line| line.contains("remembered:")).unwrap_or_default();
    assert!(line.starts_with("      remembered: 4096 tokens from GET /props, asked "), "{}", after.stdout);
    assert!(line.ends_with(&format!(" s ago ({})", file.display())), "{}", after.stdout);
}

#[test]
fn the_repl_shows_the_remembered_window_in_status_and_forgets_it_when_a_request_fails_for_it() {
    let (model, env) = server_and_env("discovery-repl");
    let too_long = r#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, your messages resulted in 3000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    model.push(Reply::status(400, too_long));
    let tmux = crate::repl::start(&env, &[]);
    tmux.type_text("/status");
    tmux.keys(&["Enter"]);
    tmux.wait_for("discovery 4096 tokens from GET /props, asked");
    tmux.type_text("hi");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the next start asks the server again");
    let cache = std::fs::read_to_string(env.home.join("discovery.json")).unwrap();
    assert!(!cache.contains("4096"), "the window that failed is still remembered: {cache}");
    tmux.type_text("/status");
    tmux.keys(&["Enter"]);
    tmux.wait_for("discovery nothing remembered (the next start asks the server)");
}
