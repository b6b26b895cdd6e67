"""A data screen applies every update in order, even when one arrives while the screen is
still applying what it buffered before it was first shown (issue: the Timeline showed an
in-flight version above the first one, its diff pane claiming "first observation")."""

from __future__ import annotations

from dataclasses import dataclass, field

from phasewatch.tui.screens.base import UpdateScreen
from textual.app import App


@dataclass
class FakeUpdate:
    """Only what the buffering contract uses: deltas concatenated by ``merged_after``."""

    timeline: list[int] = field(default_factory=list)

    def merged_after(self, older: FakeUpdate) -> FakeUpdate:
        return FakeUpdate(older.timeline + self.timeline)


class Recorder(UpdateScreen):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def apply_update(self, update) -> None:
        self.seen.extend(update.timeline)

    def update_status(self, update=None) -> None:  # no status bar data in a FakeUpdate
        pass


class Host(App[None]):
    def __init__(self, last_update=None) -> None:
        super().__init__()
        self.last_update = last_update


async def test_an_update_arriving_during_mount_is_applied_after_the_buffered_ones():
    app = Host()
    async with app.run_test() as pilot:
        screen = Recorder()
        screen.show_update(FakeUpdate([1]))  # buffered: not mounted yet
        screen.show_update(FakeUpdate([2]))
        await app.push_screen(screen)
        screen.show_update(FakeUpdate([3]))  # mounted, buffered update not applied yet
        await pilot.pause()
        await pilot.pause()
        screen.show_update(FakeUpdate([4]))
        await pilot.pause()
        assert screen.seen == [1, 2, 3, 4]


async def test_the_apps_last_update_is_not_applied_over_a_newer_one():
    app = Host(last_update=FakeUpdate([1]))
    async with app.run_test() as pilot:
        screen = Recorder()
        await app.push_screen(screen)
        screen.show_update(FakeUpdate([2]))  # newer than the app's last update
        await pilot.pause()
        await pilot.pause()
        assert screen.seen == [1, 2]
        assert screen.last_update.timeline == [1, 2]
