"""Write the README's benchmark table from the newest results (`make bench-readme`).

The table leads with the real-size project (``bench/results/startup-*.json``, bench_startup:
phasewatch against a minimal Textual app on a pty), then ``check`` (``check-*.json``,
bench_check: against ``json.load``), then the 1,000,000-line log as a stress bound
(``e2e-*.json``, bench_e2e: phasewatch beside lnav and toolong in tmux), then key presses
while that log is read (``readkeys-*.json``, bench_read_keys), ``check`` on junk lines
(``junk-*.json``, bench_hooklog_junk), the dashboard with large states (``dashsize-*.json``,
bench_dashboard_size) and with files at their read caps
(``readcaps-*.json``, bench_read_caps), keys under a write storm (``storm-*.json``) and
write-to-frame latency (``latency-*.json``, with the last of a burst of writes): the
newest of each; rows whose results are missing are left out. It replaces the text between
``<!-- bench:start -->`` and ``<!-- bench:end -->`` in README.md. Every figure in that table is
one of those files' numbers."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _results import newest  # noqa: E402
from bench_latency import TARGETS as LATENCY_TARGETS  # noqa: E402  (the one definition)

README = HERE.parent / "README.md"


def _med(summary: dict[str, Any], tool: str, key: str, what: str = "median") -> float | None:
    return summary.get(tool, {}).get(key, {}).get(what)


def _s(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f} s"


def _mb(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f} MB"


def _ms(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f} ms"


def _ms_of(seconds: float | None) -> str:
    """Seconds shown in ms (None: not measured, e.g. a p99 of under 20 keys)."""
    return _ms(None if seconds is None else seconds * 1000)


def _goal(value: float | None, limit: float, text: str) -> str:
    if value is None:
        return f"{text} (not measured)"
    return f"{text} {'✓' if value <= limit else '✗'}"


def _x(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def _ratio(r: float | None) -> str:
    return "—" if r is None else f"{r:.2f}x"


def project_rows(startup: dict[str, Any]) -> list[str]:
    """The real-size project (bench_startup): what a user meets every day."""
    pw, mn = startup["summary"]["phasewatch"], startup["summary"]["minimal"]

    def med(d: dict[str, Any], k: str, what: str = "median") -> float | None:
        return d.get(k, {}).get(what)

    size = f"{startup['state_bytes'] / 1000:.0f} KB state, {startup['hook_log_lines']:,}-line log"
    data, first = med(pw, "data"), med(mn, "frame")
    frame = med(pw, "frame")
    rss, rss_min = med(pw, "rss"), med(mn, "rss")
    return [
        f"| **real-size project** ({size} at the 1 MiB rotation cap): its data on screen, from "
        f"process start | {_s(data)} ({_s(med(pw, 'data', 'max'))}) | a minimal Textual app's "
        f"first paint {_s(first)} ({_ratio(_x(data, first))}) | "
        f"{_goal(_x(data, first), 1.5, '≤ 1.5x')} |",
        f"| real-size project: first frame | {_s(frame)} | {_s(med(mn, 'frame'))} "
        f"({_ratio(_x(frame, med(mn, 'frame')))}) | |",
        f"| real-size project: idle RSS (after 3 s) | {_mb(rss)} | a minimal Textual app "
        f"{_mb(rss_min)} ({_ratio(_x(rss, rss_min))}) | {_goal(_x(rss, rss_min), 1.5, '≤ 1.5x')} |",
    ]


def check_row(check: dict[str, Any]) -> str:
    m = check["median_s"]
    got, ref_s = m["phasewatch check"], m["python -c json.load"]
    return (
        f"| `phasewatch check` on a {check['state_mb']:.1f} MB state (from process start) | "
        f"{got * 1000:.0f} ms ({got / ref_s:.2f}x); `--json` {m['phasewatch check --json'] * 1000:.0f} ms "
        f"| `python -c json.load` {ref_s * 1000:.0f} ms | {_goal(got / ref_s, 2, '≤ 2x')} |"
    )


def stress_rows(e2e: dict[str, Any]) -> list[str]:
    """The 1M-line log (bench_e2e): a stress bound, beside toolong and lnav where installed."""
    s = e2e["summary"]
    refs = [t for t in ("lnav", "toolong") if t in s]

    def ref(key: str, fmt: Any) -> str:
        return ", ".join(f"{t} {fmt(_med(s, t, key))}" for t in refs) or "not installed"

    newest_s, whole = _med(s, "phasewatch", "newest_line_s"), _med(s, "phasewatch", "whole_log_s")
    rss, peak = _med(s, "phasewatch", "VmRSS"), _med(s, "phasewatch", "VmHWM")
    filt = _med(s, "phasewatch", "filter_rare_s")
    toolong = _med(s, "toolong", "newest_line_s")
    lnav = _med(s, "lnav", "newest_line_s")
    goal = (
        f"no slower than toolong {'✓' if newest_s is not None and newest_s <= toolong else '✗'}"
        if toolong is not None
        else "no slower than toolong (not installed)"
    )
    return [
        f"| stress bound: newest line of a {e2e['lines']:,}-line log on screen ({_load(e2e)}) "
        f"| {_s(newest_s)} "
        f"({_s(_med(s, 'phasewatch', 'newest_line_s', 'max'))}) | {ref('newest_line_s', _s)}"
        f"{f' ({_ratio(_x(newest_s, lnav))} of lnav)' if lnav else ''} | {goal} |",
        f"| stress bound: the whole log read (counts, findings, filters ready) | {_s(whole)} "
        f"({_s(_med(s, 'phasewatch', 'whole_log_s', 'max'))}) | {ref('whole_log_s', _s)} | "
        f"reported |",
        f"| stress bound: RSS with the log loaded | {_mb(rss)} (peak {_mb(peak)}) | "
        f"{ref('VmRSS', _mb)} | {_goal(rss, 120, 'bounded, ≤ 120 MB')} |",
        f"| stress bound: filter for a rare string, whole log (off the UI thread) | {_s(filt)} | "
        f"| {_goal(filt, 0.2, '≤ 0.2 s')} |",
    ]


def read_keys_row(readkeys: dict[str, Any]) -> str:
    """Keys while the 1M-line log is read (bench_read_keys), beside the minimal app idle."""
    pw, base = readkeys["summary"]["phasewatch"], readkeys["summary"]["minimal"]

    keys = pw["n"] + pw["missed"]
    return (
        f"| stress bound: key press → screen (switching screens, tmux) while the log is read "
        f"({keys} keys over {pw['starts']} starts, each until the whole log was read; "
        f"{_load(readkeys)}) | median "
        f"{_ms_of(pw['median'])}, p99 {_ms_of(pw['p99'])}, max {_ms_of(pw['max'])} "
        f"(missed {pw['missed']}) | a minimal Textual app, idle, the same keys: "
        f"{_ms_of(base['median'])} / {_ms_of(base['p99'])} "
        f"| {_goal(pw['p99'] and pw['p99'] * 1000, 150, 'p99 ≤ 150 ms')} |"
    )


#: bench_read_caps' cases, as the table names them
CAP_CASES = {
    "tdd": "`.tdd-progress.md`",
    "plugins": "`PLUGINS.md`",
    "plugins_short": "`PLUGINS.md`, shortest rows",
}


def _load(result: dict[str, Any]) -> str:
    """The machine's load when a bench started (it is shared: other work inflates times)."""
    return f"load {result['machine']['load_average'][0]:.1f}"


