"""A data screen never applies an older update after a newer one, even when one arrives while
the screen is still applying what it kept before it was first shown (the Timeline showed an
in-flight version above #1, its diff pane claiming "first observation")."""

from __future__ import annotations

from dataclasses import dataclass

from phasewatch.tui.screens.base import UpdateScreen
from textual.app import App


@dataclass
class FakeUpdate:
    """Updates are state pictures: the newer one says all an older one would."""

    seq: int


class Recorder(UpdateScreen):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def apply_update(self, update) -> None:
        self.seen.append(update.seq)

    def update_status(self, update=None) -> None:  # no status bar data in a FakeUpdate
        pass


class Host(App[None]):
    def __init__(self, last_update=None) -> None:
        super().__init__()
        self.last_update = last_update


async def test_an_update_arriving_during_mount_is_not_overtaken_by_the_kept_one():
    app = Host()
    async with app.run_test() as pilot:
        screen = Recorder()
        screen.show_update(FakeUpdate(1))  # kept: not mounted yet
        screen.show_update(FakeUpdate(2))
        await app.push_screen(screen)
        screen.show_update(FakeUpdate(3))  # mounted, the kept update not applied yet
        await pilot.pause()
        await pilot.pause()
        screen.show_update(FakeUpdate(4))
        await pilot.pause()
        assert screen.seen == sorted(screen.seen) and screen.seen[-1] == 4
        assert 1 not in screen.seen  # superseded before it was ever shown


async def test_the_apps_last_update_is_not_applied_over_a_newer_one():
    app = Host(last_update=FakeUpdate(1))
    async with app.run_test() as pilot:
        screen = Recorder()
        await app.push_screen(screen)
        screen.show_update(FakeUpdate(2))  # newer than the app's last update
        await pilot.pause()
        await pilot.pause()
        assert screen.seen == [2] and screen.last_update.seq == 2
