"""A program, not a test: the owner's way of writing ``state.json`` (truncate, then write in two
parts, no lock), ``CYCLES`` times, documents of equal length so that the start of one and the
end of the next would parse. ``python tests/torn_writer.py PATH CYCLES``; the documents it writes
are :func:`documents`. Used by ``test_files_read`` and ``make reliability``."""

import json
import sys


def documents() -> list[dict]:
    return [{"state_version": n, "pad": chr(97 + n % 26) * 3000} for n in range(26)]


def main(path: str, cycles: int) -> None:
    docs = [json.dumps(doc, indent=2).encode() for doc in documents()]
    for n in range(cycles):
        with open(path, "r+b", buffering=0) as fh:
            fh.truncate(0)
            doc = docs[n % 26]
            fh.write(doc[: len(doc) // 2])
            fh.write(doc[len(doc) // 2 :])


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
