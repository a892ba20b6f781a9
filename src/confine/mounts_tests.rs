//! Unit tests of `mounts.rs`: reading the mount table and finding the aliases of a path.

use super::*;

const TABLE: &str = "\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
23 22 0:5 / /proc rw - proc proc rw
24 22 8:2 / /home rw shared:2 - ext4 /dev/sda2 rw
25 22 8:2 /u /mnt/u\\040home rw - ext4 /dev/sda2 rw
26 22 8:2 /u/.ssh /srv/keys rw - ext4 /dev/sda2 rw
27 22 8:2 /other /mnt/other rw - ext4 /dev/sda2 rw
28 22 8:1 /var /backup/var rw - ext4 /dev/sda1 rw
garbage line
29 22 nodevice / /x rw - ext4 /dev/sda1 rw
30 22 8:2 relative /y rw - ext4 /dev/sda2 rw
31 22 8:2 / relative rw - ext4 /dev/sda2 rw
";

#[test]
fn a_bind_mount_of_home_and_of_a_secret_store_are_aliases() {
    let mounts = parse(TABLE);
    assert_eq!(mounts.len(), 7);
    assert_eq!(mounts[3].point, PathBuf::from("/mnt/u home"));
    assert_eq!((mounts[1].fstype.as_str(), mounts[1].options.as_str()), ("proc", "rw"));
    assert_eq!((mounts[0].fstype.as_str(), mounts[0].options.as_str()), ("ext4", "rw"));
    assert_eq!(
        aliases(Path::new("/home/u/.ssh"), &mounts),
        [PathBuf::from("/mnt/u home/.ssh"), PathBuf::from("/srv/keys")]
    );
    // Reached through an alias, the original is the alias.
    assert_eq!(
        aliases(Path::new("/srv/keys/id"), &mounts),
        [PathBuf::from("/home/u/.ssh/id"), PathBuf::from("/mnt/u home/.ssh/id")]
    );
    assert_eq!(aliases(Path::new("/var/lib/secret"), &mounts), [PathBuf::from("/backup/var/lib/secret")]);
    assert!(aliases(Path::new("/etc/shadow"), &mounts).is_empty());
    assert!(aliases(Path::new("/proc/1"), &mounts).is_empty());
}

#[test]
fn the_mount_on_top_decides_and_escapes_are_read() {
    let table = "1 0 8:1 / / rw - ext4 a rw\n2 1 8:2 / /data rw - ext4 b rw\n3 1 8:3 / /data rw - ext4 c rw\n4 1 8:3 /x /y rw - ext4 c rw\n";
    let mounts = parse(table);
    assert_eq!(aliases(Path::new("/data/x/k"), &mounts), [PathBuf::from("/y/k")]);
    assert_eq!(unescape("a\\011b\\134c\\0"), "a\tb\\c\\0");
}
