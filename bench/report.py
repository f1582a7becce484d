"""bench/run.py's output: parsing the benches' text summaries, and results.json as Markdown tables."""
import re

PROGRAMS = [("rho", "rho"), ("pi", "Pi 0.73.1"), ("codex", "Codex 0.171")]
UNITS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1000.0}


def duration_ms(text):
    m = re.fullmatch(r"([0-9.]+)(ns|µs|us|ms|s)", text.strip())
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def parse_search_summary(out):
    """The summary table printed by crates/rho-host/benches/search.rs."""
    rows = []
    started = False
    for line in out.splitlines():
        if line.startswith("case (median)"):
            started = True
            continue
        if started and line.strip():
            name, rest = line[:32].strip(), line[32:].split()
            if len(rest) == 3:
                rows.append({"case": name, "rho_ms": duration_ms(rest[0]), "tool_ms": duration_ms(rest[1]),
                             "ratio": float(rest[2].rstrip("x"))})
    return rows


def parse_local(out, model):
    """The lines printed by crates/rho-llama/examples/bench.rs."""
    res = {"model": model}
    m = re.search(r"load \+ first call: ([0-9.]+) s", out)
    if m:
        res["load_s"] = float(m.group(1))
    m = re.search(r"prompt processing: (\d+) tokens.*=> ([0-9.]+) tok/s", out)
    if m:
        res["prompt_tokens"], res["prompt_tok_s"] = int(m.group(1)), float(m.group(2))
    gens = [float(x) for x in re.findall(r"generation \d+ tokens in [0-9.]+ s \(([0-9.]+) tok/s\)", out)]
    if gens:
        res["generation_tok_s_rounds"] = gens
        res["generation_tok_s"] = sorted(gens)[len(gens) // 2]
    return res


def cell(r):
    if not r:
        return "—"
    w, m = r["wall_ms"], r["rss_mib"]
    return "%.1f ms (%.1f–%.1f) / %.1f MiB" % (w["median"], w["min"], w["max"], m["median"])


def row_line(row):
    parts = ["%s %s" % (w, cell(r)) for w, r in row["results"].items()]
    floor = row.get("floor") or {}
    if "wall_ms" in floor:
        parts.append("curl floor %.1f ms" % floor["wall_ms"]["median"])
    return "%-12s %s" % (row["name"], " | ".join(parts))


def markdown(res):
    m = res["machine"]
    out = ["# Benchmark results", "",
           "Machine: %s cores, %s, %s MiB RAM, Linux %s; commit %s, %s UTC; profile `%s`; %s timed runs per "
           "program after one warm-up (medians, min–max)." % (m["nproc"], m["cpu"], m["ram_mib"], m["kernel"],
                                                             m["commit"], m["date_utc"], res["profile"], res["runs"]),
           "", "Command: `%s`" % res["command"], ""]
    rows = res.get("processes") or []
    if rows:
        out += ["## Scenarios 1–4: whole processes against the loopback mock (wall / peak RSS)", "",
                "| # | case | " + " | ".join(n for _, n in PROGRAMS) + " | Pi/rho time, RSS | Codex/rho time, RSS |"
                " mock floor (curl, same requests) | rho above floor |",
                "|---|---|" + "---|" * len(PROGRAMS) + "---|---|---|---|"]
        for row in rows:
            ratios = row.get("ratios", {})
            rat = ["%.1f×, %.1f×" % (ratios[w]["time"], ratios[w]["rss"]) if w in ratios else "—"
                   for w in ("pi", "codex")]
            floor = row.get("floor")
            fl = "%.1f ms (%d requests)" % (floor["wall_ms"]["median"], floor["requests"]) if floor and \
                "wall_ms" in floor else "—"
            above = "%.1f ms" % row["rho_above_floor_ms"] if "rho_above_floor_ms" in row else "—"
            out.append("| %d | %s | " % (row["scenario"], row["name"]) +
                       " | ".join(cell(row["results"].get(w)) for w, _ in PROGRAMS) +
                       " | %s | %s | %s | %s |" % (rat[0], rat[1], fl, above))
        for who, note in (res.get("peer_notes") or {}).items():
            out.append("")
            out.append("- %s: %s" % (who, note))
        out.append("")
    turns = res.get("turns_in_process")
    if turns:
        out += ["## Scenario 4, in process: per-turn cost (faux model, real `read`, events serialized)", "",
                "| turns | median run | min–max | per turn |", "|---|---|---|---|"]
        for t in turns:
            if t["scenario"] == "turns":
                out.append("| %d | %.2f ms | %.2f–%.2f ms | %.1f µs |" % (t["turns"], t["median_ms"], t["min_ms"],
                                                                         t["max_ms"], t["per_turn_us"]))
            else:
                out.append("| marginal %d→%d | | | %.1f µs |" % (t["from"], t["to"], t["per_turn_us"]))
        out.append("")
    parse = res.get("parse")
    if parse:
        apis = sorted({p["api"] for p in parse}, key=[p["api"] for p in parse].index)
        out += ["## Scenario 5: SSE parsing throughput (MB/s, one core, recorded fixtures)", "",
                "| stage | " + " | ".join(apis) + " |", "|---|" + "---|" * len(apis)]
        for group in ("sse_only", "sse_and_json_only", "parse"):
            vals = {p["api"]: p["mb_per_s"] for p in parse if p["group"] == group}
            out.append("| %s | " % group + " | ".join("%.0f" % vals[a] for a in apis) + " |")
        out.append("")
    search = res.get("search")
    if search:
        out += ["## Scenario 6: grep/find over 100,000 files (~1 GB), in process vs rg/fd processes (median of 5)",
                "", "| case | rho | rg / fd | rho ÷ tool |", "|---|---|---|---|"]
        for s in search:
            out.append("| %s | %.1f ms | %.1f ms | %.2f× |" % (s["case"], s["rho_ms"], s["tool_ms"], s["ratio"]))
        out.append("")
    session = res.get("session_open")
    if session:
        out += ["## Scenario 7: opening a 100,000-entry session file and building its context", "",
                "| case | median |", "|---|---|"]
        for s in session:
            out.append("| %s | %.1f ms |" % (s["case"], s["median_ms"]))
        out.append("")
    conc = res.get("concurrent")
    if conc:
        out += ["## Scenario 8: concurrent scripted runs in one process (library API, faux model)", "",
                "| runs × turns | wall | turns/s | peak heap per run | transcript JSON per run | heap beyond "
                "transcript per run | peak RSS (process) | RSS per run |", "|---|---|---|---|---|---|---|---|"]
        for c in conc:
            out.append("| %d × %d | %.0f ms | %.0f | %.1f KiB | %.1f KiB | %.1f KiB | %.1f MiB | %.1f KiB |" % (
                c["runs"], c["turns_each"] + 1, c["wall_ms"], c["turns_per_s"], c["peak_heap_per_run_kib"],
                c["transcript_json_per_run_kib"], c["heap_beyond_transcript_per_run_kib"],
                c["time_peak_rss_kib"] / 1024.0, c["time_rss_per_run_kib"]))
        out.append("")
    local = res.get("local")
    if local:
        out += ["## Scenario 9: local model (llama.cpp in process)", ""]
        if "skipped" in local:
            out.append("Skipped: " + local["skipped"])
        else:
            out += ["| model | load + first call | prompt tok/s | generation tok/s (median of 3) | peak RSS |",
                    "|---|---|---|---|---|",
                    "| %s | %.2f s | %.0f | %.0f | %.0f MiB |" % (
                        local["model"].split("/")[-1], local.get("load_s", float("nan")),
                        local.get("prompt_tok_s", float("nan")), local.get("generation_tok_s", float("nan")),
                        local["peak_rss_kib"] / 1024.0)]
        out.append("")
    return "\n".join(out)
