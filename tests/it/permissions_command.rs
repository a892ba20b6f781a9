//! `/permissions` as a person uses it in the REPL: the rule an "always" answer saved is listed
//! with its file, removing it by number makes the same call ask again, a deny rule added at the
//! prompt refuses the next call, and a rule that does not parse is refused with the reason.

use crate::repl::{messages, start, text_reply, tool_reply};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::json;

/// The legend of an approval question waiting for its key at the bottom of the screen.
const LEGEND: &str = "[y] yes once  [a] always  [n] no  [t] no, tell the model what to do ›";

/// Waits until an approval question waits at the bottom of the screen; returns the screen.
fn wait_for_question(tmux: &Tmux) -> String {
    tmux.wait_until("an approval question", |screen| {
        screen.lines().rev().find(|line| !line.trim().is_empty()).is_some_and(|line| line.trim_end() == LEGEND)
    })
}

/// The text of the first tool result of the last message of the `index`th request.
fn tool_result(model: &FakeModel, index: usize) -> String {
    let result = messages(model, index).last().unwrap()["content"][0].clone();
    result["content"].as_str().map(String::from).unwrap_or_else(|| result["content"][0]["text"].to_string())
}

#[test]
fn a_rule_saved_by_always_is_listed_with_its_file_and_removing_it_asks_again() {
    let model = FakeModel::start();
    let touch = json!({"command": "touch made"});
    model.push(tool_reply("t1", "bash", touch.clone()));
    model.push(text_reply("Made it."));
    model.push(tool_reply("t2", "bash", touch));
    model.push(text_reply("Asked again."));
    let env = TestEnv::with_model("perm-cmd-remove", &model, Provider::anthropic());
    let tmux = start(&env, &[]);
    tmux.type_text("make it");
    tmux.keys(&["Enter"]);
    // The question says what `a` will do before the key is pressed.
    let question = wait_for_question(&tmux);
    assert!(
        question.contains("  a: always (saved to .mewcode/settings.local.yaml as Bash(=touch made))"),
        "{question}"
    );
    tmux.keys(&["a"]);
    tmux.wait_for("Made it.");
    tmux.wait_for_prompt();
    let local = env.project.join(".mewcode/settings.local.yaml");
    assert!(std::fs::read_to_string(&local).unwrap().contains("Bash(=touch made)"));
    tmux.type_text("/permissions");
    tmux.keys(&["Enter"]);
    let listing = tmux.wait_for("files:");
    let line = listing
        .lines()
        .find(|line| line.contains("Bash(=touch made)  ←"))
        .unwrap_or_else(|| panic!("the rule is not listed:\n{listing}"));
    assert!(line.ends_with("Bash(=touch made)  ← local, .mewcode/settings.local.yaml"), "{line:?}");
    let number: usize = line.split_whitespace().next().unwrap().parse().unwrap();
    assert!(listing.contains("mode: default"), "{listing}");
    assert!(listing.contains("← built-in, cannot be removed"), "{listing}");
    // A built-in policy stays.
    tmux.type_text("/permissions remove 1");
    tmux.keys(&["Enter"]);
    tmux.wait_for("/permissions: entry 1 is built into mewcode");
    tmux.type_text(&format!("/permissions remove {number}"));
    tmux.keys(&["Enter"]);
    let removed = tmux.wait_for("it no longer applies");
    let joined = removed.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains(&format!("removed allow rule Bash(=touch made) from {}", local.display())), "{removed}");
    assert!(!std::fs::read_to_string(&local).unwrap().contains("touch made"));
    // The model's next identical call is put to the person again.
    tmux.wait_for_prompt();
    tmux.type_text("make it again");
    tmux.keys(&["Enter"]);
    let again = wait_for_question(&tmux);
    assert!(again.contains("⚠ bash needs your approval (Bash)"), "{again}");
    tmux.keys(&["n"]);
    tmux.wait_for("Asked again.");
    assert!(tool_result(&model, 3).starts_with("denied by user: the user declined this bash call"));
}

