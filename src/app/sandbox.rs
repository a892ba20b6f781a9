//! The sandbox of a run's commands: the config's sandbox, the session's private temp dir, the
//! directories added besides the project (writable ones bound read-write with their control
//! paths read-only, read-only ones seen) and the network policy, made once per run.
//!
//! Invariant: a temp dir that cannot be made, or a configured path that does not exist, is a
//! warning, never a failure to start.

use super::Launch;
use crate::config::{self, Config};
use crate::confine::{self, Sandbox, SessionTmp};
use crate::permission::network::NetworkGate;
use crate::warning::Warning;
use std::path::PathBuf;
use std::sync::Arc;

/// Whether every command runs in the sandbox's namespace view (nothing outside the project
/// writable, secrets not mounted, control files read-only): then read-only commands run without
/// asking. The run and `mewcode check` both ask here.
pub(super) fn commands_run_in_view(sandbox: &Sandbox) -> bool {
    sandbox.has_view()
}

/// The sandbox for this process's commands, with the network policy `network` (None: commands
/// under `allowlist` reach only their own loopback), and its private temp dir (removed when the
/// guard drops, so keep it for the whole run). A temp dir that cannot be created is a warning:
/// then commands can write only in the project.
pub(super) fn make_sandbox(
    launch: &Launch,
    config: &Config,
    warnings: &mut Vec<Warning>,
    network: Option<Arc<NetworkGate>>,
) -> (Arc<Sandbox>, Option<SessionTmp>) {
    let Launch { workspace, env, .. } = launch;
    let session_tmp = if config.sandbox.mode == config::SandboxMode::Off {
        None
    } else {
        match SessionTmp::create(&std::env::temp_dir()) {
            Ok(tmp) => Some(tmp),
            Err(err) => {
                let message =
                    format!("cannot create the session's temp dir ({err}); commands can write only in the project");
                warnings.push(Warning::new("sandbox", message));
                None
            }
        }
    };
    for (key, paths) in [("writable", &config.sandbox.writable), ("readable_secrets", &config.sandbox.readable_secrets)]
    {
        for path in paths.iter().filter(|path| !path.exists()) {
            let message = format!("sandbox.{key}: {} does not exist; ignored until it does", path.display());
            warnings.push(Warning::new("sandbox", message));
        }
    }
    // Added directories are seen as the project is: a writable one is writable (and covered by
    // checkpoints) with its control paths read-only, a read-only one is seen.
    let (writable, readable): (Vec<&config::AddDir>, Vec<&config::AddDir>) =
        config.add_dirs.iter().partition(|dir| dir.writable);
    let mut sandbox_config = config.sandbox.clone();
    sandbox_config.writable.extend(writable.iter().map(|dir| dir.path.clone()));
    let mut levels = config::project::instruction_dirs(&workspace.root, &workspace.cwd);
    levels.extend(writable.iter().map(|dir| dir.path.clone()));
    let paths = confine::Paths {
        root: workspace.root.clone(),
        home: env.get("HOME").filter(|home| !home.is_empty()).map(PathBuf::from),
        mewcode_home: Some(workspace.home.clone()),
        tmp: session_tmp.as_ref().map(|tmp| tmp.path().to_path_buf()),
        levels,
        readable: readable.iter().map(|dir| dir.path.clone()).collect(),
    };
    let mut sandbox = Sandbox::detect(sandbox_config, paths);
    if let Some(network) = network {
        sandbox = sandbox.with_network(network);
    }
    (Arc::new(sandbox), session_tmp)
}
