#!/usr/bin/env python3
"""rho's benchmark suite (issue 11): every scenario, one invocation, rho next to Pi and Codex.

usage (from the repository root):

    python3 bench/run.py                  # build with --profile dist, run everything, write results
    python3 bench/run.py --runs 10 --only 1,2,3 --skip-build

Writes bench/results.json (every figure) and bench/results.md (the tables). Not part of `cargo test`.

Scenarios 1-4 run whole processes against the loopback mock LLM of ../shared/peers (chat API for rho and Pi,
Responses API for Codex, as side_by_side.py does): each program N times after one warm-up, alternating programs
within a round so that drift on a shared machine hits all alike. Wall time is measured around the process; peak
RSS is the process's own (`/usr/bin/time -f %M`). Ratios peer/rho are of medians from this same run. The mock's
floor is the same HTTP requests (captured from one rho run) replayed by one `curl` process.

  1  start-up: --version, --help (rho also without the `local` feature: what llama.cpp costs at start-up)
  2  one prompt, text-only reply, --mode json
  3  one prompt, two parallel read calls, then a reply
  4  N-turn scripted runs, one read call per turn (10 and 100 turns for all; 1,000 for rho), plus the
     in-process per-turn cost (crates/rho-host/benches/runs.rs, faux model)
  5  SSE parse throughput (crates/rho-host/benches/parse.rs)
  6  grep/find over a generated 100,000-file tree next to rg/fd (crates/rho-host/benches/search.rs)
  7  opening a 100,000-entry session (crates/rho-session/benches/open.rs)
  8  100 and 1,000 concurrent runs in one process (crates/rho-host/benches/runs.rs concurrent)
  9  local model tokens/s (crates/rho-llama/examples/bench.rs on the installed SmolLM2 GGUF), interleaved with
     llama.cpp's own speed (crates/rho-llama/llamacpp-bench, built with cmake when cmake is there)
"""
import argparse
import glob
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report  # noqa: E402  (bench/report.py: the Markdown tables)
import wire  # noqa: E402  (bench/wire.py: scenarios, mock, curl floor)


def cargo(args, lock):
    """Runs cargo under the shared build lock (if there is one), from the repository root."""
    cmd = ["cargo"] + args
    if lock and shutil.which("flock"):
        cmd = ["flock", lock] + cmd
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout


def executables(out, target):
    """The executable paths of `cargo --message-format=json` output for one target name."""
    found = []
    for line in out.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] == target:
            found.append(msg["executable"])
    if not found:
        raise SystemExit("cargo built no executable for %s" % target)
    return found[-1]


def build(a):
    """Builds rho (and its model process rho-llama beside it) and the benches, all with the same profile."""
    p = ["--profile", a.profile]
    mf = ["--message-format=json"]
    bins = {}
    bins["rho"] = executables(cargo(["build"] + p + ["-p", "rho"] + mf, a.lock), "rho")
    for pkg, bench in (("rho-host", "runs"), ("rho-host", "parse"), ("rho-host", "search"), ("rho-session", "open")):
        bins[bench] = executables(cargo(["bench", "--no-run"] + p + ["-p", pkg, "--bench", bench] + mf, a.lock), bench)
    bins["local_bench"] = executables(cargo(["build"] + p + ["-p", "rho-llama", "--example", "bench"] + mf, a.lock),
                                      "bench")
    return bins


def stats(samples):
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples)}


