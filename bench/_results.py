"""Where benches keep what they measured: ``bench/results/<kind>-<time>.json`` with the machine
it ran on, read back by ``bench/readme_table.py`` to write the README's table; and
:func:`cached_bytecode`, the condition the end-to-end benches measure under."""

from __future__ import annotations

import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def cached_bytecode() -> None:
    """Programs started from now on run as installed: from a bytecode cache (an environment
    saying PYTHONDONTWRITEBYTECODE=1 would compile every module at every start). A private
    cache, filled by each program's first, uncounted run."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="pwbench-pycache-")


def stats(values: list[float | None]) -> dict[str, float | int | None]:
    """Median, p99 (nearest rank; None under 20 samples), min, max and n of the values given."""
    got = sorted(v for v in values if v is not None)
    if not got:
        return {"n": 0, "median": None, "p99": None, "min": None, "max": None}
    p99 = got[min(len(got) - 1, round(0.99 * len(got) + 0.5) - 1)] if len(got) >= 20 else None
    return {
        "n": len(got),
        "median": statistics.median(got),
        "p99": p99,
        "min": got[0],
        "max": got[-1],
    }


def machine() -> dict[str, Any]:
    return {
        "node": platform.node(),
        "cpus": os.cpu_count(),
        "cpu": _cpu_name(),
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d"),
    }


def save(kind: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / time.strftime(f"{kind}-%Y%m%dT%H%M%S.json")
    path.write_text(json.dumps({"machine": machine(), **payload}, indent=2))
    return path


def newest(kind: str) -> dict[str, Any] | None:
    found = sorted(RESULTS.glob(f"{kind}-*.json"))
    return json.loads(found[-1].read_text()) if found else None


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
