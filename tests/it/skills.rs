//! Skills (issue 33): `SKILL.md` folders of the user (`$MEWCODE_HOME/skills`, `~/.claude/skills`,
//! `~/.agents/skills`) and of a trusted project (`.mewcode/skills`, `.claude/skills`,
//! `.agents/skills`) put their name and description in the system prompt; the model loads a body
//! with the `skill` tool, without an approval; an untrusted project's skills wait for its trust;
//! a malformed file is a warning and the others still load; a 4k window gets the lean section.

use crate::repl::text_reply;
use crate::support::script::{anthropic, openai};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, RecordedRequest, TestEnv};
use serde_json::Value;

const PDF_SKILL: &str = "---\nname: pdf-forms\ndescription: Fill PDF forms with the scripts here. Use when a PDF form must be filled.\n---\n# Filling forms\nBODY-MARKER: run scripts/fill.py with the form's path.\n";

/// The system prompt as sent: Anthropic's `system`, OpenAI's system messages.
fn system(request: &RecordedRequest) -> String {
    let body = request.body_json();
    if let Some(system) = body.get("system") {
        return match system {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => blocks.iter().filter_map(|block| block["text"].as_str()).collect(),
            other => other.to_string(),
        };
    }
    let messages = body["messages"].as_array().unwrap();
    messages.iter().filter(|m| m["role"] == "system").filter_map(|m| m["content"].as_str()).collect()
}

