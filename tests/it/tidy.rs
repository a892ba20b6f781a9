//! Architecture checks that run inside `cargo test`: STYLE.md's layer rule, third-party crates
//! kept in their rooms, printing only in front ends, environment reads only in the wiring, and a
//! `//!` doc at the top of every file. A new module must be placed in the layer table below.

use std::path::{Path, PathBuf};

/// Top-level modules by layer (STYLE.md "Shape"). A module may use its own layer or lower.
const LAYERS: &[(&str, u8)] = &[
    ("cancel", 0),
    ("clock", 0),
    ("digest", 0),
    ("sse", 0),
    ("text", 0),
    ("test_golden", 0),
    ("test_rng", 0),
    ("url", 0),
    ("fsx", 0),
    ("proc", 0),
    ("sys", 0),
    ("sync", 0),
    ("msg", 1),
    ("mode", 1),
    ("warning", 1),
    ("config", 2),
    ("confine", 2),
    ("llm", 2),
    ("tools", 2),
    ("permission", 2),
    ("hooks", 2),
    ("mcp", 2),
    ("session", 2),
    ("context", 2),
    ("agent", 3),
    ("repl", 4),
    ("headless", 4),
    ("doctor", 4),
    ("mcp_cli", 4),
    ("cli", 5),
    ("app", 5),
    ("main", 5),
    ("lib", 5),
];

/// Third-party crates and the only places (path prefixes under src/) they may be used.
const ROOMS: &[(&str, &[&str])] = &[
    ("ureq", &["llm/", "mcp/http.rs"]),
    ("rustyline", &["repl/"]),
    ("serde_yaml", &["config/", "permission/store.rs"]),
    ("ctrlc", &["app/"]),
    ("tiny_http", &[]),
    ("libc", &["sys/"]),
];

/// Files allowed to print to stdout/stderr (front ends and the top of the program).
const PRINTERS: &[&str] = &["main.rs", "app/", "doctor.rs", "headless.rs", "mcp_cli.rs", "repl/"];
/// Files allowed to read the process environment or the current directory.
const ENV_READERS: &[&str] = &["main.rs", "app/"];

fn src_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap();
            (rel, text)
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

fn top_module(rel: &str) -> &str {
    let first = rel.split('/').next().unwrap_or(rel);
    first.strip_suffix(".rs").unwrap_or(first)
}

fn layer_of(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(name, _)| *name == module).map(|(_, layer)| *layer)
}

/// Code without comments and string contents, so a word in a doc or a message is not a use.
fn code_only(text: &str) -> String {
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            if trimmed.starts_with("//") { "" } else { line.split(" //").next().unwrap_or(line) }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Files that hold only tests (declared under `#[cfg(test)]` by their parent module).
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "tests.rs" || name.ends_with("_tests.rs") || name.starts_with("test_") || name == "fixture.rs"
}

