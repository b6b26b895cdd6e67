"""What the iSDLC framework's own views show about a running workflow (its live dashboard and
its ``/isdlc status`` report), read from the same files: docs/observability.md."""

from __future__ import annotations

from .load import load_observed

__all__ = ["load_observed"]
