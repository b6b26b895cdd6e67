"""phasewatch: terminal dashboard and supervised review console for phased AI-agent workflows.

The installed package is one tree, ``phasewatch``; the repository keeps its three layers as
top-level folders and ``pyproject.toml`` maps them in (setuptools ``package-dir``):

* ``phasewatch.core``    <- ``core/``     the domain: readers, audit rules, decisions (no textual)
* ``phasewatch.widgets`` <- ``widgets/``  Textual widgets that take plain data
* ``phasewatch.tui``     <- ``tui/``      the app, its screens and the command line
"""


def __getattr__(name: str) -> str:
    """``__version__``, read from the installed metadata only when asked (start-up stays lean)."""
    if name != "__version__":
        raise AttributeError(name)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("phasewatch")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0+unknown"
