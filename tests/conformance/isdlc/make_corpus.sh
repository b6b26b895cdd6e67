#!/usr/bin/env bash
# `make corpus`: regenerate tests/conformance/isdlc/generated.jsonl.gz by running the real iSDLC
# framework's own code (walks.cjs), then stale.jsonl.gz (stale.cjs: the walks forked into stale
# writes and location drift), and print phasewatch's figures on both. CORPUS_STALE_ONLY=1 keeps
# the committed walks and remakes only the stale corpus.
#
# Needs node and a git directory of vihang-hub/isdlc-framework (ISDLC_REPO; the search tool's
# fetch brings one). The two commits are exported to scratch work trees; the two dependencies
# the driven code needs (js-yaml for the workflow loader, fs-extra for the installer) are
# installed from the npm registry into a scratch folder. Nothing of the framework is copied into
# this repository: only the recorded states and verdicts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=${ISDLC_REPO:-/work/.mirror/vihang-hub+isdlc-framework/repo}
head=${ISDLC_HEAD:-0689df912ef7c375b34c1486693ce19f737a8b9a}   # today's framework (state-logic V9-A/B)
v9c=${ISDLC_V9C:-829e80d1052284c6c9d80cad758e5821f05dcbd8}     # the last validator with V9-C
walks=${CORPUS_WALKS:-160}
seed=${CORPUS_SEED:-7}
python=${PYTHON:-.venv/bin/python}

command -v node >/dev/null || { echo "make corpus: node is not installed" >&2; exit 2; }
git --git-dir="$repo" rev-parse --verify -q "$head^{commit}" >/dev/null ||
  { echo "make corpus: no commit $head in ISDLC_REPO=$repo (fetch vihang-hub/isdlc-framework)" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/head" "$scratch/v9c" "$scratch/deps"
git --git-dir="$repo" archive "$head" | tar -x -C "$scratch/head"
git --git-dir="$repo" archive "$v9c" | tar -x -C "$scratch/v9c"
npm install --prefix "$scratch/deps" --no-save --no-audit --no-fund --silent js-yaml@4 fs-extra@11 >/dev/null
ln -s "$scratch/deps/node_modules" "$scratch/head/node_modules"  # the installer is ES modules

status=0
if [ -z "${CORPUS_STALE_ONLY:-}" ]; then
  NODE_PATH="$scratch/deps/node_modules" node "$here/walks.cjs" \
    --framework "$scratch/head" --framework-commit "$head" \
    --validator "$scratch/v9c" --validator-commit "$v9c" \
    --walks "$walks" --seed "$seed" --out "$here/generated.jsonl.gz"
  # each state stored as its change from the one before (about a third of the size), then the figures
  # (a miss of the agreement figures fails make corpus, after the stale corpus is made too)
  "$python" -m tests.helpers.generated_corpus --compact "$here/generated.jsonl.gz" || status=$?
fi
NODE_PATH="$scratch/deps/node_modules" node "$here/stale.cjs" \
  --framework "$scratch/head" --framework-commit "$head" \
  --validator "$scratch/v9c" --validator-commit "$v9c" \
  --seed "${CORPUS_STALE_SEED:-11}" --in "$here/generated.jsonl.gz" --out "$here/stale.jsonl.gz"
"$python" -m tests.helpers.stale_corpus --compact "$here/stale.jsonl.gz"
exit $status
