//! Unit tests of `edit.rs`: entries added and removed in real-looking files, read back by the
//! loader, comments kept, refusals, and how the file is written.

use super::*;
use crate::config::McpServerConfig;
use crate::config::error::FileContext;
use crate::config::file::parse_config_file;

fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> McpTransport {
    McpTransport::Stdio {
        command: command.to_string(),
        args: args.iter().map(|arg| arg.to_string()).collect(),
        env: env.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect(),
    }
}

fn http(url: &str, headers: &[(&str, &str)]) -> McpTransport {
    McpTransport::Http {
        url: url.to_string(),
        headers: headers.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect(),
        ca_file: None,
    }
}

/// The servers the loader reads from `text` (no variable expansion).
fn loaded(text: &str) -> Vec<McpServerConfig> {
    let ctx = FileContext { display: "config.yaml", dir: Path::new("/"), lookup: None };
    let (file, warnings) = parse_config_file(text, &ctx).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    file.mcp_servers
}

fn added(text: &str, name: &str, transport: &McpTransport) -> Edit {
    plan_add(text, name, transport, false).unwrap()
}

#[test]
fn an_entry_added_to_a_new_file_is_what_the_loader_reads() {
    let context7 = stdio("npx", &["-y", "@upstash/context7-mcp", "--api-key", "${CONTEXT7_KEY}"], &[("DEBUG", "1")]);
    let edit = added("", "context7", &context7);
    assert_eq!(
        edit.text,
        "mcp_servers:\n  context7:\n    type: stdio\n    command: npx\n    args:\n    - -y\n    - '@upstash/context7-mcp'\n    - --api-key\n    - ${CONTEXT7_KEY}\n    env:\n      DEBUG: '1'\n"
    );
    assert!(!edit.comments_lost);
    assert!(edit.entry.starts_with("context7:\n  type: stdio\n  command: npx\n"), "{}", edit.entry);
    let servers = loaded(&edit.text);
    assert_eq!(servers.len(), 1);
    assert_eq!((servers[0].name.as_str(), &servers[0].transport), ("context7", &context7));

    let sentry = http("https://mcp.sentry.dev/mcp", &[("Authorization", "Bearer ${SENTRY_TOKEN}")]);
    let edit = added(&edit.text, "sentry", &sentry);
    let servers = loaded(&edit.text);
    assert_eq!(servers.iter().map(|server| &server.transport).collect::<Vec<_>>(), vec![&context7, &sentry]);
}

#[test]
fn the_rest_of_the_file_and_its_comments_are_kept() {
    let text = "\
# my providers
providers:
  - {name: fake, protocol: anthropic, model: m}   # the usual one

mcp_servers:
  # files of the project
  fs:
    command: npx
    args: [-y, '@modelcontextprotocol/server-filesystem', .]

  # end of servers
hooks: {}
";
    let edit = added(text, "git", &stdio("uvx", &["mcp-server-git"], &[]));
    assert_eq!(
        edit.text,
        "\
# my providers
providers:
  - {name: fake, protocol: anthropic, model: m}   # the usual one

mcp_servers:
  # files of the project
  fs:
    command: npx
    args: [-y, '@modelcontextprotocol/server-filesystem', .]
  git:
    type: stdio
    command: uvx
    args:
    - mcp-server-git

  # end of servers
hooks: {}
"
    );
    assert!(!edit.comments_lost);
    let removed = plan_remove(&edit.text, "fs").unwrap().unwrap();
    assert_eq!(
        removed.text,
        "\
# my providers
providers:
  - {name: fake, protocol: anthropic, model: m}   # the usual one

mcp_servers:
  # files of the project
  git:
    type: stdio
    command: uvx
    args:
    - mcp-server-git

  # end of servers
hooks: {}
"
    );
    let names: Vec<String> = loaded(&removed.text).into_iter().map(|server| server.name).collect();
    assert_eq!(names, vec!["git"]);
    let emptied = plan_remove(&removed.text, "git").unwrap().unwrap();
    assert!(emptied.text.contains("mcp_servers:\n  # files of the project\n\n  # end of servers\nhooks: {}\n"));
    assert!(loaded(&emptied.text).is_empty());
    assert_eq!(plan_remove(&emptied.text, "git").unwrap(), None);
}

