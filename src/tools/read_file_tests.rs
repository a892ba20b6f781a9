//! Unit tests of `read_file.rs`: numbered windows, cuts, caps and the files it refuses.

use super::*;
use crate::test_dir::TempDir;
use crate::tools::test_support::{ProjectContext, check_rejects_bad_arguments, run};
use serde_json::json;

fn read(project: &TempDir, input: serde_json::Value) -> ToolOutput {
    run(&ReadFileTool, &project.ctx(), input)
}

#[test]
fn read_file_numbers_lines_from_one() {
    let project = TempDir::new("read-basic");
    project.write("a.txt", "alpha\nbeta\r\ngamma");
    let output = read(&project, json!({"path": "a.txt"}));
    assert_eq!(output, ToolOutput::ok("     1\talpha\n     2\tbeta\n     3\tgamma\n"));
}

#[test]
fn read_file_offset_and_limit_select_a_window_and_note_the_rest() {
    let project = TempDir::new("read-window");
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    project.write("a.txt", text);
    let output = read(&project, json!({"path": "a.txt", "offset": 3, "limit": "2"}));
    assert_eq!(output.content, "     3\tline 3\n     4\tline 4\n... 6 more lines; use offset=5 to read further\n");
}

#[test]
fn read_file_offset_past_the_end_says_how_long_the_file_is() {
    let project = TempDir::new("read-past");
    project.write("a.txt", "one\ntwo\n");
    let output = read(&project, json!({"path": "a.txt", "offset": 9}));
    assert!(!output.is_error);
    assert!(output.content.contains("has 2 lines"), "{}", output.content);
    let output = read(&project, json!({"path": "a.txt", "offset": 3}));
    assert!(output.content.contains("has 2 lines"), "{}", output.content);
}

#[test]
fn read_file_cuts_long_lines_with_a_marker() {
    let project = TempDir::new("read-long");
    project.write("a.txt", format!("{}\nshort\n", "é".repeat(5000)));
    let output = read(&project, json!({"path": "a.txt"}));
    let first = output.content.lines().next().unwrap();
    assert!(first.ends_with("[... line cut at 2000 characters]"));
    assert_eq!(first.chars().filter(|&c| c == 'é').count(), MAX_LINE_CHARS);
    assert!(output.content.contains("     2\tshort"));
}

#[test]
fn read_file_refuses_missing_files_directories_and_binaries() {
    let project = TempDir::new("read-refuse");
    project.write("dir/x.txt", "x");
    // Images are shown as images now (`read_file_of_an_image_...`); other binaries are refused.
    project.write("archive.zip", b"PK\x03\x04\x14\x00\x00\x00\x08\x00");
    project.write("noise.bin", (0..4096u32).map(|n| (n % 64) as u8 + 0xC0).collect::<Vec<u8>>());
    let cases = [
        ("missing.txt", "file not found"),
        ("dir", "is a directory"),
        ("archive.zip", "binary"),
        ("noise.bin", "binary"),
    ];
    for (path, expected) in cases {
        let output = read(&project, json!({"path": path}));
        assert!(output.is_error, "{path}");
        assert!(output.content.contains(expected), "{path}: {}", output.content);
    }
    assert!(project.ctx().reads.recent(10).is_empty());
}

#[test]
fn read_file_decodes_stray_invalid_bytes_lossily() {
    let project = TempDir::new("read-lossy");
    project.write("latin1.txt", b"caf\xe9 au lait\nna\xefve\n");
    let output = read(&project, json!({"path": "latin1.txt"}));
    assert_eq!(output, ToolOutput::ok("     1\tcaf\u{FFFD} au lait\n     2\tna\u{FFFD}ve\n"));
}

#[test]
fn read_file_empty_file_says_so() {
    let project = TempDir::new("read-empty");
    project.write("empty.txt", "");
    assert_eq!(read(&project, json!({"path": "empty.txt"})), ToolOutput::ok("(file is empty)"));
}

#[test]
fn read_file_records_reads_most_recent_last() {
    let project = TempDir::new("read-track");
    project.write("a.txt", "a");
    project.write("b.txt", "b");
    let ctx = project.ctx();
    for path in ["a.txt", "b.txt", "./a.txt"] {
        assert!(!run(&ReadFileTool, &ctx, json!({"path": path})).is_error);
    }
    assert_eq!(ctx.reads.recent(5), vec![project.join("b.txt"), project.join("a.txt")]);
    assert_eq!(ctx.reads.recent(1), vec![project.join("a.txt")]);
}

#[test]
fn read_file_accepts_absolute_paths() {
    let project = TempDir::new("read-abs");
    let path = project.write("a.txt", "x\n");
    let output = read(&project, json!({"path": path.to_string_lossy()}));
    assert_eq!(output, ToolOutput::ok("     1\tx\n"));
}