/// The tool names a request offers, whichever the protocol.
fn tool_names(request: &RecordedRequest) -> Vec<String> {
    let tools = request.body_json()["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .map(|tool| if tool.get("function").is_some() { &tool["function"] } else { tool })
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

/// The messages of a request, serialized (everything but the system prompt and the tools).
fn messages_json(request: &RecordedRequest) -> String {
    request.body_json()["messages"].to_string()
}

fn loads_a_skill_only_when_the_model_asks(protocol: &str) {
    let model = FakeModel::start();
    let call = [("call_skill", "skill", r#"{"name":"pdf-forms"}"#)];
    if protocol == "anthropic" {
        model.push(anthropic("Loading the skill.", &call));
        model.push(anthropic("Filled.", &[]));
    } else {
        model.push(openai("Loading the skill.", &call));
        model.push(openai("Filled.", &[]));
    }
    let env = TestEnv::with_model(&format!("skills-{protocol}"), &model, Provider::of(protocol));
    let home = env.dir.path();
    let skill_dir = home.join(".claude/skills/pdf-forms");
    std::fs::create_dir_all(skill_dir.join("scripts")).unwrap();
    std::fs::write(skill_dir.join("SKILL.md"), PDF_SKILL).unwrap();
    std::fs::write(skill_dir.join("scripts/fill.py"), "print('filled')\n").unwrap();
    env.write_home("skills/changelog/SKILL.md", "---\ndescription: Write the changelog entry\n---\nCHANGELOG-BODY\n");
    // A malformed file is a warning naming it; the others still load.
    env.write_home("skills/broken/SKILL.md", "name: broken\nno front matter at all\n");
    env.write_home("skills/nameless/SKILL.md", "---\nname: Not A Name\ndescription: d\n---\nx");
    // Default mode: the skill tool runs without asking, like read_file.
    let run = env.run(&["-p", "fill the form"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Filled.\n");
    assert!(run.stderr.contains("skills/broken/SKILL.md: not loaded: it has no front matter"), "{}", run.stderr);
    assert!(
        run.stderr.contains("skills/nameless/SKILL.md: its name \"Not A Name\" is not a valid skill name"),
        "{}",
        run.stderr
    );
    assert_eq!(model.violations(), Vec::<String>::new());
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    // First request: names and descriptions in the system prompt, no body anywhere.
    let first = system(&requests[0]);
    assert!(first.contains("\n# Skills\n"), "{first}");
    assert!(first.contains("- changelog: Write the changelog entry\n"), "{first}");
    assert!(first.contains("- nameless: d"), "{first}");
    assert!(
        first.contains("- pdf-forms: Fill PDF forms with the scripts here. Use when a PDF form must be filled."),
        "{first}"
    );
    assert!(!first.contains("broken"), "{first}");
    for body in ["BODY-MARKER", "CHANGELOG-BODY"] {
        assert!(!first.contains(body) && !messages_json(&requests[0]).contains(body), "{body} sent before asked");
    }
    assert!(tool_names(&requests[0]).contains(&"skill".to_string()), "{:?}", tool_names(&requests[0]));
    // After the call: the body, the folder and its files in the tool result; the system prompt
    // is the same bytes (the provider's cache still hits).
    let after = messages_json(&requests[1]);
    assert!(after.contains("BODY-MARKER: run scripts/fill.py"), "{after}");
    assert!(after.contains(&format!("Folder: {}", skill_dir.display())), "{after}");
    assert!(after.contains("- scripts/fill.py"), "{after}");
    assert!(!after.contains("CHANGELOG-BODY"), "{after}");
    assert!(!after.contains("description: Fill PDF forms"), "the front matter is not repeated: {after}");
    assert_eq!(system(&requests[1]), first);
}

#[test]
fn a_skill_is_named_in_the_prompt_and_its_body_sent_when_asked_anthropic() {
    loads_a_skill_only_when_the_model_asks("anthropic");
}

#[test]
fn a_skill_is_named_in_the_prompt_and_its_body_sent_when_asked_openai() {
    loads_a_skill_only_when_the_model_asks("openai");
}

#[test]
fn an_untrusted_projects_skills_wait_for_trust_and_the_users_win_a_name() {
    let run_once = |label: &str, args: &[&str]| {
        let model = FakeModel::start();
        model.push(anthropic("Hello.", &[]));
        let env = TestEnv::with_model(label, &model, Provider::anthropic());
        env.write(".claude/skills/deploy/SKILL.md", "---\ndescription: Deploy to production\n---\nDEPLOY-BODY");
        env.write(".agents/skills/review/SKILL.md", "---\ndescription: The project's review\n---\nx");
        env.write_home("skills/review/SKILL.md", "---\ndescription: My own review\n---\nx");
        let run = env.run(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        (run, system(&model.requests()[0]), tool_names(&model.requests()[0]))
    };
    let (run, prompt, tools) = run_once("skills-untrusted", &["-p", "hi"]);
    assert!(!prompt.contains("deploy"), "{prompt}");
    assert!(!prompt.contains("The project's review"), "{prompt}");
    assert!(prompt.contains("- review: My own review"), "{prompt}");
    assert!(tools.contains(&"skill".to_string()));
    assert!(
        run.stderr.contains("1 skill from .claude/skills: deploy: not loaded until you trust this project"),
        "{}",
        run.stderr
    );
    // Trusted (--trust): the project's skills are in; the user's own wins a shared name.
    let (run, prompt, _) = run_once("skills-trusted", &["-p", "hi", "--trust"]);
    assert!(prompt.contains("- deploy: Deploy to production"), "{prompt}");
    assert!(prompt.contains("- review: My own review"), "{prompt}");
    assert!(!prompt.contains("The project's review"), "{prompt}");
    assert!(!prompt.contains("DEPLOY-BODY"), "{prompt}");
    assert!(!run.stderr.contains("not loaded"), "{}", run.stderr);
}

#[test]
fn no_skills_no_tool_and_no_section() {
    let model = FakeModel::start();
    model.push(anthropic("Hello.", &[]));
    let env = TestEnv::with_model("skills-none", &model, Provider::anthropic());
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = &model.requests()[0];
    assert!(!system(request).contains("# Skills"));
    assert!(!tool_names(request).contains(&"skill".to_string()));
}

#[test]
fn a_4k_window_gets_a_short_line_per_skill_and_names_past_the_budget() {
    let model = FakeModel::start();
    model.push(openai("Hello.", &[]));
    let env = TestEnv::with_model("skills-lean", &model, Provider::openai().field("context_window: 4096"));
    let description =
        "Does one particular thing with the tools in its folder. Use it when the task mentions that thing.";
    for index in 0..40 {
        env.write_home(
            &format!("skills/skill-{index:02}/SKILL.md"),
            &format!("---\ndescription: {description}\n---\nBODY"),
        );
    }
    let lean = {
        let run = env.run(&["-p", "hi"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        system(&model.requests()[0])
    };
    let section = &lean[lean.find("# Skills").expect("a skills section")..];
    let section = &section[..section.find("\n\n").unwrap_or(section.len())];
    assert!(section.contains("- skill-00: Does one particular thing with the tools in its folder.\n"), "{section}");
    assert!(!section.contains("Use it when"), "{section}");
    assert!(section.lines().last().unwrap().starts_with("- also: "), "{section}");
    assert!(section.ends_with(", skill-39"), "{section}");
    // Forty skills cost a lean request at most 1.6 KB (about 450 tokens).
    assert!(section.len() <= 1600, "{} bytes: {section}", section.len());
}

#[test]
fn the_trust_question_names_the_projects_skills_and_skills_lists_them() {
    let model = FakeModel::start();
    model.push(text_reply("Hi."));
    let env = TestEnv::with_model("skills-repl", &model, Provider::anthropic());
    env.write(".mewcode/skills/deploy/SKILL.md", "---\ndescription: Deploy to production\n---\nDEPLOY-BODY");
    env.write_home("skills/notes/SKILL.md", "---\ndescription: Take notes\n---\nx");
    let tmux = Tmux::start(&env, &[], &[]);
    let screen = tmux.wait_for("trust this project? [y/N]");
    assert!(screen.contains("1 skill from .mewcode/skills: deploy"), "{screen}");
    tmux.keys(&["y"]);
    tmux.wait_for_prompt();
    tmux.type_text("/skills");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Take notes");
    assert!(screen.contains("deploy"), "{screen}");
    assert!(screen.contains(".mewcode/skills/deploy/SKILL.md"), "{screen}");
    tmux.wait_for_prompt();
    tmux.type_text("hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hi.");
    let prompt = system(&model.requests()[0]);
    assert!(prompt.contains("- deploy: Deploy to production"), "{prompt}");
    assert!(prompt.contains("- notes: Take notes"), "{prompt}");
}

#[test]
fn doctor_counts_the_skills_and_says_what_is_wrong() {
    let env = TestEnv::new("skills-doctor");
    env.write_home("skills/notes/SKILL.md", "---\ndescription: Take notes\n---\nx");
    env.write_home("skills/broken/SKILL.md", "---\ndescription: never closed\n");
    env.write(".claude/skills/deploy/SKILL.md", "---\ndescription: Deploy\n---\nx");
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("skills (1 found; only their names and descriptions are in the prompt)\n  notes "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("skills/broken/SKILL.md: not loaded: its front matter (--- at the top) has no closing ---"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("1 skill from .claude/skills: deploy: not loaded until you trust this project"),
        "{}",
        run.stdout
    );
    let run = env.run(&["doctor", "--trust"]);
    assert!(run.stdout.contains("skills (2 found;"), "{}", run.stdout);
}
