"""The Plugin Freedom System player (docs/formats.md#plugin-freedom-system), following the
system's state delegation contract (docs/formats.md#the-requirement-documents, 002).

:class:`PluginPipeline` walks plugins through the contract's stages the way its sub-agents and
orchestrator write them, interleaving the plugins (seeded), into a project directory:

* ``PLUGINS.md`` in the older layout: the registry table ``| Plugin Name | Status | Version |
  Last Updated |`` plus a ``### <Name>`` full entry per plugin (**Status:**, **Version:**,
  **Created:**, **Type:**, **Description:**, **Lifecycle Timeline:** ``- **YYYY-MM-DD (Stage
  N):** text``, **Last Updated:**), both locations updated in the same write;
* ``plugins/<Name>/.continue-here.md``: the contract's YAML front matter (its 1.1) and the six
  required Markdown sections, with ``contract_checksums`` = ``sha256:<hex>`` of each contract
  file's bytes; deleted at install (the contract's 2.5 note);
* ``plugins/<Name>/.ideas/{creative-brief,parameter-spec,architecture,plan}.md``.

Stages (its Appendix A/C): 💡 Ideated -> 💡 Ideated (Draft Params) -> Stage 0 research running
(handoff created, registry unchanged) -> 🚧 Stage 0 -> 🚧 Stage 2 -> 🚧 Stage 3 (3.1, 3.2, 3.3
then 3 when complexity >= 3) -> 🚧 Stage 4 (4.x likewise) -> 🚧 Stage 5 (validation running) ->
✅ Working -> 📦 Installed. One *step* is one agent's complete update (every file it writes); a
fault-free run passes every ``PLG-*`` rule after each step. Files are written like the real
agents do: plain truncate-then-write, never atomically.

Faults (:data:`PLUGIN_FAULTS`) fire once each, on a plugin and step chosen reproducibly from
``Random(f"{seed}:{name}")``; the steps' order and dates come from ``Random(seed)``.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import date, timedelta
from pathlib import Path

from msgspec import Struct, field

EMOJI = {"ideated": "💡", "stage": "🚧", "working": "✅", "installed": "📦"}
CONTRACT_FILES = {
    "creative_brief": "creative-brief.md",
    "parameter_spec": "parameter-spec.md",
    "architecture": "architecture.md",
    "plan": "plan.md",
}
DEFAULT_START = date(2025, 11, 10)


class PluginFault(Struct, frozen=True):
    name: str
    description: str
    rules: tuple[str, ...]  # the PLG-* rule ids it is meant to trip


PLUGIN_FAULTS: dict[str, PluginFault] = {
    f.name: f
    for f in (
        PluginFault(
            "plugin-drift",
            "The registry table row is updated but the full entry's **Status:** is not "
            "(docs/formats.md#drift).",
            ("PLG-STATUS-DRIFT",),
        ),
        PluginFault(
            "plugin-tamper",
            "A contract file in .ideas/ is edited after its checksum was recorded "
            "(docs/formats.md#contract-checksums).",
            ("PLG-CONTRACT-TAMPERED",),
        ),
        PluginFault(
            "plugin-stage-drift",
            "The registry advances but .continue-here.md is not updated (docs/formats.md#drift).",
            ("PLG-STAGE-DRIFT",),
        ),
        PluginFault(
            "plugin-timeline",
            "The full entry gets a wrong date: its new timeline entry is out of order and its "
            "Last Updated differs from the table (docs/formats.md#drift).",
            ("PLG-TIMELINE-ORDER", "PLG-DATE-DRIFT"),
        ),
    )
}

# Known plugins from the contract keep its complexity; others get a seeded one.
KNOWN = {
    "MinimalKick": (5.0, "Instrument", "A minimal kick drum synthesizer with pitch and decay."),
    "GainKnob": (1.2, "Audio Effect", "A single gain knob with smoothing."),
}
TYPES = ("Audio Effect", "Instrument", "MIDI Effect")
DESCRIPTIONS = (
    "A tape-style saturation with wow and flutter.",
    "A tempo-synced ping-pong delay.",
    "A transient shaper with attack and sustain controls.",
    "A lush plate reverb with pre-delay.",
    "A state-variable filter with envelope follower.",
)
PARAMS = ("gain", "drive", "mix", "tone", "attack", "decay", "pitch", "cutoff", "resonance")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class PluginStep(Struct, frozen=True):
    """One agent's complete update, after its files are on disk."""

    seq: int
    plugin: str
    name: str  # ideated | draft-params | stage-0-start | stage-0 | stage-3.1 | working | ...
    status: str  # the registry table status written
    date: str  # YYYY-MM-DD
    paths: tuple[str, ...]  # files written (or deleted), relative to the directory
    fault: str | None = None
    detail: str = ""

    def line(self) -> str:
        fault = f" [{self.fault}]" if self.fault else ""
        return f"{self.seq:4d} {self.date} {self.plugin:<16} {self.name:<14} {self.status}{fault}"


