"""``p``: the monorepo project switcher, one line per project with its current phase, attention
count (review gate waiting + pending escalations) and error findings."""

from __future__ import annotations

from typing import ClassVar

from msgspec import Struct
from phasewatch.core.findings import Severity
from phasewatch.core.session import SessionUpdate, attention
from phasewatch.widgets._style import plain
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class ProjectLine(Struct, frozen=True):
    project_id: str
    name: str
    phase: str | None
    attention: int
    errors: int
    read_status: str


def project_lines(update: SessionUpdate) -> list[ProjectLine]:
    out: list[ProjectLine] = []
    for source in update.project.states:
        snap = update.snapshots.get(source.project_id)
        gate, esc = attention(snap)
        wf = snap.workflow if snap is not None else None
        errors = sum(1 for f in snap.findings if f.severity == Severity.ERROR) if snap else 0
        out.append(
            ProjectLine(
                source.project_id,
                source.name or source.project_id or "(repository)",
                wf.current_phase if wf is not None else None,
                int(gate) + esc,
                errors,
                snap.read_status if snap is not None else "missing",
            )
        )
    return out


def line_text(line: ProjectLine, current: bool) -> Text:
    """One project: its id and name come from directory names (cleaned of escapes)."""
    return Text.assemble(
        ("▶ " if current else "  ", "bold"),
        plain(line.project_id or "(root)", "bold"),
        "  ",
        plain(line.name),
        "  ",
        plain(line.phase or "no active workflow", "" if line.phase else "dim"),
        ("  ⚑ " + str(line.attention), "bold reverse") if line.attention else "",
        (f"  ✖ {line.errors}", "bold") if line.errors else "",
        (f"  ({line.read_status})", "dim") if line.read_status != "ok" else "",
    )


class ProjectSwitcher(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, lines: list[ProjectLine], current: str | None) -> None:
        super().__init__()
        self.lines = lines
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="switcher") as box:
            box.border_title = "Projects"
            yield Static(Text("Enter: open  Escape: cancel  ⚑ = gate/escalations waiting"))
            yield OptionList(
                *[
                    Option(
                        line_text(line, line.project_id == self.current), id="p:" + line.project_id
                    )
                    for line in self.lines
                ],
                id="project-list",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        ids = [line.project_id for line in self.lines]
        if self.current in ids:
            options.highlighted = ids.index(self.current)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or "p:"
        self.dismiss(option_id[2:])

    def action_cancel(self) -> None:
        self.dismiss(None)
