//! The disk tools of the blacklist: every program that formats, partitions or wipes a block
//! device, as one reviewed table, so a new tool is one more row.
//!
//! Invariant: a tool that writes a filesystem or wipes whatever it is pointed at is denied on
//! any target; a partitioning tool is denied on a block device unless the command only lists
//! (`fdisk -l /dev/sda`, `parted /dev/sda print`), and options that destroy on any target
//! (`sgdisk --zap-all`, `parted mklabel`) are denied wherever they point. It does not cover
//! plain writers (`dd`, `cp`, `tee`, `>`): those are the block-device-write family in
//! `families.rs`. Reviewed and left out because they do not destroy data on their own:
//! `partprobe`, `partx`, `kpartx`, `losetup`, `lsblk`, `blkid`, `fsck`/`e2fsck` (repairs),
//! `tune2fs`, `resize2fs`, `zerofree`.

use super::scope::Scope;
use super::{BlacklistHit, Family, hit};
use crate::command::normalize::is_block_device;
use crate::command::options::CommandLine;

/// How far a tool reaches on its own.
enum Reach {
    /// Catastrophic whatever it is pointed at.
    Any,
    /// Catastrophic on a block device, unless it only lists: a `lists` word is present and
    /// every option (and, with `commands`, every non-device operand) is in `lists` or
    /// `modifiers`.
    Device { lists: &'static [&'static str], modifiers: &'static [&'static str], commands: bool },
    /// Only its `destructive` words make it catastrophic.
    Words,
}

/// One reviewed tool.
struct DiskTool {
    /// Program names; a trailing `*` matches any suffix (`mkfs.ext4`, `newfs_apfs`).
    names: &'static [&'static str],
    family: Family,
    /// Options (`-Z`, `--zap-all`) or command words (`mklabel`) destructive on any target.
    destructive: &'static [&'static str],
    reach: Reach,
}

const NO_WORDS: &[&str] = &[];
const NEVER_ONLY_LISTS: Reach = Reach::Device { lists: NO_WORDS, modifiers: NO_WORDS, commands: false };
const GPT_ZAP: &[&str] = &["-Z", "-z", "-o", "--zap-all", "--zap", "--clear"];
const PARTED_UNITS: &[&str] = &[
    "-s",
    "--script",
    "-m",
    "--machine",
    "-f",
    "--fix",
    "unit",
    "s",
    "B",
    "kB",
    "MB",
    "GB",
    "TB",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "%",
    "cyl",
    "chs",
    "compact",
    "free",
];

