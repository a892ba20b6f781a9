//! Tests of what `/rewind` offers and what each key means.

use super::*;

fn offer(code: bool, conversation: Option<usize>) -> Offer {
    Offer { code, conversation }
}

#[test]
fn each_offer_asks_only_what_it_can_do_and_its_keys_mean_that() {
    let both = offer(true, Some(3));
    let (question, answers) = question_for(both).unwrap();
    assert!(question.starts_with("restore [b]oth"), "{question}");
    assert_eq!(answers.len(), 3);
    assert_eq!(restore_for(both, b'b'), Some(Restore::Both));
    assert_eq!(restore_for(both, b'c'), Some(Restore::Code));
    assert_eq!(restore_for(both, b'v'), Some(Restore::Conversation));
    assert_eq!(restore_for(both, b'y'), None);
    let code = offer(true, None);
    assert_eq!(question_for(code).unwrap().0, "restore the code? [y/N]");
    assert_eq!(restore_for(code, b'y'), Some(Restore::Code));
    assert_eq!(restore_for(code, b'b'), None);
    assert_eq!(restore_for(code, b'v'), None);
    let talk = offer(false, Some(0));
    assert!(question_for(talk).unwrap().0.contains("rewind the conversation?"));
    assert_eq!(restore_for(talk, b'y'), Some(Restore::Conversation));
    assert_eq!(restore_for(talk, b'c'), None);
    assert_eq!(question_for(offer(false, None)), None);
    assert_eq!(restore_for(offer(false, None), b'y'), None);
}

#[test]
fn the_model_is_told_when_files_and_conversation_part_ways() {
    let point =
        Point { turn: 2, rewind: false, prompt: "add the   flag".into(), ts: 0, changed: vec![], history_len: Some(2) };
    let plan = Plan {
        turn: 2,
        rewind: false,
        restore: vec!["/p/a".into()],
        remove: vec!["/p/b".into()],
        hand_changed: vec![],
        not_covered: vec![],
        unreached: vec![],
    };
    assert_eq!(model_note(Restore::Both, &point, &plan), None);
    let code = model_note(Restore::Code, &point, &plan).unwrap();
    assert!(code.contains("before the user's message \"add the flag\" (2 files changed back)"), "{code}");
    let talk = model_note(Restore::Conversation, &point, &plan).unwrap();
    assert!(talk.contains("files on disk were not changed back"), "{talk}");
    let rewind = Point { rewind: true, ..point };
    assert!(code_note(&rewind, &plan).contains("as they were before the user's last rewind"));
}

#[test]
fn a_turn_number_picks_that_turn_never_a_rewind_of_it() {
    let make = |turn, rewind| Point { turn, rewind, prompt: String::new(), ts: 0, changed: vec![], history_len: None };
    let points = vec![make(2, true), make(3, false), make(2, false), make(1, false)];
    assert_eq!(pick_turn(&points, "2"), Ok(2));
    assert_eq!(pick_turn(&points, "#3"), Ok(1));
    assert!(pick_turn(&points, "9").unwrap_err().contains("no turn 9 in this session (its turns are 1 to 3)"));
    assert!(pick_turn(&points, "two").unwrap_err().contains("is not a turn number"));
}

#[test]
fn the_prompt_put_back_is_the_persons_without_mewcodes_note() {
    let noted = crate::session::with_note("fix it\n\nplease", Some("files may have changed"));
    assert_eq!(without_note(&noted), "fix it\n\nplease");
    assert_eq!(without_note("plain [mewcode: not a note]"), "plain [mewcode: not a note]");
    assert_eq!(without_note("ends with ]"), "ends with ]");
}
