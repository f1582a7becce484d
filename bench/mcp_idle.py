#!/usr/bin/env python3
"""What three MCP servers cost a run that calls none of them (issue 24): the text-only scenario of
../shared/peers alone, and the same with three stdio servers (rho-mcp's scripted server, deferred, so
the prompt need not wait for them) connecting in the background, timed by side_by_side.py --bench
beside the mock's floor and Pi 1.6.

usage (from the repository root, after `cargo build --profile dist -p rho`):

    python3 bench/mcp_idle.py --runs 10
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(os.path.dirname(ROOT), "shared", "peers")
SCRIPTED = os.path.join(ROOT, "crates", "rho-mcp", "tests", "servers", "scripted.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rho", default=os.path.join(ROOT, "target", "dist", "rho"))
    ap.add_argument("--peers", default="pi")
    a = ap.parse_args()
    scenarios = tempfile.mkdtemp(prefix="mcp-idle-")
    shutil.copy(os.path.join(PEERS, "scenarios", "text-only.json"), scenarios)
    with open(os.path.join(PEERS, "scenarios", "text-only.json")) as f:
        idle = json.load(f)
    with open(SCRIPTED) as f:
        server = f.read()
    idle["name"] = "mcp-idle"
    idle["description"] = "text-only with three deferred stdio MCP servers it never calls"
    idle["files"]["server.py"] = server
    idle["mcp"] = {"mcpServers": {
        name: {"command": "python3", "args": ["server.py"], "exposure": "deferred"}
        for name in ("alpha", "beta", "gamma")
    }}
    with open(os.path.join(scenarios, "mcp-idle.json"), "w") as f:
        json.dump(idle, f)
    cmd = [sys.executable, os.path.join(PEERS, "side_by_side.py"), "--rho", a.rho, "--peers", a.peers,
           "--bench", str(a.runs), "--apis", "chat", "--scenarios", scenarios, "--only", "text-only,mcp-idle"]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
