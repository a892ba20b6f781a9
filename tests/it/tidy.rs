//! Architecture checks that run inside `cargo test`: STYLE.md's layer rule, third-party crates
//! kept in their rooms, printing only in front ends, environment reads only in the wiring, a
//! `//!` doc at the top of every file, no `pub` wider than its uses, the module tree as the file
//! tree (no product `#[path]`, one unit-test layout, files of at most 600 lines, every directory
//! listing its files in its module doc). A new module must be
//! placed in the layer table below.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Top-level modules by layer (STYLE.md "Shape"). A module may use its own layer or lower.
const LAYERS: &[(&str, u8)] = &[
    ("cancel", 0),
    ("clock", 0),
    ("digest", 0),
    ("diff", 0),
    ("sse", 0),
    ("text", 0),
    ("test_dir", 0),
    ("test_golden", 0),
    ("test_rng", 0),
    ("test_tree", 0),
    ("url", 0),
    ("fsx", 0),
    ("http", 0),
    // Images as the models take them (issue 33): format, pixel size, limits, base64.
    ("image", 0),
    // The commands' proxy (issue 32): std sockets and threads; the policy's callback decides.
    ("netproxy", 0),
    ("proc", 0),
    ("sys", 0),
    ("sync", 0),
    ("shell", 0),
    ("msg", 1),
    ("mode", 1),
    ("glyphs", 1),
    ("warning", 1),
    ("special_paths", 1),
    // What a simple command does (wrappers, builtins, expansion): on the shell reader, under permission.
    ("command", 1),
    ("checkpoint", 2),
    ("config", 2),
    ("confine", 2),
    ("llm", 2),
    ("tools", 2),
    ("permission", 2),
    ("hooks", 2),
    ("jobs", 2),
    // Checks after edits (issue 33): configured commands, confined, after a write.
    ("checks", 2),
    ("mcp", 2),
    ("session", 2),
    ("context", 2),
    ("agent", 3),
    ("repl", 4),
    ("headless", 4),
    ("doctor", 4),
    ("mcp_cli", 4),
    ("cli", 5),
    ("cli_help", 5),
    ("cli_suggest", 5),
    ("app", 5),
    ("main", 5),
    ("lib", 5),
];

/// Third-party crates and the only places (path prefixes under src/) they may be used.
const ROOMS: &[(&str, &[&str])] = &[
    ("ureq", &["http/", "llm/http", "llm/discovery", "llm/probe", "llm/tokenize", "mcp/http"]),
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
    let module = first.strip_suffix(".rs").unwrap_or(first);
    // A top-level module's tests (`x_tests.rs` beside `x.rs`) belong to it.
    module.strip_suffix("_tests").unwrap_or(module)
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

/// Files that hold only tests (declared under `#[cfg(test)]` by their parent module), and every
/// file of a test-only folder (`test_*/`, declared under `#[cfg(test)]` as a whole).
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let in_test_folder = rel.split('/').any(|part| part.starts_with("test_"));
    name == "tests.rs" || name.ends_with("_tests.rs") || in_test_folder || name == "fixture.rs"
}

