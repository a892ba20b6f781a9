//! Control groups per command: a cap on processes (and on memory) that holds for root as well.
//! `RLIMIT_NPROC` is the cap of an unprivileged user in the view (counted per user namespace);
//! the kernel does not apply it to root, whose fork bomb only a `pids` control group stops.
//!
//! Where from: the process's own group in each hierarchy that has the controller — cgroup v1's
//! `pids`/`memory` hierarchies, or cgroup v2 when the controller is enabled for our group's
//! children (`cgroup.subtree_control`). A group `mewcode-<pid>-<n>` is made beside nothing else
//! of ours, its limit written, and the command's reaper joins it before it forks the command;
//! the group is removed when the command is over (`sys::child::Groups` drops).
//!
//! Invariant: a hierarchy we cannot write (not root, not delegated) is simply not used, and
//! `doctor` says so; nothing here ever moves mewcode itself. Stale groups of dead mewcode
//! processes are removed at start-up.

use super::mounts::Mount;
use crate::sys::child::Groups;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const PREFIX: &str = "mewcode-";

/// One controller's place: the directory our groups are made in, and the limit file's name.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    parent: PathBuf,
    limit_file: &'static str,
}

/// The controllers available for commands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Cgroups {
    pids: Option<Place>,
    memory: Option<Place>,
}

impl Cgroups {
    /// Finds the hierarchies from `/proc/self/cgroup` and the mount table, keeps those where a
    /// group can be made (tried once), and removes stale groups of dead processes there.
    pub(super) fn find(mounts: &[Mount]) -> Cgroups {
        Cgroups::find_in(&std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default(), mounts)
    }

    /// `find` for the group lines `own` (the format of `/proc/self/cgroup`).
    fn find_in(own: &str, mounts: &[Mount]) -> Cgroups {
        let usable = |place: Option<Place>| {
            let place = place?;
            remove_stale(&place.parent);
            let trial = place.parent.join(format!("{PREFIX}{}-trial", std::process::id()));
            std::fs::create_dir(&trial).ok()?;
            let writable = std::fs::write(trial.join(place.limit_file), "max").is_ok();
            let _ = std::fs::remove_dir(&trial);
            writable.then_some(place)
        };
        Cgroups {
            pids: usable(plan_place(own, mounts, "pids", "pids.max", "pids.max")),
            memory: usable(plan_place(own, mounts, "memory", "memory.limit_in_bytes", "memory.max")),
        }
    }

    /// True when the process cap holds for every user (root included).
    pub(super) fn caps_processes(&self) -> bool {
        self.pids.is_some()
    }

    /// True when a command's memory is capped in all (not only per process).
    pub(super) fn caps_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// Makes the groups of one command with these limits; None when no controller is usable or a
    /// group cannot be made (the command then runs with the rlimits only).
    pub(super) fn for_command(&self, processes: u64, memory: Option<u64>) -> Option<Groups> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let number = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut groups = Groups::default();
        let wanted = [(self.pids.as_ref(), Some(processes)), (self.memory.as_ref(), memory)];
        for (place, limit) in wanted {
            let (Some(place), Some(limit)) = (place, limit) else { continue };
            let dir = place.parent.join(format!("{PREFIX}{}-{number}", std::process::id()));
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok();
            match (std::fs::write(dir.join(place.limit_file), limit.to_string()), procs) {
                (Ok(()), Some(procs)) => groups.add(dir, procs),
                _ => {
                    let _ = std::fs::remove_dir(&dir);
                }
            }
        }
        (!groups.is_empty()).then_some(groups)
    }
}

/// Where groups for `controller` go: our own group in the v1 hierarchy of that controller, or in
/// the v2 hierarchy when our group enables it for its children. Pure but for reading
/// `cgroup.subtree_control` (v2).
fn plan_place(
    own: &str,
    mounts: &[Mount],
    controller: &str,
    v1_limit: &'static str,
    v2_limit: &'static str,
) -> Option<Place> {
    for line in own.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if controllers.split(',').any(|name| name == controller) {
            let mount = mounts.iter().rev().find(|mount| {
                mount.fstype == "cgroup" && mount.options.split(',').any(|option| option == controller)
            })?;
            return Some(Place { parent: inside(mount, path)?, limit_file: v1_limit });
        }
    }
    let path = own.lines().find_map(|line| line.strip_prefix("0::"))?;
    let mount = mounts.iter().rev().find(|mount| mount.fstype == "cgroup2")?;
    let parent = inside(mount, path)?;
    let enabled = std::fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
    enabled.split_whitespace().any(|name| name == controller).then_some(Place { parent, limit_file: v2_limit })
}

/// The directory of group `path` under a cgroup mount whose root is `mount.root`.
fn inside(mount: &Mount, path: &str) -> Option<PathBuf> {
    let relative = Path::new(path).strip_prefix(&mount.root).ok()?;
    Some(mount.point.join(relative))
}

/// Removes our groups whose mewcode process is gone (a crash, `kill -9`).
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) =
            name.to_str().and_then(|name| name.strip_prefix(PREFIX)).and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if pid.parse::<u32>().is_ok_and(|pid| !crate::sys::process_exists(pid)) {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

#[cfg(test)]
#[path = "cgroup_tests.rs"]
mod tests;
