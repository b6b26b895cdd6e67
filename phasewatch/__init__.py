"""phasewatch: terminal dashboard and supervised review console for phased AI-agent workflows.

The installed package is one tree, ``phasewatch``; the repository keeps its three layers as
top-level folders and ``pyproject.toml`` maps them in (setuptools ``package-dir``):

* ``phasewatch.core``    <- ``core/``     the domain: readers, audit rules, decisions (no textual)
* ``phasewatch.widgets`` <- ``widgets/``  Textual widgets that take plain data
* ``phasewatch.tui``     <- ``tui/``      the app, its screens and the command line
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("phasewatch")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"
