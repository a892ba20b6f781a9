//! Unit tests of `cgroup.rs`: groups per controller, stale groups, and v1/v2 hierarchies.

use super::*;
use crate::test_dir::TempDir;

fn mounts() -> Vec<Mount> {
    super::super::mounts::parse(
        "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n\
         39 31 0:36 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n\
         40 31 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n\
         41 31 0:38 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
    )
}

#[test]
fn a_command_gets_a_group_per_controller_with_its_limit_and_nothing_without_one() {
    let (pids_dir, memory_dir) = (TempDir::new("cgroup-pids"), TempDir::new("cgroup-memory"));
    let (pids, memory) = (pids_dir.path().to_path_buf(), memory_dir.path().to_path_buf());
    let cgroups = Cgroups {
        pids: Some(Place { parent: pids.clone(), limit_file: "pids.max" }),
        memory: Some(Place { parent: memory.clone(), limit_file: "memory.max" }),
    };
    assert!(cgroups.caps_processes() && cgroups.caps_memory());
    let groups = cgroups.for_command(64, Some(1 << 20)).unwrap();
    let made = |parent: &Path| std::fs::read_dir(parent).unwrap().flatten().map(|e| e.path()).collect::<Vec<_>>();
    let (pid_groups, memory_groups) = (made(&pids), made(&memory));
    assert_eq!((pid_groups.len(), memory_groups.len()), (1, 1));
    assert_eq!(std::fs::read_to_string(pid_groups[0].join("pids.max")).unwrap(), "64");
    assert_eq!(std::fs::read_to_string(memory_groups[0].join("memory.max")).unwrap(), "1048576");
    let name = pid_groups[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with(&format!("mewcode-{}-", std::process::id())), "{name}");
    assert!(!groups.is_empty());
    // Without a memory limit only the pids group is made; without a place, none at all.
    drop(groups);
    let only_pids = cgroups.for_command(8, None).unwrap();
    assert_eq!((made(&pids).len(), made(&memory).len()), (2, 1), "a plain directory keeps its files");
    drop(only_pids);
    assert!(Cgroups::default().for_command(8, Some(1)).is_none() && !Cgroups::default().caps_processes());
    // A parent that cannot take a group gives none (the command runs with its rlimits).
    let gone =
        Cgroups { pids: Some(Place { parent: pids.join("missing/deeper"), limit_file: "pids.max" }), memory: None };
    assert!(gone.for_command(8, None).is_none());
}

#[test]
fn a_hierarchy_is_kept_only_where_a_group_with_a_limit_can_be_made() {
    let pids_dir = TempDir::new("cgroup-find-pids");
    let pids = pids_dir.path();
    let stale = pids.join("app/mewcode-999999999-4");
    std::fs::create_dir_all(&stale).unwrap();
    let table = format!(
        "39 31 0:36 / {} rw - cgroup cgroup rw,pids\n41 31 0:38 / {}/none rw - cgroup cgroup rw,memory\n",
        pids.display(),
        pids.display()
    );
    let mounts = super::super::mounts::parse(&table);
    let found = Cgroups::find_in("8:pids:/app\n4:memory:/app\n", &mounts);
    assert_eq!(found.pids, Some(Place { parent: pids.join("app"), limit_file: "pids.max" }));
    assert!(found.caps_processes());
    // The memory hierarchy's directory does not exist: no group can be made there.
    assert_eq!(found.memory, None);
    assert!(!found.caps_memory());
    // The dead process's stale group is gone; only the trial is left (a plain directory keeps
    // the limit file written into it, which cgroupfs would not).
    let left: Vec<String> = std::fs::read_dir(pids.join("app"))
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [format!("{PREFIX}{}-trial", std::process::id())]);
}

#[test]
fn only_groups_of_dead_mewcode_processes_are_stale() {
    let parent_dir = TempDir::new("cgroup-stale");
    let parent = parent_dir.path();
    let ours = format!("{PREFIX}{}-3", std::process::id());
    for name in ["mewcode-999999999-1", ours.as_str(), "other-999999999-1", "mewcode-x-1"] {
        std::fs::create_dir_all(parent.join(name)).unwrap();
    }
    remove_stale(parent);
    let mut left: Vec<String> =
        std::fs::read_dir(parent).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    let mut expected = vec![ours.clone(), "mewcode-x-1".to_string(), "other-999999999-1".to_string()];
    expected.sort();
    assert_eq!(left, expected);
}

#[test]
fn v2_is_used_only_where_the_controller_is_enabled_for_our_children() {
    let root_dir = TempDir::new("cgroup-v2");
    let root = root_dir.path();
    std::fs::create_dir_all(root.join("user/app")).unwrap();
    std::fs::write(root.join("user/app/cgroup.subtree_control"), "cpu pids\n").unwrap();
    let table = format!("40 31 0:37 / {} rw - cgroup2 cgroup2 rw\n", root.display());
    let mounts = super::super::mounts::parse(&table);
    let place = plan_place("0::/user/app\n", &mounts, "pids", "pids.max", "pids.max").unwrap();
    assert_eq!(place, Place { parent: root.join("user/app"), limit_file: "pids.max" });
    assert_eq!(plan_place("0::/user/app\n", &mounts, "memory", "memory.limit_in_bytes", "memory.max"), None);
    assert_eq!(plan_place("0::/user\n", &mounts, "pids", "pids.max", "pids.max"), None);
    // A v1 line for another controller does not count for this one.
    assert_eq!(plan_place("5:memory:/x\n", &mounts, "pids", "pids.max", "pids.max"), None);
}

#[test]
fn a_v1_hierarchy_is_used_for_its_controller() {
    let own = "9:name=systemd:/\n8:pids:/user.slice/x\n0::/\n";
    let place = plan_place(own, &mounts(), "pids", "pids.max", "pids.max").unwrap();
    assert_eq!(place.parent, PathBuf::from("/sys/fs/cgroup/pids/user.slice/x"));
    // Our group has no memory line, and v2's root here enables nothing readable: none.
    assert_eq!(plan_place(own, &mounts(), "memory", "memory.limit_in_bytes", "memory.max"), None);
    let with_memory = "9:name=systemd:/\n4:memory:/m\n";
    assert_eq!(
        plan_place(with_memory, &mounts(), "memory", "memory.limit_in_bytes", "memory.max").unwrap(),
        Place { parent: PathBuf::from("/sys/fs/cgroup/memory/m"), limit_file: "memory.limit_in_bytes" }
    );
    // A group outside the mount's root is not reachable.
    let bound = super::super::mounts::parse("39 31 0:36 /a /cg rw - cgroup cgroup rw,pids\n");
    assert_eq!(plan_place("8:pids:/b\n", &bound, "pids", "pids.max", "pids.max"), None);
    assert_eq!(
        plan_place("8:pids:/a/c\n", &bound, "pids", "pids.max", "pids.max").unwrap().parent,
        PathBuf::from("/cg/c")
    );
}
