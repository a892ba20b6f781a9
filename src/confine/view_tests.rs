//! Unit tests of `view.rs`: the planned view for homes, temp dirs, resolvers, hidden paths and devices.

use super::*;

const SIZES: Sizes = Sizes { tmp: 100, shm: 50 };

/// A host with the usual top-level directories, `/var/run` a link, and `extra` paths.
fn host(extra: &'static [(&'static str, Kind)]) -> impl Fn(&Path) -> Option<Kind> {
    move |path: &Path| {
        let text = path.to_str().unwrap();
        if let Some((_, kind)) = extra.iter().find(|(name, _)| *name == text) {
            return Some(*kind);
        }
        match text {
            "/run" | "/tmp" | "/var/tmp" | "/dev" => Some(Kind::Dir),
            "/var/run" => Some(Kind::Link),
            _ if text.starts_with("/dev/") => Some(Kind::File),
            _ => None,
        }
    }
}

fn rendered(plan: &Plan) -> Vec<String> {
    let text = |c: &CString| c.to_str().unwrap().to_string();
    plan.steps
        .iter()
        .map(|step| match step {
            Step::Keep { path, slot } => format!("keep {} #{slot}", text(path)),
            Step::FreezeAll => "freeze".to_string(),
            Step::Tmpfs { path, options, read_only } => {
                format!("tmpfs {} {}{}", text(path), text(options), if *read_only { " ro" } else { "" })
            }
            Step::Mkdir { path } => format!("mkdir {}", text(path)),
            Step::Touch { path } => format!("touch {}", text(path)),
            Step::Symlink { target, path } => format!("link {} -> {}", text(path), text(target)),
            Step::Attach { slot, path } => format!("attach #{slot} {}", text(path)),
            Step::ReadOnly { path } => format!("ro {}", text(path)),
            Step::Pin { path } => format!("pin {}", text(path)),
            Step::Blank { source, path } => format!("blank {} with {}", text(path), text(source)),
            Step::Devpts { path } => format!("devpts {}", text(path)),
        })
        .collect()
}

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

#[test]
fn a_project_in_home_with_secrets_and_a_control_path() {
    let inputs = Inputs {
        writable: paths(&["/home/u/p", "/home/u/p/sub", "/tmp/mewcode-tmp-1-2"]),
        control: paths(&["/home/u/p/.git/hooks", "/home/u/p/AGENTS.md", "/home/u/p/pkg/a/CLAUDE.md"]),
        hidden: paths(&["/home/u/.ssh", "/home/u/.netrc", "/home/v", "/tmp/x/.ssh", "/home/u"]),
        sockets: Vec::new(),
        system_files: Vec::new(),
    };
    let host = host(&[
        ("/home/u/.ssh", Kind::Dir),
        ("/home/u/.netrc", Kind::File),
        ("/home/v", Kind::Dir),
        ("/home/u/p/.git/hooks", Kind::Dir),
        ("/home/u/p/AGENTS.md", Kind::File),
        ("/home/u/p/pkg/a/CLAUDE.md", Kind::File),
    ]);
    let plan = plan(&inputs, SIZES, &host).unwrap();
    let steps = rendered(&plan);
    let expected: Vec<String> = [
        "keep /tmp/mewcode-tmp-1-2 #0",
        "keep /home/u/p #1",
        "keep /dev/null #2",
        "keep /dev/zero #3",
        "keep /dev/full #4",
        "keep /dev/random #5",
        "keep /dev/urandom #6",
        "freeze",
        "tmpfs /dev mode=0755,size=65536",
        "touch /dev/null",
        "attach #2 /dev/null",
        "touch /dev/zero",
        "attach #3 /dev/zero",
        "touch /dev/full",
        "attach #4 /dev/full",
        "touch /dev/random",
        "attach #5 /dev/random",
        "touch /dev/urandom",
        "attach #6 /dev/urandom",
        "link /dev/fd -> /proc/self/fd",
        "link /dev/stdin -> /proc/self/fd/0",
        "link /dev/stdout -> /proc/self/fd/1",
        "link /dev/stderr -> /proc/self/fd/2",
        "link /dev/ptmx -> pts/ptmx",
        "mkdir /dev/pts",
        "devpts /dev/pts",
        "mkdir /dev/shm",
        "tmpfs /dev/shm mode=1777,size=50",
        "tmpfs /run mode=1777,size=100",
        "tmpfs /tmp mode=1777,size=100",
        "tmpfs /var/tmp mode=1777,size=100",
        "mkdir /tmp/mewcode-tmp-1-2",
        "attach #0 /tmp/mewcode-tmp-1-2",
        "attach #1 /home/u/p",
        "pin /home/u/p/.git",
        "pin /home/u/p/pkg",
        "pin /home/u/p/pkg/a",
        "ro /home/u/p/.git/hooks",
        "ro /home/u/p/AGENTS.md",
        "ro /home/u/p/pkg/a/CLAUDE.md",
        // /home/u holds the project: not hidden; /tmp/x/.ssh is under the fresh /tmp.
        "tmpfs /home/u/.ssh mode=0555,size=4096 ro",
        "blank /home/u/.netrc with /dev/null",
        "tmpfs /home/v mode=0555,size=4096 ro",
    ]
    .iter()
    .map(|line| line.to_string())
    .collect();
    assert_eq!(steps, expected);
    assert_eq!(
        plan.writable,
        paths(&["/tmp/mewcode-tmp-1-2", "/home/u/p", "/run", "/tmp", "/var/tmp", "/dev/pts", "/dev/shm"])
    );
    assert_eq!(plan.devices.len(), 5);
}

