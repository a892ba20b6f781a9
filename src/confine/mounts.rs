//! The host's mount table (`/proc/self/mountinfo`), read to find every other path at which a
//! hidden file can be reached: a second mount of the same file system, a bind mount of HOME or of
//! one of its directories. Hiding by path is only complete when every such path is hidden.
//!
//! Invariant: pure (the table's text in, paths out); a line that does not parse is skipped, so a
//! strange table can only mean fewer aliases, which the caller checks against the file itself.

use std::path::{Path, PathBuf};

/// One mount: which file system (`major:minor`), which directory of it, where, of what type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Mount {
    device: String,
    /// The directory of the file system mounted (`/` for a whole one, deeper for a bind).
    pub(super) root: PathBuf,
    pub(super) point: PathBuf,
    /// The file system type (`ext4`, `cgroup2`) and its options (`rw,pids` for a cgroup v1).
    pub(super) fstype: String,
    pub(super) options: String,
}

/// Parses `/proc/self/mountinfo`: `ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE ...`.
pub(super) fn parse(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let (_id, _parent) = (fields.next()?, fields.next()?);
            let device = fields.next()?.to_string();
            let root = PathBuf::from(unescape(fields.next()?));
            let point = PathBuf::from(unescape(fields.next()?));
            let mut after = fields.skip_while(|field| *field != "-").skip(1);
            let fstype = after.next().unwrap_or_default().to_string();
            let options = after.nth(1).unwrap_or_default().to_string();
            (device.contains(':') && root.is_absolute() && point.is_absolute()).then_some(Mount {
                device,
                root,
                point,
                fstype,
                options,
            })
        })
        .collect()
}

/// The table escapes space, tab, newline and backslash as three octal digits (`\040`).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let octal = bytes.get(index + 1..index + 4).filter(|digits| digits.iter().all(|d| (b'0'..=b'7').contains(d)));
        match (bytes[index], octal) {
            (b'\\', Some(digits)) => {
                let value = digits.iter().fold(0u32, |value, digit| value * 8 + u32::from(digit - b'0'));
                out.push(u8::try_from(value).unwrap_or(b'?'));
                index += 4;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Other paths through which `path` (absolute, canonical) is reachable: the same place of the
/// same file system under every other mount of it that contains that place.
pub(super) fn aliases(path: &Path, mounts: &[Mount]) -> Vec<PathBuf> {
    // The mount `path` lies in: the deepest mount point above it, the last one listed when
    // several share that point (the one on top).
    let Some(home) = mounts
        .iter()
        .enumerate()
        .filter(|(_, mount)| path.starts_with(&mount.point))
        .max_by_key(|(index, mount)| (mount.point.components().count(), *index))
        .map(|(_, mount)| mount)
    else {
        return Vec::new();
    };
    let Ok(inside) = path.strip_prefix(&home.point) else { return Vec::new() };
    let place = home.root.join(inside);
    let mut found: Vec<PathBuf> = mounts
        .iter()
        .filter(|mount| mount.device == home.device)
        .filter_map(|mount| Some(mount.point.join(place.strip_prefix(&mount.root).ok()?)))
        .filter(|alias| alias != path)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
#[path = "mounts_tests.rs"]
mod tests;
