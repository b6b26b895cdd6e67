"""Registry variants judged by the Plugin Freedom System's own registry check (see README.md).

Usage (from the repository root)::

    python tests/conformance/plugins/generate.py /path/to/plugin-freedom-system.git [COMMIT]

The system's drift check is bash in a skill reference, not a script:
``validateRegistryConsistency`` and ``updatePluginStatus`` in
``.claude/skills/plugin-workflow/references/state-management.md``. This script takes those two
code blocks from the checkout at run time (nothing of them is stored here), defines them as
bash functions in a scratch copy of a registry variant and records what they say:

- ``literal``: the check's exit status on the variant as it is;
- ``now``: its exit status when the status line written in the system's own template and
  updater form (``- **Current Status:** ...``) is shown to it unbulleted, the only form its
  ``grep "^\\*\\*Current Status:\\*\\*"`` reads (the system's template and its check disagree;
  see docs/tdd-and-plugins.md);
- ``after``: the same, after the system's own updater set the plugin to a new status;
- ``wrote_table``, ``wrote_notes``: whether that updater recorded the new status in each place
  (when it can find neither, its check compares two empty strings and passes).

``flagged`` (the system flags it, or its next update breaks it): ``now`` or ``after`` is 1, or
the updater failed to write either place.

The system targets macOS: ``sed -i ''`` is BSD sed's in-place flag, so a shim gives GNU sed the
same meaning. Variants are seeded (``SEED``) edits of the corpus snapshots' NOTES.md status
line (its form and its value) and of the registry table (column order, the row's emoji); each
is stored as a recipe that :func:`apply` replays on a copy of the snapshot.
"""

from __future__ import annotations

import difflib
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 24
CASES = 320
REFERENCE = ".claude/skills/plugin-workflow/references/state-management.md"
SNAPSHOTS = {
    "e9af91e9419f": ("e9af91e9419f",),
    "forks/topazh1-9eb93fac98ef": ("e9af91e9419f", "forks/topazh1-9eb93fac98ef"),
}
PROBE = "🚧 Stage 2"  # no plugin of the snapshots has it
CANONICAL = re.compile(r"^- \*\*Current Status:\*\* (.*)$", re.M)
EMOJI = ("💡", "🚧", "✅", "📦", "🔧", "🐛")

# the status line's form: how the value V is written in NOTES.md
FORMS = {
    "keep": "- **Current Status:** V",
    "no-bullet": "**Current Status:** V",
    "bold-colon-out": "- **Current Status**: V",
    "star-bullet": "* **Current Status:** V",
    "plus-bullet": "+ **Current Status:** V",
    "indented": "  - **Current Status:** V",
    "repeated": "- **Current Status:** V\n- **Current Status:** V",
    "repeated-no-bullet": "- **Current Status:** V\n**Current Status:** V",
    "status-key": "- **Status:** V",
    "lower-case": "- **current status:** V",
    "no-space": "- **Current Status:**V",
}
VALUES = ("same", "other-emoji", "no-emoji", "bold", "label", "other-status")
TABLES = ("keep", "swap-after-status", "status-third", "name-second", "row-other-emoji")

# The second set (``shapes`` in variants.json): how people and the system's own updaters write a
# row or a status line. Each changes one thing and leaves the rest as the snapshot has it.
SHAPE_SEED = 42
SHAPE_CASES = 240
SHAPES = (
    # the table row's name cell: a link, bold, code, another case, tabs, no spaces
    "link-name",
    "link-name-notes",
    "bold-name",
    "code-name",
    "lower-name",
    "upper-name",
    "tab-after-name",
    "tabs-around-cells",
    "no-space-name",
    # the table row's status cell holds an escaped pipe (GitHub's way to write `|` in a cell)
    "escaped-pipe-label",
    "escaped-pipe-only",
    # the NOTES.md status line: inside a code fence, a fenced example after it, an escaped pipe
    "fenced-status",
    "fenced-status-tilde",
    "fenced-example-after",
    "escaped-pipe-notes",
    "escaped-pipe-both",
    # what the system's own updaters write (run at generation time; the edits are recorded)
    "updater-status",
    "updater-timeline",
    "updater-both",
)
SHAPE_VALUES = ("same", "same", "other-status", "label", "bold")
UPDATER_STATUSES = ("same", "other-status")
LABELS = ("beta", "Phase 1", "UI", "(Foundation)")


# ----------------------------------------------------------------------------- recipes


def _emoji_swap(value: str, rng: random.Random) -> str:
    head = next((e for e in EMOJI if value.startswith(e)), None)
    if head is None:
        return value
    return rng.choice([e for e in EMOJI if e != head]) + value[len(head) :]