#[test]
fn test_only_files_are_declared_under_cfg_test() {
    let files = src_files();
    let mut problems = Vec::new();
    for (rel, _) in files.iter().filter(|(rel, _)| is_test_file(rel)) {
        let stem = rel.rsplit('/').next().unwrap_or(rel).trim_end_matches(".rs");
        // Declared as `#[cfg(test)] mod stem;` or `#[cfg(test)] #[path = "stem.rs"] mod tests;`.
        let declared = files.iter().any(|(_, text)| {
            let lines: Vec<&str> = text.lines().map(str::trim).collect();
            lines.iter().enumerate().any(|(index, line)| {
                let names_it =
                    [format!("mod {stem};"), format!("pub(crate) mod {stem};"), format!("#[path = \"{stem}.rs\"]")]
                        .contains(&line.to_string());
                names_it && lines[index.saturating_sub(2)..index].contains(&"#[cfg(test)]")
            })
        });
        if !declared {
            problems.push(format!("{rel}: a test-only file must be declared under #[cfg(test)]"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_module_is_in_the_layer_table_and_imports_only_downwards() {
    let mut problems = Vec::new();
    let import = regex::Regex::new(r"crate::([a-z_]+)").unwrap();
    for (rel, text) in src_files() {
        let module = top_module(&rel);
        let Some(own) = layer_of(module) else {
            problems.push(format!("{rel}: module {module:?} is not in tidy.rs LAYERS (place it in a layer)"));
            continue;
        };
        for capture in import.captures_iter(&code_only(&text)) {
            let target = &capture[1];
            match layer_of(target) {
                Some(layer) if layer > own => {
                    problems.push(format!("{rel}: layer {own} module uses crate::{target} (layer {layer})"))
                }
                Some(_) => {}
                None => problems.push(format!("{rel}: uses crate::{target}, which is not in LAYERS")),
            }
        }
    }
    assert!(problems.is_empty(), "layer violations:\n{}", problems.join("\n"));
}

#[test]
fn third_party_crates_stay_in_their_rooms() {
    let mut problems = Vec::new();
    for (rel, text) in src_files() {
        let code = code_only(&text);
        for (krate, rooms) in ROOMS {
            let used = code.contains(&format!("{krate}::")) || code.contains(&format!("use {krate}"));
            if used && !rooms.iter().any(|room| rel.starts_with(room)) {
                problems.push(format!("{rel}: uses {krate}, allowed only in {rooms:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "crates out of their rooms:\n{}", problems.join("\n"));
}

#[test]
fn only_front_ends_print_and_only_the_wiring_reads_the_environment() {
    let printing = regex::Regex::new(r"\b(e?println!|e?print!|std::io::stdout\(\)|std::io::stderr\(\))").unwrap();
    let env_read = regex::Regex::new(r"std::env::(var|vars|var_os|vars_os|current_dir|home_dir|args)\b").unwrap();
    let mut problems = Vec::new();
    for (rel, text) in src_files() {
        // Unit tests may print and read their own temp dirs: test-only files and #[cfg(test)] tails.
        if is_test_file(&rel) {
            continue;
        }
        let code = code_only(text.split("#[cfg(test)]").next().unwrap_or(&text));
        if printing.is_match(&code) && !PRINTERS.iter().any(|allowed| rel.starts_with(allowed)) {
            problems.push(format!("{rel}: prints, but only front ends may ({PRINTERS:?})"));
        }
        if env_read.is_match(&code) && !ENV_READERS.iter().any(|allowed| rel.starts_with(allowed)) {
            problems.push(format!("{rel}: reads the environment or cwd, but only {ENV_READERS:?} may"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_file_opens_with_a_module_doc_and_unsafe_stays_in_sys() {
    let mut problems = Vec::new();
    for (rel, text) in src_files() {
        if !text.trim_start().starts_with("//!") {
            problems.push(format!("{rel}: does not open with a //! doc paragraph"));
        }
        let code = code_only(&text);
        if !rel.starts_with("sys/")
            && (code.contains("unsafe {") || code.contains("unsafe fn") || code.contains("allow(unsafe_code)"))
        {
            problems.push(format!("{rel}: unsafe code outside sys/"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_wiring_names_what_it_imports() {
    // `app/` reaches into every layer: a glob import there hides which parts a command uses.
    let glob = regex::Regex::new(r"(?m)^\s*(pub )?use [^;]*::\*;").unwrap();
    let problems: Vec<String> = src_files()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("app/") && !is_test_file(rel))
        .filter(|(_, text)| glob.is_match(&code_only(text.split("#[cfg(test)]").next().unwrap_or(text))))
        .map(|(rel, _)| format!("{rel}: a glob import; name the items"))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn front_ends_submit_prompts_and_never_write_messages() {
    // The agent appends the prompt and everything after it to the conversation and its log;
    // a front end that built or logged a message itself would bypass the prompt hooks.
    // Nor may it make up a history: a conversation starts empty or from its session's log.
    let writes = regex::Regex::new(
        r"Message::(user|assistant|tool_results)\(|\.append\(&|\bpush\(Message|Conversation::unlogged",
    )
    .unwrap();
    let problems: Vec<String> = src_files()
        .into_iter()
        .filter(|(rel, _)| {
            ["repl/", "app/", "headless.rs", "doctor.rs", "mcp_cli.rs"].iter().any(|front| rel.starts_with(front))
                && !is_test_file(rel)
        })
        .filter(|(_, text)| writes.is_match(&code_only(text.split("#[cfg(test)]").next().unwrap_or(text))))
        .map(|(rel, _)| format!("{rel}: writes a message; submit the prompt with Agent::run instead"))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn only_the_conversation_writes_to_a_session_log() {
    // A conversation's history and its log change in the same call (`agent::Conversation`), so
    // the two never drift apart; nothing else may append to a log, and no handle to one is shared.
    // `append(&message, time)`: two arguments, unlike `Vec::append(&mut other)`.
    let writes = regex::Regex::new(r"\.append(_compacted)?\(&[^,()]+,|\bRecorder\b").unwrap();
    let problems: Vec<String> = src_files()
        .into_iter()
        .filter(|(rel, _)| !rel.starts_with("session/") && rel != "agent/conversation.rs" && !is_test_file(rel))
        .filter(|(_, text)| writes.is_match(&code_only(text.split("#[cfg(test)]").next().unwrap_or(text))))
        .map(|(rel, _)| format!("{rel}: writes to a session log; push through the conversation (the agent does)"))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