class PluginRunSummary(Struct):
    status: str  # completed | stopped
    seed: int
    directory: str
    steps: int = 0
    faults: dict[str, tuple[str, int] | None] = field(default_factory=dict)  # name -> (plugin, seq)


class _Spec(Struct, frozen=True):
    """What one step of one plugin sets (None: leave as is)."""

    name: str
    status: str | None  # registry status ("🚧 Stage 3.1"); None: unchanged
    timeline: tuple[str | None, str] | None  # (stage label, text) appended to the timeline
    handoff: dict[str, object] | None  # front matter changes; None: handoff not written
    delete_handoff: bool = False
    contracts: tuple[str, ...] = ()  # contract keys written in this step
    completed: str | None = None  # "Completed So Far" bullet appended
    title: str = ""  # the handoff's `# ...` heading
    current: str = ""  # the `## Current State:` line
    next_steps: tuple[str, ...] = ()


class _Plugin(Struct):
    name: str
    complexity: float
    kind: str
    description: str
    params: list[str]
    specs: list[_Spec] = field(default_factory=list)
    done: int = 0  # specs played
    created: date | None = None
    status: str | None = None  # registry status (both locations, unless a fault)
    entry_status: str | None = None  # a fault's stale full-entry status (until the next step)
    table_date: date | None = None
    entry_date: date | None = None
    timeline: list[tuple[date, str | None, str]] = field(default_factory=list)
    front: dict[str, object] = field(default_factory=dict)
    completed: list[str] = field(default_factory=list)
    artifacts: bool = False

    @property
    def phased(self) -> bool:
        return self.complexity >= 3.0


def _plan(p: _Plugin) -> list[_Spec]:
    """The plugin's steps, following the contract's sections 2.1-2.5 and Appendix C."""
    return [*_planning_specs(p), *_build_specs(p), *_release_specs()]