#[test]
fn a_project_under_tmp_gets_its_directories_made_and_a_socket_there_is_bound() {
    let inputs = Inputs {
        writable: paths(&["/tmp/t/a/project"]),
        control: paths(&["/tmp/t/a/project/.mewcode", "/tmp/t/a/project/missing"]),
        hidden: paths(&["/tmp/t/a/project/.ssh"]),
        sockets: paths(&["/run/user/1/bus", "/srv/sock"]),
        system_files: Vec::new(),
    };
    let host = host(&[("/tmp/t/a/project/.mewcode", Kind::Dir), ("/tmp/t/a/project/.ssh", Kind::Dir)]);
    let steps = rendered(&plan(&inputs, SIZES, &host).unwrap());
    let after = |line: &str| steps.iter().position(|step| step == line).unwrap_or_else(|| panic!("{line}: {steps:?}"));
    assert!(after("keep /run/user/1/bus #6") < after("freeze"));
    assert!(!steps.iter().any(|step| step.contains("/srv/sock")), "not under a tmpfs: in the view already");
    let order = [
        "tmpfs /tmp mode=1777,size=100",
        "mkdir /tmp/t",
        "mkdir /tmp/t/a",
        "mkdir /tmp/t/a/project",
        "attach #0 /tmp/t/a/project",
        "mkdir /run/user",
        "mkdir /run/user/1",
        "touch /run/user/1/bus",
        "attach #6 /run/user/1/bus",
        "ro /tmp/t/a/project/.mewcode",
        "tmpfs /tmp/t/a/project/.ssh mode=0555,size=4096 ro",
    ];
    let positions: Vec<usize> = order.iter().map(|line| after(line)).collect();
    assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{steps:?}");
    assert!(!steps.iter().any(|step| step.contains("missing")));
}

#[test]
fn the_resolver_file_under_run_is_bound_in_read_only_and_one_elsewhere_is_left_alone() {
    let inputs = Inputs {
        writable: paths(&["/p"]),
        system_files: paths(&["/run/systemd/resolve/stub-resolv.conf", "/etc/resolv.conf"]),
        ..Inputs::default()
    };
    let steps = rendered(&plan(&inputs, SIZES, &host(&[])).unwrap());
    let at = |line: &str| steps.iter().position(|step| step == line).unwrap_or_else(|| panic!("{line}: {steps:?}"));
    let order = [
        "keep /run/systemd/resolve/stub-resolv.conf #6",
        "freeze",
        "tmpfs /run mode=1777,size=100",
        "mkdir /run/systemd",
        "mkdir /run/systemd/resolve",
        "touch /run/systemd/resolve/stub-resolv.conf",
        "attach #6 /run/systemd/resolve/stub-resolv.conf",
        "ro /run/systemd/resolve/stub-resolv.conf",
    ];
    let positions: Vec<usize> = order.iter().map(|line| at(line)).collect();
    assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{steps:?}");
    assert!(!steps.iter().any(|step| step.contains("/etc/resolv.conf")), "in the view already: {steps:?}");
}

