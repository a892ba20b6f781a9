//! Unit tests of `host_edit.rs`: a host added to new and existing files, comments kept, and
//! read back by the loader.

use super::*;
use crate::config::error::FileContext;
use crate::config::file::parse_config_file;
use std::path::Path;

fn host(text: &str) -> HostPattern {
    HostPattern::parse(text).unwrap()
}

/// The `sandbox.allow_hosts` the loader reads from `text`, normalised.
fn loaded(text: &str) -> Vec<String> {
    let ctx = FileContext { display: "config.yaml", dir: Path::new("/"), lookup: None };
    let (file, warnings) = parse_config_file(text, &ctx).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    file.sandbox.and_then(|sandbox| sandbox.allow_hosts).unwrap_or_default().iter().map(ToString::to_string).collect()
}

fn added(text: &str, entry: &str) -> String {
    let edit = plan_add_host(text, &host(entry)).unwrap();
    assert!(edit.added && !edit.comments_lost, "{edit:?}");
    edit.text
}

#[test]
fn a_new_file_gets_a_sandbox_block() {
    let text = added("", "*.Example.com");
    assert_eq!(text, "sandbox:\n  allow_hosts:\n    - \"*.example.com\"\n");
    assert_eq!(loaded(&text), ["*.example.com"]);
    let text = added("# only a comment", "api.example.com");
    assert_eq!(text, "# only a comment\nsandbox:\n  allow_hosts:\n    - \"api.example.com\"\n");
}

#[test]
fn a_file_with_comments_keeps_them_and_gets_the_block_at_its_end() {
    let text = "\
# my config
default_provider: claude   # the one I use
providers:
  - name: claude
    protocol: anthropic
    model: claude-sonnet-4-5
";
    let edited = added(text, "api.example.com");
    assert_eq!(edited, format!("{text}sandbox:\n  allow_hosts:\n    - \"api.example.com\"\n"));
}

#[test]
fn an_existing_sandbox_block_gets_the_key_after_its_last_line() {
    let text = "\
sandbox:
    mode: required   # keep this
    # hosts below
    view: true
notify: bell
";
    let edited = added(text, "api.example.com");
    assert_eq!(
        edited,
        "\
sandbox:
    mode: required   # keep this
    # hosts below
    view: true
    allow_hosts:
      - \"api.example.com\"
notify: bell
"
    );
    assert_eq!(loaded(&edited), ["api.example.com"]);
}

#[test]
fn an_existing_list_gets_one_more_item_in_its_own_style() {
    let text = "\
sandbox:
  allow_hosts:
  - a.example   # first
  # a comment between
  - \"*.b.example\"
  view: true
";
    let edited = added(text, "c.example:8443");
    assert_eq!(
        edited,
        "\
sandbox:
  allow_hosts:
  - a.example   # first
  # a comment between
  - \"*.b.example\"
  - \"c.example:8443\"
  view: true
"
    );
    assert_eq!(loaded(&edited), ["a.example", "*.b.example", "c.example:8443"]);
    let text = "sandbox:\n  network: allowlist\n  allow_hosts:\n      - a.example\n";
    assert_eq!(added(text, "d.example"), format!("{text}      - \"d.example\"\n"));
}

#[test]
fn an_empty_key_or_block_is_filled_in_place() {
    assert_eq!(
        added("sandbox:\n  allow_hosts: []   # none yet\n  view: true\n", "a.example"),
        "sandbox:\n  allow_hosts:\n    - \"a.example\"\n  view: true\n"
    );
    assert_eq!(
        added("sandbox:\n  allow_hosts:\n  view: true\n", "a.example"),
        "sandbox:\n  allow_hosts:\n    - \"a.example\"\n  view: true\n"
    );
    assert_eq!(
        added("sandbox: {}\nnotify: bell\n", "a.example"),
        "sandbox:\n  allow_hosts:\n    - \"a.example\"\nnotify: bell\n"
    );
    assert_eq!(
        added("sandbox:\nnotify: bell\n", "a.example"),
        "sandbox:\n  allow_hosts:\n    - \"a.example\"\nnotify: bell\n"
    );
}

#[test]
fn a_listed_host_is_not_added_again_in_any_spelling() {
    let text = "sandbox:\n  allow_hosts: [API.example.com., '::1']\n";
    for entry in ["api.example.com", "[::1]"] {
        let edit = plan_add_host(text, &host(entry)).unwrap();
        assert_eq!(edit, HostEdit { text: text.to_string(), added: false, comments_lost: false });
    }
}

#[test]
fn flow_style_is_written_anew_and_says_the_comments_were_lost() {
    let text = "# mine\nsandbox: {mode: required, allow_hosts: [a.example]}\n";
    let edit = plan_add_host(text, &host("b.example")).unwrap();
    assert!(edit.added && edit.comments_lost, "{edit:?}");
    assert_eq!(loaded(&edit.text), ["a.example", "b.example"]);
    assert!(edit.text.contains("mode: required"), "{}", edit.text);
}

#[test]
fn a_file_it_cannot_edit_is_refused() {
    for (text, reason) in [
        ("sandbox: off\n", "sandbox is not a mapping"),
        ("sandbox:\n  allow_hosts: x.example\n", "not a list"),
        ("- a\n", "not hold a mapping"),
        ("sandbox: [\n", "not valid YAML"),
    ] {
        let err = plan_add_host(text, &host("a.example")).unwrap_err();
        assert!(err.contains(reason), "{text:?}: {err}");
    }
}
