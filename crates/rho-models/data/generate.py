#!/usr/bin/env python3
"""Regenerate rho's built-in model catalog (`models.json` next to this script).

Usage:
    cd /tmp && npm pack @mariozechner/pi-ai@0.73.1 && tar xzf mariozechner-pi-ai-0.73.1.tgz
    python3 crates/rho-models/data/generate.py /tmp/package/dist/models.generated.js

The facts come from Pi's `models.generated.js` (pi-ai, MIT). That file is an ES module, so the
script asks `node` to import it and print the `MODELS` table as JSON; everything else (filtering,
field order, output layout) happens here, with the standard library only.

Only models whose wire API rho speaks (or will speak) are kept. Pi's order is kept exactly —
providers in table order, models in table order within a provider — because model selection
depends on it ("first available model", a provider's first model as the base for custom ids).

Output: `{"source": ..., "models": [...]}` with one model per line so that a regenerated catalog
diffs line by line.
"""

import json
import os
import subprocess
import sys

SUPPORTED_APIS = (
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "google-generative-ai",
)

# Field order of every entry; optional fields are written only when Pi has them.
REQUIRED_FIELDS = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
)
OPTIONAL_FIELDS = ("headers", "compat", "thinkingLevelMap")
COST_FIELDS = ("input", "output", "cacheRead", "cacheWrite")

SOURCE = "@mariozechner/pi-ai@0.73.1 dist/models.generated.js"

# Prints MODELS as a list of [provider, [model, ...]] pairs so that insertion order survives.
DUMP_SCRIPT = """
const { MODELS } = await import(process.argv[1]);
const out = Object.entries(MODELS).map(([provider, models]) => [provider, Object.values(models)]);
process.stdout.write(JSON.stringify(out));
"""


def load_models(path):
    url = "file://" + os.path.abspath(path)
    result = subprocess.run(
        ["node", "--input-type=module", "-e", DUMP_SCRIPT, url],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(result.stdout)


def normalise(model):
    missing = [field for field in REQUIRED_FIELDS if field not in model]
    if missing:
        raise SystemExit(f"model {model.get('id')!r} lacks {missing}")
    entry = {field: model[field] for field in REQUIRED_FIELDS}
    entry["cost"] = {field: model["cost"][field] for field in COST_FIELDS}
    for field in OPTIONAL_FIELDS:
        if field in model:
            entry[field] = model[field]
    unknown = set(model) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)
    if unknown:
        raise SystemExit(f"model {model['id']!r} has fields this script does not know: {unknown}")
    return entry


def main(argv):
    if len(argv) != 2:
        raise SystemExit(f"usage: {argv[0]} <path to pi-ai dist/models.generated.js>")
    entries = []
    for provider, models in load_models(argv[1]):
        for model in models:
            if model["provider"] != provider:
                raise SystemExit(f"model {model['id']!r} listed under {provider!r}")
            if model["api"] in SUPPORTED_APIS:
                entries.append(normalise(model))
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models.json")
    lines = [json.dumps(entry, ensure_ascii=False, separators=(",", ":")) for entry in entries]
    with open(out_path, "w", encoding="utf-8") as out:
        out.write('{"source":' + json.dumps(SOURCE) + ',"models":[\n')
        out.write(",\n".join(lines))
        out.write("\n]}\n")
    print(f"wrote {len(entries)} models to {out_path}")


if __name__ == "__main__":
    main(sys.argv)
