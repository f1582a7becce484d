"""Scenarios 1-4 of bench/run.py: the scripted scenarios, the loopback mock, the commands of each program, and the
mock's own floor (the same HTTP requests made by curl).

The mock, the peers' installation and the process timer are those of ../shared/peers/side_by_side.py, imported
rather than copied, so that rho is timed exactly as the parity runs time it.
"""
import glob
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def load_peers(peers_dir):
    """side_by_side.py as a module, with `peer_command(name)`."""
    spec = importlib.util.spec_from_file_location("side_by_side", os.path.join(peers_dir, "side_by_side.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def peer_command(name):
        if name == "pi":
            return [mod.install("@mariozechner/pi-coding-agent@" + mod.PI_VERSION, "pi")]
        if name == "codex":
            exe = mod.codex_native(mod.install("@openai/codex@" + mod.CODEX_VERSION, "codex"))
            subprocess.run([exe, "--version"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return [exe]
        raise ValueError("unknown peer %r" % name)

    mod.peer_command = peer_command
    return mod


FILE_TEXT = "export function add(a: number, b: number): number {\n  return a + b;\n}\n" * 7


def turns_scenario(n, codex):
    """n turns of one tool call each (read f.ts; Codex: cat f.ts), then a reply."""
    if codex:
        call = {"type": "tool_call", "name": "exec_command", "arguments": {"cmd": "cat f.ts"}}
    else:
        call = {"type": "tool_call", "name": "read", "arguments": {"path": "f.ts"}}
    turns = [[{"type": "text", "text": "Reading."}, call] for _ in range(n)]
    turns.append([{"type": "text", "text": "Done."}])
    return {"name": "turns-%d%s" % (n, ".codex" if codex else ""), "turns": turns,
            "prompt": "Read f.ts, again and again.", "files": {"f.ts": FILE_TEXT}}


def write_scenarios(out, peers_here, turn_counts):
    """A scenario folder: the public text-only and two-tools scenarios, plus the N-turn runs."""
    d = os.path.join(out, "scenarios")
    os.makedirs(d)
    for f in ("text-only.json", "two-tools.json", "two-tools.codex.json"):
        shutil.copy(os.path.join(peers_here, "scenarios", f), d)
    for n in turn_counts:
        for codex in (False, True):
            sc = turns_scenario(n, codex)
            with open(os.path.join(d, sc["name"] + ".json"), "w") as fh:
                json.dump(sc, fh)
    return d


def mock_command(peers):
    """The shared mock, started through bench/mock_nodelay.py (see there why)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [sys.executable, os.path.join(here, "mock_nodelay.py"), os.path.join(peers.HERE, "mock_llm.py")]


class Mock:
    """side_by_side.py's Mock, started through mock_nodelay.py."""

    def __init__(self, peers, scen_dir, out):
        self.port_file = os.path.join(out, "mock.port")
        self.log = open(os.path.join(out, "mock.log"), "w")
        self.proc = subprocess.Popen(mock_command(peers) + ["--scenario-dir", scen_dir, "--port", "0",
                                                            "--port-file", self.port_file, "--chunk-size", "8"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(200):
            if os.path.exists(self.port_file) and open(self.port_file).read().strip():
                break
            time.sleep(0.05)
        self.port = int(open(self.port_file).read())

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.log.close()


def start(peers, scen_dir, out):
    """The mock (one for the whole run) and the environment every program runs in."""
    mock = Mock(peers, scen_dir, out)
    names = sorted(f[:-5] for f in os.listdir(scen_dir) if f.endswith(".json"))
    return peers.write_configs(out, mock.port, names), mock


def cases(a, exes, bins, scen_dir, out):
    """Every timed case of scenarios 1-4: {scenario, name, model, cmds: {who: (argv, cwd)}}."""
    empty = tempfile.mkdtemp(prefix="ws-", dir=out)
    everyone = dict(exes)
    result = []
    # The runner's own floor: spawning and timing a tiny C program that prints its version. The
    # row shows it in rho's column; rho's start-up cost is its `--version` minus this.
    result.append({"scenario": 1, "name": "floor: `/bin/true --version`",
                   "cmds": {"rho": (["/bin/true", "--version"], empty)}})
    for flag in ("--version", "--help"):
        result.append({"scenario": 1, "name": "`%s`" % flag,
                       "cmds": {w: (c + [flag], empty) for w, c in everyone.items()}})
    agent_cases = [(2, "text-only", None), (3, "two-tools", None)]
    agent_cases += [(4, "turns-%d" % n, n) for n in a.turns]
    for scenario, name, turns in agent_cases:
        sc = json.load(open(os.path.join(scen_dir, name + ".json")))
        ws = make_workspace(out, sc)
        cmds = {}
        who_runs = everyone if turns is None else exes
        for who, exe in who_runs.items():
            if turns and turns > a.peer_max_turns and who != "rho":
                continue
            if who == "codex":
                cx = name + ".codex" if os.path.exists(os.path.join(scen_dir, name + ".codex.json")) else name
                cmds[who] = (exe + ["exec", "--json", "--skip-git-repo-check", "--ephemeral", "-m", cx,
                                    sc["prompt"]], ws)
            else:
                cmds[who] = (exe + ["--mode", "json", "-p", "--no-session", "--provider", "mock-chat", "--model",
                                    name, sc["prompt"]], ws)
        case = {"scenario": scenario, "name": name, "model": name, "cmds": cmds, "scen_dir": scen_dir}
        if turns and turns > 100:
            case["runs"] = min(a.runs, 5)
        result.append(case)
    return result


def make_workspace(out, sc):
    ws = tempfile.mkdtemp(prefix="ws-", dir=out)
    for rel, content in (sc.get("files") or {}).items():
        p = os.path.join(ws, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(content)
    return ws


def capture_requests(peers, env, mock_port, case, out):
    """The HTTP requests rho makes for this case, recorded by a second mock started with --log."""
    d = tempfile.mkdtemp(prefix="capture-", dir=out)
    log = os.path.join(d, "requests.jsonl")
    port_file = os.path.join(d, "port")
    proc = subprocess.Popen(mock_command(peers) + ["--scenario-dir",
                             case["scen_dir"], "--port", "0", "--port-file", port_file, "--chunk-size", "8",
                             "--log", log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        port = int(open(port_file).read())
        # rho's models.json pointed at this mock; the shared configs (Codex's home) stay as they are.
        home = os.path.join(d, "rho-home")
        os.makedirs(home)
        models = open(os.path.join(env["RHO_HOME"], "models.json")).read()
        with open(os.path.join(home, "models.json"), "w") as f:
            f.write(models.replace("127.0.0.1:%d" % mock_port, "127.0.0.1:%d" % port))
        cenv = dict(env, RHO_HOME=home)
        cmd, cwd = case["cmds"]["rho"]
        subprocess.run(cmd, cwd=cwd, env=cenv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return [json.loads(l) for l in open(log) if l.strip()]


def curl_floor(peers, env, mock, case, out, n):
    """The mock's floor: rho's requests for this case replayed by one curl process (keep-alive, as rho does),
    timed like the programs (n runs after a warm-up)."""
    requests = capture_requests(peers, env, mock.port, case, out)
    d = tempfile.mkdtemp(prefix="curl-", dir=out)
    lines = []
    for i, req in enumerate(requests):
        body = os.path.join(d, "%d.json" % i)
        with open(body, "w") as f:
            json.dump(req.get("body", {}), f, separators=(",", ":"))
        if i:
            lines.append("next")
        lines += ['url = "http://127.0.0.1:%d%s"' % (mock.port, req["path"]),
                  'header = "content-type: application/json"', 'header = "authorization: Bearer mock-key"',
                  'data-binary = "@%s"' % body, 'output = "/dev/null"', "silent", "no-buffer"]
    config = os.path.join(d, "curl.cfg")
    with open(config, "w") as f:
        f.write("\n".join(lines) + "\n")
    samples = []
    for i in range(n + 1):
        code, wall, rss = peers.run(["curl", "-K", config], d, env, os.path.join(d, "curl.out"))
        if code != 0:
            return {"error": "curl exit %d" % code}
        if i:
            samples.append((wall * 1000.0, rss))
    walls = [s[0] for s in samples]
    return {"requests": len(requests), "wall_ms": {"median": statistics.median(walls), "min": min(walls),
                                                   "max": max(walls), "n": len(walls)},
            "rss_mib": statistics.median(s[1] for s in samples)}


def find_models(root):
    """Installed SmolLM2 GGUFs: RHO_HOME's, then the test suite's copies under target/tmp."""
    home = os.environ.get("RHO_HOME", os.path.expanduser("~/.rho"))
    found = glob.glob(os.path.join(home, "models", "*.gguf"))
    found += sorted(glob.glob(os.path.join(root, "target", "tmp", "*", "models", "*.gguf")))
    return found
