"""Refresh the footer only when a binding's availability actually changed.

``refresh_bindings()`` made Textual's Footer recompose every key it shows, each new key styled
from scratch (CSS work that was most of the cost of an update when it ran after every file
write: docs/performance.md#widgets). The footer is one widget now (``widgets/footer.py``), but a refresh
still has the screen gather every node's bindings and ask each ``check_action``. Nodes whose
``check_action`` depends on live data call :func:`refresh_bindings_if_changed` instead: it
evaluates ``check_action`` for the node's own bindings (cheap) and refreshes only when one of the
answers differs from last time.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.actions import parse
from textual.binding import Binding, BindingType
from textual.dom import DOMNode


def binding_states(node: DOMNode, bindings: Iterable[BindingType]) -> tuple[bool | None, ...]:
    """What ``node.check_action`` says about each binding's action (True / False / None)."""
    states: list[bool | None] = []
    for binding in Binding.make_bindings(bindings):
        _namespace, name, params = parse(binding.action)
        states.append(node.check_action(name, params))
    return tuple(states)


def refresh_bindings_if_changed(node: DOMNode, bindings: Iterable[BindingType]) -> bool:
    """Call ``node.refresh_bindings()`` if a binding's availability changed; True if it did."""
    states = binding_states(node, bindings)
    if getattr(node, "_pw_binding_states", None) == states:
        return False
    node._pw_binding_states = states  # type: ignore[attr-defined]  # our memo on their node
    # (its screen's, not ``node.refresh_bindings()``: Textual's does nothing until the node's
    # own on_mount has returned, and the app shows a quick first read in its on_mount)
    node.screen.refresh_bindings()
    return True
