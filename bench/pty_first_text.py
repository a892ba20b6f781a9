"""Runs a command on a pseudo-terminal (for the one-shot bench, bench/oneshot.bench.sh) and prints
the microseconds between the first-token server (bench/first_token_server.py) stamping its first
text chunk in STAMPS and that text (FIRSTTOKEN) appearing on the terminal.
Usage: pty_first_text.py STAMPS COMMAND [ARGS...]"""
import os
import pty
import select
import subprocess
import sys
import time

STAMPS, COMMAND = sys.argv[1], sys.argv[2:]


def stamps():
    with open(STAMPS) as file:
        return file.read().split()


before = len(stamps())
master, slave = pty.openpty()
child = subprocess.Popen(COMMAND, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, close_fds=True)
os.close(slave)
seen, screen, deadline = None, b"", time.monotonic() + 20
while seen is None and time.monotonic() < deadline:
    ready, _, _ = select.select([master], [], [], 0.5)
    if not ready:
        continue
    try:
        data = os.read(master, 65536)
    except OSError:
        break  # the child closed the terminal
    if not data:
        break
    screen += data
    if b"FIRSTTOKEN" in screen:
        seen = time.time_ns()
# Let the child finish (reading on, so it never blocks on a full terminal).
while child.poll() is None and time.monotonic() < deadline:
    if select.select([master], [], [], 0.1)[0]:
        try:
            os.read(master, 65536)
        except OSError:
            break
child.wait()
os.close(master)
after = stamps()
if seen is None or len(after) <= before:
    sys.exit(f"FIRSTTOKEN never showed: {screen[-300:]!r}")
print((seen - int(after[-1])) // 1000)