def bench_processes(a, bins, res):
    """Scenarios 1-4, whole processes, alternating programs in each round."""
    peers = wire.load_peers(a.peers_dir)
    exes = {"rho": [bins["rho"]]}
    notes = {}
    for name in [p for p in a.peers.split(",") if p]:
        try:
            exes[name] = peers.peer_command(name)
        except Exception as e:  # an uninstallable peer leaves an empty column, with the reason
            notes[name] = "not run: %s" % e
    out = tempfile.mkdtemp(prefix="rho-bench-")
    scen_dir = wire.write_scenarios(out, peers.HERE, a.turns)
    env, mock = wire.start(peers, scen_dir, out)
    res["peers"] = {w: " ".join(c) for w, c in exes.items()}
    res["peer_notes"] = notes
    rows = []
    try:
        cases = wire.cases(a, exes, bins, scen_dir, out)
        for case in cases:
            if case["scenario"] not in a.only:
                continue
            n = case.get("runs", a.runs)
            samples = {w: [] for w in case["cmds"]}
            for i in range(n + 1):
                for who, (cmd, cwd) in case["cmds"].items():
                    code, wall, rss = peers.run(cmd, cwd, env, os.path.join(out, "bench.out"), timeout=600)
                    if code != 0:
                        samples[who] = None
                        notes.setdefault("%s/%s" % (who, case["name"]), "exit %d (%s)" % (
                            code, open(os.path.join(out, "bench.out.stderr"), errors="replace").read()[-300:]))
                    if i and samples[who] is not None:
                        samples[who].append((wall * 1000.0, rss))
                case["cmds"] = {w: c for w, c in case["cmds"].items() if samples[w] is not None}
            row = {"scenario": case["scenario"], "name": case["name"], "runs": n, "results": {}}
            for who, s in samples.items():
                if s:
                    row["results"][who] = {"wall_ms": stats([x[0] for x in s]), "rss_mib": stats([x[1] for x in s])}
            rho = row["results"].get("rho")
            if rho:
                row["ratios"] = {w: {"time": r["wall_ms"]["median"] / rho["wall_ms"]["median"],
                                     "rss": r["rss_mib"]["median"] / rho["rss_mib"]["median"]}
                                 for w, r in row["results"].items() if w != "rho"}
            if case.get("model"):
                row["floor"] = wire.curl_floor(peers, env, mock, case, out, n)
                if rho:
                    row["rho_above_floor_ms"] = rho["wall_ms"]["median"] - row["floor"]["wall_ms"]["median"]
            rows.append(row)
            print(report.row_line(row), flush=True)
    finally:
        mock.stop()
    res["processes"] = rows


def run_json_lines(cmd, cwd=None, rss=False):
    """Runs a bench executable; returns its JSON lines (and its own peak RSS in KiB with rss=True)."""
    timed = ["/usr/bin/time", "-f", "%M", "-o", "/tmp/rho-bench.rss"] + cmd if rss else cmd
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(timed, cwd=cwd, check=True, stdout=subprocess.PIPE, text=True).stdout
    lines = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    if rss:
        return lines, int(open("/tmp/rho-bench.rss").read().split()[-1])
    return lines


def criterion_median_ns(home, group, function):
    est = json.load(open(os.path.join(home, group, function, "new", "estimates.json")))
    return est["median"]["point_estimate"]


def criterion_throughput(home, group, function):
    bench = json.load(open(os.path.join(home, group, function, "new", "benchmark.json")))
    return (bench.get("throughput") or {}).get("Bytes")


def bench_libraries(a, bins, res, save):
    """Scenarios 4 (in-process), 5-9; a failing scenario is recorded and the others still run."""
    for number, step in ((4, turns_step), (5, parse_step), (6, search_step), (7, session_step),
                         (8, concurrent_step), (9, local_step)):
        if number in a.only:
            try:
                step(a, bins, res)
            except Exception as e:  # recorded in results.json, never hidden
                res.setdefault("errors", {})[str(number)] = repr(e)
            save()


def criterion_env():
    home = os.path.join(ROOT, "target", "bench-criterion")
    return home, dict(os.environ, CRITERION_HOME=home)


HOST = os.path.join(ROOT, "crates", "rho-host")


def turns_step(a, bins, res):
    res["turns_in_process"] = run_json_lines([bins["runs"], "turns"], cwd=HOST)


def parse_step(a, bins, res):
    home, env = criterion_env()
    subprocess.run([bins["parse"], "--bench"], cwd=HOST, check=True, env=env, stdout=subprocess.DEVNULL)
    parse = []
    for group in ("sse_only", "sse_and_json_only", "parse"):
        for api in ("anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"):
            ns = criterion_median_ns(home, group, api)
            size = criterion_throughput(home, group, api)
            parse.append({"group": group, "api": api, "bytes": size, "median_ns": ns, "mb_per_s": size / ns * 1000.0})
    res["parse"] = parse


def search_step(a, bins, res):
    # A filter that matches no criterion group: only the summary (medians of 5 runs each side) runs.
    home, env = criterion_env()
    out = subprocess.run([bins["search"], "--bench", "summary-only"], cwd=HOST, check=True, env=env,
                         stdout=subprocess.PIPE, text=True).stdout
    res["search"] = report.parse_search_summary(out)


