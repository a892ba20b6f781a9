//! Batch planning, and the read-before-write guard on the one path every call takes: real file
//! tools in a temp project, a scripted model, approvals answered by the test.

use super::{plan_batches, shell_quoted};
use crate::agent::tests::{Script, ScriptedProvider, settings, text_turn, tool_turn, toolbox};
use crate::agent::{Agent, Approval, ApprovalRequest, Conversation, Event, FileChange, FrontEnd};
use crate::cancel::CancelToken;
use crate::mode::Mode;
use crate::test_dir::TempDir;
use crate::tools::{EditFileTool, ReadFileTool, Registry, Tool, ToolContext, ToolKind, ToolOutput, WriteFileTool};
use std::sync::Arc;

#[test]
fn batches_group_consecutive_reads_and_isolate_writes() {
    assert_eq!(plan_batches(&[]), Vec::<std::ops::Range<usize>>::new());
    assert_eq!(plan_batches(&[true, true, true]), vec![0..3]);
    assert_eq!(plan_batches(&[false, false]), vec![0..1, 1..2]);
    assert_eq!(
        plan_batches(&[true, true, false, true, false, false, true, true]),
        vec![0..2, 2..3, 3..4, 4..5, 5..6, 6..8]
    );
}

/// The person at the keyboard, as a tool the script calls between the agent's own: appends a
/// line to `notes.txt` behind the agent's back.
struct UserTypes;

impl Tool for UserTypes {
    fn name(&self) -> &str {
        "user_types"
    }
    fn rule_name(&self) -> &str {
        "UserTypes"
    }
    fn description(&self) -> &str {
        "the user adds a line to notes.txt"
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        false
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Opaque
    }
    fn execute(&self, _input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let path = ctx.root.join("notes.txt");
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str("the user's line\n");
        std::fs::write(&path, text).unwrap();
        ToolOutput::ok("typed")
    }
}

/// A project with the three file tools and `user_types`, and an agent over `scripts` in it.
fn project(label: &str, scripts: Vec<Script>, front_end: FrontEnd) -> (TempDir, Arc<Agent>) {
    let dir = TempDir::new(label);
    let mut registry = Registry::new();
    let tools: [Arc<dyn Tool>; 4] =
        [Arc::new(ReadFileTool), Arc::new(WriteFileTool), Arc::new(EditFileTool), Arc::new(UserTypes)];
    for tool in tools {
        registry.register(tool);
    }
    let agent = Arc::new(Agent {
        toolbox: toolbox(ScriptedProvider::new(scripts), crate::hooks::Hooks::default()),
        registry,
        stable_prompt: "stable".into(),
        settings: crate::agent::Settings { root: dir.path().to_path_buf(), ..settings(25, front_end) },
        context: crate::context::ContextConfig::default(),
    });
    (dir, agent)
}

/// Runs one turn in `conversation`, answering each approval with `answer` (which may also act
/// on the project while the question is on screen); returns the events.
fn turn(
    agent: &Arc<Agent>,
    conversation: &mut Conversation,
    mode: Mode,
    mut answer: impl FnMut(&ApprovalRequest) -> Approval,
) -> Vec<Event> {
    let running = agent.run(std::mem::take(conversation), "go".to_string(), mode, CancelToken::new());
    let mut events = Vec::new();
    for event in running.events() {
        if let Event::Approval(request) = &event {
            request.respond.send(answer(request)).unwrap();
        }
        events.push(event);
    }
    *conversation = running.finish();
    events
}

/// How each call ended: (id, output, is_error, refused by someone, approved at the prompt, change).
type End = (String, String, bool, bool, bool, Option<FileChange>);

fn ends(events: &[Event]) -> Vec<End> {
    let end = |event: &Event| match event {
        Event::ToolEnd { id, output, is_error, refused_by, approved_by_user, change, .. } => Some((
            id.clone(),
            output.clone(),
            *is_error,
            refused_by.is_some(),
            *approved_by_user,
            change.as_deref().cloned(),
        )),
        _ => None,
    };
    events.iter().filter_map(end).collect()
}