#[test]
fn a_hidden_path_holding_a_root_or_a_socket_stays_and_links_are_not_followed() {
    let inputs = Inputs {
        writable: paths(&["/home/u/.config/tool/work"]),
        control: Vec::new(),
        hidden: paths(&["/home/u/.config/tool", "/home/u/.gnupg", "/home/u/.link"]),
        sockets: paths(&["/home/u/.gnupg/S.gpg-agent"]),
        system_files: Vec::new(),
    };
    let host =
        host(&[("/home/u/.config/tool", Kind::Dir), ("/home/u/.gnupg", Kind::Dir), ("/home/u/.link", Kind::Link)]);
    let steps = rendered(&plan(&inputs, SIZES, &host).unwrap());
    assert!(
        !steps.iter().any(|step| step.contains(".config/tool ") || step.contains(".gnupg") || step.contains(".link"))
    );
}

#[test]
fn without_a_dev_directory_there_are_no_devices_and_files_are_not_blanked() {
    let host = |path: &Path| match path.to_str().unwrap() {
        "/tmp" => Some(Kind::Dir),
        "/home/u/.netrc" => Some(Kind::File),
        _ => None,
    };
    // A hidden file needs the view's /dev/null to cover it: without /dev it stays as it is.
    let inputs = Inputs { writable: paths(&["/p"]), hidden: paths(&["/home/u/.netrc"]), ..Inputs::default() };
    let plan = plan(&inputs, SIZES, &host).unwrap();
    let steps = rendered(&plan);
    assert_eq!(steps, ["keep /p #0", "freeze", "tmpfs /tmp mode=1777,size=100", "attach #0 /p"]);
    assert!(plan.devices.is_empty());
}

#[test]
fn too_many_writable_paths_is_an_error_not_a_partial_view() {
    let writable: Vec<PathBuf> = (0..SLOTS).map(|index| PathBuf::from(format!("/w{index}"))).collect();
    let inputs = Inputs { writable, ..Inputs::default() };
    assert!(plan(&inputs, SIZES, &host(&[])).unwrap_err().contains("too many"));
}

#[test]
fn covers_pick_the_deepest_and_a_root_under_a_tmpfs_wins() {
    let tmpfs = paths(&["/tmp", "/dev"]);
    let roots = paths(&["/tmp/p", "/home/u/p"]);
    assert_eq!(cover(Path::new("/tmp/p/x"), &tmpfs, &roots), Some(Cover::Root(Path::new("/tmp/p"))));
    assert_eq!(cover(Path::new("/tmp/q"), &tmpfs, &roots), Some(Cover::Tmpfs(Path::new("/tmp"))));
    assert_eq!(cover(Path::new("/home/u/p"), &tmpfs, &roots), Some(Cover::Root(Path::new("/home/u/p"))));
    assert_eq!(cover(Path::new("/home/u"), &tmpfs, &roots), None);
    // A root above a private tmpfs does not reach into it: the tmpfs is deeper.
    let everything = paths(&["/"]);
    assert_eq!(cover(Path::new("/tmp/q"), &tmpfs, &everything), Some(Cover::Tmpfs(Path::new("/tmp"))));
    assert_eq!(cover(Path::new("/srv/q"), &tmpfs, &everything), Some(Cover::Root(Path::new("/"))));
    assert_eq!(outermost(&paths(&["/a/b", "/a", "/c", "/a/b/c"])), paths(&["/a", "/c"]));
}
