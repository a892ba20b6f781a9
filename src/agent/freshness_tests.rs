//! Tests of `freshness.rs`: the verdict table, then the guard around the real file tools.

use super::*;
use crate::cancel::CancelToken;
use crate::digest::sha256;
use crate::test_dir::TempDir;
use crate::tools::{EditFileTool, ReadFileTool, WriteFileTool};
use serde_json::json;

#[test]
fn only_an_unseen_or_changed_file_with_content_is_refused() {
    let seen = Fingerprint::Whole(sha256(b"seen"));
    let other = Fingerprint::Whole(sha256(b"other"));
    let file = |fingerprint, len| OnDisk::File { fingerprint, len, bytes: None };
    let cases = [
        (OnDisk::Absent, None, Ok(())),
        (OnDisk::Absent, Some(seen), Ok(())),
        (file(other, 0), None, Ok(())),
        (file(seen, 4), Some(seen), Ok(())),
        (file(seen, 4), None, Err(Refusal::NotRead)),
        (file(other, 5), Some(seen), Err(Refusal::Changed)),
        (OnDisk::Unreadable("why".into()), Some(seen), Err(Refusal::Unreadable("why".into()))),
    ];
    for (before, last_seen, expected) in cases {
        assert_eq!(judge(&before, last_seen), expected, "{before:?} seen as {last_seen:?}");
    }
}

#[test]
fn refusals_name_the_file_and_what_to_do() {
    assert_eq!(
        Refusal::NotRead.message("notes.txt"),
        "notes.txt exists and has not been read in this conversation: read it with read_file first, then write"
    );
    assert_eq!(
        Refusal::Changed.message("a/b.rs"),
        "a/b.rs changed on disk since you last read it (edited by the user or a command): read it again with \
         read_file, then make your change"
    );
    assert_eq!(
        Refusal::Unreadable("denied".into()).message("x"),
        "x exists but could not be read to check what the write would replace (denied); nothing was written"
    );
}

/// A project and a conversation's tool context in it.
struct Project {
    dir: TempDir,
    ctx: ToolContext,
}

impl Project {
    fn new(label: &str) -> Project {
        let dir = TempDir::new(label);
        let ctx = ToolContext::new(dir.path().to_path_buf(), CancelToken::new());
        Project { dir, ctx }
    }

    fn call(&self, tool: &dyn Tool, input: serde_json::Value) -> Guarded {
        execute_guarded(tool, &input.to_string(), &self.ctx)
    }

    fn read(&self, path: &str) {
        let read = self.call(&ReadFileTool, json!({"path": path}));
        assert!(!read.output.is_error && read.change.is_none(), "{:?}", read.output);
    }

    fn write(&self, path: &str, content: &str) -> Guarded {
        self.call(&WriteFileTool, json!({"path": path, "content": content}))
    }

    fn edit(&self, path: &str, old: &str, new: &str) -> Guarded {
        self.call(&EditFileTool, json!({"path": path, "old_string": old, "new_string": new}))
    }
}

fn assert_refused(guarded: &Guarded, expected: &str) {
    assert_eq!((guarded.output.content.as_str(), guarded.output.is_error), (expected, true));
    assert!(guarded.change.is_none());
}

#[test]
fn an_unread_file_is_refused_and_left_intact() {
    let project = Project::new("fresh-unread");
    project.dir.write("notes.txt", "200 lines of notes\n");
    let not_read = Refusal::NotRead.message("notes.txt");
    assert_refused(&project.write("notes.txt", "one line\n"), &not_read);
    assert_refused(&project.edit("notes.txt", "notes", "nothing"), &not_read);
    assert_eq!(project.dir.read("notes.txt"), "200 lines of notes\n");
    // Refused before anyone is asked, too.
    let input = json!({"path": "notes.txt", "content": "x"}).to_string();
    assert_eq!(refusal(&WriteFileTool, &input, &project.ctx.root, &project.ctx.reads), Some(not_read));
    // Once read, the same write goes through.
    project.read("notes.txt");
    assert_eq!(refusal(&WriteFileTool, &input, &project.ctx.root, &project.ctx.reads), None);
    assert!(!project.write("notes.txt", "one line\n").output.is_error);
    assert_eq!(project.dir.read("notes.txt"), "one line\n");
}

