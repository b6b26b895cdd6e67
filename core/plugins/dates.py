"""Dates as agents write them in the registry and the handoffs (docs/formats.md#registry).

``2025-11-13`` is exact; the real system's handoffs write timestamps (``2025-11-13 14:30:00``,
``2025-11-13T14:30:00Z``), which :func:`parse_date` reads as their day (form ``datetime``); other
spellings are understood with a note, and ``03/04/2025`` is ambiguous.
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from typing import Literal

from msgspec import Struct

from .markdown import strip_md

DateForm = Literal["iso", "datetime", "other", "ambiguous", "invalid", "empty"]

_MONTHS: dict[str, int] = {}
for _i in range(1, 13):
    _MONTHS[calendar.month_name[_i].lower()] = _i
    _MONTHS[calendar.month_abbr[_i].lower()] = _i
_MONTHS["sept"] = 9
_MON = "|".join(sorted(_MONTHS, key=len, reverse=True))


class ParsedDate(Struct, frozen=True):
    raw: str
    value: date | None
    form: DateForm
    note: str = ""

    @property
    def exact(self) -> bool:
        return self.form == "iso"

    def __str__(self) -> str:
        return self.value.isoformat() if self.value else self.raw


def _mk(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except (ValueError, OverflowError):
        return None


_ISO_EXACT = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_ISO_DT = re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}:\d{2}\S*)")
_YMD = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_XYY = re.compile(r"(?<!\d)(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?!\d)")
_MDY = re.compile(rf"\b({_MON})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MON})\.?,?\s+(\d{{4}})\b", re.I)


def _iso(raw: str, text: str) -> ParsedDate | None:
    m = _ISO_EXACT.fullmatch(text)
    if m:
        value = _mk(int(m[1]), int(m[2]), int(m[3]))
        if value is None:
            return ParsedDate(raw, None, "invalid", f"{text} is not a real date")
        return ParsedDate(raw, value, "iso")
    m = _ISO_DT.match(text)
    if m and (value := _mk(int(m[1]), int(m[2]), int(m[3]))):
        return ParsedDate(raw, value, "datetime", "a timestamp (its day is used)")
    return None


def _numeric(raw: str, text: str) -> ParsedDate | None:
    m = _YMD.search(text)
    if m:
        value = _mk(int(m[1]), int(m[2]), int(m[3]))
        if value and _ISO_EXACT.fullmatch(m.group()):
            return ParsedDate(raw, value, "other", f"extra text around the date {m.group()}")
        if value:
            return ParsedDate(raw, value, "other", "year-month-day, not written YYYY-MM-DD")
        return ParsedDate(raw, None, "invalid", f"{m.group()} is not a real date")
    m = _XYY.search(text)
    if not m:
        return None
    a, b, y = int(m[1]), int(m[2]), int(m[3])
    dmy, mdy = _mk(y, b, a), _mk(y, a, b)
    if dmy and mdy and dmy != mdy:
        note = f"{m.group()} could be {dmy.isoformat()} (day first) or {mdy.isoformat()}"
        return ParsedDate(raw, None, "ambiguous", note)
    value = dmy or mdy
    if value:
        order = "day-month-year" if value == dmy else "month-day-year"
        return ParsedDate(raw, value, "other", f"{order}, not written YYYY-MM-DD")
    return ParsedDate(raw, None, "invalid", f"{m.group()} is not a real date")


def _named(raw: str, text: str) -> ParsedDate | None:
    for pattern, y, mo, d in ((_MDY, 3, 1, 2), (_DMY, 3, 2, 1)):
        m = pattern.search(text)
        if m:
            value = _mk(int(m[y]), _MONTHS[m[mo].lower()], int(m[d]))
            if value:
                return ParsedDate(raw, value, "other", "month name, not written YYYY-MM-DD")
            return ParsedDate(raw, None, "invalid", f"{m.group()} is not a real date")
    return None


def parse_date(raw: str | None) -> ParsedDate:
    """Understand the date formats agents write; say when one is not YYYY-MM-DD or is unclear.

    ``2025-11-13`` is exact; ISO timestamps (form "datetime"), ``2025/11/13``, ``13-11-2025``,
    ``Nov 13, 2025`` and ``13 November 2025`` are understood (form "other"); ``03/04/2025`` is
    ambiguous (no value). Never raises.
    """
    raw = raw or ""
    text = strip_md(raw)
    if not text:
        return ParsedDate(raw, None, "empty")
    for reader in (_iso, _numeric, _named):
        parsed = reader(raw, text)
        if parsed is not None:
            return parsed
    return ParsedDate(raw, None, "invalid", "not a date")
