"""Write the README's benchmark table from the newest results (`make bench-readme`).

Reads ``bench/results/e2e-*.json`` (bench_e2e: phasewatch, lnav, toolong and a minimal Textual app
in tmux), ``bench/results/latency-*.json`` (bench_latency: state write -> frame painted) and
``bench/results/check-*.json`` (bench_check: check against json.load) and
``bench/results/storm-*.json`` (bench_storm: key press -> screen during a write storm), the
newest of each, and replaces the text between ``<!-- bench:start -->`` and ``<!-- bench:end -->``
in README.md. Every figure in that table is one of those files' numbers."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _results import newest  # noqa: E402

README = HERE.parent / "README.md"


def _med(summary: dict[str, Any], tool: str, key: str, what: str = "median") -> float | None:
    return summary.get(tool, {}).get(key, {}).get(what)


def _s(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f} s"


def _mb(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f} MB"


def _ms(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f} ms"


def _goal(value: float | None, limit: float, text: str) -> str:
    if value is None:
        return f"{text} (not measured)"
    return f"{text} {'✓' if value <= limit else '✗'}"


def table(
    e2e: dict[str, Any],
    latency: dict[str, Any] | None,
    check: dict[str, Any] | None,
    storm: dict[str, Any] | None = None,
) -> str:
    s = e2e["summary"]
    m = e2e["machine"]
    refs = [t for t in ("lnav", "toolong") if t in s]

    def ref(key: str, fmt: Any) -> str:
        return ", ".join(f"{t} {fmt(_med(s, t, key))}" for t in refs) or "not installed"

    newest_s, whole = _med(s, "phasewatch", "newest_line_s"), _med(s, "phasewatch", "whole_log_s")
    rss, peak = _med(s, "phasewatch", "VmRSS"), _med(s, "phasewatch", "VmHWM")
    filt = _med(s, "phasewatch", "filter_rare_s")
    start, start_min = (
        _med(s, "startup_phasewatch", "first_paint_s"),
        _med(s, "startup_minimal", "first_paint_s"),
    )
    idle, idle_min = _med(s, "startup_phasewatch", "VmRSS"), _med(s, "startup_minimal", "VmRSS")
    runs = e2e["runs"]
    lines = [
        f"Measured {m['date']} on {m['cpus']} CPUs ({m['cpu']}), Python {m['python']}, load "
        f"average {m['load_average'][0]:.1f} at the end: medians of {runs} interleaved runs "
        f"(worst in brackets), from `bench/results/` (`make bench`, then `make bench-readme`).",
        "",
        "| | phasewatch | reference | goal (issue 14) |",
        "|---|---|---|---|",
        f"| newest line of a {e2e['lines']:,}-line log on screen | {_s(newest_s)} "
        f"({_s(_med(s, 'phasewatch', 'newest_line_s', 'max'))}) | {ref('newest_line_s', _s)} | "
        f"{_goal(newest_s, 0.5, '≤ 0.5 s')} |",
        f"| the whole log read (counts, findings, filters ready) | {_s(whole)} "
        f"({_s(_med(s, 'phasewatch', 'whole_log_s', 'max'))}) | {ref('whole_log_s', _s)} | "
        f"{_goal(whole, 1.5, '≤ 1.5 s')} |",
        f"| RSS with the log loaded | {_mb(rss)} (peak {_mb(peak)}) | {ref('VmRSS', _mb)} | "
        f"{_goal(rss, 120, '≤ 120 MB')} |",
        f"| filter for a rare string, whole log (typed, off the UI thread) | {_s(filt)} | | "
        f"{_goal(filt, 0.2, '≤ 0.2 s')} |",
    ]
    if latency is not None:
        got = latency["measured"].get("watch events", {}).get("paint_ms", {})
        poll = latency["measured"].get("poller_2s", {}).get("seen_ms", {})
        floor = s.get("events", {}).get("event_floor_ms", {})
        p50, p99 = got.get("median"), got.get("p99")
        ok = p50 is not None and p99 is not None and p50 <= 50 and p99 <= 100
        lines.append(
            f"| `state.json` write → frame painted (headless, {latency['writes']} writes) | "
            f"median {_ms(p50)}, p99 {_ms(p99)} | watchfiles alone {_ms(floor.get('median'))} / "
            f"{_ms(floor.get('p99'))}; a 2 s poller {_ms(poll.get('median'))} / "
            f"{_ms(poll.get('p99'))} | ≤ 50 / ≤ 100 ms {'✓' if ok else '✗'} |"
        )
    if storm is not None:
        pw, base = storm["summary"]["phasewatch"], storm["summary"]["minimal"]
        rates = pw.get("storm", {})

        def ms(v: float | None) -> str:  # seconds (None under 20 keys for a p99)
            return _ms(None if v is None else v * 1000)

        lines.append(
            f"| key press → screen (switching screens, tmux) during a storm of "
            f"{rates.get('state_writes_per_s', 0):.0f} state writes/s + "
            f"{rates.get('log_lines_per_s', 0):,.0f} log lines/s ({storm['keys']} keys) | median "
            f"{ms(pw['median'])}, p99 {ms(pw['p99'])}; CPU {pw['cpu_share']:.0%} "
            f"of a core | a minimal Textual app, same storm: {ms(base['median'])} / "
            f"{ms(base['p99'])} | {_goal(pw['p99'] and pw['p99'] * 1000, 150, 'p99 ≤ 150 ms')} |"
        )
    if check is not None:
        m = check["median_s"]
        got, ref_s = m["phasewatch check"], m["python -c json.load"]
        lines.append(
            f"| `phasewatch check` on a {check['state_mb']:.1f} MB state (from process start) | "
            f"{got * 1000:.0f} ms ({got / ref_s:.2f}x); `--json` {m['phasewatch check --json'] * 1000:.0f} ms "
            f"| `python -c json.load` {ref_s * 1000:.0f} ms | {_goal(got / ref_s, 3, '≤ 3x')} |"
        )
    ratio = None if start is None or not start_min else start / start_min
    data = _med(s, "startup_phasewatch", "first_data_s")
    lines.append(
        f"| start-up to first paint (small project; its data on screen) | {_s(start)} "
        f"({_s(data)}) | a minimal Textual app "
        f"{_s(start_min)} ({'—' if ratio is None else f'{ratio:.2f}x'}) | "
        f"{_goal(ratio, 1.5, '≤ 1.5x')} |"
    )
    ratio = None if idle is None or not idle_min else idle / idle_min
    lines.append(
        f"| idle RSS | {_mb(idle)} | a minimal Textual app {_mb(idle_min)} "
        f"({'—' if ratio is None else f'{ratio:.2f}x'}) | {_goal(ratio, 1.5, '≤ 1.5x')} |"
    )
    for note in e2e.get("notes", []):
        lines.append(f"\nNote: {note}.")
    return "\n".join(lines)


def main() -> None:
    e2e = newest("e2e")
    if e2e is None:
        sys.exit("no bench/results/e2e-*.json: run `make bench` (or bench/bench_e2e.py) first")
    text = README.read_text()
    new = re.sub(
        r"<!-- bench:start -->.*?<!-- bench:end -->",
        lambda _m: (
            "<!-- bench:start -->\n"
            + table(e2e, newest("latency"), newest("check"), newest("storm"))
            + "\n<!-- bench:end -->"
        ),
        text,
        flags=re.S,
    )
    if new == text and "<!-- bench:start -->" not in text:
        sys.exit("README.md has no <!-- bench:start --> / <!-- bench:end --> markers")
    README.write_text(new)
    print("README.md: benchmark table written")


if __name__ == "__main__":
    main()