def session_step(a, bins, res):
    home, env = criterion_env()
    subprocess.run([bins["open"], "--bench"], cwd=os.path.join(ROOT, "crates", "rho-session"), check=True, env=env,
                   stdout=subprocess.DEVNULL)
    res["session_open"] = [
        {"case": f, "median_ms": criterion_median_ns(home, "session", f) / 1e6}
        for f in ("open_100k_entries_and_build_context", "open_100k_entries_and_build_uncompacted_context")]


def concurrent_step(a, bins, res):
    conc = []
    turns = str(a.concurrent_turns)
    _, idle_rss = run_json_lines([bins["runs"], "concurrent", "1", turns], cwd=HOST, rss=True)
    for n in (100, 1000):
        lines, rss = run_json_lines([bins["runs"], "concurrent", str(n), turns], cwd=HOST, rss=True)
        row = lines[0]
        row["time_peak_rss_kib"] = rss
        row["time_rss_per_run_kib"] = (rss - idle_rss) / (n - 1)
        conc.append(row)
    res["concurrent"] = conc


LLAMACPP_BENCH_DIR = os.path.join(ROOT, "target", "llama-bench-build")


def vendored_llama_cpp():
    """The llama.cpp tree llama-cpp-sys-2 vendors (the version in Cargo.lock), in cargo's registry."""
    lock = open(os.path.join(ROOT, "Cargo.lock")).read()
    version = lock.split('name = "llama-cpp-sys-2"\nversion = "', 1)[-1].split('"', 1)[0]
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    found = sorted(glob.glob(os.path.join(home, "registry", "src", "*", "llama-cpp-sys-2-" + version, "llama.cpp")))
    return found[-1] if found else None


def build_llamacpp_bench(a):
    """llama.cpp's own speed on this machine: crates/rho-llama/llamacpp-bench built with cmake from the
    llama.cpp that rho links, with llama-cpp-sys-2's options. Returns (executable, None) or (None, why not)."""
    exe = os.path.join(LLAMACPP_BENCH_DIR, "llamacpp-bench")
    if a.skip_build and os.path.exists(exe):
        return exe, None
    if not shutil.which("cmake"):
        return None, "cmake not found: llama.cpp's reference figures skipped (apt-get install cmake)"
    src = vendored_llama_cpp()
    if not src:
        return None, "llama-cpp-sys-2's vendored llama.cpp not found in cargo's registry (build rho-llama first)"
    nice = ["nice", "-n", "10"]
    for cmd in (["cmake", "-S", os.path.join(ROOT, "crates", "rho-llama", "llamacpp-bench"), "-B",
                 LLAMACPP_BENCH_DIR, "-DLLAMA_SRC=" + src],
                ["cmake", "--build", LLAMACPP_BENCH_DIR, "--target", "llamacpp-bench", "-j2"]):
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(nice + cmd, check=True, stdout=subprocess.DEVNULL)
    return exe, None


def compilers_running():
    """How many compiler processes share the machine right now (other engineers' builds)."""
    count = 0
    for name in ("rustc", "cc1", "cc1plus"):
        out = subprocess.run(["pgrep", "-c", "-x", name], stdout=subprocess.PIPE, text=True).stdout
        count += int(out.strip() or 0)
    return count


