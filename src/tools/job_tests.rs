//! Tests of `job.rs`: list, output and stop through the tool's input, and bad input named.

use super::*;
use crate::tools::test_support::{check_rejects_bad_arguments, run as call};

fn tool() -> (crate::test_dir::TempDir, JobTool, Arc<Jobs>) {
    let dir = crate::test_dir::TempDir::new("job-tool");
    let jobs = Arc::new(Jobs::new(dir.join("jobs")));
    (dir, JobTool::new(Arc::clone(&jobs)), jobs)
}

#[test]
fn with_no_job_list_says_so_and_output_names_the_missing_job() {
    let (_dir, tool, _jobs) = tool();
    let ctx = crate::tools::ToolContext::new(std::env::temp_dir(), crate::cancel::CancelToken::new());
    let listed = call(&tool, &ctx, serde_json::json!({"action": "list"}));
    assert_eq!(listed, ToolOutput::ok("no background jobs"));
    let missing = call(&tool, &ctx, serde_json::json!({"action": "output", "id": 3}));
    assert_eq!(missing, ToolOutput::error("no job 3: no background job was started in this session"));
    let no_id = call(&tool, &ctx, serde_json::json!({"action": "stop"}));
    assert_eq!(no_id, ToolOutput::error("`stop` needs the job's number as `id`"));
    let bad = call(&tool, &ctx, serde_json::json!({"action": "kill", "id": 1}));
    assert_eq!(bad, ToolOutput::error("unknown action \"kill\": use list, output or stop"));
    check_rejects_bad_arguments(&tool, "action");
}

#[test]
fn a_job_is_read_then_stopped_through_the_tool() {
    let (_dir, tool, jobs) = tool();
    let ctx = crate::tools::ToolContext::new(std::env::temp_dir(), crate::cancel::CancelToken::new());
    let mut command = std::process::Command::new("bash");
    command.arg("-c").arg("echo ready; exec sleep 300");
    let sandbox = Arc::new(crate::confine::Sandbox::off());
    let id =
        jobs.start("echo ready; exec sleep 300", command, None, crate::confine::Network::default(), sandbox).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut seen = String::new();
    while !seen.contains("ready") && std::time::Instant::now() < deadline {
        seen.push_str(&call(&tool, &ctx, serde_json::json!({"action": "output", "id": id})).content);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(seen.contains("job 1: running\nready"), "{seen}");
    let stopped = call(&tool, &ctx, serde_json::json!({"action": "stop", "id": id}));
    assert_eq!(stopped, ToolOutput::ok("job 1: stopped (it and everything it started were killed)\n(no new output)"));
    let listed = call(&tool, &ctx, serde_json::json!({"action": "list"})).content;
    assert!(listed.starts_with("job 1: stopped"), "{listed}");
}