def _value(op: str, value: str, seed: int) -> str:
    rng = random.Random(seed)
    if op == "other-emoji":
        return _emoji_swap(value, rng)
    if op == "no-emoji":
        return next((value[len(e) :].strip() for e in EMOJI if value.startswith(e)), value)
    if op == "bold":
        return f"**{value}**"
    if op == "label":
        return f"{value} (Foundation)"
    if op == "other-status":
        return rng.choice([s for s in ("💡 Ideated", "🚧 Stage 3", "✅ Working") if s != value])
    return value


def _table_line(line: str, op: str) -> str:
    if not line.startswith("|"):
        return line
    cells = line.strip().strip("|").split("|")
    if len(cells) < 4:
        return line
    if op == "swap-after-status":
        cells[2], cells[3] = cells[3], cells[2]
    elif op == "status-third":
        cells[1], cells[2] = cells[2], cells[1]
    elif op == "name-second":
        cells[0], cells[1] = cells[1], cells[0]
    return "|" + "|".join(cells) + "|"


def apply(recipe: dict, root: Path) -> None:
    """Edit the copy of a snapshot at ``root`` as ``recipe`` says (the replay calls this too)."""
    if "shape" in recipe:
        apply_shape(recipe, root)
        return
    name, seed = recipe["plugin"], recipe["seed"]
    notes = root / "plugins" / name / "NOTES.md"
    text = notes.read_text(encoding="utf-8")
    m = CANONICAL.search(text)
    if m is not None:
        value = _value(recipe["value"], m.group(1).strip(), seed)
        line = FORMS[recipe["form"]].replace("V", value)
        text = text[: m.start()] + line + text[m.end() :]
        notes.write_text(text, encoding="utf-8")
    registry = root / "PLUGINS.md"
    lines = registry.read_text(encoding="utf-8").split("\n")
    op = recipe["table"]
    for i, line in enumerate(lines):
        if op == "row-other-emoji" and line.startswith(f"| {name} |"):
            cells = line.split("|")
            cells[2] = " " + _emoji_swap(cells[2].strip(), random.Random(seed)) + " "
            lines[i] = "|".join(cells)
        elif op not in ("keep", "row-other-emoji"):
            lines[i] = _table_line(line, op)
    registry.write_text("\n".join(lines), encoding="utf-8")


NAME_CELLS = SHAPES[:6]  # the shapes that rewrite the name cell (below)


def _name_cell(shape: str, name: str) -> str:
    return {
        "link-name": f"[{name}](plugins/{name}/)",
        "link-name-notes": f"[{name}](plugins/{name}/NOTES.md)",
        "bold-name": f"**{name}**",
        "code-name": f"`{name}`",
        "lower-name": name.lower(),
        "upper-name": name.upper(),
    }[shape]


def _shape_row(shape: str, row: str, name: str, label: str) -> str:
    rest = row[len(f"| {name} |") :]
    if shape == "tab-after-name":
        return f"| {name}\t|{rest}"
    if shape == "tabs-around-cells":
        return "|\t" + row[2:].replace(" | ", "\t|\t").replace(" |", "\t|")
    if shape == "no-space-name":
        return f"|{name}|{rest}"
    if shape in ("escaped-pipe-label", "escaped-pipe-only", "escaped-pipe-both"):
        cells = row.split("|")
        tail = "\\|" if shape == "escaped-pipe-only" else f"\\| {label}"
        cells[2] = f"{cells[2].rstrip()} {tail} "
        return "|".join(cells)
    if shape in NAME_CELLS:
        return f"| {_name_cell(shape, name)} |{rest}"
    return row