#[test]
fn test_only_files_are_declared_under_cfg_test() {
    let files = src_files();
    let mut problems = Vec::new();
    for (rel, _) in files.iter().filter(|(rel, _)| is_test_file(rel)) {
        // A file of a test-only folder is declared with its folder.
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let stem = rel.split('/').find(|part| part.starts_with("test_")).unwrap_or(name).trim_end_matches(".rs");
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
            && (code.contains("unsafe {") || code.contains("unsafe fn") || code.contains("(unsafe_code"))
        {
            problems.push(format!("{rel}: unsafe code outside sys/"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_wiring_names_what_it_imports() {
    // `app/` reaches into every layer: a glob import there hides which parts a command uses.
    let glob = r"(?m)^\s*(pub )?use [^;]*::\*;";
    let problems = product_code_matching(glob, |rel| rel.starts_with("app/"), "a glob import; name the items");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn front_ends_submit_prompts_and_never_write_messages() {
    // The agent appends the prompt and everything after it to the conversation and its log;
    // a front end that built or logged a message itself would bypass the prompt hooks.
    // Nor may it make up a history: a conversation starts empty or from its session's log.
    let writes = r"Message::(user|assistant|tool_results)\(|\.append\(&|\bpush\(Message|Conversation::unlogged";
    let front_end = |rel: &str| {
        ["repl/", "app/", "headless.rs", "doctor.rs", "mcp_cli.rs"].iter().any(|front| rel.starts_with(front))
    };
    let problems =
        product_code_matching(writes, front_end, "writes a message; submit the prompt with Agent::run instead");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn only_the_conversation_writes_to_a_session_log() {
    // A conversation's history and its log change in the same call (`agent::Conversation`), so
    // the two never drift apart; nothing else may append to a log, and no handle to one is shared.
    // `append(&message, time)`: two arguments, unlike `Vec::append(&mut other)`.
    let writes = r"\.append(_compacted)?\(&[^,()]+,|\bRecorder\b";
    let outside_the_log = |rel: &str| !rel.starts_with("session/") && rel != "agent/conversation.rs";
    let why = "writes to a session log; push through the conversation (the agent does)";
    let problems = product_code_matching(writes, outside_the_log, why);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The src files `in_scope` selects (test-only files never) whose product code — comments
/// dropped, up to the first `#[cfg(test)]` — matches `pattern`, each as `"{rel}: {why}"`.
fn product_code_matching(pattern: &str, in_scope: impl Fn(&str) -> bool, why: &str) -> Vec<String> {
    let pattern = regex::Regex::new(pattern).unwrap();
    src_files()
        .into_iter()
        .filter(|(rel, _)| in_scope(rel) && !is_test_file(rel))
        .filter(|(_, text)| pattern.is_match(&code_only(text.split("#[cfg(test)]").next().unwrap_or(text))))
        .map(|(rel, _)| format!("{rel}: {why}"))
        .collect()
}

/// A `pub`, `pub(crate)`, `pub(super)` or `pub(in …)` fn (methods too), struct, enum, const,
/// static, type or trait, at any indentation. Struct fields and enum variants are not items here.
const PUB_ITEM: &str =
    r"^\s*pub(\([^)]*\))?\s+(?:(?:const|async|unsafe)\s+)*(fn|struct|enum|const|static|type|trait)\s+(\w+)";

/// A `pub` item declared in src/ outside test code.
struct PubItem {
    /// Its file's index in `files`.
    file: usize,
    line: usize,
    /// Plain `pub`, not `pub(…)`.
    plain: bool,
    kind: String,
    name: String,
}

impl PubItem {
    fn at(&self, files: &[(String, String)]) -> String {
        format!("src/{}:{}: {} {}", files[self.file].0, self.line + 1, self.kind, self.name)
    }
}

/// src/ files without comments, and their `pub` items outside test code and test-only files.
fn pub_items() -> (Vec<(String, String)>, Vec<PubItem>) {
    let declaration = regex::Regex::new(PUB_ITEM).unwrap();
    let files: Vec<(String, String)> = src_files().into_iter().map(|(rel, text)| (rel, code_only(&text))).collect();
    let mut items = Vec::new();
    for (file, (_, code)) in files.iter().enumerate().filter(|(_, (rel, _))| !is_test_file(rel)) {
        for (line, text) in non_test_lines(code) {
            if let Some(capture) = declaration.captures(text) {
                let (plain, kind, name) = (capture.get(1).is_none(), capture[2].to_string(), capture[3].to_string());
                items.push(PubItem { file, line, plain, kind, name });
            }
        }
    }
    (files, items)
}

/// The identifiers of the package's other crates: main.rs, tests/ (but this file, which names
/// items in its messages) and examples/. lib.rs counts too: its re-exports are what they reach.
fn other_crates_words() -> HashSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("src/main.rs"), root.join("src/lib.rs")];
    for dir in ["tests", "examples"] {
        collect(&root.join(dir), &mut paths);
    }
    paths
        .iter()
        .filter(|path| !path.ends_with("tidy.rs"))
        .flat_map(|path| {
            identifiers(&code_only(&std::fs::read_to_string(path).unwrap()))
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn no_pub_item_is_unused_outside_its_module() {
    // A `pub` wider than the item's uses hides it from rustc: dead code behind a `pub(crate)` is
    // never reported. So every pub item (see PUB_ITEM) outside test code must be named, as a word
    // in code, in another file of src/: not its file's own test modules, which see its private
    // items, but any other, test files included (another module's tests need it `pub(..)`). A
    // plain `pub` item may instead be named by the package's other crates (tests/, examples/). A
    // type also counts as used when it appears in the interface of another pub item of its own
    // file (a signature, a field, a variant, a trait method): private, it would leak through that
    // interface. Files are the modules here: the one inline non-test module (`tools::lenient`)
    // is used by other files anyway. No allowlist: no item is used without being named.
    let (files, items) = pub_items();
    let words: Vec<HashSet<&str>> = files.iter().map(|(_, code)| identifiers(code)).collect();
    let other_crates = other_crates_words();
    let interfaces: Vec<Vec<(usize, HashSet<String>)>> = files
        .iter()
        .map(|(_, code)| {
            let chunks = interface_chunks(code).into_iter();
            chunks.map(|(start, chunk)| (start, identifiers(&chunk).into_iter().map(String::from).collect())).collect()
        })
        .collect();
    let own_tests = own_test_modules(&files);
    let problems: Vec<String> = items
        .iter()
        .filter(|item| {
            let name = item.name.as_str();
            let inside = &own_tests[item.file];
            let in_other_file = words
                .iter()
                .enumerate()
                .any(|(file, set)| file != item.file && !inside.contains(&file) && set.contains(name));
            let in_interface = ["struct", "enum", "type", "trait"].contains(&item.kind.as_str())
                && interfaces[item.file].iter().any(|(start, chunk)| *start != item.line && chunk.contains(name));
            !(in_other_file || (item.plain && other_crates.contains(name)) || in_interface)
        })
        .map(|item| item.at(&files))
        .collect();
    assert!(
        problems.is_empty(),
        "pub items that nothing outside their file uses: drop the `pub` (make them private), or delete \
         them if nothing uses them at all:\n{}",
        problems.join("\n")
    );
}

#[test]
fn plain_pub_functions_are_the_external_surface() {
    // Plain `pub` is for what the package's other crates drive: main.rs, tests/ and examples/,
    // through lib.rs's re-exports (a re-exported type brings its `pub` methods). A `pub fn`,
    // const or static none of them names is crate-internal: `pub(crate)`, so that rustc's dead
    // code analysis sees it. (Types are left to rustc: `unreachable_pub` knows which ones a
    // public signature reaches, which a textual check cannot.)
    let (files, items) = pub_items();
    let other_crates = other_crates_words();
    let problems: Vec<String> = items
        .iter()
        .filter(|item| item.plain && ["fn", "const", "static"].contains(&item.kind.as_str()))
        .filter(|item| !other_crates.contains(&item.name))
        .map(|item| item.at(&files))
        .collect();
    assert!(
        problems.is_empty(),
        "plain pub items that main.rs, tests/ and examples/ never name: write `pub(crate)` (or less), or \
         re-export the item in lib.rs's group for the caller that needs it:\n{}",
        problems.join("\n")
    );
}

/// For each file, the test-only files it declares as its own submodules (`mod tests;`, or with
/// `#[path = "…"]`): they see its private items.
fn own_test_modules(files: &[(String, String)]) -> Vec<Vec<usize>> {
    let declaration = regex::Regex::new(r"^\s*(pub(\([^)]*\))?\s+)?mod (\w+);").unwrap();
    let path_attribute = regex::Regex::new(r#"#\[path = "([^"]+)"\]"#).unwrap();
    let join = |dir: &str, path: &str| if dir.is_empty() { path.to_string() } else { format!("{dir}/{path}") };
    files
        .iter()
        .map(|(rel, code)| {
            let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
            // `mod x;` in `a/mod.rs` (or lib.rs) is `a/x.rs`, in `a/b.rs` it is `a/b/x.rs`; a
            // `#[path]` is relative to the declaring file's directory.
            let base = match name {
                "mod.rs" | "lib.rs" | "main.rs" => dir.to_string(),
                _ => join(dir, name.trim_end_matches(".rs")),
            };
            let lines: Vec<&str> = code.lines().collect();
            let mut children = Vec::new();
            for (index, line) in lines.iter().enumerate() {
                let Some(capture) = declaration.captures(line) else { continue };
                let mut attributes = lines[..index]
                    .iter()
                    .rev()
                    .take_while(|above| above.trim().is_empty() || above.trim().starts_with("#["));
                let candidates = match attributes.find_map(|above| path_attribute.captures(above)) {
                    Some(path) => vec![join(dir, &path[1])],
                    None => vec![
                        join(&base, &format!("{}.rs", &capture[3])),
                        join(&base, &format!("{}/mod.rs", &capture[3])),
                    ],
                };
                let child = files.iter().position(|(other, _)| candidates.contains(other));
                children.extend(child.filter(|&child| is_test_file(&files[child].0)));
            }
            children
        })
        .collect()
}

/// The identifiers in `code` (string contents included: serde names functions in strings).
fn identifiers(code: &str) -> HashSet<&str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|word| !word.is_empty()).collect()
}

/// The lines of `code` with their indexes, without `#[cfg(test)]` items (and the bodies of those
/// that have one: `mod tests { … }`, a test-only `impl`).
fn non_test_lines(code: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut kept = Vec::new();
    let mut skip_until: Option<String> = None;
    for (index, line) in lines.iter().enumerate() {
        if let Some(end) = &skip_until {
            if line.trim_end() == end {
                skip_until = None;
            }
            continue;
        }
        // The attributes (and doc comments, blank in code_only) right above the line.
        let attributes = lines[..index].iter().rev().take_while(|above| {
            let above = above.trim();
            above.is_empty() || above.starts_with("#[")
        });
        if attributes.into_iter().any(|above| above.trim() == "#[cfg(test)]") {
            if line.trim_end().ends_with('{') {
                skip_until = Some(format!("{}}}", &line[..line.len() - line.trim_start().len()]));
            }
            continue;
        }
        kept.push((index, *line));
    }
    kept
}

/// The interface of `code`'s `pub` items, each chunk with its first line's index: a fn's signature
/// up to its body, a pub enum's or trait's whole body, any other `pub` line (a field, an alias).
fn interface_chunks(code: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = code.lines().collect();
    let public = regex::Regex::new(r"^\s*pub(\([^)]*\))?\s").unwrap();
    let function = regex::Regex::new(r"\bfn\s+\w").unwrap();
    let body = regex::Regex::new(r"\b(enum|trait)\b[^;]*\{\s*$").unwrap();
    let mut chunks = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        if public.is_match(line) {
            let start = index;
            let mut chunk = line.to_string();
            if function.is_match(line) {
                while !chunk.trim_end().ends_with(['{', ';']) && index + 1 < lines.len() {
                    index += 1;
                    chunk.push('\n');
                    chunk.push_str(lines[index]);
                }
            } else if body.is_match(line) {
                let end = format!("{}}}", &line[..line.len() - line.trim_start().len()]);
                while index + 1 < lines.len() && lines[index + 1].trim_end() != end {
                    index += 1;
                    chunk.push('\n');
                    chunk.push_str(lines[index]);
                }
            }
            chunks.push((start, chunk));
        }
        index += 1;
    }
    chunks
}

/// The most lines a product file may have: past it, a file holds more than one job.
const MAX_PRODUCT_LINES: usize = 600;

#[test]
fn the_module_tree_is_the_file_tree_and_tests_have_one_layout() {
    let declares_tests = regex::Regex::new(r"^(pub\(crate\) )?mod (\w*tests|test_\w+);$").unwrap();
    let inline_tests = regex::Regex::new(r"(?m)^\s*mod \w*tests \{").unwrap();
    let mut problems = Vec::new();
    for (rel, text) in src_files() {
        if inline_tests.is_match(&code_only(&text)) {
            problems.push(format!("{rel}: an inline test module; unit tests of x.rs live in x_tests.rs"));
        }
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (index, line) in lines.iter().enumerate() {
            let declared = lines[index + 1..].iter().find(|next| !next.starts_with("#["));
            if line.starts_with("#[path")
                && !is_test_file(&rel)
                && !declared.is_some_and(|d| declares_tests.is_match(d))
            {
                problems.push(format!("{rel}:{}: #[path] on a module that is not a test module", index + 1));
            }
        }
        if !is_test_file(&rel) && lines.len() > MAX_PRODUCT_LINES {
            problems.push(format!("{rel}: {} lines, over {MAX_PRODUCT_LINES}: split it by job", lines.len()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_directory_lists_its_files_in_its_module_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
                names.push(format!("{name}/"));
            } else if name.ends_with(".rs") && name != "mod.rs" && !is_test_file(&name) {
                names.push(name);
            }
        }
        let module = dir.join("mod.rs");
        if dir == root || !module.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&module).unwrap();
        let doc: String = text.lines().take_while(|line| line.starts_with("//!")).collect::<Vec<_>>().join("\n");
        let rel = module.strip_prefix(&root).unwrap().display().to_string();
        for name in names.iter().filter(|name| !is_test_file(name.trim_end_matches('/'))) {
            if !doc.contains(&format!("`{name}`")) {
                problems.push(format!("{rel}: its //! doc does not list `{name}`"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