const DISK_TOOLS: &[DiskTool] = &[
    DiskTool {
        names: &[
            "mkfs*",
            "mke2fs",
            "mkswap",
            "mkdosfs",
            "mkntfs",
            "mkexfatfs",
            "mkreiserfs",
            "mkjfs",
            "mkudffs",
            "newfs*",
        ],
        family: Family::Mkfs,
        destructive: NO_WORDS,
        reach: Reach::Any,
    },
    DiskTool { names: &["pvcreate"], family: Family::Mkfs, destructive: NO_WORDS, reach: NEVER_ONLY_LISTS },
    DiskTool {
        names: &["wipefs", "blkdiscard", "nwipe", "lvremove", "vgremove", "pvremove"],
        family: Family::PartitionWipe,
        destructive: NO_WORDS,
        reach: Reach::Any,
    },
    DiskTool {
        names: &["fdisk"],
        family: Family::PartitionWipe,
        destructive: NO_WORDS,
        reach: Reach::Device {
            lists: &["-l", "--list", "-x", "--list-details"],
            modifiers: &["-u", "--units", "-L", "--color", "-b", "--sector-size", "-o", "--output", "-t", "--type"],
            commands: false,
        },
    },
    DiskTool {
        names: &["sfdisk"],
        family: Family::PartitionWipe,
        destructive: &["--delete", "-X"],
        reach: Reach::Device {
            lists: &[
                "-l",
                "--list",
                "-d",
                "--dump",
                "-J",
                "--json",
                "-s",
                "--show-size",
                "-V",
                "--verify",
                "-g",
                "--show-geometry",
                "-F",
                "--list-free",
            ],
            modifiers: &["-q", "--quiet", "-o", "--output", "--color"],
            commands: false,
        },
    },
    DiskTool {
        names: &["gdisk"],
        family: Family::PartitionWipe,
        destructive: GPT_ZAP,
        reach: Reach::Device { lists: &["-l"], modifiers: NO_WORDS, commands: false },
    },
    DiskTool {
        names: &["sgdisk"],
        family: Family::PartitionWipe,
        destructive: GPT_ZAP,
        reach: Reach::Device {
            lists: &["-p", "--print", "-i", "--info", "-v", "--verify", "-O", "--print-mbr", "-b", "--backup"],
            modifiers: &["-P", "--pretend"],
            commands: false,
        },
    },
    DiskTool {
        names: &["cfdisk", "cgdisk", "fixparts", "scrub", "wipe"],
        family: Family::PartitionWipe,
        destructive: NO_WORDS,
        reach: NEVER_ONLY_LISTS,
    },
    DiskTool {
        names: &["parted"],
        family: Family::PartitionWipe,
        destructive: &["mklabel", "mktable", "rm"],
        reach: Reach::Device { lists: &["-l", "--list", "print"], modifiers: PARTED_UNITS, commands: true },
    },
    DiskTool { names: &["badblocks"], family: Family::PartitionWipe, destructive: &["-w"], reach: Reach::Words },
    DiskTool {
        names: &["hdparm"],
        family: Family::PartitionWipe,
        destructive: &[
            "--security-erase",
            "--security-erase-enhanced",
            "--trim-sector-ranges",
            "--trim-sector-ranges-stdin",
            "--write-sector",
            "--make-bad-sector",
            "--dco-restore",
        ],
        reach: Reach::Words,
    },
    DiskTool {
        names: &["nvme"],
        family: Family::PartitionWipe,
        destructive: &["format", "sanitize", "delete-ns"],
        reach: Reach::Words,
    },
    DiskTool {
        names: &["sg_format"],
        family: Family::PartitionWipe,
        destructive: &["-F", "--format"],
        reach: Reach::Words,
    },
    DiskTool {
        names: &["cryptsetup"],
        family: Family::PartitionWipe,
        destructive: &["luksFormat", "erase", "luksErase"],
        reach: Reach::Words,
    },
    DiskTool {
        names: &["mdadm"],
        family: Family::PartitionWipe,
        destructive: &["-C", "--create", "--zero-superblock", "-B", "--build"],
        reach: Reach::Words,
    },
    DiskTool {
        names: &["zpool"],
        family: Family::PartitionWipe,
        destructive: &["create", "destroy", "labelclear"],
        reach: Reach::Words,
    },
    DiskTool { names: &["zfs"], family: Family::PartitionWipe, destructive: &["destroy"], reach: Reach::Words },
    DiskTool {
        names: &["diskutil"],
        family: Family::PartitionWipe,
        destructive: &[
            "eraseDisk",
            "eraseVolume",
            "partitionDisk",
            "zeroDisk",
            "randomDisk",
            "secureErase",
            "reformat",
            "deleteContainer",
            "deleteVolume",
        ],
        reach: Reach::Words,
    },
];

/// The disk-tool verdict for `program`, or `None` when it is not a disk tool or is harmless here.
pub(super) fn check_disk_tool(program: &str, line: &CommandLine<'_>, raw: &str, scope: &Scope) -> Option<BlacklistHit> {
    let matches_name = |name: &&str| match name.strip_suffix('*') {
        Some(prefix) => program.starts_with(prefix),
        None => program == *name,
    };
    let tool = DISK_TOOLS.iter().find(|tool| tool.names.iter().any(matches_name))?;
    if tool.destructive.iter().any(|word| present(word, line)) {
        return hit(tool.family, raw);
    }
    match tool.reach {
        Reach::Any => hit(tool.family, raw),
        Reach::Words => None,
        Reach::Device { lists, modifiers, commands } => {
            let device = |operand: &&str| scope.names(operand, is_block_device);
            if !line.operands.iter().any(device) {
                return None;
            }
            let known = |word: &str| lists.contains(&word) || modifiers.contains(&word);
            let options_known = line.short.chars().all(|letter| known(&format!("-{letter}")))
                && line.flags.iter().all(|flag| known(&format!("--{flag}")));
            let commands_known =
                !commands || line.operands.iter().filter(|operand| !device(operand)).all(|word| known(word));
            let lists_only = lists.iter().any(|word| present(word, line)) && options_known && commands_known;
            if lists_only { None } else { hit(tool.family, raw) }
        }
    }
}

/// True when the option or command word `word` appears on the command line: `-Z` as a short
/// letter in any cluster, `--zap-all` as a long option (also `--zap-all=…`), other words as
/// operands.
fn present(word: &str, line: &CommandLine<'_>) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        return line.flags.contains(&long);
    }
    match word.strip_prefix('-') {
        Some(letter) => line.short.contains(letter),
        _ => line.operands.contains(&word),
    }
}