def _planning_specs(p: _Plugin) -> list[_Spec]:
    """Ideation, research and the foundation (stages 0 and 2)."""
    st = EMOJI["stage"]
    n = len(p.params)
    return [
        _Spec(
            "ideated",
            f"{EMOJI['ideated']} Ideated",
            (None, "Creative brief created"),
            None,
            contracts=("creative_brief",),
        ),
        _Spec(
            "draft-params",
            f"{EMOJI['ideated']} Ideated (Draft Params)",
            (None, f"Draft parameters captured ({n} parameters)"),
            None,
            contracts=("parameter_spec",),
        ),
        _Spec(
            "stage-0-start",
            None,
            None,
            {
                "stage": 0,
                "phase": None,
                "status": "in_progress",
                "complexity_score": None,
                "phased_implementation": None,
                "next_action": "complete_research_planning",
                "next_phase": None,
            },
            title="Stage 0 In Progress - Research & Planning",
            current="Research & Planning running",
            next_steps=("Finish DSP research", "Write architecture.md and plan.md"),
        ),
        _Spec(
            "stage-0",
            f"{st} Stage 0",
            ("0", f"Research & Planning complete - Complexity {p.complexity:.1f}"),
            {
                "stage": 0,
                "phase": None,
                "status": "complete",
                "complexity_score": p.complexity,
                "phased_implementation": p.phased,
                "next_action": "invoke_foundation_shell_agent",
                "next_phase": None,
            },
            contracts=("architecture", "plan"),
            completed="**Stage 0:** Research complete - DSP architecture documented",
            title="Stage 0 Complete - Research & Planning",
            current="Research & Planning Complete",
            next_steps=(
                "Invoke foundation-shell-agent for Stage 2",
                "Implement build system and parameters",
                "Build and verify compilation",
            ),
        ),
        _Spec(
            "stage-2",
            f"{st} Stage 2",
            ("2", "Foundation complete - Build system operational"),
            {
                "stage": 2,
                "phase": None,
                "status": "complete",
                "next_action": "invoke_dsp_agent",
                "next_phase": "3.1" if p.phased else None,
            },
            completed=f"**Stage 2:** Foundation complete - Build system operational, "
            f"{n} parameters implemented",
            title="Stage 2 Complete - Build System Ready",
            current="Foundation Complete",
            next_steps=(
                "Invoke dsp-agent for Stage 3" + (" Phase 3.1" if p.phased else ""),
                "Implement the audio engine",
                "Build and verify audio output",
            ),
        ),
    ]


def _build_specs(p: _Plugin) -> list[_Spec]:
    """Stages 3 (DSP) and 4 (GUI), in three phases each when the plugin is phased."""
    st = EMOJI["stage"]
    specs: list[_Spec] = []
    for stage, agent, what, after, next_agent in (
        (3, "dsp", "Audio engine", "invoke_gui_agent", "gui-agent"),
        (4, "gui", "UI", "begin_stage_5", "validation"),
    ):
        label = {3: "DSP", 4: "GUI"}[stage]
        if p.phased:
            for k in (1, 2, 3):
                ph = f"{stage}.{k}"
                last = k == 3
                specs.append(
                    _Spec(
                        f"stage-{ph}",
                        f"{st} Stage {ph}",
                        (ph, f"Phase {ph} complete - {label} phase {k} of 3"),
                        {
                            "stage": stage,
                            "phase": ph,
                            "status": "complete",
                            "next_action": f"complete_{agent}_stage_{stage}"
                            if last
                            else f"continue_{agent}_phase_{stage}.{k + 1}",
                            "next_phase": None if last else f"{stage}.{k + 1}",
                        },
                        completed=f"**Stage {ph}:** {label} phase {k} of 3 complete",
                        title=f"Stage {ph} Complete - {what} phase {k}",
                        current=f"Phase {ph} Complete",
                        next_steps=(
                            f"Finish Stage {stage}"
                            if last
                            else f"Continue with Phase {stage}.{k + 1}",
                        ),
                    )
                )
        specs.append(
            _Spec(
                f"stage-{stage}",
                f"{st} Stage {stage}",
                (str(stage), f"{what} complete" + (" - all 3 phases" if p.phased else "")),
                {
                    "stage": stage,
                    "phase": None,
                    "status": "complete",
                    "next_action": after,
                    "next_phase": "4.1" if stage == 3 and p.phased else None,
                },
                completed=f"**Stage {stage}:** {what} complete",
                title=f"Stage {stage} Complete - {what}",
                current=f"{what} Complete",
                next_steps=(f"Invoke {next_agent} for Stage {stage + 1}",),
            )
        )
    return specs