#[test]
fn claude_codes_key_an_empty_key_and_an_unterminated_last_line_are_edited_in_place() {
    let text = "mcpServers:\n  fs:\n    command: npx";
    let edit = added(text, "git", &stdio("uvx", &["mcp-server-git"], &[]));
    assert_eq!(
        edit.text,
        "mcpServers:\n  fs:\n    command: npx\n  git:\n    type: stdio\n    command: uvx\n    args:\n    - mcp-server-git\n"
    );
    let edit = added("mcp_servers: {}  # none yet\n", "docs", &http("http://127.0.0.1:9/mcp", &[]));
    assert_eq!(edit.text, "mcp_servers:\n  docs:\n    type: http\n    url: http://127.0.0.1:9/mcp\n");
    let edit = added("default_provider: fake\nmcp_servers:\n", "docs", &http("http://127.0.0.1:9/mcp", &[]));
    assert_eq!(
        edit.text,
        "default_provider: fake\nmcp_servers:\n  docs:\n    type: http\n    url: http://127.0.0.1:9/mcp\n"
    );
    // A name YAML would read as a number is quoted.
    let edit = added("", "2024", &stdio("srv", &[], &[]));
    assert_eq!(loaded(&edit.text)[0].name, "2024");
}

#[test]
fn a_flow_style_block_is_rewritten_and_the_lost_comments_are_said() {
    let text = "# servers\nmcp_servers: {fs: {command: npx}}\n";
    let edit = added(text, "git", &stdio("uvx", &[], &[]));
    assert!(edit.comments_lost);
    let names: Vec<String> = loaded(&edit.text).into_iter().map(|server| server.name).collect();
    assert_eq!(names, vec!["fs", "git"]);
    let removed = plan_remove(text, "fs").unwrap().unwrap();
    assert!(removed.comments_lost);
    assert!(loaded(&removed.text).is_empty());
}

#[test]
fn a_duplicate_is_refused_unless_replaced_and_bad_names_and_files_are_refused() {
    let text = "mcp_servers:\n  fs:\n    command: old\n  # keep me\n  git:\n    command: uvx\n";
    assert_eq!(
        plan_add(text, "fs", &stdio("new", &[], &[]), false),
        Err("an MCP server named \"fs\" is already configured here (--force replaces it)".to_string())
    );
    let replaced = plan_add(text, "fs", &stdio("new", &[], &[]), true).unwrap();
    assert_eq!(
        replaced.text,
        "mcp_servers:\n  # keep me\n  git:\n    command: uvx\n  fs:\n    type: stdio\n    command: new\n"
    );
    assert!(has_server(&replaced.text, "fs").unwrap());
    assert!(!has_server(&replaced.text, "web").unwrap());
    for name in ["", "my server", "fs.local", "../x", &"x".repeat(41)] {
        assert!(plan_add("", name, &stdio("x", &[], &[]), false).is_err(), "{name:?}");
    }
    assert!(check_server_name(&"x".repeat(40)).is_ok());
    assert!(plan_add("- a list\n", "fs", &stdio("x", &[], &[]), false).unwrap_err().contains("not hold a mapping"));
    assert!(plan_add("a: [\n", "fs", &stdio("x", &[], &[]), false).unwrap_err().contains("not valid YAML"));
    assert!(plan_add("mcp_servers: [a]\n", "fs", &stdio("x", &[], &[]), false).unwrap_err().contains("not a mapping"));
}

#[test]
fn a_new_file_is_written_readable_by_its_owner_only_and_an_old_one_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = crate::test_dir::TempDir::new("config-edit");
    let path = dir.path().join("home/config.yaml");
    assert_eq!(load_text(&path).unwrap(), "");
    assert_eq!(save_text(&path, "mcp_servers:\n", None).unwrap(), None);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    save_text(&path, "mcp_servers: {}\n", None).unwrap();
    assert_eq!(load_text(&path).unwrap(), "mcp_servers: {}\n");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
}

#[test]
fn a_project_file_that_links_outside_the_project_is_not_written_through() {
    let dir = crate::test_dir::TempDir::new("config-edit-link");
    let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let outside = dir.path().join("outside.yaml");
    std::fs::write(&outside, "keep: me\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join(".mewcode.yaml")).unwrap();
    assert!(save_text(&root.join(".mewcode.yaml"), "mcp_servers:\n", Some(&root)).is_err());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep: me\n");
}
