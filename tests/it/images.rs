//! Images (issue 33), end to end with the real binary and the fake model: an image `read_file`
//! reads reaches the next request as an Anthropic image block and as an OpenAI `image_url` data
//! URL; a provider without vision gets a text refusal instead; `-p --image` attaches images to
//! the prompt in both protocols; an image over a limit is refused before anything is sent.

use crate::support::script::{anthropic, openai};
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::{Value, json};

const PNG: &[u8] = include_bytes!("../../fixtures/images/red-2x3.png");

fn png_base64() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in PNG.chunks(3) {
        let bytes = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let triple = u32::from(bytes[0]) << 16 | u32::from(bytes[1]) << 8 | u32::from(bytes[2]);
        for (index, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            let sextet = ALPHABET[((triple >> shift) & 0x3F) as usize] as char;
            out.push(if index <= chunk.len() { sextet } else { '=' });
        }
    }
    out
}

fn env_with_png(label: &str, model: &FakeModel, provider: Provider) -> TestEnv {
    let env = TestEnv::with_model(label, model, provider);
    std::fs::write(env.project.join("shot.png"), PNG).unwrap();
    env
}

fn anthropic_image() -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_base64()}})
}

fn openai_image() -> Value {
    json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", png_base64())}})
}

#[test]
fn an_image_read_reaches_anthropic_as_an_image_block_in_the_tool_result() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("r1", "read_file", r#"{"path":"shot.png"}"#)]));
    model.push(anthropic("A red square.", &[]));
    let env = env_with_png("img-anthropic-read", &model, Provider::anthropic());
    let run = env.run(&["-p", "what is in shot.png?", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let messages = model.requests()[1].messages();
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "image: shot.png, PNG 2x3, 73 B"}, anthropic_image()])
    );
    // The screen and stream-json get the description, never the base64.
    assert!(run.stdout.contains("image: shot.png, PNG 2x3, 73 B"), "{}", run.stdout);
    assert!(!run.stdout.contains(&png_base64()), "base64 leaked to stdout");
}

