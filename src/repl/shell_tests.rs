//! Tests of what the model is told about the person's own command.

use super::*;

#[test]
fn the_model_reads_the_command_whether_it_failed_and_the_end_of_its_output() {
    let note = model_note("ls src", &ToolOutput::ok("main.rs\nlib.rs\n"));
    assert_eq!(note, "the user ran this shell command themselves: `ls src`; its output: main.rs\nlib.rs");
    let failed = model_note("false", &ToolOutput::error("exit code 1"));
    assert_eq!(failed, "the user ran this shell command themselves (it failed): `false`; its output: exit code 1");
    let long = "x".repeat(NOTE_CHARS) + "END";
    let cut = model_note("yes", &ToolOutput::ok(long));
    assert!(cut.contains("(first 3 characters left out) "), "{}", &cut[..120]);
    assert!(cut.ends_with("END"));
    assert_eq!(cut.matches('x').count(), NOTE_CHARS - 3);
}
