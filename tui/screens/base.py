"""The contract between the app and its data screens.

The app calls :meth:`UpdateScreen.show_update` with EVERY :class:`~core.session.SessionUpdate`,
in order, on every data screen, whether or not it is visible. Updates carry full current state
(the state picture: a newer update says all an older one would). A screen that is not mounted
yet (never shown) keeps the newest and applies it once, right after it mounts; one arriving
before that replaces it, so nothing older is applied after something newer. A subclass
implements :meth:`UpdateScreen.apply_update` (widgets composed, inside
``app.batch_update()``) and, if it shows time-dependent text, :meth:`UpdateScreen.tick`.

Every screen ends with the status bar (watch mode, torn/vanished/stale warnings) and the footer.

Until its first update a screen shows only "Reading the project files..." above them: the first
frame is drawn before the project is read, and a body drawn from no data would say what is not
so ("no .isdlc/state.json", "the hook log is missing or empty").
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from phasewatch.widgets.footer import KeyFooter
from phasewatch.widgets.status_bar import StatusBar
from textual import events
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from . import named

if TYPE_CHECKING:
    from phasewatch.core.session import SessionUpdate


READING = "Reading the project files…"


class UpdateScreen(Screen[None]):
    """Base of the data screens (see the module docstring for the contract)."""

    #: Screen name used by the app (mode name, command palette, key binding): its row's in
    #: ``tui.screens.SCREENS``, as the title.
    NAME = "screen"
    #: Human title.
    TITLE = "Screen"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        row = named(cls)
        if row is not None:
            cls.NAME, cls.TITLE = row.name, row.title

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self._pending: SessionUpdate | None = None
        self.last_update: SessionUpdate | None = None
        self.applied = 0  # updates applied (tests)
        self._never_suspended = True  # (see _on_screen_resume)
        self._hidden: list[Widget] = []  # the body, hidden until the first update (compose)

    # -- the contract -------------------------------------------------------------------

    def show_update(self, update: SessionUpdate) -> None:
        """Receive one update (called by the app for every update, visible or not)."""
        if not self.is_mounted or self._pending is not None:
            # Not mounted, or mounted with the buffer not applied yet: the newest says it all,
            # and applying this one now would let the older buffer land after it.
            self._pending = update
            return
        self._apply(update)

    def apply_update(self, update: SessionUpdate) -> None:
        """Render ``update`` into this screen's widgets (override)."""

    def tick(self, now: datetime) -> None:
        """Called every second while the screen is current (override for clocks)."""

    def project_changed(self) -> None:
        """The user switched monorepo project: re-render from :attr:`last_update` (override)."""
        if self.last_update is not None:
            self._apply(self.last_update)

    # -- helpers ------------------------------------------------------------------------

    @property
    def project_id(self) -> str | None:
        return getattr(self.app, "project_id", None)

    def now(self) -> datetime:
        clock = getattr(self.app, "now", None)
        if clock is not None:
            return clock()
        from datetime import UTC

        return datetime.now(UTC)

    def compose_body(self) -> Iterable[Widget]:
        """The screen's own widgets (override); the status bar and footer are added below."""
        return ()

    def compose(self) -> ComposeResult:
        # No data yet (see the module docstring): "Reading..." in place of the body, by inline
        # styles, so the first update's swap is a layout change, not a restyle of the screen.
        reading = self.last_update is None and getattr(self.app, "last_update", None) is None
        failed = getattr(self.app, "read_error", None)
        note = Static(failed or READING, id="reading", markup=False)
        if reading:
            note.styles.display = "block"
        yield note
        for widget in self.compose_body():
            if reading:
                widget.styles.display = "none"
                self._hidden.append(widget)
            yield widget
        yield StatusBar(id="status-bar")
        yield KeyFooter()

    def reading_failed(self, text: str) -> None:
        """The first read failed: ``text`` (cleaned) in place of "Reading..."."""
        try:
            self.query_one("#reading", Static).update(text)
        except NoMatches:  # not composed yet: compose shows the app's read_error
            pass

    def on_mount(self) -> None:
        if self._pending is None and self.last_update is None:
            self._pending = getattr(self.app, "last_update", None)
        if self._pending is not None:
            self.call_after_refresh(self._apply_pending)

    def _apply_pending(self) -> None:
        """Apply the buffer (everything that arrived before and during mounting), once."""
        pending, self._pending = self._pending, None
        if pending is not None:
            self._apply(pending)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """(Runs before Textual's own handler.) On its first show the screen's widgets are
        styled as they mount: Textual would restyle every one of them again at each of the two
        resumes of a first show. Once the screen has been away, its resumes restyle it whole,
        as Textual's do (whatever changed meanwhile)."""
        if self._never_suspended:
            event.refresh_styles = False

    def _on_screen_suspend(self) -> None:
        self._never_suspended = False

    def on_screen_resume(self) -> None:
        self.tick(self.now())

    def _apply(self, update: SessionUpdate) -> None:
        self.last_update = update
        if self._hidden:  # the first data: the body as the stylesheet has it, no "Reading..."
            hidden, self._hidden = self._hidden, []
            for widget in hidden:
                widget.styles.display = None  # (clears the inline rule)
            self.query_one("#reading").styles.display = None
        self.apply_update(update)
        self.update_status(update)
        self.applied += 1

    def update_status(self, update: SessionUpdate | None = None) -> None:
        update = update or self.last_update
        try:
            bar = self.query_one("#status-bar", StatusBar)
        except NoMatches:  # not composed yet
            return
        mode = getattr(self.app, "watch_mode", "starting")
        if update is None:
            bar.show(mode, None)
            return
        others = [f for f in update.files.values() if f.kind != "state"]
        notes: list[str] = []
        tail = update.hooks.tail
        if update.hooks.rotations and update.hooks.rotated_at is not None:
            # a session fact, not only this update's: the next append must not make it vanish
            when = update.hooks.rotated_at.astimezone().strftime("%H:%M:%S")
            times = f" ×{update.hooks.rotations}" if update.hooks.rotations > 1 else ""
            what = "replaced" if tail.reset else "rotated"
            notes.append(f"hook log {what}{times} (last {when})")
        if tail.error:
            notes.append("hook log: " + tail.error)
        if update.hooks.progress is not None:
            done, size = update.hooks.progress
            notes.append(f"reading the hook log: {done * 100 // max(size, 1)}% of {_mb(size)}")
        notes.extend(getattr(self.app, "status_notes", lambda: [])())
        bar.show(mode, update.state_file(self.project_id), others, notes, update.at)


def _mb(size: int) -> str:
    if size < 1_048_576:
        return f"{max(1, size // 1024)} KB"
    return f"{size / 1_048_576:.0f} MB" if size >= 10_485_760 else f"{size / 1_048_576:.1f} MB"
