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


def test_offsets_past_4_gib_widen_the_row_positions(tmp_path):
    """Row positions are kept in 4 bytes until a file passes 4 GiB: then 8, the rows before
    unchanged; a row copied into the store keeps its file offset apart."""
    import numpy as np
    from phasewatch.core.hooklog.batch import Batch, parse_block
    from phasewatch.core.hooklog.parse import parse_line

    log = tmp_path / "log"
    log.write_bytes(b"")
    store = HookStore(log)
    gen = store.file_generation((1, 2))
    line = b'{"ts":null,"hook":"h","event":"allow","phase":null,"agent":null,"reason":null}'
    near = [parse_line(line, 1, 5), parse_line(line, 2, 2**32 + 7)]
    store.fill(Batch.of(near, np.array([len(line)] * 2)), gen=gen)
    assert store._where.typecode == "q"
    assert [store.record(i).offset for i in range(2)] == [5, 2**32 + 7]
    store.fill(parse_block(line, 123, 3), gen=0)  # copied: its bytes live in the store
    assert store.record(2).offset == 123 and store.record(2).hook == "h"