#[test]
fn read_file_streams_a_huge_file_near_its_end_quickly() {
    let project = TempDir::new("read-huge");
    let line = format!("{}\n", "x".repeat(99)); // 100 bytes per line
    let lines = 500_000u64; // 50 MB
    let chunk = line.repeat(10_000);
    let mut file = std::io::BufWriter::new(File::create(project.join("big.txt")).unwrap());
    for _ in 0..lines / 10_000 {
        std::io::Write::write_all(&mut file, chunk.as_bytes()).unwrap();
    }
    drop(file);
    let output = read(&project, json!({"path": "big.txt", "offset": lines - 2, "limit": 10}));
    assert_eq!(output.content.lines().count(), 3, "{}", output.content);
    assert!(output.content.starts_with(&format!("{:>6}\t", lines - 2)));
    // No timing here (a timed unit test fails on a busy machine): the window and the note prove
    // the line accounting; the speed is `make bench`'s.
    let output = read(&project, json!({"path": "big.txt", "limit": 1}));
    assert!(output.content.ends_with(&format!("... {} more lines; use offset=2 to read further\n", lines - 1)));
}

#[test]
fn read_file_stops_at_the_output_cap_and_says_where_to_continue() {
    let project = TempDir::new("read-cap");
    let line = format!("{}\n", "z".repeat(1000));
    project.write("wide.txt", line.repeat(1000));
    let output = read(&project, json!({"path": "wide.txt", "limit": 100000}));
    let shown = output.content.lines().count() - 1;
    assert!(output.content.len() < MAX_OUTPUT_BYTES + 2000);
    assert!(
        output.content.ends_with(&format!(
            "... {} more lines; use offset={} to read further\n",
            1000 - shown,
            shown + 1
        )),
        "{}",
        &output.content[output.content.len() - 80..]
    );
}

#[test]
fn read_file_a_gigantic_single_line_is_cut_while_reading() {
    let project = TempDir::new("read-oneline");
    project.write("one.txt", "y".repeat(3_000_000));
    let output = read(&project, json!({"path": "one.txt"}));
    assert!(output.content.len() < 3000, "len {}", output.content.len());
    assert!(output.content.contains("[... line cut at 2000 characters]"));
}

#[test]
fn read_file_rejects_bad_arguments() {
    check_rejects_bad_arguments(&ReadFileTool, "path");
    let project = TempDir::new("read-badlimit");
    project.write("a.txt", "x");
    assert!(read(&project, json!({"path": "a.txt", "limit": 0})).is_error);
    assert!(read(&project, json!({"path": "a.txt", "offset": -3})).is_error);
}

#[test]
fn read_file_of_an_image_returns_it_to_a_model_with_vision() {
    let project = TempDir::new("read-image");
    project.write("shot.png", include_bytes!("../../fixtures/images/red-2x3.png"));
    let ctx = ToolContext { image_refusal: None, ..project.ctx() };
    let output = run(&ReadFileTool, &ctx, json!({"path": "shot.png"}));
    assert_eq!((output.content.as_str(), output.is_error), ("image: shot.png, PNG 2x3, 73 B", false));
    assert_eq!(output.images.len(), 1);
    assert_eq!((output.images[0].media_type.as_str(), output.images[0].source.as_str()), ("image/png", "shot.png"));
}

#[test]
fn read_file_of_an_image_tells_a_model_without_vision_why_in_text() {
    let project = TempDir::new("read-image-refused");
    project.write("shot.png", include_bytes!("../../fixtures/images/red-2x3.png"));
    let ctx = ToolContext { image_refusal: Some("this model does not accept images".into()), ..project.ctx() };
    let output = run(&ReadFileTool, &ctx, json!({"path": "shot.png"}));
    assert_eq!(
        output,
        ToolOutput::ok("image: shot.png, PNG 2x3, 73 B; not shown: this model does not accept images"),
        "not an error: the model learns what the file is"
    );
}

#[test]
fn a_fifo_or_a_socket_is_refused_without_waiting_for_a_writer() {
    let project = TempDir::new("read-fifo");
    let made = std::process::Command::new("mkfifo").arg(project.join("pipe.png")).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo");
    let _socket = std::os::unix::net::UnixListener::bind(project.join("sock")).unwrap();
    for name in ["pipe.png", "sock"] {
        let output = read(&project, json!({"path": name}));
        assert!(output.is_error, "{name}: {output:?}");
        assert!(
            output.content.ends_with("is not a regular file (a FIFO, socket or device); read_file reads files only"),
            "{name}: {}",
            output.content
        );
    }
    assert!(!crate::tools::read_image::is_image_file(&project.join("pipe.png")));
}
