"""core.config: the config file (tomllib + a strict pydantic model), clear errors, overrides."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from phasewatch.core.config import (
    DEFAULT_THEME,
    Config,
    ConfigError,
    apply_rule_overrides,
    default_path,
    load,
    show,
)
from phasewatch.core.findings import Finding, Severity


def finding(rule_id: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(rule_id, severity, ".isdlc/state.json", "a.b", None, None, "m", "h")


def test_default_path_follows_xdg_then_home():
    assert default_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/phasewatch/config.toml")
    assert default_path({"HOME": "/h"}) == Path("/h/.config/phasewatch/config.toml")


def test_a_missing_default_file_is_the_defaults(tmp_path):
    config, where = load(environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert config == Config() and where == tmp_path / "phasewatch" / "config.toml"


def test_a_missing_explicit_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "nope.toml")


def test_a_full_file_is_read(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        'theme = "gruvbox"\ndefault_screen = "tdd"\n'
        '[notifications]\ndesktop = false\ncommand = "notify-send pw"\n'
        "[autopilot]\nenabled = false\nwait_seconds = 30\n"
        '[rules]\nSYNC-AGENT = "off"\nHOOK-REGRESSION = "warning"\n'
        '[agents]\nextra = ["my-agent"]\n'
    )
    config, _ = load(path)
    assert config.theme == "gruvbox" and config.default_screen == "tdd"
    assert config.notifications.enabled and not config.notifications.desktop
    assert config.notifications.command == "notify-send pw"
    assert not config.autopilot.enabled and config.autopilot.wait_seconds == 30
    assert config.rules == {"SYNC-AGENT": "off", "HOOK-REGRESSION": "warning"}
    assert config.agents.extra == ("my-agent",)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("theme = ", "not valid TOML"),
        ("colour = 'red'", "colour"),  # a typo is named, not ignored
        ("default_screen = 'nine'", "default_screen"),
        ("[rules]\nSYNC-AGENT = 'loud'", "rules.SYNC-AGENT"),
        ("[autopilot]\nwait_seconds = 0", "autopilot.wait_seconds"),
        ("[notifications]\nbell = true", "notifications.bell"),
    ],
)
def test_errors_name_the_file_and_the_key(tmp_path, text, needle):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load(path)
    assert str(path) in str(err.value) and needle in str(err.value)


def test_hostile_text_in_errors_is_cleaned(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('"\x1b]52;c;eA==\x07" = 1\n')
    with pytest.raises(ConfigError) as err:
        load(path)
    assert "\x1b" not in str(err.value) and "\x07" not in str(err.value)


def test_overrides_drop_off_rules_and_change_severity():
    out = apply_rule_overrides(
        [finding("SYNC-AGENT"), finding("HOOK-REGRESSION"), finding("SYNC-STATUS")],
        {"SYNC-AGENT": "off", "HOOK-REGRESSION": "info"},
    )
    assert [(f.rule_id, f.severity) for f in out] == [
        ("HOOK-REGRESSION", Severity.INFO),
        ("SYNC-STATUS", Severity.ERROR),
    ]


def test_show_prints_toml_that_reads_back_to_the_same_config(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[rules]\nSYNC-AGENT = "off"\n[agents]\nextra = ["a", "b"]\n')
    config, where = load(path)
    text = show(config, where)
    assert text.startswith("# effective configuration")
    # every effective value is printed, the theme too (the default, when the file names none)
    assert 'theme = "textual-dark"  # the default' in text and "# command is not set" in text
    effective = config.model_copy(update={"theme": DEFAULT_THEME})
    assert Config.model_validate(tomllib.loads(text)) == effective


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ('them = "nord"\n', 'did you mean "theme"?'),
        ("[notifications]\ndesktp = false\n", 'did you mean "desktop"?'),
    ],
)
def test_an_unknown_key_is_refused_with_the_closest_name(tmp_path, text, hint):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=hint.replace("?", r"\?")):
        load(path)


def test_an_unknown_rule_is_refused_with_the_closest_name(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[rules]\nSYNC-AGNET = "off"\n')
    with pytest.raises(
        ConfigError, match=r"no rule named 'SYNC-AGNET' \(did you mean \"SYNC-AGENT\"\?\)"
    ):
        load(path)


@pytest.mark.parametrize(
    "text",
    [
        '[notifications]\nenabled = "yes"\n',  # a string is not a boolean
        '[autopilot]\nwait_seconds = "20"\n',  # nor a number
        "[agents]\nextra = [1]\n",  # nor an agent name
    ],
)
def test_values_are_not_coerced(tmp_path, text):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError):
        load(path)


def test_a_relative_xdg_config_home_is_ignored(tmp_path):
    env = {"XDG_CONFIG_HOME": "relative/dir", "HOME": str(tmp_path)}
    assert default_path(env) == tmp_path / ".config" / "phasewatch" / "config.toml"
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    assert default_path(env) == tmp_path / "xdg" / "phasewatch" / "config.toml"


def test_a_fifo_config_is_refused_without_hanging(tmp_path):
    import os

    fifo = tmp_path / "c.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError):
        load(fifo)


def test_the_demo_takes_its_autopilot_from_the_config(tmp_path, monkeypatch):
    from phasewatch.tui import demo

    seen: list[float] = []
    monkeypatch.setattr(demo, "_headless", lambda args, root: seen.append(args.autopilot) or 0)
    config = tmp_path / "c.toml"
    run = ["--headless", "--config", str(config), "--dir"]
    config.write_text("[autopilot]\nenabled = false\n")
    assert demo.main([*run, str(tmp_path / "d")]) == 0
    config.write_text("[autopilot]\nwait_seconds = 7\n")
    assert demo.main([*run, str(tmp_path / "e")]) == 0
    assert demo.main(["--autopilot", "3", *run, str(tmp_path / "f")]) == 0  # the flag wins
    config.write_text("[autopilot]\nwait_seconds = -1\n")
    assert demo.main([*run, str(tmp_path / "g")]) == 2
    assert seen == [0.0, 7.0, 3.0]


# ------------------------------------------------------------------ the dashboard's config


def _dashboard(argv: list[str], monkeypatch, home: Path):
    from phasewatch.tui.cli import _dashboard_config, _dashboard_parser

    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return _dashboard_config(_dashboard_parser().parse_args(argv))


def test_the_dashboard_reads_a_config_only_when_there_is_one(tmp_path, monkeypatch, capsys):
    """No file and no flags: None (the app makes the defaults after its first frame); a file
    or a notification flag: the config, read before the app starts; a broken file: False and
    the error, before any screen."""
    assert _dashboard([], monkeypatch, tmp_path) is None
    assert _dashboard(["--no-notify"], monkeypatch, tmp_path).notifications.enabled is False
    cmd = _dashboard(["--notify-cmd", "notify-send x"], monkeypatch, tmp_path)
    assert cmd.notifications.command == "notify-send x"
    (tmp_path / "phasewatch").mkdir()
    (tmp_path / "phasewatch" / "config.toml").write_text('theme = "textual-light"\n')
    assert _dashboard([], monkeypatch, tmp_path).theme == "textual-light"
    (tmp_path / "phasewatch" / "config.toml").write_text("them = 1\n")
    assert _dashboard([], monkeypatch, tmp_path) is False
    assert "them" in capsys.readouterr().err


# ------------------------------------------------------------------ refused, never cut or ignored


def _too_large(path: Path) -> None:
    """Valid TOML over the cap whose last setting lies past it: a cut read loses it silently."""
    from phasewatch.core.config import MAX_CONFIG_BYTES

    path.write_text("# padding\n" * (MAX_CONFIG_BYTES // 10 + 1) + 'theme = "textual-light"\n')


def _too_deep(path: Path) -> None:
    path.write_text("[agents]\nextra = " + "[" * 5000 + "]" * 5000 + "\n")


def _unknown_rule(path: Path) -> None:
    path.write_text('[rules]\nSYNC-AGENT = "off"\nSYNC-AGENTT = "off"\n')  # a typo


def _nested_deep_but_parsable(path: Path) -> None:
    path.write_text("[agents]\nextra = " + "[" * 60 + '"a"' + "]" * 60 + "\n")


@pytest.mark.parametrize(
    ("write", "needle"),
    [
        (_too_large, "larger than"),
        (_too_deep, "nested"),
        (_nested_deep_but_parsable, "nested"),
        (_unknown_rule, "SYNC-AGENTT"),
    ],
)
def test_a_config_that_cannot_be_used_whole_is_refused(tmp_path, write, needle):
    path = tmp_path / "c.toml"
    write(path)
    with pytest.raises(ConfigError) as err:
        load(path)
    assert needle in str(err.value) and str(path) in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("write", [_too_large, _too_deep, _unknown_rule])
@pytest.mark.parametrize("command", ["check", "config"])
def test_the_command_line_exits_2_with_one_clear_line(tmp_path, capsys, write, command):
    from phasewatch.tui import cli

    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text('{"state_version": 1}')
    path = tmp_path / "c.toml"
    write(path)
    argv = (
        ["check", str(tmp_path), "--config", str(path)]
        if command == "check"
        else ["config", "--show", "--config", str(path)]
    )
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"phasewatch {command}: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_the_notifier_defaults_are_the_configs():
    """Without a config file the dashboard's notifier keeps its own defaults (no config model,
    no pydantic): they must be the config's."""
    from phasewatch.core.notify import Notifier

    notes, notifier = Config.defaults().notifications, Notifier()
    assert (notifier.enabled, notifier.desktop, notifier.command) == (
        notes.enabled,
        notes.desktop,
        notes.command,
    )
    assert set(type(notes).model_fields) == {"enabled", "desktop", "command"}
