"""`phasewatch check` start-up and audit time, against the cost of importing textual.

Prints medians over several runs; the target is that a headless check starts well under the
0.25-0.4 s that `import textual` alone costs (DESIGN.md)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from _project import make_project  # noqa: E402  (bench/ is on sys.path as the script dir)


def _project(tmp: Path) -> Path:
    return make_project(tmp).parent.parent


def _time(cmd: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main(runs: int = 7) -> None:
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        project = _project(Path(tmp))
        bare = _time([py, "-c", "pass"], runs)
        textual = _time([py, "-c", "import textual.app"], runs)
        check = _time([py, "-m", "phasewatch.tui.cli", "check", str(project), "--json"], runs)
        with_textual = _time(
            [
                py,
                "-c",
                "import sys, textual.app; from tui.cli import main; main(sys.argv[1:])",
                "check",
                str(project),
                "--json",
            ],
            runs,
        )
        models = _time([py, "-c", "import core.models"], runs)
        print(f"python start-up            {bare * 1000:7.1f} ms")
        print(f"import textual.app         {textual * 1000:7.1f} ms")
        print(
            f"phasewatch check --json    {check * 1000:7.1f} ms  (5,000-line hook log, mid-workflow state)"
        )
        print(f"  of which import core.models (pydantic schema build) {models * 1000:.1f} ms")
        print(f"same check importing textual {with_textual * 1000:5.1f} ms")
        print(f"saved by keeping textual out {with_textual / check:7.2f}x faster start-up")


if __name__ == "__main__":
    main()
