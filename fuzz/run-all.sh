#!/usr/bin/env bash
# Fuzzes every target (or those named) one after another until each has had CPU_SECONDS of CPU
# time (default 310; at most 3x that in wall time), under `nice -n 19`, from its corpus into
# /tmp/afl-<target>; prints per target the executions, the wall and CPU time, the crashes and
# the queue size. Build the binaries first: `cargo afl build --release -p rho-fuzz`.
# Usage: fuzz/run-all.sh [CPU_SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
cpu_seconds=${1:-310}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls corpus)
fi
# afl-fuzz itself, as `cargo afl` installed it (called directly: no cargo, so no cargo lock).
afl_fuzz=${AFL_FUZZ:-$(ls -d "$HOME"/.local/share/afl.rs/rustc-*/afl.rs-*/afl/bin/afl-fuzz | tail -1)}
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
ticks=$(getconf CLK_TCK)

# CPU seconds used so far by a process tree: each process's own time plus that of its children
# already reaped (the fork server's finished persistent-mode runs).
tree_cpu() {
  local pids total=0 pid
  pids=$(pstree -p "$1" 2>/dev/null | grep -o '([0-9]*)' | tr -d '()') || true
  for pid in $pids; do
    total=$((total + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo $((total / ticks))
}

for target in "${targets[@]}"; do
  out=/tmp/afl-$target
  rm -rf "$out"
  nice -n 19 "$afl_fuzz" -i "corpus/$target" -o "$out" "../target/release/$target" \
    >"$out.log" 2>&1 &
  fuzzer=$!
  started=$SECONDS cpu=0
  while kill -0 "$fuzzer" 2>/dev/null; do
    sleep 2
    now=$(tree_cpu "$fuzzer")
    [ "$now" -gt "$cpu" ] && cpu=$now
    if [ "$cpu" -ge "$cpu_seconds" ] || [ $((SECONDS - started)) -ge $((3 * cpu_seconds)) ]; then
      kill -INT "$fuzzer"
      break
    fi
  done
  wait "$fuzzer" || true
  stats=$out/default/fuzzer_stats
  execs=$(awk -F': *' '/^execs_done/ {print $2}' "$stats")
  crashes=$(awk -F': *' '/^saved_crashes/ {print $2}' "$stats")
  queue=$(find "$out/default/queue" -maxdepth 1 -type f | wc -l)
  echo "$target: execs $execs, wall $((SECONDS - started))s, cpu ${cpu}s, crashes $crashes, queue $queue"
done
