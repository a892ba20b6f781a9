//! Unit tests of `tools/mod.rs`: the registry, tool sources and views, paths.

use super::*;
use crate::permission::kind::{BUILTIN_NAMES, ToolNames};
use crate::sync::lock;
use std::sync::Mutex;

fn ctx() -> ToolContext {
    ToolContext::new(std::env::temp_dir(), CancelToken::new())
}

/// Runs `name` through the registry as the agent does: looked up, then `execute_caught`; an
/// unknown name is an error output.
fn execute(registry: &Registry, name: &str, input_json: &str, ctx: &ToolContext) -> ToolOutput {
    match registry.get(name) {
        Some(tool) => execute_caught(tool.as_ref(), input_json, ctx),
        None => ToolOutput::error(format!("unknown tool: {name}")),
    }
}

#[test]
fn builtin_tools_carry_the_names_of_the_table_in_order() {
    let tools = builtin_tools(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    // `job` is `Opaque` and names itself, as `task` does.
    let names: Vec<ToolNames> = tools
        .iter()
        .filter(|tool| tool.name() != "job")
        .map(|tool| ToolNames {
            name: BUILTIN_NAMES.iter().find(|names| names.name == tool.name()).map_or("?", |names| names.name),
            rule: BUILTIN_NAMES.iter().find(|names| names.rule == tool.rule_name()).map_or("?", |names| names.rule),
            kind: tool.kind(),
        })
        .collect();
    assert_eq!(names, BUILTIN_NAMES.to_vec());
}

#[test]
fn registry_with_builtins_splits_read_only_definitions() {
    let registry = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    let all: Vec<String> = registry.definitions().into_iter().map(|definition| definition.name).collect();
    assert_eq!(all, ["read_file", "write_file", "edit_file", "glob", "grep", "bash", "job"]);
    let read_only: Vec<String> =
        registry.read_only_definitions().into_iter().map(|definition| definition.name).collect();
    assert_eq!(read_only, ["read_file", "glob", "grep"]);
    for definition in registry.definitions() {
        assert_eq!(definition.input_schema["type"], "object", "{}", definition.name);
        assert!(definition.input_schema["required"].is_array(), "{}", definition.name);
    }
}

#[test]
fn registry_reports_unknown_tools_and_invalid_json_as_errors() {
    let registry = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    assert_eq!(execute(&registry, "nope", "{}", &ctx()), ToolOutput::error("unknown tool: nope"));
    for names in BUILTIN_NAMES {
        let output = execute(&registry, names.name, "{not json", &ctx());
        assert!(output.is_error, "{}", names.name);
        assert!(output.content.starts_with(&format!("invalid arguments for {}:", names.name)), "{}", output.content);
    }
}

struct Panicking;

impl Tool for Panicking {
    fn name(&self) -> &str {
        "panicking"
    }
    fn rule_name(&self) -> &str {
        "Panicking"
    }
    fn description(&self) -> &str {
        ""
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        true
    }
    fn execute(&self, _input_json: &str, _ctx: &ToolContext) -> ToolOutput {
        panic!("a bug")
    }
}

#[test]
fn registry_turns_a_panicking_tool_into_an_error() {
    let mut registry = Registry::new();
    registry.register(Arc::new(Panicking));
    let output = execute(&registry, "panicking", "{}", &ctx());
    assert!(output.is_error && output.content.contains("failed internally"), "{}", output.content);
}

/// A source whose list the test replaces.
struct Changing(Mutex<Vec<Arc<dyn Tool>>>);

impl ToolSource for Changing {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        lock(&self.0).clone()
    }
}

#[test]
fn a_source_keeps_its_place_and_changes_only_at_refresh() {
    let source = Arc::new(Changing(Mutex::new(Vec::new())));
    let mut registry = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    registry.register_source(source.clone());
    registry.register(Arc::new(GlobTool));
    let names = |registry: &Registry| -> Vec<String> {
        registry.definitions().into_iter().map(|definition| definition.name).collect()
    };
    let before = names(&registry);
    assert_eq!(before, ["read_file", "write_file", "edit_file", "grep", "bash", "job", "glob"]);
    *lock(&source.0) = vec![Arc::new(Panicking)];
    // Not before the refresh: a batch in flight keeps the list it started with.
    assert_eq!(names(&registry), before);
    assert!(registry.get("panicking").is_none());
    let copy = registry.clone();
    registry.refresh();
    assert_eq!(names(&registry), ["read_file", "write_file", "edit_file", "grep", "bash", "job", "panicking", "glob"]);
    assert!(registry.get("panicking").is_some());
    // A clone has its own snapshot and shares the sources.
    assert_eq!(names(&copy), before);
    copy.refresh();
    assert!(copy.get("panicking").is_some());
}

#[test]
fn a_read_only_view_follows_its_sources_and_leaves_out_writers_and_the_excluded() {
    let source = Arc::new(Changing(Mutex::new(Vec::new())));
    let mut registry = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    registry.register_source(source.clone());
    registry.register(Arc::new(GlobTool));
    let view = registry.read_only_view("glob");
    let names = |registry: &Registry| -> Vec<String> {
        registry.definitions().into_iter().map(|definition| definition.name).collect()
    };
    assert_eq!(names(&view), ["read_file", "grep"]);
    // A read-only tool the source offers later (a server that connected) joins at the view's
    // next refresh; a writer it offers does not.
    *lock(&source.0) = vec![Arc::new(Panicking), Arc::new(WriteFileTool)];
    view.refresh();
    assert_eq!(names(&view), ["read_file", "grep", "panicking"]);
}
