#!/usr/bin/env python3
"""Start-up of the interactive mode to its first frame.

rho runs in a fresh pseudo-terminal with RHO_EXIT_AFTER_FIRST_FRAME=1, which makes it leave
right after the first frame is drawn (terminal set up, session built, frame written, terminal
restored). The wall time from fork to exit is measured; the screen output is drained so the
child never blocks on a full pty, and the terminal queries (cursor position, device
attributes) are answered as a terminal would.

    python3 bench/startup_tui.py [path/to/rho] [runs]

Defaults: target/release/rho, 30 runs. Prints min / median / p90 in milliseconds, of the wall
time and of the CPU time (user + system; steadier on a loaded machine).
"""

import os
import pty
import statistics
import sys
import tempfile
import time


def run_once(binary: str, cwd: str, env: dict) -> tuple:
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execve(binary, [binary, "--faux-script", "script.json"], env)
    seen = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        # Answer the queries a real terminal answers: the cursor position and the primary
        # device attributes (no keyboard-protocol reply: an xterm without it).
        seen = seen[-16:] + chunk
        for query, reply in ((b"\x1b[6n", b"\x1b[1;1R"), (b"\x1b[c", b"\x1b[?62;22c")):
            if query in seen:
                os.write(fd, reply)
                seen = seen.replace(query, b"")
    _, status, usage = os.wait4(pid, 0)
    elapsed = (time.perf_counter() - start) * 1000.0
    cpu = (usage.ru_utime + usage.ru_stime) * 1000.0
    os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"rho exited with {os.waitstatus_to_exitcode(status)}")
    return elapsed, cpu


def main() -> None:
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/rho")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    with tempfile.TemporaryDirectory() as home:
        with open(os.path.join(home, "script.json"), "w") as f:
            f.write('{"turns": [[{"type": "text", "text": "hi"}]]}')
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "RHO_HOME": home,
            "TERM": "xterm-256color",
            "RHO_EXIT_AFTER_FIRST_FRAME": "1",
        }
        run_once(binary, home, env)  # warm the page cache
        samples = [run_once(binary, home, env) for _ in range(runs)]
    for name, values in (("wall", [s[0] for s in samples]), ("cpu", [s[1] for s in samples])):
        values.sort()
        p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
        print(
            f"first frame {name}: min {values[0]:.1f} ms, median {statistics.median(values):.1f}"
            f" ms, p90 {p90:.1f} ms over {runs} runs ({binary})"
        )


if __name__ == "__main__":
    main()
