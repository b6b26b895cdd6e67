"""``phasewatch completion SHELL``: the generated script knows every command and main option.

The script comes from ``full_parser``, which assembles the same parser functions the commands
parse with, so an option added to a command appears here without a second definition.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from phasewatch.tui import cli

MAIN_OPTIONS = {
    "check": ("--format", "--strict", "--config", "--rules"),
    "serve": ("--host", "--port", "--allow-remote"),
    "simulate": ("--workflow", "--faults", "--fast"),
    "config": ("--show",),
    "dashboard": ("--notify-cmd", "--no-notify", "--read-only"),
}


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["completion", shell]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("shell", cli.SHELLS)
def test_script_names_every_command_and_main_option(shell, capsys):
    script = _script(shell, capsys)
    for command in cli.COMMANDS:
        assert command in script, command
    for options in MAIN_OPTIONS.values():
        for option in options:
            # tcsh lists the long options once, after a shared ``--`` (``c/--/(format ...)/``)
            assert (option.removeprefix("--") if shell == "tcsh" else option) in script, option


def test_full_parser_has_each_commands_own_options():
    """Every option of every command's parser is in the tree (nothing defined twice)."""
    root = cli.full_parser()
    sub = next(a for a in root._actions if a.dest == "command")
    assert set(sub.choices) == set(cli.COMMANDS)
    for name, build in cli.command_parsers().items():
        own = {o for a in build()._actions for o in a.option_strings}
        tree = {o for a in sub.choices[name]._actions for o in a.option_strings}
        assert own == tree, name


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_script_completes_commands_and_choices(capsys, tmp_path):
    """Source the script in a real bash and ask it what TAB offers."""
    path = tmp_path / "phasewatch.bash"
    path.write_text(_script("bash", capsys))
    probe = (
        f"source {path}\n"
        't(){ COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); '
        '_shtab_phasewatch; echo "${COMPREPLY[*]}"; }\n'
        't phasewatch co\nt phasewatch check --format ""\nt phasewatch review ""\n'
    )
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [
        "config completion",
        "text json sarif github",
        "continue review resume redo",
    ]


def test_unknown_shell_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["completion", "fish"])
    assert exc.value.code == 2


def test_without_shtab_says_which_extra(monkeypatch, capsys):
    monkeypatch.setitem(__import__("sys").modules, "shtab", None)  # import shtab -> ImportError
    assert cli.main(["completion", "bash"]) == 2
    assert "phasewatch[completion]" in capsys.readouterr().err
