#!/usr/bin/env bash
# `make corpus` (observe part): regenerate tests/conformance/observe/recorded.jsonl.gz by running
# the iSDLC framework's own writers and views (drive.mjs), then print phasewatch's agreement
# figures on it (tests/helpers/observe_compare.py). Needs node and a git directory of
# vihang-hub/isdlc-framework in ISDLC_REPO. Nothing of the framework is copied here: the commit
# is exported to a scratch work tree, only the recorded files and answers are kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=${ISDLC_REPO:-/work/.mirror/vihang-hub+isdlc-framework/repo}
head=${ISDLC_HEAD:-0689df912ef7c375b34c1486693ce19f737a8b9a}
projects=${OBSERVE_PROJECTS:-96}
seed=${OBSERVE_SEED:-7}
python=${PYTHON:-.venv/bin/python}

command -v node >/dev/null || { echo "make corpus: node is not installed" >&2; exit 2; }
git --git-dir="$repo" rev-parse --verify -q "$head^{commit}" >/dev/null ||
  { echo "make corpus: no commit $head in ISDLC_REPO=$repo" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git --git-dir="$repo" archive "$head" | tar -x -C "$scratch"
node "$here/drive.mjs" --framework "$scratch" --commit "$head" --projects "$projects" \
  --seed "$seed" --out "$here/recorded.jsonl.gz"
"$python" -m tests.helpers.observe_compare "$here/recorded.jsonl.gz"