#[test]
fn a_deny_rule_added_at_the_prompt_refuses_the_next_call_and_a_bad_rule_is_refused() {
    let model = FakeModel::start();
    model.push(tool_reply("t1", "bash", json!({"command": "touch made"})));
    model.push(text_reply("Refused, then."));
    let env = TestEnv::with_model("perm-cmd-deny", &model, Provider::anthropic());
    let tmux = start(&env, &[]);
    tmux.type_text("/permissions add deny Bash(touch *");
    tmux.keys(&["Enter"]);
    tmux.wait_for("/permissions: \"Bash(touch *\" is not a rule: unbalanced parentheses");
    tmux.type_text("/permissions add deny Bash(touch *) --session");
    tmux.keys(&["Enter"]);
    tmux.wait_for("added deny rule Bash(touch *) for this session (not saved); it applies from the next tool call");
    tmux.type_text("/permissions add deny Bash(rm *)");
    tmux.keys(&["Enter"]);
    let local = env.project.join(".mewcode/settings.local.yaml");
    let added = tmux.wait_for("(local); it applies from the next tool call");
    let joined = added.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains(&format!("added deny rule Bash(rm *) to {}", local.display())), "{added}");
    assert!(std::fs::read_to_string(&local).unwrap().contains("Bash(rm *)"));
    tmux.type_text("/permissions");
    tmux.keys(&["Enter"]);
    let listing = tmux.wait_for("files:");
    assert!(listing.contains("    1  Bash(touch *)  ← this session"), "{listing}");
    assert!(listing.contains("    2  Bash(rm *)  ← local, .mewcode/settings.local.yaml"), "{listing}");
    tmux.type_text("make it");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Refused, then.");
    assert!(!screen.contains(LEGEND), "a denied call is never put to the person:\n{screen}");
    assert_eq!(tool_result(&model, 1), "denied by rule (session): Bash(touch *)");
    assert!(!env.project.join("made").exists());
}

/// An `ask` list in a settings file (Claude Code's): the call asks even in bypass mode and under
/// an allow rule, `-p` refuses it as needing approval, `check` says which rule asked, and a
/// malformed ask rule stops start-up as a malformed deny rule does.
#[test]
fn an_ask_rule_from_a_settings_file_asks_in_every_mode() {
    use crate::support::script::openai;
    let model = FakeModel::start();
    model.push(openai("", &[("a", "bash", r#"{"command":"git push"}"#), ("b", "bash", r#"{"command":"git status"}"#)]));
    model.push(openai("done", &[]));
    let env = TestEnv::with_model("perm-ask-rule", &model, Provider::openai().model("m"));
    env.write_home("settings.yaml", "permissions:\n  allow: [\"Bash(git *)\"]\n  ask: [\"Bash(git push *)\"]\n");
    let run = env.run(&["-p", "push", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = model.requests()[1].tool_results();
    assert_eq!(
        results[0],
        "needs approval: the ask rule Bash(git push *) (user) asks first; no mode allows it: only a person can, or \
         a change of the rule that asks"
    );
    assert!(!results[1].starts_with("needs approval"), "{results:?}");
    let check = env.run(&["check", "Bash", r#"{"command":"git push"}"#, "--mode", "bypass"]);
    let decision: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
    assert_eq!(
        decision,
        json!({"decision": "ask", "layer": "rule", "level": "user", "reason": "the ask rule Bash(git push *) (user) asks first"})
    );
    env.write_home("settings.yaml", "permissions:\n  ask: [\"Bash(git push *\"]\n");
    let broken = env.run(&["check", "Bash", r#"{"command":"ls"}"#]);
    assert_eq!(broken.code, 2, "{broken:?}");
    assert!(broken.stderr.contains("user ask rule \"Bash(git push *\": unbalanced parentheses"), "{}", broken.stderr);
    assert!(broken.stderr.contains("a broken ask rule would leave you unprotected"), "{}", broken.stderr);
}
