//! The lean request for small windows (issue 31): `mewcode -p` against the fake model with a
//! 4 096- or 8 192-token `context_window` sends a short system prompt, one-line tool descriptions
//! and no `task` tool, and its fixed cost stays under 1 000 estimated tokens; a 131 072-token
//! window gets the full request. A tool call made in lean mode runs the real tool and its result
//! reaches the next request. `lean_below` and `lean_tools` change the choice; a bad value is an
//! error naming the key.

use crate::support::mcp_servers::{fixture, python_sdk_available, require};
use crate::support::script::{anthropic, openai};
use crate::support::{FakeModel, Provider, RecordedRequest, Reply, TestEnv};
use serde_json::Value;

/// The tool names a request offers, whichever the protocol.
fn tool_names(request: &RecordedRequest) -> Vec<String> {
    tools(request).iter().map(|tool| definition(tool)["name"].as_str().unwrap().to_string()).collect()
}

fn tools(request: &RecordedRequest) -> Vec<Value> {
    request.body_json()["tools"].as_array().cloned().unwrap_or_default()
}

/// A tool's name, description and schema (OpenAI nests them under `function`).
fn definition(tool: &Value) -> &Value {
    if tool.get("function").is_some() { &tool["function"] } else { tool }
}

/// The system prompt as serialized in the request: Anthropic's `system`, OpenAI's system messages.
fn system_json(request: &RecordedRequest) -> String {
    let body = request.body_json();
    if body.get("system").is_some() {
        return body["system"].to_string();
    }
    let system: Vec<&Value> = body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "system").collect();
    serde_json::to_string(&system).unwrap()
}

/// The fixed cost of a request in characters: its system prompt and all its tool definitions,
/// as serialized.
fn fixed_chars(request: &RecordedRequest) -> usize {
    system_json(request).chars().count() + request.body_json()["tools"].to_string().chars().count()
}

/// Tokens as mewcode estimates them: 3.5 characters a token.
fn tokens(chars: usize) -> u64 {
    (chars as f64 / 3.5).ceil() as u64
}

/// Runs `-p hi` with `window` and the extra top-level `yaml`; returns the first request.
fn first_request(protocol: &str, window: u64, yaml: &str) -> RecordedRequest {
    let model = FakeModel::start();
    model.push(if protocol == "anthropic" { anthropic("Hello.", &[]) } else { openai("Hello.", &[]) });
    let provider = Provider::of(protocol).field(&format!("context_window: {window}")).then(yaml);
    let env = TestEnv::with_model(&format!("lean-{protocol}-{window}"), &model, provider);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(model.violations(), Vec::<String>::new());
    model.requests().remove(0)
}

#[test]
fn a_4k_window_gets_the_lean_request_and_a_128k_window_the_full_one() {
    for protocol in ["openai", "anthropic"] {
        let lean = first_request(protocol, 4_096, "");
        let full = first_request(protocol, 131_072, "");
        let builtins = ["read_file", "write_file", "edit_file", "glob", "grep", "bash"];
        assert_eq!(tool_names(&lean), builtins, "{protocol}: no task under 4k");
        let mut with_task = builtins.to_vec();
        with_task.push("job");
        with_task.push("task");
        assert_eq!(tool_names(&full), with_task, "{protocol}");
        // The same tools, each with a one-line description and the same schema shape.
        for (lean_tool, full_tool) in tools(&lean).iter().zip(tools(&full).iter()) {
            let (lean_tool, full_tool) = (definition(lean_tool), definition(full_tool));
            let description = lean_tool["description"].as_str().unwrap();
            assert!(!description.is_empty() && !description.contains('\n'), "{description}");
            assert!(description.len() < full_tool["description"].as_str().unwrap().len());
            let schema = if protocol == "anthropic" { "input_schema" } else { "parameters" };
            let shape = |tool: &Value| {
                let mut schema = tool[schema].clone();
                for property in schema["properties"].as_object_mut().unwrap().values_mut() {
                    property.as_object_mut().unwrap().remove("description");
                }
                // Offered only with the job tool, which a lean request leaves out.
                schema["properties"].as_object_mut().unwrap().remove("run_in_background");
                schema
            };
            assert_eq!(shape(lean_tool), shape(full_tool), "{}", lean_tool["name"]);
        }
        let (lean_system, full_system) = (system_json(&lean), system_json(&full));
        assert!(lean_system.contains("You are mewcode") && lean_system.contains("needs approval:"));
        assert!(lean_system.contains("# Environment"), "the environment part stays");
        assert!(lean_system.len() * 2 < full_system.len(), "{protocol}: {lean_system}");
        assert!(fixed_chars(&lean) * 2 < fixed_chars(&full), "{protocol}");
        // The rest of the request is the same: the prompt, the model.
        assert_eq!(lean.messages().last(), full.messages().last());
    }
}

#[test]
fn the_fixed_cost_under_an_8k_window_is_at_most_1000_tokens() {
    for protocol in ["openai", "anthropic"] {
        let request = first_request(protocol, 8_192, "");
        let cost = tokens(fixed_chars(&request));
        assert!(cost <= 1_000, "{protocol}: the system prompt and tools are about {cost} tokens");
        eprintln!("{protocol} 8k: system + tools {} chars, about {cost} tokens", fixed_chars(&request));
    }
}

