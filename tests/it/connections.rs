//! Connection reuse end to end: the iterations of one run share one kept-alive connection to
//! the model when the server allows it, and a server that closes after each answer still works.

use crate::support::script::{anthropic, openai};
use crate::support::{FakeModel, Provider, Reply, TestEnv};

/// Nine turns that each read a file, then the answer.
fn ten_turns(protocol: &str) -> Vec<Reply> {
    let turn = |text: &str, calls: &[(&str, &str, &str)]| match protocol {
        "anthropic" => anthropic(text, calls),
        _ => openai(text, calls),
    };
    let mut replies: Vec<Reply> =
        (0..9).map(|_| turn("", &[("call_read", "read_file", r#"{"path":"notes.txt"}"#)])).collect();
    replies.push(turn("Read it nine times.", &[]));
    replies
}

fn run_ten_iterations(protocol: &str, kept_alive: bool) -> FakeModel {
    let model = FakeModel::start();
    for reply in ten_turns(protocol) {
        model.push(if kept_alive { reply.kept_alive() } else { reply });
    }
    let env = TestEnv::with_model(&format!("connections-{protocol}"), &model, Provider::of(protocol));
    env.write("notes.txt", "one line\n");
    let run = env.run(&["-p", "read the notes", "--mode", "bypass"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "Read it nine times.\n"), "{}", run.stderr);
    assert_eq!(model.requests().len(), 10);
    model
}

#[test]
fn ten_iterations_share_one_kept_alive_connection_anthropic() {
    assert_eq!(run_ten_iterations("anthropic", true).connections(), 1);
}

#[test]
fn ten_iterations_share_one_kept_alive_connection_openai() {
    assert_eq!(run_ten_iterations("openai", true).connections(), 1);
}

#[test]
fn a_server_that_closes_after_each_answer_gets_a_connection_per_iteration() {
    assert_eq!(run_ten_iterations("anthropic", false).connections(), 10);
}
