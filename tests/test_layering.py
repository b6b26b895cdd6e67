"""House rules that keep the layers honest."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_importing_core_and_check_does_not_import_textual():
    code = (
        "import sys, importlib, pkgutil\n"
        "import phasewatch.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'phasewatch.core.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "import phasewatch.tui.cli, phasewatch.tui.check_output\n"
        "bad = sorted(n for n in sys.modules if n == 'textual' or n.startswith('textual.'))\n"
        "print(bad)\n"
        "raise SystemExit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_core_sources_never_mention_textual():
    for path in (ROOT / "core").rglob("*.py"):
        assert not any(n.split(".")[0] == "textual" for n in _imports(path)), path


def test_widgets_never_touch_files():
    banned = ("open(", ".read_text(", ".write_text(", "os.replace", ".read_bytes(", ".write_bytes(")
    for path in (ROOT / "widgets").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for needle in banned:
            assert needle not in text, f"{path.name} uses {needle}"
        assert "phasewatch.core.decide" not in text and "phasewatch.core.sources" not in text, path


def _package_imports(folder: str) -> dict[Path, set[str]]:
    return {path: _imports(path) for path in (ROOT / folder).rglob("*.py")}


def _starts(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_records_are_structs_not_dataclasses():
    """A dataclass compiles its methods from source as its module is imported (~0.5 ms each on
    Python 3.11, a msgspec Struct ~0.03 ms): the 26 records made before the dashboard's first
    data cost ~18 ms of its start as dataclasses (docs/design.md, "Records")."""
    for folder in ("core", "widgets", "tui"):
        for path in (ROOT / folder).rglob("*.py"):
            assert "dataclasses" not in _imports(path), f"{path.relative_to(ROOT)}: use a Struct"


def test_core_never_imports_the_ui_layers():
    for path, names in _package_imports("core").items():
        bad = [n for n in names if _starts(n, "phasewatch.widgets", "phasewatch.tui")]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_widgets_never_import_the_app_nor_the_file_side_of_core():
    banned = (
        "phasewatch.tui",
        "phasewatch.core.decide",
        "phasewatch.core.files",
        "phasewatch.core.sources",
        "phasewatch.core.watch",
    )
    for path, names in _package_imports("widgets").items():
        bad = [n for n in names if _starts(n, *banned)]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_decision_service_imports_no_screen_and_no_textual():
    """tui/decisions.py holds every decision's logic (in flight, already applied, confirm,
    undo, replan) apart from the console's navigation: it imports no textual, no screen, no
    widget and not the console or the app (docs/design.md#decisions), and importing it loads
    neither textual nor the writer (the writer is imported in the decision's worker)."""
    path = ROOT / "tui" / "decisions.py"
    banned = ("textual", "rich", "phasewatch.widgets", "phasewatch.tui")
    bad = [n for n in _imports(path) if _starts(n, *banned)]
    assert not bad, f"tui/decisions.py imports {bad}"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module}
    assert not [n for n in top if _starts(n, "phasewatch.core.decide")], top
    code = (
        "import sys, phasewatch.tui.decisions\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich')\n"
        "             or n.startswith(('phasewatch.core.decide', 'phasewatch.tui.screens'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def test_no_writer_is_named_by_a_string():
    """The console and its service call the writer through typed functions a reader and the
    type checker can follow from the key to the write: no ``getattr``, no ``_call_writer``."""
    for name in ("console.py", "decisions.py"):
        tree = ast.parse((ROOT / "tui" / name).read_text(encoding="utf-8"))
        calls = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not calls & {"getattr", "_call_writer", "__import__"}, name


def test_nothing_imports_the_old_top_level_names():
    for folder in ("core", "widgets", "tui", "tests", "bench", "screenshots"):
        for path, names in _package_imports(folder).items():
            bad = [n for n in names if _starts(n, "core", "widgets", "tui")]
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}: use phasewatch.*"


def imported_test_modules(source: str, package: str = "tests") -> list[str]:
    """The test modules (``test_*``) that ``source``, a module of ``package``, imports anywhere
    in it (functions included), written absolutely (``tests.test_x``) or relatively."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package if node.level else (node.module or "")
            if node.level and node.module:
                base = f"{base}.{node.module}"
            modules = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found += [m for m in modules if m.split(".")[-1].startswith("test_")]
    return found


def test_the_test_module_check_sees_every_spelling() -> None:
    spellings = {
        "from tests.test_app_review import footer_keys": "tests.test_app_review",
        "import tests.test_plugins": "tests.test_plugins",
        "from tests import test_plugins": "tests.test_plugins",
        "from .test_plugins import write": "tests.test_plugins",
        "from . import test_plugins": "tests.test_plugins",
        "def f():\n    from tests.test_x import y\n": "tests.test_x",
    }
    for source, module in spellings.items():
        assert imported_test_modules(source) == [module], source
    assert imported_test_modules("from tests.helpers.app import make_app, test_data") == [
        "tests.helpers.app.test_data"
    ]  # (an imported test function is flagged too: pytest would collect it there again)
    assert imported_test_modules("from tests.helpers.app import make_app\nimport pytest") == []


def test_no_test_module_imports_another():
    """What tests share lives in tests/helpers/ (or factories.py): a test module imported by
    another runs its own collection side effects there, and couples the two files' edits."""
    for path in (ROOT / "tests").rglob("*.py"):
        names = imported_test_modules(path.read_text(encoding="utf-8"))
        assert not names, f"{path.relative_to(ROOT)} imports {names}: move them to tests/helpers/"


def test_command_line_parsing_lives_in_tui_only():
    for path in (ROOT / "core").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import argparse" not in text and "ArgumentParser(" not in text, path


def test_the_command_line_does_not_read_package_metadata_at_start() -> None:
    """``importlib.metadata`` (~25 ms) is imported only when the version is asked for."""
    import subprocess
    import sys

    code = "import sys, phasewatch.tui.cli; print('importlib.metadata' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


FIRST_FRAME = """
import asyncio, json, sys, threading
from pathlib import Path
import phasewatch.tui.startup as startup_module
from phasewatch.tui.app import PhasewatchApp

# The first read runs in a thread started as the app mounts, alongside the first frame: held
# until Ready here, so what is imported by then is what the first frame itself needed.
gate = threading.Event()
read = startup_module.read_in_background
def held(*args):
    threading.Thread(target=lambda: (gate.wait(), read(*args)), daemon=True).start()
startup_module.read_in_background = held

HEAVY = ("pydantic", "numpy", "phasewatch.core.session", "phasewatch.core.decide",
         "phasewatch.core.decide.writer",
         "phasewatch.core.config", "phasewatch.core.snapshot", "phasewatch.core.hooklog")
root = Path(sys.argv[1])
(root / ".isdlc").mkdir()
(root / ".isdlc" / "state.json").write_text(json.dumps({"state_version": 3, "phases": {}}))
seen = {}

class App(PhasewatchApp):
    def on_ready(self):
        seen["ready"] = [m for m in HEAVY if m in sys.modules]
        gate.set()

    def on_session_updated(self, message):
        if "data" not in seen:  # the first data, as it is shown
            seen["data"] = [m for m in HEAVY if m in sys.modules]
        super().on_session_updated(message)

async def main():
    app = App(root, watch=False)
    async with app.run_test() as pilot:
        while app.updates_applied == 0:
            await pilot.pause(0.01)
        # the warm-up after the first data (the screens a key may show next): wait for it
        for _ in range(3000):
            warm = [t for t in threading.enumerate() if t.name == "phasewatch-warm-up"]
            if warm or "phasewatch.tui.screens.hooks" in sys.modules:
                break
            await pilot.pause(0.01)
        for thread in warm:
            thread.join(30)
        seen["idle"] = [m for m in HEAVY if m in sys.modules]
        seen["screens"] = sorted(m for m in sys.modules if m.startswith("phasewatch.tui.screens."))
        seen["notifier"] = app.config is None and app.review.notifier is not None

asyncio.run(main())
print(json.dumps(seen))
"""


def test_the_first_frame_is_drawn_before_the_core_is_imported(tmp_path):
    """The dashboard's first frame needs Textual and its screens, not pydantic, numpy or the
    readers (the project's read, in its own thread, is held until the frame is up here).
    Without a config file pydantic is never imported."""
    import json

    proc = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME, str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["ready"] == []
    assert "phasewatch.core.session" in seen["data"]
    # no config file: the defaults are the notifier's own, no config model (pydantic) is made
    assert "pydantic" not in seen["idle"] and "phasewatch.core.config" not in seen["idle"]
    # a dashboard that only watches never loads the writer (the first decision does, in its
    # worker thread); a repair offer's plan loads only the planner (core/decide/plans.py)
    assert "phasewatch.core.decide.writer" not in seen["idle"], seen["idle"]
    # the screens a key may show next are imported once the data is painted (the first key
    # does not wait for its screen's module), but not a system's the project does not use
    screens = {m.rpartition(".")[2] for m in seen["screens"]}
    assert {"hooks", "timeline", "history"} <= screens, screens
    assert "tdd" not in screens and "plugins" not in screens, screens
    assert seen["notifier"] is True


MAX_FUNCTION_LINES = 100  # CONTRIBUTING.md, house rules: a longer function is split by topic


def _long_functions(source: str, name: str) -> list[str]:
    """``name:line function (n lines)`` for every function in ``source`` over the limit."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                out.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_the_size_check_sees_long_functions_and_methods():
    body = "".join(f"    x = {i}\n" for i in range(MAX_FUNCTION_LINES))
    assert _long_functions(f"def f():\n{body}", "m.py") == [
        f"m.py:1 f ({MAX_FUNCTION_LINES + 1} lines)"
    ]
    nested = "".join("    " + line + "\n" for line in f"async def g():\n{body}".splitlines())
    assert _long_functions(f"class C:\n{nested}", "m.py") == [
        f"m.py:2 g ({MAX_FUNCTION_LINES + 1} lines)"
    ]
    short = "".join(f"    x = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    assert _long_functions(f"def f():\n{short}", "m.py") == []


def test_no_function_is_longer_than_the_limit():
    found = [
        hit
        for folder in ("core", "widgets", "tui", "bench", "screenshots")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for hit in _long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == [], "split these by topic:\n" + "\n".join(found)


# ---------------------------------------------------------------------------- the import graph


def _module_name(root: Path, path: Path) -> tuple[str, tuple[str, ...]]:
    """``phasewatch.core.x`` for ``core/x.py`` and the package its relative imports start from."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(["phasewatch", *parts]), ("phasewatch", *(parts if is_package else parts[:-1]))


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:`` (never run: no import edge)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for n in ast.walk(node)}
    return skip


def import_graph(root: Path, folders: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the project modules it imports when run, imports inside functions included
    (``if TYPE_CHECKING:`` blocks excluded). Importing ``a.b.c`` also runs the packages
    ``a.b`` above it, so they count too (except the importer's own packages)."""
    files = {
        _module_name(root, path): path
        for folder in folders
        for path in (root / folder).rglob("*.py")
    }
    modules = {name for name, _package in files}
    graph: dict[str, set[str]] = {}
    for (name, package), path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        targets: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else ()
                module = ".".join([*base, *([node.module] if node.module else [])])
                subs = {f"{module}.{a.name}" for a in node.names} & modules
                targets |= subs if len(subs) == len(node.names) else {module, *subs}
        edges: set[str] = set()
        for target in targets & modules:
            pieces = target.split(".")
            for k in range(2, len(pieces) + 1):
                above = ".".join(pieces[:k])
                if above in modules and not name.startswith(above + ".") and above != name:
                    edges.add(above)
        graph[name] = edges
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_there_is_no_import_cycle():
    """A cycle hidden in a function-level import works until someone moves an import to the
    top; each layer's modules import downwards only."""
    cycles = import_cycles(import_graph(ROOT, ("core", "widgets", "tui")))
    assert not cycles, "import cycles (break them; see docs/design.md#the-layers):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_cycle_finder_sees_a_cycle_inside_a_function(tmp_path: Path):
    pkg = tmp_path / "core"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import B\nA = 1\n")
    (pkg / "b.py").write_text("def f():\n    from .a import A\n    return A\nB = 2\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n"
    )
    graph = import_graph(tmp_path, ("core",))
    assert graph["phasewatch.core.c"] == set()
    assert import_cycles(graph) == [["phasewatch.core.a", "phasewatch.core.b"]]


def test_the_rest_of_core_never_imports_the_simulator():
    """The simulator (core/simulate/) is a tool (demo, tests, screenshots) built on core, not a
    part of it: core never depends on it."""
    graph = import_graph(ROOT, ("core",))
    for name, edges in graph.items():
        if _starts(name, "phasewatch.core.simulate"):
            continue
        bad = sorted(e for e in edges if _starts(e, "phasewatch.core.simulate"))
        assert not bad, f"{name} imports {bad}"


def test_the_writer_s_names_are_declared_once_for_type_checkers_and_run_time():
    """``core.decide`` imports its parts on first use (PEP 562): the ``TYPE_CHECKING`` imports
    (what type checkers see) and ``_WHERE`` (what the package imports at run time) must name
    the same parts for the same names, and each part must define the name."""
    import importlib

    from phasewatch.core import decide

    init = ROOT / "core" / "decide" / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    )
    declared = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.unparse(node)
        for alias in node.names:
            assert alias.asname == alias.name, ast.unparse(node)  # "as": exported
            declared[alias.name] = node.module or alias.name
    assert declared == decide._WHERE
    for name, part in decide._WHERE.items():
        module = importlib.import_module(f"phasewatch.core.decide.{part}")
        assert getattr(decide, name) is (module if part == name else getattr(module, name))
