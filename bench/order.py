#!/usr/bin/env python3
"""Writes crates/rho/link-order.txt: the functions rho runs on its common paths, for the dist build's linker.

usage (from the repository root):  python3 bench/order.py [--exe target/dist/rho]

A run of rho touches a small part of its executable, but page faults map the file in 64 KiB windows, so code scattered
over the whole `.text` makes most of it resident: before ordering, a text-only reply kept ~6 MiB of rho's 12 MiB of
code in memory. This script runs the dist binary (which keeps its symbol table) under
`valgrind --tool=callgrind` on `--version`, `--help`, and scenarios 2-4 of bench/run.py against the loopback mock
(text-only, two tools, ten turns), collects every function of rho's own executable that ran, in order of first
appearance, and writes their symbol names. crates/rho/build.rs hands that file to lld (`--symbol-ordering-file`) for
the dist profile, which places those functions together at the start of `.text`. Symbols that no longer exist are
skipped by the linker, so a stale file costs only memory; rerun this after changes that matter (then rebuild:
`python3 bench/run.py --build-only`).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wire  # noqa: E402

OUTPUT = os.path.join(ROOT, "crates", "rho", "link-order.txt")


def defined_functions(exe):
    """The function symbols defined in `exe`'s symbol table."""
    out = subprocess.run(["nm", "--defined-only", exe], stdout=subprocess.PIPE, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            names.add(parts[2])
    return names


def functions_run(cmd, cwd, env, out_file):
    """The functions `cmd` ran, in order of first appearance in callgrind's output (mangled names)."""
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
                    "--callgrind-out-file=" + out_file] + cmd,
                   cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    seen = []
    for line in open(out_file, errors="replace"):
        if line.startswith("fn=") or line.startswith("cfn="):
            name = line.split("=", 1)[1].strip()
            # Callgrind marks recursion levels as name'2, name'3...
            seen.append(re.sub(r"'[0-9]+$", "", name))
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe", default=os.path.join(ROOT, "target", "dist", "rho"))
    ap.add_argument("--peers-dir", default=os.path.join(os.path.dirname(ROOT), "shared", "peers"))
    ap.add_argument("--output", default=OUTPUT)
    a = ap.parse_args()
    known = defined_functions(a.exe)
    if len(known) < 1000:
        raise SystemExit("%s has no symbol table (%d functions): build it with the dist profile" % (a.exe, len(known)))
    peers = wire.load_peers(a.peers_dir)
    out = tempfile.mkdtemp(prefix="rho-order-")
    scen_dir = wire.write_scenarios(out, peers.HERE, [10])
    env, mock = wire.start(peers, scen_dir, out)
    order, placed = [], set()
    try:
        empty = tempfile.mkdtemp(prefix="ws-", dir=out)
        runs = [([a.exe, "--version"], empty), ([a.exe, "--help"], empty)]
        for name in ("text-only", "two-tools", "turns-10"):
            sc = json.load(open(os.path.join(scen_dir, name + ".json")))
            ws = wire.make_workspace(out, sc)
            runs.append(([a.exe, "--mode", "json", "-p", "--no-session", "--provider", "mock-chat", "--model", name,
                          sc["prompt"]], ws))
        for i, (cmd, cwd) in enumerate(runs):
            for fn in functions_run(cmd, cwd, env, os.path.join(out, "cg.%d" % i)):
                if fn in known and fn not in placed:
                    placed.add(fn)
                    order.append(fn)
    finally:
        mock.stop()
    with open(a.output, "w") as f:
        f.write("\n".join(order) + "\n")
    print("%s: %d of %d functions" % (os.path.relpath(a.output, ROOT), len(order), len(known)))


if __name__ == "__main__":
    main()
