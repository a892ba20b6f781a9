//! `job` [Job]: the background jobs `bash` started with `run_in_background`: list them, read a
//! job's new output, stop a job.
//!
//! Invariant: it acts only on the session's own jobs (`jobs::Jobs`), each started by a `bash`
//! call the permission engine already judged, so it asks nobody (`permission_read_only`); it is
//! not read-only for batching, since `stop` ends processes. A bad action or an unknown job is an
//! error naming what there is.

use super::{Tool, ToolContext, ToolOutput, parse_input};
use crate::jobs::{Jobs, Report};
use std::sync::Arc;

/// The tool's name, and the name its rules use.
pub(super) const NAME: &str = "job";
const RULE: &str = "Job";

pub(crate) struct JobTool {
    jobs: Arc<Jobs>,
}

impl JobTool {
    pub(crate) fn new(jobs: Arc<Jobs>) -> JobTool {
        JobTool { jobs }
    }
}

#[derive(serde::Deserialize)]
struct Input {
    action: String,
    #[serde(default, deserialize_with = "super::lenient::opt_u64")]
    id: Option<u64>,
}

impl Tool for JobTool {
    fn name(&self) -> &str {
        NAME
    }

    fn rule_name(&self) -> &str {
        RULE
    }

    fn description(&self) -> &str {
        "Manages the background jobs started by bash with run_in_background: `list` shows every job \
         with its state; `output` returns what job `id` wrote since the last read (and whether it is \
         still running); `stop` ends job `id` and everything it started. Jobs end when the session \
         ends."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "output", "stop"], "description": "What to do"},
                "id": {"type": "integer", "minimum": 1, "description": "The job's number (for output and stop)"}
            },
            "required": ["action"]
        })
    }

    fn lean_description(&self) -> String {
        "Background jobs of bash: list, read a job's new output, or stop it.".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        super::lean::lean_schema(self.input_schema(), &[("id", "job number")])
    }

    fn read_only(&self) -> bool {
        false
    }

    fn permission_read_only(&self) -> bool {
        true
    }

    fn execute(&self, input_json: &str, _ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(NAME, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        let id = || {
            input
                .id
                .and_then(|id| u32::try_from(id).ok())
                .ok_or_else(|| format!("`{}` needs the job's number as `id`", input.action))
        };
        let result = match input.action.as_str() {
            "list" => {
                let lines = self.jobs.list();
                Ok(if lines.is_empty() { "no background jobs".to_string() } else { lines.join("\n") })
            }
            "output" => id().and_then(|id| self.jobs.read(id).map(|report| render(id, &report))),
            "stop" => id().and_then(|id| self.jobs.stop(id).map(|report| render(id, &report))),
            other => Err(format!("unknown action {other:?}: use list, output or stop")),
        };
        match result {
            Ok(text) => ToolOutput::ok(text),
            Err(message) => ToolOutput::error(message),
        }
    }
}

/// A job's state line, then its new output (or that there is none).
fn render(id: u32, report: &Report) -> String {
    let output = if report.text.is_empty() { "(no new output)" } else { report.text.as_str() };
    format!("job {id}: {}\n{output}", report.state.describe())
}

#[cfg(test)]
#[path = "job_tests.rs"]
mod tests;