fn no_question(request: &ApprovalRequest) -> Approval {
    panic!("nobody should be asked: {request:?}")
}

const NOT_READ: &str =
    "notes.txt exists and has not been read in this conversation: read it with read_file first, then write";
const CHANGED: &str = "notes.txt changed on disk since you last read it (edited by the user or a command): read it \
                       again with read_file, then make your change";

#[test]
fn a_write_over_an_unread_file_is_an_error_result_and_the_file_is_intact() {
    let write = r#"{"path":"notes.txt","content":"one line\n"}"#;
    let scripts = vec![tool_turn(&[("w", "write_file", write)]), text_turn("sorry")];
    let (dir, agent) = project("batch-unread", scripts, FrontEnd::Headless);
    dir.write("notes.txt", "200 lines of notes\n");
    let events = turn(&agent, &mut Conversation::new("s"), Mode::Bypass, no_question);
    // An error the model reads, not a refusal of the permission system.
    assert_eq!(ends(&events), [("w".to_string(), NOT_READ.to_string(), true, false, false, None)]);
    assert_eq!(dir.read("notes.txt"), "200 lines of notes\n");
}

#[test]
fn a_file_changed_between_the_read_and_the_write_is_refused_and_the_change_kept() {
    let calls = [
        ("r", "read_file", r#"{"path":"notes.txt"}"#),
        ("u", "user_types", "{}"),
        ("e", "edit_file", r#"{"path":"notes.txt","old_string":"notes","new_string":"mine"}"#),
    ];
    let (dir, agent) = project("batch-changed", vec![tool_turn(&calls), text_turn("ok")], FrontEnd::Headless);
    dir.write("notes.txt", "notes\n");
    let events = turn(&agent, &mut Conversation::new("s"), Mode::Bypass, no_question);
    assert_eq!(ends(&events)[2], ("e".to_string(), CHANGED.to_string(), true, false, false, None));
    assert_eq!(dir.read("notes.txt"), "notes\nthe user's line\n");
}

/// The file changes while the approval question is on screen: the check is made again when the
/// call runs.
#[test]
fn a_file_changed_while_the_question_is_on_screen_is_refused() {
    let edit = r#"{"path":"notes.txt","old_string":"notes","new_string":"mine"}"#;
    let scripts = vec![
        tool_turn(&[("r", "read_file", r#"{"path":"notes.txt"}"#)]),
        tool_turn(&[("e", "edit_file", edit)]),
        text_turn("ok"),
    ];
    let (dir, agent) = project("batch-asked", scripts, FrontEnd::Repl);
    dir.write("notes.txt", "notes\n");
    let events = turn(&agent, &mut Conversation::new("s"), Mode::Default, |_| {
        dir.write("notes.txt", "notes\nthe user's line\n");
        Approval::Once
    });
    assert_eq!(ends(&events)[1], ("e".to_string(), CHANGED.to_string(), true, false, true, None));
    assert_eq!(dir.read("notes.txt"), "notes\nthe user's line\n");
}

/// An unread file is refused before anyone is asked: a person should not approve what cannot run.
#[test]
fn a_write_that_would_be_refused_is_not_put_to_a_person() {
    let write = r#"{"path":"notes.txt","content":"x"}"#;
    let scripts = vec![tool_turn(&[("w", "write_file", write)]), text_turn("ok")];
    let (dir, agent) = project("batch-no-question", scripts, FrontEnd::Repl);
    dir.write("notes.txt", "notes\n");
    let events = turn(&agent, &mut Conversation::new("s"), Mode::Default, no_question);
    assert_eq!(ends(&events), [("w".to_string(), NOT_READ.to_string(), true, false, false, None)]);
}

#[test]
fn read_then_edit_then_edit_runs_across_turns_and_each_change_is_carried() {
    let edit = |old: &str, new: &str| format!(r#"{{"path":"notes.txt","old_string":"{old}","new_string":"{new}"}}"#);
    let (first, second) = (edit("one", "two"), edit("two", "three"));
    let scripts = vec![
        tool_turn(&[("r", "read_file", r#"{"path":"notes.txt"}"#)]),
        tool_turn(&[("e1", "edit_file", &first)]),
        text_turn("edited"),
        tool_turn(&[("e2", "edit_file", &second)]),
        text_turn("edited again"),
    ];
    let (dir, agent) = project("batch-read-edit-edit", scripts, FrontEnd::Repl);
    dir.write("notes.txt", "one\n");
    let mut conversation = Conversation::new("s");
    let first_turn = ends(&turn(&agent, &mut conversation, Mode::AcceptEdits, no_question));
    // The second edit is approved at the prompt: its end says so.
    let second_turn = ends(&turn(&agent, &mut conversation, Mode::Default, |_| Approval::Once));
    assert_eq!(dir.read("notes.txt"), "three\n");
    let change = |old: &str, new: &str| FileChange {
        path: "notes.txt".into(),
        created: false,
        lines_added: 1,
        lines_removed: 1,
        diff: format!("--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-{old}\n+{new}\n"),
        summary: None,
    };
    let edited = "edited notes.txt: 1 replacement (first at line 1)".to_string();
    assert_eq!(first_turn[1], ("e1".to_string(), edited.clone(), false, false, false, Some(change("one", "two"))));
    assert_eq!(second_turn, [("e2".to_string(), edited, false, false, true, Some(change("two", "three")))]);
}

#[test]
fn a_file_the_agent_wrote_can_be_edited_without_a_read() {
    let scripts = vec![
        tool_turn(&[("w", "write_file", r#"{"path":"notes.txt","content":"alpha\n"}"#)]),
        tool_turn(&[("e", "edit_file", r#"{"path":"notes.txt","old_string":"alpha","new_string":"beta"}"#)]),
        text_turn("ok"),
    ];
    let (dir, agent) = project("batch-write-edit", scripts, FrontEnd::Headless);
    let ended = ends(&turn(&agent, &mut Conversation::new("s"), Mode::AcceptEdits, no_question));
    assert!(ended.iter().all(|(_, _, is_error, ..)| !is_error), "{ended:?}");
    assert!(ended[0].5.as_ref().is_some_and(|change| change.created));
    assert_eq!(dir.read("notes.txt"), "beta\n");
}

#[test]
fn the_bound_of_what_is_remembered_is_the_trackers() {
    // A conversation that read more files than it keeps fingerprints of must read the first again.
    let tracker = crate::tools::ReadTracker::new();
    let dir = TempDir::new("batch-bound");
    let first = dir.write("first.txt", "x\n");
    crate::tools::reads::record_read(&tracker, &first);
    for n in 0..crate::tools::ReadTracker::SEEN_CAPACITY {
        let key = dir.join(format!("other-{n}"));
        tracker.remember(&key, crate::tools::reads::Fingerprint::Whole([0; 32]));
    }
    let refused =
        crate::agent::freshness::refusal(&WriteFileTool, r#"{"path":"first.txt","content":"y"}"#, dir.path(), &tracker);
    let not_read =
        "first.txt exists and has not been read in this conversation: read it with read_file first, then write";
    assert_eq!(refused.as_deref(), Some(not_read), "the oldest fingerprint was dropped");
}

#[test]
fn a_suggested_flag_value_is_one_shell_word_even_with_a_quote_in_it() {
    assert_eq!(shell_quoted("Bash(touch *)"), "'Bash(touch *)'");
    assert_eq!(shell_quoted("Bash(echo 'hi')"), r"'Bash(echo '\''hi'\'')'");
}