def _release_specs() -> list[_Spec]:
    """Validation (stage 5) and installation."""
    st = EMOJI["stage"]
    return [
        _Spec(
            "stage-5",
            f"{st} Stage 5",
            None,
            {
                "stage": 5,
                "phase": None,
                "status": "in_progress",
                "next_action": "run_validation",
                "next_phase": None,
            },
            title="Stage 5 In Progress - Validation",
            current="Validation running",
            next_steps=("Run pluginval", "Write CHANGELOG.md"),
        ),
        _Spec(
            "working",
            f"{EMOJI['working']} Working",
            ("5", "Validation complete - ready for installation"),
            {
                "stage": 5,
                "phase": None,
                "status": "workflow_complete",
                "next_action": "install",
                "next_phase": None,
            },
            completed="**Stage 5:** Validation complete - CHANGELOG created, ready to install",
            title="Stage 5 Complete - Ready for Installation",
            current="Validation Complete",
            next_steps=("Install the plugin (/install-plugin)", "Or improve it (/improve)"),
        ),
        _Spec(
            "installed",
            f"{EMOJI['installed']} Installed",
            (None, "Installed to system folders (VST3, AU)"),
            None,
            delete_handoff=True,
        ),
    ]


def sha256_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _yaml_scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def write_truncate(path: Path, data: bytes) -> None:
    """How the agents write: open with O_TRUNC, write, close. Not atomic."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


class PluginPipeline:
    """Plays the Plugin Freedom System's state updates into ``directory`` (see module doc)."""

    def __init__(
        self,
        directory: str | Path,
        plugins: Iterable[str] = ("MinimalKick", "GainKnob"),
        faults: Iterable[str] = frozenset(),
        seed: int = 0,
        fast: bool = True,
        speed: float = 1.0,
        on_step: Callable[[PluginStep], None] | None = None,
        *,
        start: date = DEFAULT_START,
    ) -> None:
        names = list(dict.fromkeys(plugins))
        if not names:
            raise ValueError("at least one plugin is needed")
        for name in names:
            if not _NAME.fullmatch(name):
                raise ValueError(f"plugin name {name!r} cannot be a directory name")
        unknown = sorted(set(faults) - set(PLUGIN_FAULTS))
        if unknown:
            raise ValueError(
                f"unknown fault(s) {', '.join(unknown)} (known: {', '.join(PLUGIN_FAULTS)})"
            )
        if not speed or speed <= 0:
            raise ValueError("speed must be > 0")
        self.root = Path(directory)
        self.seed = seed
        self.fast = fast
        self.speed = speed
        self.on_step = on_step
        self.faults = sorted(set(faults))
        self._stop = threading.Event()
        self._rng = random.Random(seed)
        self._pace = random.Random(f"{seed}:pace")
        self._today = start
        self.plugins: dict[str, _Plugin] = {}
        for name in names:
            if name in KNOWN:
                complexity, kind, desc = KNOWN[name]
            else:
                r = random.Random(f"{seed}:{name}")
                complexity = round(r.uniform(1.0, 5.0), 1)
                kind, desc = r.choice(TYPES), r.choice(DESCRIPTIONS)
            r = random.Random(f"{seed}:{name}:params")
            count = 3 + int(complexity)
            p = _Plugin(name, complexity, kind, desc, r.sample(PARAMS, min(count, len(PARAMS))))
            p.specs = _plan(p)
            self.plugins[name] = p
        self.order = self._interleave()
        self.targets = {name: self._target(name) for name in self.faults}
        self.summary = PluginRunSummary("stopped", seed, str(self.root))
        self.summary.faults = dict.fromkeys(self.faults)

    # ------------------------------------------------------------------ schedule

    def _interleave(self) -> list[str]:
        """Which plugin moves at each step (a plugin starts after the previous one's brief)."""
        left = {n: len(p.specs) for n, p in self.plugins.items()}
        names = list(self.plugins)
        order: list[str] = []
        started = 1
        while any(left.values()):
            live = [n for n in names[:started] if left[n]]
            if started < len(names) and (not live or self._rng.random() < 0.25):
                started += 1
                live = [n for n in names[:started] if left[n]]
            name = self._rng.choice(live)
            order.append(name)
            left[name] -= 1
        return order

    def _target(self, fault: str) -> tuple[str, int]:
        """(plugin, index of its spec) where the fault fires."""
        rng = random.Random(f"{self.seed}:{fault}")
        options: list[tuple[str, int]] = []
        for name, p in self.plugins.items():
            options += [(name, i) for i in range(len(p.specs)) if self._eligible(fault, p, i)]
        return rng.choice(options)

    def _eligible(self, fault: str, p: _Plugin, i: int) -> bool:
        spec, before = p.specs[i], p.specs[:i]
        if fault == "plugin-drift":  # the status changes and a full entry already exists
            return i > 0 and spec.status is not None
        if fault == "plugin-tamper":  # a handoff with recorded checksums is left behind
            return spec.handoff is not None
        if fault == "plugin-timeline":  # an entry is appended after at least one other
            return spec.timeline is not None and any(s.timeline for s in before)
        if fault == "plugin-stage-drift":  # the registry's stage moves away from the handoff's
            old = next((s.handoff for s in reversed(before) if s.handoff), None)
            status = next((s.status for s in reversed(p.specs[: i + 1]) if s.status), "")
            m = re.search(r"Stage (\d)(?:\.(\d))?", status or "")
            if old is None or spec.handoff is None or not m:
                return False
            stage = int(m.group(1))
            phase = f"{stage}.{m.group(2)}" if m.group(2) else None
            return old["stage"] != stage or bool(phase and old["phase"] and phase != old["phase"])
        return False

    # ------------------------------------------------------------------ running

    def run(self) -> PluginRunSummary:
        for _ in self.steps():
            pass
        return self.summary

    def stop(self) -> None:
        """Ask a running pipeline to stop before its next step (thread-safe)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def steps(self) -> Iterator[PluginStep]:
        """Play the run; yields each step after its files are written."""
        self.summary.status = "stopped"
        for seq, name in enumerate(self.order, 1):
            if self.stopping:
                return
            if seq > 1 and not self.fast:
                self._stop.wait(self._pace.uniform(0.5, 1.4) / self.speed)
                if self.stopping:
                    return
            step = self._play(seq, self.plugins[name])
            self.summary.steps = seq
            if self.on_step is not None:
                self.on_step(step)
            yield step
        self.summary.status = "completed"

    def _advance_date(self) -> date:
        if self._rng.random() < 0.5:
            self._today += timedelta(days=self._rng.choice((1, 1, 2, 3)))
        return self._today

    def _fires(self, fault: str, p: _Plugin) -> bool:
        return fault in self.targets and self.targets[fault] == (p.name, p.done)

    def _play(self, seq: int, p: _Plugin) -> PluginStep:
        spec = p.specs[p.done]
        today = self._advance_date()
        fired = [f for f in self.faults if self._fires(f, p)]
        paths: list[str] = []
        detail: list[str] = []

        if p.created is None:
            p.created = today
        p.entry_status = None  # a new update rewrites both locations
        if spec.status is not None:
            p.status = spec.status
        entry_date = today
        if spec.timeline is not None:
            stage_label, text = spec.timeline
            when = today
            if "plugin-timeline" in fired:
                newest = max(d for d, _, _ in p.timeline)
                when = entry_date = newest - timedelta(
                    days=random.Random(f"{self.seed}:tl").randint(1, 3)
                )
                detail.append(f"timeline entry and Last Updated dated {when.isoformat()}")
            p.timeline.append((when, stage_label, text))
        p.table_date, p.entry_date = today, entry_date
        if "plugin-drift" in fired:
            prev = next(s.status for s in reversed(p.specs[: p.done]) if s.status)
            p.entry_status = prev
            detail.append(f"full entry left at {prev}")

        # 1. the agent's work products: contract files
        for key in spec.contracts:
            paths.append(self._write(p, f".ideas/{CONTRACT_FILES[key]}", self._contract(p, key)))
        if spec.completed:
            p.completed.append(spec.completed)
        if spec.name == "stage-2":
            p.artifacts = True

        # 2. .continue-here.md (the sub-agent's own state update)
        if spec.handoff is not None:
            p.front.update(spec.handoff)
            p.front["last_updated"] = today.isoformat()
            if "plugin-stage-drift" in fired:
                detail.append(".continue-here.md not updated")
            else:
                paths.append(self._write(p, ".continue-here.md", self._handoff(p, spec)))
        if spec.delete_handoff:
            target = self.root / "plugins" / p.name / ".continue-here.md"
            target.unlink(missing_ok=True)
            paths.append(self._rel(target))

        # 3. PLUGINS.md: table row and full entry in one write
        p.done += 1
        md = self.root / "PLUGINS.md"
        write_truncate(md, self._plugins_md().encode("utf-8"))
        paths.append("PLUGINS.md")

        # 4. someone edits a contract after the checksums were recorded
        if "plugin-tamper" in fired:
            rng = random.Random(f"{self.seed}:plugin-tamper:file")
            present = [k for k in CONTRACT_FILES if (self._ideas(p) / CONTRACT_FILES[k]).is_file()]
            key = rng.choice(present)
            path = self._ideas(p) / CONTRACT_FILES[key]
            data = path.read_bytes() + b"\n- Late change: drive range widened to 0-200%\n"
            write_truncate(path, data)
            paths.append(self._rel(path))
            detail.append(f"{CONTRACT_FILES[key]} edited after sealing")

        for f in fired:
            self.summary.faults[f] = (p.name, seq)
        return PluginStep(
            seq=seq,
            plugin=p.name,
            name=spec.name,
            status=p.status or "",
            date=today.isoformat(),
            paths=tuple(paths),
            fault=",".join(fired) or None,
            detail="; ".join(detail),
        )

    # ------------------------------------------------------------------ files

    def _ideas(self, p: _Plugin) -> Path:
        return self.root / "plugins" / p.name / ".ideas"

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _write(self, p: _Plugin, name: str, text: str) -> str:
        path = self.root / "plugins" / p.name / name
        write_truncate(path, text.encode("utf-8"))
        return self._rel(path)

    def _contract(self, p: _Plugin, key: str) -> str:
        if key == "creative_brief":
            return (
                f"# {p.name} - Creative Brief\n\n**Type:** {p.kind}\n\n## Vision\n\n"
                f"{p.description}\n\n## Sound\n\nClean, punchy, no surprises.\n"
            )
        if key == "parameter_spec":
            rows = "\n".join(
                f"| {name} | 0.0 | 1.0 | {0.5 if i % 2 else 0.0:.1f} |"
                for i, name in enumerate(p.params)
            )
            return (
                f"# {p.name} - Parameter Specification\n\n"
                "| ID | Min | Max | Default |\n|----|-----|-----|---------|\n" + rows + "\n"
            )
        if key == "architecture":
            return (
                f"# {p.name} - DSP Architecture\n\n## Signal flow\n\n"
                "Input -> " + " -> ".join(p.params) + " -> Output\n"
            )
        phases = (
            "## Phases\n\n- 3.1 core DSP\n- 3.2 modulation\n- 3.3 polish\n"
            "- 4.1 layout\n- 4.2 controls\n- 4.3 metering\n"
            if p.phased
            else "## Single pass\n\nStages 3 and 4 in one pass each.\n"
        )
        return (
            f"# {p.name} - Implementation Plan\n\n**Complexity Score:** {p.complexity:.1f}\n"
            f"**Phased:** {'yes' if p.phased else 'no'}\n\n{phases}"
        )

    def _checksums(self, p: _Plugin) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for key, fname in CONTRACT_FILES.items():
            path = self._ideas(p) / fname
            out[key] = sha256_of(path.read_bytes()) if path.is_file() else None
        return out

    def _handoff(self, p: _Plugin, spec: _Spec) -> str:
        f = p.front
        lines = ["---", f"plugin: {p.name}"]
        for key in (
            "stage",
            "phase",
            "status",
            "last_updated",
            "complexity_score",
            "phased_implementation",
        ):
            lines.append(f"{key}: {_yaml_scalar(f.get(key))}")
        lines.append("orchestration_mode: true")
        lines.append(f"next_action: {_yaml_scalar(f.get('next_action'))}")
        lines.append(f"next_phase: {_yaml_scalar(f.get('next_phase'))}")
        lines.append("contract_checksums:")
        for key, value in self._checksums(p).items():
            lines.append(f"  {key}: {_yaml_scalar(value)}")
        lines.append("---")
        completed = [f"- {c}" for c in p.completed] or ["- (nothing yet)"]
        steps = [f"{i}. {s}" for i, s in enumerate(spec.next_steps, 1)]
        base = f"build/{p.name}/plugins/{p.name}/{p.name}_artefacts"
        artifacts = (
            [
                f"- VST3: {base}/VST3/{p.name}.vst3",
                f"- AU: {base}/AU/{p.name}.component",
                f"- Standalone: {base}/Standalone/{p.name}.app",
            ]
            if p.artifacts
            else ["- None yet (first build in Stage 2)"]
        )
        stage = int(str(f.get("stage") or 0))
        checks = [
            f"- [{'x' if stage > 2 or (stage == 2 and f.get('status') == 'complete') else ' '}] "
            "Plugin loads in a DAW",
            f"- [{'x' if stage > 3 else ' '}] Audio output verified",
            f"- [{'x' if stage > 4 else ' '}] UI controls move parameters",
        ]
        context = [
            f"- Complexity: {_yaml_scalar(f.get('complexity_score'))}",
            f"- Phased: {_yaml_scalar(f.get('phased_implementation'))}",
            f"- Parameters: {', '.join(p.params)}",
            f"- Plan: plugins/{p.name}/.ideas/plan.md",
        ]
        body = [
            "",
            f"# {spec.title}",
            "",
            f"## Current State: {spec.current}",
            "",
            f"{p.name} is at stage {f.get('stage')}"
            + (f" phase {f.get('phase')}" if f.get("phase") else "")
            + f" ({f.get('status')}).",
            "",
            "## Completed So Far",
            *completed,
            "",
            "## Next Steps",
            *steps,
            "",
            "## Build Artifacts",
            *artifacts,
            "",
            "## Testing Checklist",
            *checks,
            "",
            "## Context to Preserve",
            *context,
            "",
        ]
        return "\n".join(lines + body)

    def _plugins_md(self) -> str:
        live = [p for p in self.plugins.values() if p.done]
        out = [
            "# Plugin Registry",
            "",
            "Audio plugins built with the Plugin Freedom System.",
            "",
            "| Plugin Name | Status | Version | Last Updated |",
            "|-------------|--------|---------|--------------|",
        ]
        for p in live:
            when = p.table_date.isoformat() if p.table_date else ""
            out.append(f"| {p.name} | {p.status} | 1.0.0 | {when} |")
        out += ["", "---", ""]
        for p in live:
            created = p.created.isoformat() if p.created else ""
            out += [
                f"### {p.name}",
                f"**Status:** {p.entry_status or p.status}",
                "**Version:** 1.0.0",
                f"**Created:** {created}",
                f"**Type:** {p.kind}",
                "",
                "**Description:**",
                p.description,
                "",
                "**Lifecycle Timeline:**",
            ]
            for day, stage, text in p.timeline:
                label = f" (Stage {stage})" if stage else ""
                out.append(f"- **{day.isoformat()}{label}:** {text}")
            entry_date = p.entry_date.isoformat() if p.entry_date else ""
            out += ["", f"**Last Updated:** {entry_date}", "", "---", ""]
        return "\n".join(out)
