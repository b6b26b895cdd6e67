"""``phasewatch serve`` with its bounds set small, for tests/test_serve.py: ``python
serve_driver.py ROOT PORT HEADER_TIMEOUT IDLE_TIMEOUT MAX_CONNECTIONS``. Binds to 127.0.0.1."""

from __future__ import annotations

import argparse
import sys

from phasewatch.tui import serve

if __name__ == "__main__":
    root, port, header, idle, conns = sys.argv[1:6]
    serve.HEADER_TIMEOUT, serve.IDLE_TIMEOUT = float(header), float(idle)
    serve.MAX_CONNECTIONS = int(conns)
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    sys.exit(serve.run(parser.parse_args([root, "--port", port, "--host", "127.0.0.1"])))