def read_cap_rows(caps: dict[str, Any]) -> list[str]:
    """The dashboard with each file at its 8 MiB read cap (bench_read_caps), from process start
    in tmux: the screen's data, the peak RSS then, and ``q`` pressed while the file is read."""
    out = []
    for key, name in CAP_CASES.items():
        got = caps["summary"].get(key)
        if got is None:
            continue
        data, peak, quit_s = (got[k]["median"] for k in ("data_s", "peak_mb", "quit_s"))
        worst = [got[k]["max"] for k in ("data_s", "peak_mb", "quit_s")]
        ok = None not in worst and worst[0] <= 10 and worst[1] <= 300 and worst[2] <= 2
        out.append(
            f"| dashboard: {name} at its 8 MiB read cap ({got['items']:,} {got['what']}), its "
            f"screen's data from process start; peak RSS; `q` while it is read "
            f"({caps['runs']} runs, {_load(caps)}) | {_s(data)} ({_s(worst[0])}); {_mb(peak)} "
            f"({_mb(worst[1])}); {_s(quit_s)} ({_s(worst[2])}) | | ≤ 10 s, ≤ 300 MB, `q` ≤ 2 s "
            f"{'✓' if ok else '✗'} |"
        )
    return out


def dash_size_rows(size: dict[str, Any]) -> list[str]:
    """The dashboard with large states (bench_dashboard_size, h41a's), from process start in
    tmux: the data (or the refusal past the read cap), the peak RSS 3 s later, ``q``."""
    out = []
    for name, got in size["cases"].items():
        goal_s, goal_mb = size["goals"].get(name, (None, None))
        quits = [q for q in (got.get("quit"), got.get("quit_early")) if q is not None]
        ok = (
            goal_s is not None
            and got.get("data") is not None
            and got["data"] <= goal_s
            and (got.get("hwm") or 0) <= goal_mb
            and len(quits) == 2
            and max(quits) <= 2
        )
        what = "its refusal" if got.get("refused", name == "over") else "its data"
        goal = f"≤ {goal_s:g} s, ≤ {goal_mb:g} MB, `q` ≤ 2 s {'✓' if ok else '✗'}" if goal_s else ""
        out.append(
            f"| dashboard: a state of {got['phases']:,} phases ({got['bytes'] / 2**20:.1f} MiB, "
            f"{name}), {what} from process start; peak RSS 3 s later; `q` then and while read "
            f"({_load(size)}) | {_s(got.get('data'))}; {_mb(got.get('hwm'))}; "
            f"{_s(got.get('quit'))} / {_s(got.get('quit_early'))} | | {goal} |"
        )
    return out


