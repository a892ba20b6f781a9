//! Keys pressed while a turn runs, as a person presses them: Esc stops the turn and keeps the
//! partial answer, a line typed and sent with Enter is queued and becomes the next message, and
//! text typed without Enter waits in the next input line.

use crate::repl::{messages, partial_text, text_reply, user_text};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use std::time::Duration;

#[test]
fn esc_stops_a_streaming_answer_keeps_it_and_what_was_typed_waits_in_the_input_line() {
    let model = FakeModel::start();
    let (release, stalled) = crossbeam_channel::bounded::<()>(0);
    model.push(Reply::Stall { body: partial_text("A very long answer begins").into_bytes(), release: stalled });
    model.push(text_reply("Second answer."));
    let env = TestEnv::with_model("keys-esc", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("tell me everything");
    tmux.keys(&["Enter"]);
    tmux.wait_for("A very long answer");
    tmux.type_text("and the tests");
    tmux.keys(&["Escape"]);
    tmux.wait_for("interrupted (Esc)");
    let screen = tmux.wait_until("the typed text back in the input line", |screen| {
        screen.lines().any(|line| line.starts_with('›') && line.contains("and the tests"))
    });
    assert!(!screen.contains("queued:"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Second answer.");
    drop(release);
    let second = messages(&model, 1);
    assert_eq!(second.len(), 3, "{second:?}");
    assert_eq!(second[1]["role"], "assistant");
    assert!(user_text(&second[1]).contains("A very long answer begins"), "{second:?}");
    assert_eq!(user_text(&second[2]), "and the tests");
}

#[test]
fn a_line_typed_during_a_turn_is_queued_and_sent_next_and_the_rest_waits() {
    let model = FakeModel::start();
    let (arrived_tx, arrived) = crossbeam_channel::bounded::<()>(1);
    let (release, held) = crossbeam_channel::bounded::<()>(0);
    model.push(Reply::Respond(Box::new(move |_| {
        let _ = arrived_tx.send(());
        let _ = held.recv();
        text_reply("First answer.")
    })));
    model.push(text_reply("Second answer."));
    let env = TestEnv::with_model("keys-queue", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("first question");
    tmux.keys(&["Enter"]);
    arrived.recv_timeout(Duration::from_secs(30)).expect("the first request arrives");
    tmux.type_text("next question");
    tmux.keys(&["Enter"]);
    tmux.wait_for("queued: next question");
    tmux.type_text("a draft");
    // Shift-Tab mid-turn is neither text nor a mode change.
    tmux.keys(&["BTab"]);
    drop(release);
    tmux.wait_for("Second answer.");
    let screen = tmux.wait_until("the draft in the input line", |screen| {
        screen.lines().any(|line| line.starts_with('›') && line.contains("a draft"))
    });
    assert!(screen.contains("› next question"), "{screen}");
    assert!(screen.contains("mode default"), "{screen}");
    let second = messages(&model, 1);
    assert_eq!(user_text(second.last().unwrap()), "next question");
    assert_eq!(model.requests().len(), 2);
}