def local_step(a, bins, res):
    """Scenario 9: rho's local model next to llama.cpp's own speed, interleaved round by round (llama.cpp
    -p 512 -n 128 -t 2 -r 3, then rho's bench with a ~512-token prompt and 128 generated tokens)."""
    model = a.model_file or next(iter(wire.find_models(ROOT)), None)
    if not model:
        res["local"] = {"skipped": "no GGUF model found (rho model install, or --model-file)"}
        return
    llama, why_not = build_llamacpp_bench(a)
    rounds, llama_rounds = [], []
    for _ in range(a.local_rounds):
        if llama:
            busy = compilers_running()
            out = subprocess.run([llama, "-m", model, "-p", "512", "-n", "128", "-t", "2", "-r", "3"],
                                 check=True, stdout=subprocess.PIPE, text=True).stdout
            tests = {t["test"]: t for t in map(json.loads, out.splitlines())}
            llama_rounds.append({"pp512": tests["pp512"]["avg_ts"], "tg128": tests["tg128"]["avg_ts"],
                                 "compilers_running": busy})
        busy = compilers_running()
        out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", "/tmp/rho-bench.rss", bins["local_bench"], model],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        one = report.parse_local(out, model)
        one["peak_rss_kib"] = int(open("/tmp/rho-bench.rss").read().split()[-1])
        one["compilers_running"] = busy
        rounds.append(one)
    # The median round by generation speed stands for the run; every round is kept.
    local = dict(sorted(rounds, key=lambda r: r.get("generation_tok_s", 0))[len(rounds) // 2])
    local["rounds"] = rounds
    if llama:
        pp = statistics.median(r["pp512"] for r in llama_rounds)
        tg = statistics.median(r["tg128"] for r in llama_rounds)
        rho_pp = statistics.median(r.get("prompt_tok_s", 0) for r in rounds)
        rho_tg = statistics.median(r.get("generation_tok_s", 0) for r in rounds)
        local["llamacpp"] = {"pp512_tok_s": pp, "tg128_tok_s": tg, "rounds": llama_rounds}
        local["rho_prompt_tok_s_median"], local["rho_generation_tok_s_median"] = rho_pp, rho_tg
        local["ratio_prompt"], local["ratio_generation"] = rho_pp / pp, rho_tg / tg
        print("scenario 9: rho/llama.cpp prompt %.0f/%.0f = %.2f, generation %.0f/%.0f = %.2f" % (
            rho_pp, pp, rho_pp / pp, rho_tg, tg, rho_tg / tg), file=sys.stderr, flush=True)
    else:
        local["llamacpp"] = {"skipped": why_not}
        print("scenario 9: " + why_not, file=sys.stderr, flush=True)
    res["local"] = local


def machine():
    model = ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal"):
            mem = int(line.split()[1]) // 1024
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE, text=True).stdout
    return {"nproc": os.cpu_count(), "cpu": model, "ram_mib": mem, "kernel": platform.release(),
            "commit": git.strip(), "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="timed runs per program and case, after one warm-up")
    ap.add_argument("--profile", default="dist")
    ap.add_argument("--peers", default="pi,codex")
    ap.add_argument("--peers-dir", default=os.path.join(os.path.dirname(ROOT), "shared", "peers"))
    ap.add_argument("--only", default="1,2,3,4,5,6,7,8,9", help="scenario numbers")
    ap.add_argument("--turns", default="10,100,1000", help="scenario 4 run lengths")
    ap.add_argument("--peer-max-turns", type=int, default=100, help="longest scenario-4 run the peers do")
    ap.add_argument("--concurrent-turns", type=int, default=10, help="turns of each run in scenario 8")
    ap.add_argument("--model-file", default=None, help="GGUF for scenario 9 (default: an installed one)")
    ap.add_argument("--local-rounds", type=int, default=3, help="interleaved rho / llama.cpp rounds in scenario 9")
    ap.add_argument("--lock", default="/tmp/rho-cargo.lock", help="flock file for cargo ('' for none)")
    ap.add_argument("--skip-build", action="store_true", help="reuse the executables of the last build")
    ap.add_argument("--build-only", action="store_true", help="build, measure nothing")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results.json"))
    a = ap.parse_args()
    a.only = [int(x) for x in a.only.split(",") if x]
    a.turns = [int(x) for x in a.turns.split(",") if x]
    cache = os.path.join(ROOT, "target", a.profile, "bench-executables.json")
    if a.skip_build and os.path.exists(cache):
        bins = json.load(open(cache))
    else:
        bins = build(a)
        json.dump(bins, open(cache, "w"), indent=1)
    if a.build_only:
        return
    res = {"machine": machine(), "profile": a.profile, "runs": a.runs,
           "command": "python3 bench/run.py " + " ".join(sys.argv[1:])}
    md = os.path.splitext(a.out)[0] + ".md"

    def save():
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
        with open(md, "w") as f:
            f.write(report.markdown(res))

    bench_processes(a, bins, res)
    save()
    bench_libraries(a, bins, res, save)
    print("wrote %s and %s" % (a.out, md))


if __name__ == "__main__":
    main()
