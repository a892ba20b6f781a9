//! Piped stdin in -p mode, end to end: added below the prompt (delimited), taken as the prompt
//! with `-p` alone, refused when binary or over the cap, and never waited on forever.

use crate::support::project::Run;
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use std::io::Write;
use std::process::Stdio;

/// Runs mewcode with `input` already in its stdin pipe and the write end closed, so the bytes are
/// there before mewcode starts (no race with its bounded wait for the first byte).
fn run_with_bytes(env: &TestEnv, args: &[&str], input: &[u8]) -> Run {
    assert!(input.len() < 64 * 1024, "must fit a pipe buffer");
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer.write_all(input).unwrap();
    drop(writer);
    let output = env.command(args).stdin(reader).stdout(Stdio::piped()).stderr(Stdio::piped()).output().unwrap();
    Run::from(output)
}

fn user_message(model: &FakeModel) -> String {
    let request = &model.requests()[0];
    request.json.as_ref().unwrap()["messages"][1]["content"].as_str().unwrap().to_string()
}

#[test]
fn piped_text_follows_the_prompt_between_markers() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let env =
        TestEnv::with_model("pipe-append", &model, Provider::openai().field(&format!("context_window: {}", 128_000)));
    let run = run_with_bytes(&env, &["-p", "explain this"], b"fn main() {}\n");
    assert_eq!((run.code, run.stdout.as_str()), (0, "Olá!\n"), "{}", run.stderr);
    assert_eq!(user_message(&model), "explain this\n\n--- stdin ---\nfn main() {}\n--- end of stdin ---");
}

#[test]
fn p_without_a_value_reads_the_prompt_from_stdin() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    model.push(Reply::fixture("openai-text.sse"));
    let env =
        TestEnv::with_model("pipe-p-alone", &model, Provider::openai().field(&format!("context_window: {}", 128_000)));
    let run = run_with_bytes(&env, &["-p"], b"question\n");
    assert_eq!((run.code, run.stdout.as_str()), (0, "Olá!\n"), "{}", run.stderr);
    assert_eq!(user_message(&model), "question\n");
    let run = run_with_bytes(&env, &["-p", "--output-format", "json"], b"second question");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(user_message_at(&model, 1), "second question");
}

fn user_message_at(model: &FakeModel, index: usize) -> String {
    let request = &model.requests()[index];
    request.json.as_ref().unwrap()["messages"][1]["content"].as_str().unwrap().to_string()
}

#[test]
fn binary_or_non_utf8_input_is_refused_before_any_request() {
    let model = FakeModel::start();
    let env =
        TestEnv::with_model("pipe-binary", &model, Provider::openai().field(&format!("context_window: {}", 128_000)));
    let run = run_with_bytes(&env, &["-p", "explain"], b"\x7fELF\x02\x01\x00\x00");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("stdin: binary input (a NUL byte at offset 6)"), "{}", run.stderr);
    let run = run_with_bytes(&env, &["-p"], b"caf\xe9");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("stdin: not UTF-8 text (invalid byte at offset 3)"), "{}", run.stderr);
    assert!(model.requests().is_empty());
}

#[test]
fn input_over_the_cap_is_refused_not_cut() {
    let model = FakeModel::start();
    // A 4000-token window caps stdin at 4000 × 3.5 × 0.75 = 10500 bytes.
    let env = TestEnv::with_model("pipe-cap", &model, Provider::openai().field(&format!("context_window: {}", 4000)));
    let run = run_with_bytes(&env, &["-p", "summarise"], &vec![b'a'; 10_501]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("stdin: more than 10500 bytes, the cap for a context window of 4000 tokens"),
        "{}",
        run.stderr
    );
    assert!(model.requests().is_empty());
}

#[test]
fn an_idle_pipe_nobody_writes_to_does_not_hang_the_run() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let env =
        TestEnv::with_model("pipe-idle", &model, Provider::openai().field(&format!("context_window: {}", 128_000)));
    let mut child = env
        .command(&["-p", "hello"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The write end stays open, unwritten, until mewcode has exited (as a CI runner's would).
    let held_open = child.stdin.take().unwrap();
    let run = Run::from(child.wait_with_output().unwrap());
    drop(held_open);
    assert_eq!((run.code, run.stdout.as_str()), (0, "Olá!\n"), "{}", run.stderr);
    assert_eq!(user_message(&model), "hello");
}

#[test]
fn dev_null_stdin_adds_nothing_and_a_terminal_free_p_without_input_is_an_empty_prompt() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let env =
        TestEnv::with_model("pipe-null", &model, Provider::openai().field(&format!("context_window: {}", 128_000)));
    let run = env.run(&["-p", "hello"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(user_message(&model), "hello");
    let run = env.run(&["-p"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("-p: the prompt is empty"), "{}", run.stderr);
}
