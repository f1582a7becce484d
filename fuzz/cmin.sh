#!/usr/bin/env bash
# Folds the queue of a fuzzer run (/tmp/afl-<target>, from run-all.sh) into corpus/<target>,
# minimised with afl-cmin (its bash version: the Python one found no tuples here). Queue entries
# larger than MAX_KIB (default 4) are left out: they are mostly a large recorded stream mutated,
# whose coverage the stream itself keeps, and they would take the corpora past 10 MiB.
# Usage: fuzz/cmin.sh TARGET...    (MAX_KIB=8 fuzz/cmin.sh openai_responses)
set -euo pipefail
cd "$(dirname "$0")"
bin=$(dirname "$(ls -d "$HOME"/.local/share/afl.rs/rustc-*/afl.rs-*/afl/bin/afl-fuzz | tail -1)")
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_PATH="$bin"
max_kib=${MAX_KIB:-4}
for target in "$@"; do
  in=$(mktemp -d) out=$(mktemp -d)
  cp "corpus/$target"/* "$in"/
  while IFS= read -r -d '' file; do
    cp "$file" "$in/q-$(sha1sum "$file" | cut -c1-16)"
  done < <(find "/tmp/afl-$target/default/queue" -maxdepth 1 -name 'id:*' \
    -size -$((max_kib + 1))k -print0)
  rmdir "$out"
  nice -n 19 "$bin/afl-cmin.bash" -i "$in" -o "$out" -- "../target/release/$target" \
    >"/tmp/cmin-$target.log" 2>&1
  if [ -n "$(ls -A "$out")" ]; then
    rm -r "corpus/$target"
    mv "$out" "corpus/$target"
  fi
  rm -rf "$in"
  echo "$target: $(ls "corpus/$target" | wc -l) files," \
    "$(du -s --apparent-size --block-size=1K "corpus/$target" | cut -f1) KiB"
done