#[test]
fn a_file_changed_after_the_read_is_refused_and_the_change_kept() {
    let project = Project::new("fresh-changed");
    project.dir.write("a.txt", "first\n");
    project.read("a.txt");
    project.dir.write("a.txt", "first\nthe user's line\n");
    let changed = Refusal::Changed.message("a.txt");
    assert_refused(&project.edit("a.txt", "first", "1st"), &changed);
    assert_refused(&project.write("a.txt", "mine\n"), &changed);
    assert_eq!(project.dir.read("a.txt"), "first\nthe user's line\n");
    // Same length, other content: a hash, not a size or a time, decides.
    project.read("a.txt");
    project.dir.write("a.txt", "FIRST\nthe user's line\n");
    assert_refused(&project.write("a.txt", "mine\n"), &changed);
    // Read again, the change is seen and the edit goes through.
    project.read("a.txt");
    assert!(!project.edit("a.txt", "FIRST", "1st").output.is_error);
    assert_eq!(project.dir.read("a.txt"), "1st\nthe user's line\n");
}

#[test]
fn the_agents_own_writes_keep_the_file_fresh() {
    let project = Project::new("fresh-own");
    project.dir.write("a.txt", "one\n");
    project.read("a.txt");
    // read → edit → edit
    assert!(!project.edit("a.txt", "one", "two").output.is_error);
    assert!(!project.edit("a.txt", "two", "three").output.is_error);
    assert_eq!(project.dir.read("a.txt"), "three\n");
    // write (a new file) → edit, no read between
    let created = project.write("b.txt", "alpha\n");
    assert!(!created.output.is_error, "{:?}", created.output);
    assert!(!project.edit("b.txt", "alpha", "beta").output.is_error);
    // write over a read file → write again
    assert!(!project.write("a.txt", "four\n").output.is_error);
    assert!(!project.write("a.txt", "five\n").output.is_error);
    assert_eq!((project.dir.read("a.txt"), project.dir.read("b.txt")), ("five\n".into(), "beta\n".into()));
    // A failed edit records nothing: a change after it is still caught.
    assert!(project.edit("a.txt", "absent", "x").output.is_error);
    project.dir.write("a.txt", "user\n");
    assert_refused(&project.write("a.txt", "six\n"), &Refusal::Changed.message("a.txt"));
}

#[test]
fn new_and_empty_files_are_free() {
    let project = Project::new("fresh-free");
    assert!(!project.write("dir/new.txt", "x\n").output.is_error);
    project.dir.write("empty.txt", "");
    assert!(!project.edit("empty.txt", "", "filled\n").output.is_error);
    assert_eq!(project.dir.read("empty.txt"), "filled\n");
    project.dir.write("empty2.txt", "");
    assert!(!project.write("empty2.txt", "y\n").output.is_error);
    // A path through a file is the tool's to report.
    let through = project.write("empty.txt/x", "y");
    assert!(through.output.content.starts_with("cannot create directory"), "{:?}", through.output);
    // A directory at the path is the tool's to report.
    project.dir.mkdir("a_dir");
    let guarded = project.write("a_dir", "x");
    assert_eq!(guarded.output, ToolOutput::error("a_dir is a directory; cannot write it"));
}

#[test]
fn a_file_read_through_a_link_is_one_file_with_its_real_name() {
    let project = Project::new("fresh-link");
    project.dir.write("real.txt", "content\n");
    std::os::unix::fs::symlink(project.dir.join("real.txt"), project.dir.join("link.txt")).unwrap();
    project.read("real.txt");
    assert!(!project.edit("link.txt", "content", "via the link").output.is_error);
    assert!(!project.edit("real.txt", "via the link", "by name").output.is_error);
    assert_eq!(project.dir.read("real.txt"), "by name\n");
    // Read through the link, the real name is fresh too.
    project.dir.write("other.txt", "o\n");
    std::os::unix::fs::symlink("other.txt", project.dir.join("other-link")).unwrap();
    project.read("other-link");
    assert!(!project.write("other.txt", "p\n").output.is_error);
    // A link to an unread file is refused under the name the model used.
    project.dir.write("secret.txt", "s\n");
    std::os::unix::fs::symlink("secret.txt", project.dir.join("s-link")).unwrap();
    assert_refused(&project.write("s-link", "x"), &Refusal::NotRead.message("s-link"));
    assert_eq!(project.dir.read("secret.txt"), "s\n");
}