#[test]
fn lean_tools_keeps_the_task_tool_and_lean_below_0_keeps_the_full_form() {
    let kept = first_request("openai", 4_096, "lean_tools: [task]\n");
    let names = tool_names(&kept);
    assert_eq!(names.last().map(String::as_str), Some("task"), "{names:?}");
    let task = definition(tools(&kept).last().unwrap()).clone();
    assert!(!task["description"].as_str().unwrap().contains("it does not see this conversation"), "lean: {task}");

    let never = first_request("openai", 4_096, "lean_below: 0\n");
    let full = first_request("openai", 131_072, "");
    assert_eq!(tools(&never), tools(&full), "lean_below: 0 never leans");
    assert!(system_json(&never).contains("# How to work"));

    // Raised above the window: a 32k window is lean too.
    let raised = first_request("openai", 32_768, "lean_below: 65536\n");
    assert!(!tool_names(&raised).contains(&"task".to_string()));
}

#[test]
fn a_tool_call_in_a_lean_request_runs_the_real_tool_and_its_result_reaches_the_next_request() {
    for protocol in ["openai", "anthropic"] {
        let model = FakeModel::start();
        let call = [("call_notes", "read_file", r#"{"path":"notes.txt"}"#)];
        let grep = [("call_grep", "grep", r#"{"pattern":"PAPAYA","output_mode":"content"}"#)];
        let (first, second, last): (Reply, Reply, Reply) = if protocol == "anthropic" {
            (anthropic("", &call), anthropic("", &grep), anthropic("The word is PAPAYA.", &[]))
        } else {
            (openai("", &call), openai("", &grep), openai("The word is PAPAYA.", &[]))
        };
        model.push(first).push(second).push(last);
        let provider = Provider::of(protocol).field("context_window: 4096");
        let env = TestEnv::with_model(&format!("lean-call-{protocol}"), &model, provider);
        env.write("notes.txt", "The secret word is PAPAYA.\n");
        let run = env.run(&["-p", "what is the secret word in notes.txt?"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("The word is PAPAYA."), "{}", run.stdout);
        assert_eq!(model.violations(), Vec::<String>::new());
        let requests = model.requests();
        assert_eq!(requests.len(), 3);
        assert!(requests.iter().all(|request| !tool_names(request).contains(&"task".to_string())));
        let results = requests[1].tool_results();
        assert_eq!(results.len(), 1, "{results:?}");
        assert!(results[0].contains("1\tThe secret word is PAPAYA."), "{results:?}");
        let results = requests[2].tool_results();
        assert!(results.last().unwrap().contains("notes.txt:1:The secret word is PAPAYA."), "{results:?}");
    }
}

#[test]
fn a_bad_lean_value_is_an_error_naming_the_key() {
    let model = FakeModel::start();
    for (yaml, expected) in [
        ("lean_below: small\n", "lean_below: expected a whole number >= 0, got \"small\""),
        ("lean_tools: [bash]\n", "lean_tools[0]: \"bash\" is not an optional tool"),
    ] {
        let env = TestEnv::with_model("lean-bad", &model, Provider::openai().then(yaml));
        let run = env.run(&["-p", "hi"]);
        assert_eq!(run.code, 2, "{yaml}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{yaml}: {}", run.stderr);
    }
    assert!(model.requests().is_empty());
}

#[test]
fn an_mcp_tool_description_is_cut_to_its_first_sentence_in_a_lean_request() {
    if !require(python_sdk_available(), "the Python MCP SDK") {
        return;
    }
    let features = fixture("features_server.py");
    let description = format!("Echo the text back. {}", "It has a long story to tell. ".repeat(20));
    let mcp = format!(
        "mcp_servers:\n  feat: {{type: stdio, command: python3, args: [\"{}\", stdio], env: {{FEATURES_DESCRIPTION: \"{}\"}}}}\n",
        features.display(),
        description.trim()
    );
    let echo = |request: &RecordedRequest| {
        let tools = tools(request);
        let echo = tools.iter().map(definition).find(|tool| tool["name"] == "mcp__feat__echo").cloned();
        echo.unwrap_or_else(|| panic!("no echo tool: {:?}", tool_names(request)))
    };
    let lean = echo(&first_request("openai", 4_096, &mcp));
    assert_eq!(lean["description"], "Echo the text back.");
    let full = echo(&first_request("openai", 131_072, &mcp));
    assert_eq!(full["description"], description.trim());
    assert_eq!(lean["parameters"], full["parameters"], "a server's schema is sent as it is");
}

#[test]
fn the_repl_decides_per_request_from_the_window_of_the_model_in_use() {
    let model = FakeModel::start();
    model.push(crate::repl::text_reply("Small answer.")).push(crate::repl::text_reply("Big answer."));
    let env = TestEnv::new("lean-repl");
    let entry = |name: &str, window: u64| {
        format!(
            "  - {{name: {name}, protocol: anthropic, model: m, api_key: k, base_url: \"{}\", context_window: {window}}}\n",
            model.url()
        )
    };
    env.write_home("config.yaml", &format!("providers:\n{}{}", entry("small", 4_096), entry("big", 131_072)));
    let tmux = crate::repl::start(&env, &[]);
    tmux.type_text("/context");
    tmux.keys(&["Enter"]);
    tmux.wait_for("system prompt (lean)");
    tmux.type_text("hello");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Small answer.");
    tmux.type_text("/model big");
    tmux.keys(&["Enter"]);
    tmux.wait_for("now using big");
    tmux.type_text("again");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Big answer.");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(!tool_names(&requests[0]).contains(&"task".to_string()), "4k: lean");
    assert!(tool_names(&requests[1]).contains(&"task".to_string()), "128k after /model: full");
    assert!(system_json(&requests[1]).contains("# How to work"));
    assert!(!system_json(&requests[0]).contains("# How to work"));
}
