//! The session's private temp dir: the only writable place outside the project for commands
//! (`$TMPDIR`), so one session's scratch files are not another's, and a command cannot write into
//! the rest of the system temp dir (other projects, other users' sockets, `$MEWCODE_HOME` when it
//! lives there).
//!
//! Invariant: created with mode 0700 under a name no other process uses
//! (`mewcode-tmp-<pid>-<nanos>`), removed with everything in it when the guard drops; directories
//! of that shape whose process is gone (a crash, `kill -9`) are removed at the next start.

use std::path::{Path, PathBuf};

const PREFIX: &str = "mewcode-tmp-";

/// The temp dir; removed on drop.
#[derive(Debug)]
pub(crate) struct SessionTmp {
    path: PathBuf,
}

impl SessionTmp {
    /// Creates a fresh dir under `base` (the system temp dir) and removes stale ones.
    pub(crate) fn create(base: &Path) -> std::io::Result<SessionTmp> {
        remove_stale(base);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path = base.join(format!("{PREFIX}{}-{nanos}", std::process::id()));
        let mut builder = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&path)?;
        // Canonical, so the sandbox's rule and the explanations name the same path.
        let path = std::fs::canonicalize(&path)?;
        Ok(SessionTmp { path })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SessionTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The pid in a session temp dir's name, if the name has that shape.
fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, nanos) = rest.split_once('-')?;
    if nanos.is_empty() || !nanos.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

fn remove_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        let ours = std::os::unix::fs::MetadataExt::uid(&meta) == crate::sys::current_uid();
        if ours && !crate::sys::process_exists(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
#[path = "tmp_tests.rs"]
mod tests;