#[test]
fn an_image_read_reaches_openai_as_a_data_url_after_the_tool_messages() {
    let model = FakeModel::start();
    model.push(openai("", &[("call_1", "read_file", r#"{"path":"shot.png"}"#)]));
    model.push(openai("A red square.", &[]));
    let env = env_with_png(
        "img-openai-read",
        &model,
        Provider::openai().field("vision: true").field("context_window: 32000"),
    );
    let run = env.run(&["-p", "what is in shot.png?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let messages = model.requests()[1].messages();
    let roles: Vec<&str> = messages.iter().map(|message| message["role"].as_str().unwrap()).collect();
    assert_eq!(roles[roles.len() - 3..], ["assistant", "tool", "user"], "{roles:?}");
    assert_eq!(messages[roles.len() - 2]["content"], "image: shot.png, PNG 2x3, 73 B");
    assert_eq!(
        messages[roles.len() - 1]["content"],
        json!([{"type": "text", "text": "Image from read_file (call_1): shot.png"}, openai_image()])
    );
}

#[test]
fn a_provider_without_vision_gets_a_text_refusal_and_no_image() {
    let model = FakeModel::start();
    model.push(openai("", &[("call_1", "read_file", r#"{"path":"shot.png"}"#)]));
    model.push(openai("I cannot see it.", &[]));
    // An OpenAI-compatible server of one's own that reports nothing: vision is off by default.
    let env = env_with_png("img-no-vision", &model, Provider::openai().field("context_window: 32000"));
    let run = env.run(&["-p", "what is in shot.png?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let request = &model.requests()[1];
    assert_eq!(
        request.tool_results(),
        ["image: shot.png, PNG 2x3, 73 B; not shown: this model does not accept images (not reported by the \
          server): set `vision: true` for the provider fake if it does"]
    );
    assert!(!request.body.contains("image_url"), "no image sent: {}", request.body);
}

#[test]
fn configured_vision_off_refuses_on_anthropic_too() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("r1", "read_file", r#"{"path":"shot.png"}"#)]));
    model.push(anthropic("I cannot see it.", &[]));
    let env = env_with_png("img-vision-off", &model, Provider::anthropic().field("vision: false"));
    let run = env.run(&["-p", "look at shot.png"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = model.requests()[1].tool_results();
    assert!(results[0].contains("(providers[fake].vision is off)"), "{results:?}");
    assert!(!model.requests()[1].body.contains("\"type\":\"image\""));
}

#[test]
fn p_image_attaches_to_the_prompt_in_both_protocols() {
    for protocol in ["anthropic", "openai"] {
        let model = FakeModel::start();
        model.push(if protocol == "anthropic" { anthropic("Red.", &[]) } else { openai("Red.", &[]) });
        let provider = Provider::of(protocol).field("vision: true").field("context_window: 32000");
        let env = env_with_png(&format!("img-p-{protocol}"), &model, provider);
        std::fs::write(env.project.join("b.gif"), include_bytes!("../../fixtures/images/dot-1x1.gif")).unwrap();
        let run = env.run(&["-p", "describe", "--image", "shot.png", "--image", "b.gif"]);
        assert_eq!(run.code, 0, "{protocol}: {}", run.stderr);
        assert!(model.violations().is_empty(), "{:?}", model.violations());
        let messages = model.requests()[0].messages();
        let prompt = messages.iter().rev().find(|message| message["role"] == "user").unwrap();
        let parts = prompt["content"].as_array().unwrap();
        let kinds: Vec<&str> = parts.iter().map(|part| part["type"].as_str().unwrap()).collect();
        if protocol == "anthropic" {
            assert_eq!(kinds[..3], ["image", "image", "text"], "images first, as Anthropic advises");
            assert_eq!(parts[0], anthropic_image());
            assert_eq!(parts[1]["source"]["media_type"], "image/gif");
        } else {
            assert_eq!(kinds, ["text", "image_url", "image_url"]);
            assert_eq!(parts[1], openai_image());
        }
    }
}

#[test]
fn p_image_that_cannot_be_sent_is_a_usage_error_and_nothing_is_sent() {
    let model = FakeModel::start();
    let env = env_with_png("img-p-refused", &model, Provider::anthropic());
    env.write("notes.txt", "not an image\n");
    let mut big = PNG.to_vec();
    big.resize(3_932_161, 0);
    std::fs::write(env.project.join("big.png"), big).unwrap();
    let cases = [
        ("missing.png", "mewcode: --image: file not found: missing.png"),
        ("notes.txt", "mewcode: --image: notes.txt is not a PNG, JPEG, GIF or WebP image"),
        ("big.png", "mewcode: --image: big.png: the image is 3932161 bytes, over the limit of 3932160 bytes (3.75 MB)"),
    ];
    for (file, expected) in cases {
        let run = env.run(&["-p", "describe", "--image", file]);
        assert_eq!(run.code, 2, "{file}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{file}: {}", run.stderr);
    }
    // A model without vision: refused before anything is sent, naming the fix.
    let no_vision = TestEnv::with_model("img-p-no-vision", &model, Provider::anthropic().field("vision: false"));
    std::fs::write(no_vision.project.join("shot.png"), PNG).unwrap();
    let run = no_vision.run(&["-p", "describe", "--image", "shot.png"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("set `vision: true` for the provider fake"), "{}", run.stderr);
    assert!(model.requests().is_empty(), "nothing was sent");
}

#[test]
fn an_image_read_is_sent_again_when_the_session_resumes() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("r1", "read_file", r#"{"path":"shot.png"}"#)]));
    model.push(anthropic("A red square.", &[]));
    model.push(anthropic("Still red.", &[]));
    let env = env_with_png("img-resume", &model, Provider::anthropic());
    let run = env.run(&["-p", "what is in shot.png?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = env.run(&["-p", "and now?", "--continue"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let resumed = model.requests()[2].messages();
    assert_eq!(resumed[2]["content"][0]["content"][1], anthropic_image(), "the log kept the image");
}

#[test]
fn repl_at_mention_and_a_pasted_path_attach_images_and_a_refusal_keeps_the_prompt_unsent() {
    use crate::repl::{messages, text_reply};
    use crate::support::tmux::Tmux;
    let model = FakeModel::start();
    model.push(text_reply("Red."));
    model.push(text_reply("Red again."));
    let env = env_with_png("img-repl", &model, Provider::anthropic());
    std::fs::create_dir_all(env.project.join("with space")).unwrap();
    std::fs::write(env.project.join("with space/shot.png"), PNG).unwrap();
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("what colour is @shot.png");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Red.");
    assert!(tmux.screen().contains("@shot.png: [image: shot.png, 73 B]"), "{}", tmux.screen());
    let sent = messages(&model, 0).last().unwrap().clone();
    assert_eq!(sent["content"][0], anthropic_image(), "{sent}");
    assert_eq!(sent["content"][1]["text"], "what colour is @shot.png");
    // A dragged file, pasted as the terminal quotes it.
    tmux.type_text(&format!("'{}'", env.project.join("with space/shot.png").display()));
    tmux.keys(&["Enter"]);
    tmux.wait_for("Red again.");
    let sent = messages(&model, 1).last().unwrap().clone();
    assert_eq!(sent["content"][0], anthropic_image(), "{sent}");
    assert_eq!(sent["content"][1]["text"], "[image: shot.png, 73 B]");
    // Not an image the model can take (too big): said, and nothing sent.
    let mut big = PNG.to_vec();
    big.resize(3_932_161, 0);
    std::fs::write(env.project.join("big.png"), big).unwrap();
    tmux.type_text("and @big.png");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the prompt was not sent");
    assert!(tmux.screen().contains("@big.png: not attached: big.png: the image is 3932161 bytes"), "{}", tmux.screen());
    assert_eq!(model.requests().len(), 2, "nothing sent for the refused prompt");
}

#[test]
fn an_mcp_tools_image_reaches_a_model_with_vision_as_an_image() {
    use crate::support::mcp_servers::{fixture, python_sdk_available, require};
    if !require(python_sdk_available(), "the Python MCP SDK") {
        return;
    }
    let model = FakeModel::start();
    model.push(anthropic("", &[("m1", "mcp__py__image", "{}")]));
    model.push(anthropic("A dot.", &[]));
    let sdk = fixture("sdk_server.py");
    let servers = format!(
        "mcp_servers:\n  py: {{type: stdio, command: python3, args: [\"{}\", stdio], timeout_s: 30}}\n",
        sdk.display()
    );
    let env = TestEnv::with_model("img-mcp", &model, Provider::anthropic().then(&servers));
    let run = env.run(&["-p", "show the image", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let result = &model.requests()[1].messages()[2]["content"][0];
    let content = result["content"].as_array().unwrap_or_else(|| panic!("{result}"));
    assert_eq!(content[0], json!({"type": "text", "text": "[image: image/png, 70 B]"}));
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["source"]["media_type"], "image/png");
    assert!(!run.stderr.contains("cannot see"), "no warning when the image went through: {}", run.stderr);
}
