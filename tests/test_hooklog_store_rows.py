"""A viewer may ask the store for a row a rewrite has just dropped (the worker shrinks the
store; the view learns the new count at its next update): an answer, never an IndexError."""

from __future__ import annotations

from phasewatch.core.hooklog.store import HookStore


def test_rows_past_the_end_read_as_gone_not_an_error():
    store = HookStore()
    record = store.record(5)
    assert not record.valid and record.line_no == 0
    assert store.line_no(5) == 0
    store.record(-1)
