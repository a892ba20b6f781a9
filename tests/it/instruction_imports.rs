//! `@path` imports in instruction files as the user sees them (issue 31): the user's own
//! `$MEWCODE_HOME/AGENTS.md` imports from the home directory (never a secret store), and
//! `/context` counts each file with the imports that are sent with it.

use crate::support::script::openai;
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};

#[test]
fn the_users_own_agents_md_imports_reach_the_model_from_the_home_directory_but_no_secret() {
    let model = FakeModel::start();
    model.push(openai("ok", &[]));
    let env = TestEnv::with_model("personal-imports", &model, Provider::openai().model("m"));
    let home = env.dir.path();
    env.write_home("AGENTS.md", "Personal rules: @~/notes/agent.md and @~/.ssh/config");
    std::fs::create_dir_all(home.join("notes")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join("notes/agent.md"), "Always answer in haiku.").unwrap();
    std::fs::write(home.join(".ssh/config"), "Host secret-box").unwrap();
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let system = model.requests()[0].json.as_ref().unwrap().to_string();
    assert!(system.contains("Always answer in haiku."), "the import did not reach the model: {system}");
    assert!(!system.contains("secret-box"), "a secret store was imported: {system}");
    let doctor = env.run(&["doctor"]);
    assert!(
        doctor.stdout.contains(&format!("{}  (loaded)", home.join("notes/agent.md").display())),
        "{}",
        doctor.stdout
    );
}

#[test]
fn context_counts_each_instruction_file_with_its_imports_as_they_are_sent() {
    let model = FakeModel::start();
    model.push(openai("All done here.", &[]));
    let env = TestEnv::with_model("context-imports", &model, Provider::openai().model("m"));
    env.write("AGENTS.md", "Rules: @docs/big.md");
    env.write("docs/big.md", &"x ".repeat(3500));
    env.write_home("AGENTS.md", "Mine: @~/notes/a.md and @~/notes/b.md");
    std::fs::create_dir_all(env.dir.path().join("notes")).unwrap();
    std::fs::write(env.dir.path().join("notes/a.md"), "y ".repeat(700)).unwrap();
    std::fs::write(env.dir.path().join("notes/b.md"), "z").unwrap();
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("/context");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("(estimated at 3.5 characters a token");
    let row = |label: &str| screen.lines().find(|line| line.contains(label)).unwrap_or_default().to_string();
    // 19 + 1 + 6,999 characters: the file and the import it brings in, about 2.0k tokens.
    let project = row("memory: AGENTS.md (+1 import)");
    assert!(project.contains(" 2.0k "), "{screen}");
    let personal = row("memory: ~/mewcode-home/AGENTS.md (+2 imports)");
    assert!(personal.contains(" 412 "), "{screen}");
    tmux.type_text("hi");
    tmux.keys(&["Enter"]);
    tmux.wait_for("All done here.");
    let system = model.requests()[0].json.as_ref().unwrap().to_string();
    assert!(system.contains(&"x ".repeat(100)) && system.contains(&"y ".repeat(100)), "imports were not sent");
}
