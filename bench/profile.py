#!/usr/bin/env python3
"""Where rho's time goes in scenario 3 (two parallel reads, then a reply), by instruction counts.

usage (from the repository root):  python3 bench/profile.py [--skip-build] [--top 30]

Builds the benchmarked binary once more with symbols (profile `dist`, `strip = none`, in target/profiling so that
the stripped target/dist/rho is left alone), runs scenario 3 against the loopback mock under
`valgrind --tool=callgrind` (instruction counts are stable on a noisy machine, unlike times), and prints the
top functions by inclusive cost. Also prints the total instructions of `--version` of the dist binary that
bench/run.py built. Writes bench/profile.txt.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wire  # noqa: E402


def total_ir(cmd, cwd, env, out_file):
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file] + cmd, cwd=cwd, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    for line in open(out_file):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    return None


def peak_rss_kib(cmd, cwd, env, runs=5):
    """Median peak RSS of `cmd` in KiB, from GNU time's %M."""
    values = []
    for _ in range(runs):
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=True)
        values.append(int(r.stderr.strip().splitlines()[-1]))
    values.sort()
    return values[len(values) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--features", default="", help="'' = default features; 'none' = --no-default-features")
    ap.add_argument("--peers-dir", default=os.path.join(os.path.dirname(ROOT), "shared", "peers"))
    ap.add_argument("--lock", default="/tmp/rho-cargo.lock")
    ap.add_argument("--exe", help="profile this binary instead of building one (implies --skip-build)")
    ap.add_argument("--output", default=os.path.join(ROOT, "bench", "profile.txt"))
    a = ap.parse_args()
    target = os.path.join(ROOT, "target", "profiling")
    exe = a.exe or os.path.join(target, "dist", "rho")
    if not a.skip_build and not a.exe:
        cmd = ["cargo", "build", "--profile", "dist", "-p", "rho", "--target-dir", target]
        if a.features == "none":
            cmd.append("--no-default-features")
        if a.lock and shutil.which("flock"):
            cmd = ["flock", a.lock] + cmd
        env = dict(os.environ, CARGO_PROFILE_DIST_STRIP="none", CARGO_PROFILE_DIST_DEBUG="line-tables-only")
        subprocess.run(cmd, cwd=ROOT, env=env, check=True)
    peers = wire.load_peers(a.peers_dir)
    out = tempfile.mkdtemp(prefix="rho-profile-")
    scen_dir = wire.write_scenarios(out, peers.HERE, [])
    env, mock = wire.start(peers, scen_dir, out)
    report = []
    try:
        sc = json.load(open(os.path.join(scen_dir, "two-tools.json")))
        ws = wire.make_workspace(out, sc)
        cg = os.path.join(ROOT, "target", "profiling", "callgrind.two-tools.out")
        cmd = [exe, "--mode", "json", "-p", "--no-session", "--provider", "mock-chat", "--model", "two-tools",
               sc["prompt"]]
        total = total_ir(cmd, ws, env, cg)
        report.append("scenario 3 (two-tools), total instructions: %s" % format(total, ","))
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", cg],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        lines = [l for l in ann.splitlines() if re.match(r"^\s*[0-9,]+ \(", l)]
        report.append("top %d by inclusive instructions:" % a.top)
        report += [l[:200] for l in lines[:a.top]]
        report.append("")
        report.append("top %d by self (exclusive) instructions:" % a.top)
        ann = subprocess.run(["callgrind_annotate", "--threshold=100", cg], stdout=subprocess.PIPE, text=True,
                             check=True).stdout
        lines = [l for l in ann.splitlines() if re.match(r"^\s*[0-9,]+ \(", l)]
        report += [l[:200] for l in lines[:a.top]]
        report.append("")
        for name in ("text-only", "two-tools"):
            sc = json.load(open(os.path.join(scen_dir, name + ".json")))
            ws = wire.make_workspace(out, sc)
            cmd = [exe, "--mode", "json", "-p", "--no-session", "--provider", "mock-chat", "--model", name,
                   sc["prompt"]]
            ir = total_ir(cmd, ws, env, os.path.join(out, "cg." + name))
            rss = peak_rss_kib(cmd, ws, env)
            report.append("%s: %s instructions, peak RSS %.1f MiB (median of 5)" % (name, format(ir, ","), rss / 1024))
        ir = total_ir([exe, "--version"], ws, env, os.path.join(out, "cg.version.profiled"))
        report.append("`%s --version`, total instructions: %s, peak RSS %.1f MiB" % (
            os.path.relpath(exe, ROOT), format(ir, ","), peak_rss_kib([exe, "--version"], ws, env) / 1024))
        stripped = os.path.join(ROOT, "target", "dist", "rho")
        if os.path.exists(stripped):
            ir = total_ir([stripped, "--version"], ws, env, os.path.join(out, "cg.version"))
            report.append("`rho --version` (dist), total instructions: %s" % format(ir, ","))
    finally:
        mock.stop()
    text = "\n".join(report) + "\n"
    print(text)
    with open(a.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
