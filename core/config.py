"""The user's configuration: ``$XDG_CONFIG_HOME/phasewatch/config.toml`` (or ``--config``).

Read with :mod:`tomllib`, validated by a pydantic model that forbids unknown keys, so a typo is an
error naming the key and the file instead of a setting silently ignored; a ``[rules]`` id that
names no rule, a file over ``MAX_CONFIG_BYTES`` (never cut) and values nested deeper than
``MAX_DEPTH`` are refused the same way. A missing default file
is the defaults; a missing file named with ``--config`` is an error.

```toml
theme = "textual-dark"          # any Textual theme name
default_screen = "overview"     # overview | hooks | timeline | history | tdd | plugins

[notifications]
enabled = true                  # the off switch for all of them
desktop = true                  # OSC 9 / OSC 777 through the terminal
command = "notify-send {title} {summary}"  # the event's fields in its words, JSON on stdin

[autopilot]
enabled = false                 # the demo's autopilot (``phasewatch demo``)
wait_seconds = 20

[rules]
SYNC-AGENT = "off"              # off | error | warning | info
"HOOK-REGRESSION" = "warning"

[agents]
extra = ["my-custom-agent"]     # agent names to accept besides the framework's
```
"""

from __future__ import annotations

import difflib
import json
import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal

from msgspec.structs import replace
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config_file import default_path
from .files.read import ReadRefused, read_regular
from .findings import Finding, Severity
from .text import clean, decode, shorten

Screen = Literal["overview", "hooks", "timeline", "history", "tdd", "plugins", "views"]
Override = Literal["off", "error", "warning", "info"]
MAX_CONFIG_BYTES = 1024 * 1024
#: Tables and arrays nest at most this deep (the schema's deepest value, ``[agents] extra``, is
#: 2): a deeper file is refused with a message, never a RecursionError.
MAX_DEPTH = 4


#: The theme Textual shows when the config names none (``config --show`` prints it).
DEFAULT_THEME = "textual-dark"


class _Section(BaseModel):
    # built on the first validation: a run without a config file never builds a schema; strict:
    # "yes" is not true and "20" is not a number (a value of the wrong type is an error)
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True, strict=True)


class Notifications(_Section):
    enabled: bool = True
    desktop: bool = True
    command: str | None = None


class Autopilot(_Section):
    enabled: bool = True
    wait_seconds: Annotated[float, Field(ge=1, le=3600)] = 20.0


class Agents(_Section):
    # a TOML array is a list: the one conversion allowed (its items must still be strings)
    extra: Annotated[tuple[str, ...], Field(strict=False)] = ()


class Config(_Section):
    theme: str | None = None
    default_screen: Screen = "overview"
    notifications: Notifications = Field(default_factory=Notifications.model_construct)
    autopilot: Autopilot = Field(default_factory=Autopilot.model_construct)
    rules: dict[str, Override] = {}
    agents: Agents = Field(default_factory=Agents.model_construct)

    @classmethod
    def defaults(cls) -> Config:
        """The defaults, as they are (nothing to validate)."""
        return cls.model_construct()


class ConfigError(ValueError):
    """The config file cannot be used; the message names the file and the fix."""


def load(path: Path | None = None, environ: dict[str, str] | None = None) -> tuple[Config, Path]:
    """The effective config and the file it came from (read or not). ``path`` None: the
    default location, where a missing file means the defaults."""
    explicit = path is not None
    where = path if path is not None else default_path(environ)
    try:  # whole or not at all: a file over the cap is refused, never cut
        text = decode(read_regular(where, cap=MAX_CONFIG_BYTES)[0])
    except ReadRefused as exc:
        if not explicit and exc.kind == "missing" and not os.path.lexists(where):
            return Config.defaults(), where
        raise ConfigError(f"{_name(where)}: cannot read it ({clean(exc.reason)})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{_name(where)}: not valid TOML: {shorten(clean(str(exc)), 200)}"
        ) from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        data = None
    if data is None or _depth(data) > MAX_DEPTH:
        raise ConfigError(
            f"{_name(where)}: values nested more than {MAX_DEPTH} levels deep; a phasewatch "
            "config is at most a table of lists of strings"
        )
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{_name(where)}: {_problems(exc)}") from None
    unknown = _unknown_rules(config.rules)
    if unknown:
        raise ConfigError(
            f"{_name(where)}: rules: no rule named {'; '.join(unknown)} (`phasewatch check "
            "--rules` lists them); the override would change nothing"
        )
    return config, where


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean "X"?)`` for the closest of ``choices``, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {json.dumps(close[0])}?)" if close else ""


def _depth(value: object) -> int:
    """How deep tables and arrays nest in ``value`` (a scalar: 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        )
        if children is None:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def _unknown_rules(rules: dict[str, Override]) -> list[str]:
    """The ids in ``[rules]`` that name no rule (cleaned, quoted), in the file's order."""
    if not rules:
        return []
    from .rules import all_rules  # imports every rule module: only when there are overrides

    known = {r.id for r in all_rules()}
    return [
        shorten(clean(repr(rule_id)), 60) + did_you_mean(rule_id.upper(), known)
        for rule_id in rules
        if rule_id not in known
    ]


def _name(path: Path) -> str:
    return clean(str(path))


def _problems(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        hint = ""
        if err["type"] == "extra_forbidden":  # a key no section has: name the closest one
            hint = did_you_mean(str(err["loc"][-1]), _keys_at(err["loc"][:-1]))
        parts.append(f"{shorten(clean(where), 80)}: {shorten(clean(err['msg']), 120)}{hint}")
    return "; ".join(parts)


def _keys_at(loc: tuple[int | str, ...]) -> list[str]:
    """The keys the schema allows at ``loc`` (a section, or the top level)."""
    model: type[BaseModel] = Config
    for part in loc:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def apply_rule_overrides(findings: Iterable[Finding], rules: dict[str, Override]) -> list[Finding]:
    """``findings`` with the user's per-rule severities: ``off`` drops the finding."""
    out = []
    for finding in findings:
        override = rules.get(finding.rule_id)
        if override == "off":
            continue
        out.append(finding if override is None else replace(finding, severity=Severity(override)))
    return out


def apply_config(findings: Iterable[Finding], config: Config) -> list[Finding]:
    """``findings`` as the user configured them: a SYNC-AGENT finding about an agent named in
    ``[agents] extra`` is dropped (that agent is accepted), then ``[rules]`` applies."""
    extra = set(config.agents.extra)
    kept = [f for f in findings if not (f.rule_id == "SYNC-AGENT" and f.actual in extra)]
    return apply_rule_overrides(kept, config.rules)


def show(config: Config, where: Path) -> str:
    """``phasewatch config --show``: the effective config as TOML, with where it came from."""
    lines = [
        f"# effective configuration (file: {_name(where)}"
        f"{'' if where.exists() else ', not present: defaults'})"
    ]
    top = config.model_dump()
    theme = top["theme"]
    lines.append(f"theme = {_toml(theme or DEFAULT_THEME)}" + ("" if theme else "  # the default"))
    lines.append(f"default_screen = {_toml(top['default_screen'])}")
    for section in ("notifications", "autopilot", "agents", "rules"):
        lines.append("")
        lines.append(f"[{section}]")
        for key, value in top[section].items():
            if value is None:  # TOML has no null: say it is unset
                lines.append(f"# {_toml_key(key)} is not set")
            else:
                lines.append(f"{_toml_key(key)} = {_toml(value)}")
        if not top[section]:
            lines.append("# (none)")
    return "\n".join(lines)


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else _toml(key)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(clean(str(value)), ensure_ascii=False)