def _patch(path: Path, edits: list) -> None:
    """Replay recorded line edits ``[start, end, new lines]`` (difflib opcodes, last first)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = new
    path.write_text("\n".join(lines), encoding="utf-8")


def apply_shape(recipe: dict, root: Path) -> None:
    """One shape of :data:`SHAPES` (the updaters' edits are replayed from ``recipe["patch"]``)."""
    name, shape, seed = recipe["plugin"], recipe["shape"], recipe["seed"]
    label = random.Random(seed).choice(LABELS)
    if shape.startswith("updater-"):
        for rel, edits in recipe["patch"].items():
            _patch(root / rel, edits)
        return
    notes = root / "plugins" / name / "NOTES.md"
    text = notes.read_text(encoding="utf-8")
    m = CANONICAL.search(text)
    if m is not None:
        value = _value(recipe["value"], m.group(1).strip(), seed)
        line = f"- **Current Status:** {value}"
        if shape in ("fenced-status", "fenced-status-tilde"):
            fence = "```" if shape == "fenced-status" else "~~~"
            line = f"{fence}\n{line}\n{fence}"
        elif shape in ("escaped-pipe-notes", "escaped-pipe-both"):
            line = f"{line} \\| {label}"
        elif shape == "fenced-example-after":
            line = m.group(0)
            text += f"\n## Example\n\n```\n- **Current Status:** {value}\n```\n"
        text = text[: m.start()] + line + text[m.end() :]
        notes.write_text(text, encoding="utf-8")
    registry = root / "PLUGINS.md"
    lines = registry.read_text(encoding="utf-8").split("\n")
    for i, row in enumerate(lines):
        if row.startswith(f"| {name} |"):
            lines[i] = _shape_row(shape, row, name, label)
    registry.write_text("\n".join(lines), encoding="utf-8")


def build(snapshot: str, dest: Path, registry_only: bool = False) -> Path:
    """The snapshot's tree at ``dest`` (only PLUGINS.md and NOTES.md files: what the system's
    check reads)."""
    keep = shutil.ignore_patterns(".ideas", ".continue-here.md") if registry_only else None
    for layer in SNAPSHOTS[snapshot]:
        shutil.copytree(HERE / layer, dest, dirs_exist_ok=True, ignore=keep)
    return dest


def baseline(functions: Path, tmp: Path) -> dict[str, dict[str, int]]:
    """The system's verdict on every canonical plugin of each unedited snapshot."""
    out = {}
    for snapshot in sorted(SNAPSHOTS):
        root = build(snapshot, tmp / snapshot.replace("/", "-"), registry_only=True)
        for notes in sorted((root / "plugins").glob("*/NOTES.md")):
            if CANONICAL.search(notes.read_text(encoding="utf-8")):
                out[f"{snapshot}:{notes.parent.name}"] = judge(functions, root, notes.parent.name)
    return out


def _names(clean: list[str], snapshot: str) -> list[str]:
    return sorted(k.split(":")[1] for k in clean if k.startswith(f"{snapshot}:"))


def recipes(clean: list[str]) -> list[dict]:
    """Seeded edits of the plugins the system finds consistent in the unedited snapshots."""
    rng = random.Random(SEED)
    out = []
    for n in range(CASES):
        snapshot = rng.choice(sorted(SNAPSHOTS))
        out.append(
            {
                "id": f"variant-{n:03d}",
                "snapshot": snapshot,
                "plugin": rng.choice(_names(clean, snapshot)),
                "form": "keep" if rng.random() < 0.35 else rng.choice(sorted(FORMS)),
                "value": rng.choice(VALUES),
                "table": rng.choice(TABLES) if rng.random() < 0.4 else "keep",
                "seed": rng.randrange(1 << 30),
            }
        )
    return out


def shape_recipes(clean: list[str]) -> list[dict]:
    """Seeded shapes (:data:`SHAPES`) of the plugins the system finds consistent unedited."""
    rng = random.Random(SHAPE_SEED)
    out = []
    for n in range(SHAPE_CASES):
        snapshot = rng.choice(sorted(SNAPSHOTS))
        shape = SHAPES[n % len(SHAPES)]
        value = rng.choice(UPDATER_STATUSES if shape.startswith("updater-") else SHAPE_VALUES)
        out.append(
            {
                "id": f"shape-{n:03d}",
                "snapshot": snapshot,
                "plugin": rng.choice(_names(clean, snapshot)),
                "shape": shape,
                "value": value,
                "seed": rng.randrange(1 << 30),
            }
        )
    return out


# ----------------------------------------------------------------------------- the real check

SHIM = """sed() {  # BSD sed's `-i ''` (the system targets macOS) for GNU sed
  if [ "$1" = "-i" ] && [ "$2" = "" ]; then shift 2; command sed -i "$@"; else command sed "$@"; fi
}
"""


def _block(reference: str, function: str) -> str:
    """The bash code block under ``### function(...)`` in the reference."""
    m = re.search(rf"^### {function}\(.*?^```bash\n(.*?)^```", reference, re.S | re.M)
    if m is None:
        raise SystemExit(f"{function} not found in {REFERENCE}")
    return m.group(1)


def _unbullet(root: Path, name: str) -> None:
    notes = root / "plugins" / name / "NOTES.md"
    text = notes.read_text(encoding="utf-8")
    notes.write_text(re.sub(r"^- (\*\*Current Status:\*\* )", r"\1", text, flags=re.M))


def judge(functions: Path, root: Path, name: str) -> dict[str, int]:
    def run(where: Path, script: str) -> int:
        done = subprocess.run(
            ["bash", "-c", f'source "{functions}"; {script}', "x", name],
            cwd=where,
            capture_output=True,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
        return done.returncode

    out = {"literal": run(root, 'validateRegistryConsistency "$1"')}
    with tempfile.TemporaryDirectory() as tmp:
        now = shutil.copytree(root, Path(tmp, "now"))
        _unbullet(now, name)
        out["now"] = run(now, 'validateRegistryConsistency "$1"')
        after = shutil.copytree(root, Path(tmp, "after"))
        run(after, f'updatePluginStatus "$1" "{PROBE}"')
        # did the system's own updater record the new status in both places?
        out["wrote_table"] = int(PROBE in (after / "PLUGINS.md").read_text(encoding="utf-8"))
        notes = after / "plugins" / name / "NOTES.md"
        out["wrote_notes"] = int(PROBE in notes.read_text(encoding="utf-8"))
        _unbullet(after, name)
        out["after"] = run(after, 'validateRegistryConsistency "$1"')
    return out


def run_updater(functions: Path, root: Path, recipe: dict) -> dict[str, list]:
    """Run the system's own updater(s) on the tree at ``root``; the line edits they made."""
    name, shape = recipe["plugin"], recipe["shape"]
    files = ["PLUGINS.md", f"plugins/{name}/NOTES.md"]
    before = {f: (root / f).read_text(encoding="utf-8").split("\n") for f in files}
    row = next(x for x in before["PLUGINS.md"] if x.startswith(f"| {name} |"))
    status = row.split("|")[2].strip()
    if recipe["value"] == "other-status":
        status = _value("other-status", status, recipe["seed"])
    calls = []
    if shape in ("updater-status", "updater-both"):
        calls.append(f'updatePluginStatus "$1" "{status}"')
    if shape in ("updater-timeline", "updater-both"):
        calls.append('updatePluginTimeline "$1" "2" "Foundation complete"')
    for call in calls:
        subprocess.run(
            ["bash", "-c", f'source "{functions}"; {call}', "x", name],
            cwd=root,
            capture_output=True,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
    patch: dict[str, list] = {}
    for f in files:
        after = (root / f).read_text(encoding="utf-8").split("\n")
        ops = difflib.SequenceMatcher(a=before[f], b=after, autojunk=False).get_opcodes()
        edits = [[i1, i2, after[j1:j2]] for tag, i1, i2, j1, j2 in ops if tag != "equal"]
        if edits:
            patch[f] = edits
    return patch


def flagged_by_system(r: dict) -> bool:
    return bool(r["now"] or r["after"] or not r["wrote_table"] or not r["wrote_notes"])


def main(repo: str, commit: str = "HEAD") -> None:
    git = ["git", "--git-dir", repo] if not Path(repo, ".git").exists() else ["git", "-C", repo]
    commit = subprocess.run([*git, "rev-parse", commit], capture_output=True, check=True)
    commit_id = commit.stdout.decode().strip()
    show = subprocess.run([*git, "show", f"{commit_id}:{REFERENCE}"], capture_output=True)
    reference = show.stdout.decode()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        functions = Path(tmp, "functions.sh")
        body = SHIM
        for function in (
            "createNotesFile",
            "updatePluginStatus",
            "updatePluginTimeline",
            "validateRegistryConsistency",
        ):
            body += f"{function}() {{\n{_block(reference, function)}\n}}\n"
        functions.write_text(body, encoding="utf-8")
        base = baseline(functions, Path(tmp))
        clean = [k for k, v in base.items() if not flagged_by_system(v)]
        for recipe in recipes(clean):
            root = build(recipe["snapshot"], Path(tmp, recipe["id"]), registry_only=True)
            apply(recipe, root)
            results.append({**recipe, **judge(functions, root, recipe["plugin"])})
            shutil.rmtree(root)
        shapes = []
        for recipe in shape_recipes(clean):
            root = build(recipe["snapshot"], Path(tmp, recipe["id"]), registry_only=True)
            if recipe["shape"].startswith("updater-"):
                recipe["patch"] = run_updater(functions, root, recipe)
            else:
                apply(recipe, root)
            shapes.append({**recipe, **judge(functions, root, recipe["plugin"])})
            shutil.rmtree(root)
    doc = {
        "repository": "glittercowboy/plugin-freedom-system",
        "commit": commit_id,
        "reference": REFERENCE,
        "seed": SEED,
        "probe": PROBE,
        "baseline": base,
        "cases": results,
        "shapes": shapes,
    }
    (HERE / "variants.json").write_text(json.dumps(doc, indent=0, ensure_ascii=False) + "\n")
    flagged = sum(1 for r in results if flagged_by_system(r))
    print(f"{len(results)} variants, {flagged} flagged by the system's check, commit {commit_id}")
    flagged = sum(1 for r in shapes if flagged_by_system(r))
    print(f"{len(shapes)} shapes, {flagged} flagged by the system's check")


if __name__ == "__main__":
    main(*sys.argv[1:])