def junk_row(junk: dict[str, Any]) -> str:
    """``check`` on 2 MB of the shortest junk lines (bench_hooklog_junk)."""
    peaks = junk["check_peak_mb"]
    worst = max(peaks.values())
    each = ", ".join(f"`{k}` {_mb(v)}" for k, v in peaks.items())
    return (
        f"| `phasewatch check` on a {junk['bytes'] / 2**20:.0f} MB hook log of junk lines, peak "
        f"RSS from process start ({_load(junk)}) | {each} | | {_goal(worst, 150, '≤ 150 MB')} |"
    )


def burst_row(latency: dict[str, Any]) -> str | None:
    """The last of a burst of 50 state writes on screen (bench_latency's bursts)."""
    key = next((k for k in latency["measured"] if k.startswith("the last of a burst")), None)
    if key is None:
        return None
    got = latency["measured"][key]["paint_ms"]
    return (
        f"| {key} (back to back) → frame painted (headless, {got['n']} bursts, "
        f"{_load(latency)}) | median "
        f"{_ms(got['median'])}, max {_ms(got['max'])} | | "
        f"{_goal(got['max'], 150, 'max ≤ 150 ms')} |"
    )


def table(
    e2e: dict[str, Any] | None,
    latency: dict[str, Any] | None,
    check: dict[str, Any] | None,
    storm: dict[str, Any] | None = None,
    startup: dict[str, Any] | None = None,
    readkeys: dict[str, Any] | None = None,
    caps: dict[str, Any] | None = None,
    junk: dict[str, Any] | None = None,
    size: dict[str, Any] | None = None,
) -> str:
    """The README's table: the real-size project first, then ``check``, then the 1M-line log
    as a stress bound, then latency under load. Rows whose results are missing are left out."""
    newest = next((r for r in (startup, e2e, check) if r is not None), None)
    if newest is None:
        raise ValueError("no results")
    m = newest["machine"]
    runs = ", ".join(
        f"{name} {r['runs']}" for name, r in (("start-up", startup), ("1M log", e2e)) if r
    )
    lines = [
        f"Measured {m['date']} on {m['cpus']} CPUs ({m['cpu']}), Python {m['python']}, load "
        f"average {m['load_average'][0]:.1f}: medians of interleaved runs ({runs}; worst in "
        f"brackets), from `bench/results/` (`make bench`, then `make bench-readme`). The "
        "load is each result's at its end where a row names it: on a machine shared with "
        "other work, the times are upper bounds of a quiet machine's.",
        "",
        "| | phasewatch | reference | goal (issues 27, 41) |",
        "|---|---|---|---|",
    ]
    if startup is not None:
        lines += project_rows(startup)
    if check is not None:
        lines.append(check_row(check))
    if junk is not None:
        lines.append(junk_row(junk))
    if size is not None:
        lines += dash_size_rows(size)
    if caps is not None:
        lines += read_cap_rows(caps)
    if e2e is not None:
        lines += stress_rows(e2e)
    if readkeys is not None:
        lines.append(read_keys_row(readkeys))
    if storm is not None:
        pw, base = storm["summary"]["phasewatch"], storm["summary"]["minimal"]
        rates = pw.get("storm", {})

        def rss(r: dict[str, Any]) -> str:  # (results from before the bench measured it: none)
            got = r.get("rss_mb")
            return f"; RSS {got[0]:.0f} -> {got[1]:.0f} MB" if got else ""

        lines.append(
            f"| key press → screen (switching screens, tmux) during a storm of "
            f"{rates.get('state_writes_per_s', 0):.0f} state writes/s + "
            f"{rates.get('log_lines_per_s', 0):,.0f} log lines/s ({storm['keys']} keys, "
            f"{_load(storm)}) | median "
            f"{_ms_of(pw['median'])}, p99 {_ms_of(pw['p99'])}; CPU {pw['cpu_share']:.0%} "
            f"of a core{rss(pw)} | a minimal Textual app, same storm: {_ms_of(base['median'])} / "
            f"{_ms_of(base['p99'])}{rss(base)} | "
            f"{_goal(pw['p99'] and pw['p99'] * 1000, 150, 'p99 ≤ 150 ms')} |"
        )
    if latency is not None:
        got = latency["measured"].get("watch events", {}).get("paint_ms", {})
        poll = latency["measured"].get("poller_2s", {}).get("seen_ms", {})
        floor = (e2e or {}).get("summary", {}).get("events", {}).get("event_floor_ms", {})
        p50, p99 = got.get("median"), got.get("p99")
        goal_p50, goal_p99 = LATENCY_TARGETS["median_ms"], LATENCY_TARGETS["p99_ms"]
        ok = p50 is not None and p99 is not None and p50 <= goal_p50 and p99 <= goal_p99
        lines.append(
            f"| `state.json` write → frame painted (headless, {latency['writes']} writes, "
            f"{_load(latency)}) | "
            f"median {_ms(p50)}, p99 {_ms(p99)} | watchfiles alone {_ms(floor.get('median'))} / "
            f"{_ms(floor.get('p99'))}; a 2 s poller {_ms(poll.get('median'))} / "
            f"{_ms(poll.get('p99'))} | ≤ {goal_p50:g} / ≤ {goal_p99:g} ms {'✓' if ok else '✗'} |"
        )
    burst = burst_row(latency) if latency is not None else None
    if burst is not None:
        lines.append(burst)
    for note in (e2e or {}).get("notes", []):
        lines.append(f"\nNote: {note}.")
    return "\n".join(lines)


def main() -> None:
    e2e, startup, check = newest("e2e"), newest("startup"), newest("check")
    if e2e is None and startup is None and check is None:
        sys.exit("no bench/results/{startup,check,e2e}-*.json: run `make bench` first")
    text = README.read_text()
    new = re.sub(
        r"<!-- bench:start -->.*?<!-- bench:end -->",
        lambda _m: (
            "<!-- bench:start -->\n"
            + table(
                e2e,
                newest("latency"),
                check,
                newest("storm"),
                startup,
                newest("readkeys"),
                newest("readcaps"),
                newest("junk"),
                newest("dashsize"),
            )
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