#[test]
fn a_file_that_cannot_be_looked_at_is_refused() {
    let project = Project::new("fresh-loop");
    std::os::unix::fs::symlink("loop-b", project.dir.join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", project.dir.join("loop-b")).unwrap();
    let guarded = project.write("loop-a", "x");
    assert!(guarded.output.is_error && guarded.output.content.starts_with("loop-a exists but could not be read"));
}

#[test]
fn the_change_a_call_made_is_described() {
    let project = Project::new("fresh-change");
    let created = project.write("a.txt", "one\ntwo\n").change.unwrap();
    assert_eq!(
        (created.path.as_str(), created.created, created.lines_added, created.lines_removed),
        ("a.txt", true, 2, 0)
    );
    assert_eq!(created.diff, "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n");
    let edited = project.edit("a.txt", "two", "2").change.unwrap();
    let expected = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n";
    assert_eq!(
        (edited.created, edited.lines_added, edited.lines_removed, edited.diff.as_str()),
        (false, 1, 1, expected)
    );
    // A binary file is summarised; a large one is too.
    let binary = project.write("img.bin", "\u{0}\u{1}").change.unwrap();
    assert_eq!(binary.summary.as_deref(), Some("binary file: created, 2 B"));
    let big = "line\n".repeat(TEXT_MAX_BYTES / 5 + 1);
    let large = project.write("big.txt", &big).change.unwrap();
    assert_eq!(large.summary.as_deref(), Some("too large to diff: created, 1.0 MiB"));
    // A failed call changes nothing and describes nothing.
    assert!(project.edit("a.txt", "absent", "x").change.is_none());
}

/// A tool of someone else's that declares it writes its `path`: the same guard applies. One that
/// declares nothing is not looked at, whatever its arguments.
struct Declared(ToolKind);

impl Tool for Declared {
    fn name(&self) -> &str {
        "declared"
    }
    fn rule_name(&self) -> &str {
        "Declared"
    }
    fn description(&self) -> &str {
        "writes `ran` to its path"
    }
    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        false
    }
    fn kind(&self) -> ToolKind {
        self.0
    }
    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: serde_json::Value = serde_json::from_str(input_json).unwrap();
        std::fs::write(ctx.root.join(input["path"].as_str().unwrap()), "ran\n").unwrap();
        ToolOutput::ok("ran")
    }
}

#[test]
fn any_tool_that_declares_it_writes_its_path_is_guarded() {
    let project = Project::new("fresh-declared");
    project.dir.write("a.txt", "mine\n");
    let writes = Declared(ToolKind::WritesPath);
    assert_refused(&project.call(&writes, json!({"path": "a.txt"})), &Refusal::NotRead.message("a.txt"));
    assert_eq!(project.dir.read("a.txt"), "mine\n");
    let opaque = project.call(&Declared(ToolKind::Opaque), json!({"path": "a.txt"}));
    assert_eq!((opaque.output, opaque.change), (ToolOutput::ok("ran"), None));
    assert_eq!(
        refusal(&Declared(ToolKind::Opaque), r#"{"path":"a.txt"}"#, &project.ctx.root, &project.ctx.reads),
        None
    );
    // Arguments without a path string are the tool's to refuse.
    let bad = execute_guarded(&WriteFileTool, r#"{"path": 3}"#, &project.ctx);
    assert!(bad.output.content.starts_with("invalid arguments for write_file"), "{:?}", bad.output);
    assert_eq!(refusal(&WriteFileTool, "not json", &project.ctx.root, &project.ctx.reads), None);
}
