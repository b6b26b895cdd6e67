"""Run every benchmark in bench/ and print their numbers (`make bench`)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

if __name__ == "__main__":
    for path in sorted(HERE.glob("bench_*.py")):
        print(f"\n== {path.stem} " + "=" * (60 - len(path.stem)))
        sys.stdout.flush()
        runpy.run_path(str(path), run_name="__main__")
