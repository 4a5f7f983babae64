"""A strict, helpful command line: bad ids are one line naming the value and the valid ids (exit 2),
`cthulhu content list` shows every id, every command and option has help, and seats count from 1."""

from __future__ import annotations

import argparse

import pytest

from cthulhu import cli
from cthulhu.content import builtin
from cthulhu.core import modes

IDS = {mode.name: {o.name: o.listing(builtin().modes.get(mode.name)) for o in mode.options} for mode in modes.all_modes()}


def ids(choice: str) -> str:
    return ", ".join(key for listing in IDS.values() for key, _ in listing.get(choice, []))


BAD = [
    (["--episode", "nope"], "--episode: unknown episode 'nope'; choose from " + ids("episode")),
    (["--elder-one", "nope"], "--elder-one: unknown Elder One 'nope'; choose from " + ids("elder_one")),
    (["--mode", "shamblers", "--difficulty", "nope"], "--difficulty: unknown difficulty 'nope'; choose from " + ids("difficulty")),
    (["--mode", "shamblers", "--episode", "wexley_mill"], "--episode: episodes are for Main game mode (--mode main)"),
    (["--mode", "shamblers", "--elder-one", "hastur"], "--elder-one: Elder Ones are for Main game mode (--mode main)"),
]


@pytest.mark.parametrize("command", ["play", "host", "sim"])
@pytest.mark.parametrize(("options", "line"), BAD, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_bad_id_is_one_line_naming_it_and_the_valid_ones(command, options, line, capsys):
    extra = ["--headless", "--no-save", "--port", "0"] if command == "host" else []
    assert cli.main([command, *options, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"cthulhu {command}: {line}"]
    assert captured.out == ""


@pytest.mark.parametrize(("command", "flags"), [
    ("play", ["--seed", "3"]), ("play", ["--elder-one", "hastur"]), ("play", ["--mode", "shamblers"]), ("play", ["--players", "2"]),
    ("play", ["--bots", "1"]), ("play", ["--advice", "off"]), ("host", ["--seats", "2"]), ("host", ["--bots", "1"]),
    ("host", ["--episode", "wexley_mill"]), ("host", ["--seed", "3"]),
])
def test_a_set_up_flag_given_with_load_is_one_line_naming_it(command, flags, tmp_path, capsys):
    """A loaded game keeps the set-up it was saved with: a set-up flag with `--load` is refused by
    name (exit 2) before the save is even looked for, never silently ignored."""
    extra = ["--headless", "--no-save", "--port", "0"] if command == "host" else []
    assert cli.main([command, "--load", str(tmp_path / "game.save"), *flags, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"cthulhu {command}: {flags[0]} cannot be used with --load: a loaded game keeps the set-up it was saved with"], captured.err
    assert captured.out == ""


@pytest.mark.parametrize("command", ["play", "sim", "host"])
def test_every_investigator_is_checked(command, capsys):
    extra = ["--headless", "--no-save", "--port", "0"] if command == "host" else []
    assert cli.main([command, "--investigators", "ada_whitlock,nobody", *extra]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"cthulhu {command}: --investigators: unknown investigator 'nobody'; choose from {ids('investigators')}"
    ]


@pytest.mark.parametrize("command", ["play", "sim", "host"])
@pytest.mark.parametrize("investigators", ["ada_whitlock", "ada_whitlock,osric_vane,mina_castellane"])
def test_a_one_player_table_takes_exactly_two_investigators(command, investigators, capsys):
    extra = ["--headless", "--no-save", "--port", "0", "--seats", "1"] if command == "host" else []
    assert cli.main([command, "--investigators", investigators, *extra]) == 2
    n = investigators.count(",") + 1
    assert capsys.readouterr().err.splitlines() == [
        f"cthulhu {command}: a one-player game is played with exactly 2 investigators (you play both, taking turns), not {n}"
    ]


def test_a_host_seats_the_investigators_it_is_given(capsys):
    from cthulhu.cli.host import table_spec
    from cthulhu.table import open_table

    args = cli.build_parser().parse_args(["host", "--headless", "--no-save", "--port", "0", "--seats", "2", "--seed", "4",
                                          "--investigators", "osric_vane,ruth_ashby"])
    host = open_table(table_spec(args))
    assert [i["name"] for i in host.game.view(None)["investigators"]] == ["Osric Vane", "Ruth Ashby"]
    assert cli.main(["host", "--headless", "--no-save", "--port", "0", "--seats", "2", "--investigators", "osric_vane"]) == 2
    assert capsys.readouterr().err.splitlines() == ["cthulhu host: every player needs an investigator: 2 players, 1 investigator(s) seated"]


@pytest.mark.parametrize("argv", [["play"], ["host"], ["join", "127.0.0.1:9"], ["replay", "x.save"]])
def test_a_bad_theme_or_mode_is_one_line_and_exit_2(argv, capsys):
    for bad in (["--theme", "bogus"], ["--mode", "bogus"]):
        if argv[0] in ("join", "replay") and bad[0] == "--mode":
            continue
        with pytest.raises(SystemExit) as stop:
            cli.main([*argv, *bad])
        assert stop.value.code == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and "'bogus'" in err[0] and "choose from" in err[0], err
        assert err[0].startswith(f"cthulhu {argv[0]}: argument {bad[0]}")


def test_content_list_prints_every_episode_elder_one_investigator_and_difficulty(capsys):
    assert cli.main(["content", "list"]) == 0
    out = capsys.readouterr().out
    for mode in modes.all_modes():
        assert f"(--mode {mode.name})" in out
    for listing in IDS.values():
        for choice, entries in listing.items():
            for key, about in entries:
                assert any(line.split() [:1] == [key] and about in line for line in out.splitlines()), (choice, key)
    for heading in ("episodes (--episode)", "Elder Ones (--elder-one)", "investigators (--investigators)", "difficulty levels (--difficulty)"):
        assert heading in out


def _walk(parser: argparse.ArgumentParser, path: list[str]):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
            for name, sub in action.choices.items():
                yield path + [name], "command", helps.get(name), sub.description
                yield from _walk(sub, path + [name])
        elif not isinstance(action, argparse._HelpAction):
            yield path, "/".join(action.option_strings) or action.dest, action.help, None


def test_every_command_and_option_has_help():
    seen = list(_walk(cli.build_parser(), ["cthulhu"]))
    assert len(seen) > 60
    for path, what, help_text, description in seen:
        assert help_text, (path, what)
        if what == "command":
            assert description, (path, "description")


def test_help_names_the_valid_ids(capsys):
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for choice in ("episode", "elder_one", "difficulty", "investigators"):
        assert ids(choice) in out, choice


def test_replay_counts_seats_from_1_as_the_table_does(capsys, tmp_path):
    from pathlib import Path

    save = Path(__file__).resolve().parents[2] / "saves" / "example-midgame-main.save"
    assert cli.main(["replay", str(save)]) == 0
    out = capsys.readouterr().out
    assert "waiting for seat 1 (" in out or "waiting for seat 2 (" in out
    assert "seat 0" not in out


def _numeric_options() -> list[tuple[str, str, type]]:
    """(command, option, type) for every option of every subcommand that takes a number."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for name, command in sub.choices.items():
        for action in command._actions:
            if action.type in (int, float) and action.option_strings:
                out.append((name, action.option_strings[0], action.type))
    return out


NEEDS = {"join": ["127.0.0.1:9", "--headless", "--bot", "random"], "replay": ["saves/example-won-main.save"],
         "host": ["--headless", "--no-save"], "sim": ["--games", "1"], "tables": ["127.0.0.1:9", "--create"],
         "server": ["--data", "/nonexistent/cthulhu-strict"]}


def test_every_numeric_option_is_listed_here():
    found = {(c, o) for c, o, _ in _numeric_options()}
    assert {("play", "--players"), ("play", "--seed"), ("play", "--bot-delay"), ("host", "--port"), ("host", "--away-bot"),
            ("sim", "--turn-limit"), ("join", "--seat"), ("replay", "--seek")} <= found


def _bad_numbers(option_kind: type) -> list[str]:
    """Below, above and not a number at all."""
    return ["-1", "99999999999999999999999"] + (["nan", "inf"] if option_kind is float else [])


def _argvs(command: str, option: str, kind: type) -> list[list[str]]:
    return [[command, *NEEDS.get(command, []), f"{option}={value}"] for value in _bad_numbers(kind)]


# Each of these, run in one child process with a time limit, so that a missed check starts nothing
# here that waits (`host`, `join` and `server` would serve or connect): the child runs them one after
# another, each through `cli.main` as `python -m cthulhu.cli` would, and prints what each said.
CHILD = """
import contextlib, io, json, sys
from cthulhu import cli
for argv in json.loads(sys.stdin.read()):
    print("CTHULHU-STRICT " + json.dumps({"started": argv}), flush=True)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    print("CTHULHU-STRICT " + json.dumps({"argv": argv, "code": code, "err": err.getvalue()}), flush=True)
"""
IN_A_CHILD = ("host", "join", "server")


@pytest.fixture(scope="module")
def children_said() -> dict[tuple[str, ...], tuple[int, str]]:
    """(exit status, stderr) of every bad number of `host`, `join` and `server`, from one child (the
    import is most of what a child costs: one child for all of them rather than one each)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    argvs = [argv for command, option, kind in _numeric_options() if command in IN_A_CHILD for argv in _argvs(command, option, kind)]
    try:
        done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(argvs), capture_output=True, text=True, timeout=120,
                              cwd=Path(__file__).resolve().parents[2])
        out, err = done.stdout, done.stderr
    except subprocess.TimeoutExpired as hung:  # a missed check: the command started and waited
        out = hung.stdout.decode() if isinstance(hung.stdout, bytes) else hung.stdout or ""
        err = "(still running after 120 s)"
    said = [json.loads(line.removeprefix("CTHULHU-STRICT ")) for line in out.splitlines() if line.startswith("CTHULHU-STRICT ")]
    results = {tuple(r["argv"]): (r["code"], r["err"]) for r in said if "argv" in r}
    missing = [argv for argv in argvs if tuple(argv) not in results]
    assert not missing, f"the child stopped at {said[-1] if said else 'the start'}: {err[-2000:]}"
    return results


@pytest.mark.parametrize(("command", "option", "kind"), _numeric_options(), ids=lambda v: getattr(v, "__name__", v))
def test_every_bad_number_is_one_line_and_exit_2(command, option, kind, capsys, monkeypatch, request):
    """Below, above and not a number at all: one line naming the option, status 2, nothing started.
    In this process where a missed check cannot start anything that waits (`play` then stops at
    "needs a terminal"), in a time-limited child for `host`, `join` and `server` (`children_said`)."""
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    for argv in _argvs(command, option, kind):
        if command in IN_A_CHILD:
            code, err = request.getfixturevalue("children_said")[tuple(argv)]
        else:
            try:
                code = cli.main(argv)
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
            err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, (argv, code, err)
        assert lines[0].startswith(f"cthulhu {command}: ") and (option in lines[0] or "no step" in lines[0]), (argv, lines)


@pytest.mark.parametrize("address", ["127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1:-5"])
def test_a_join_address_with_a_bad_port_is_one_line_and_exit_2(address, capsys):
    assert cli.main(["join", address, "--headless", "--bot", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cthulhu join: bad address"), err


BOT_MISUSE = [
    (["sim", "--bot", "search", "--think", "1", "--sims", "3"], "cthulhu sim: --think and --sims: give one of them (a time, or a number of simulations)"),
    (["sim", "--bot", "search", "--think", "0"], "cthulhu sim: --think must be 0.01 to 600 seconds, not 0"),
    (["sim", "--bot", "search", "--sims", "0"], "cthulhu sim: --sims must be 1 to 1000000, not 0"),
    (["host", "--headless", "--no-save", "--port", "0", "--sims", "-2"], "cthulhu host: --sims must be 1 to 1000000, not -2"),
    (["play", "--think", "900"], "cthulhu play: --think must be 0.01 to 600 seconds, not 900"),
    (["join", "127.0.0.1:9", "--sims", "5"], "cthulhu join: --think and --sims are for a bot (--headless --bot search)"),
    (["join", "127.0.0.1:9", "--headless", "--bot", "search", "--think", "-1"], "cthulhu join: --think must be 0.01 to 600 seconds, not -1"),
    (["play", "--advice", "maybe"], "cthulhu play: --advice: unknown advice setting 'maybe'; choose from on, off"),
    (["host", "--headless", "--no-save", "--port", "0", "--mode", "shamblers", "--advice", "no"],
     "cthulhu host: --advice: unknown advice setting 'no'; choose from on, off"),
]


@pytest.mark.parametrize(("argv", "line"), BOT_MISUSE, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_bad_thinking_budget_or_house_rule_is_one_line_and_exit_2(argv, line, capsys):
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # `play` checks its numbers where it builds its options
        code = stop.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [line] and captured.out == ""


@pytest.mark.parametrize("command", ["play", "host", "join", "sim"])
def test_every_command_that_takes_a_bot_takes_every_kind(command, capsys):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert ", ".join(modes.bot_kinds()) in out and "search" in modes.bot_kinds()
    assert "--think SECONDS" in out and "--sims N" in out
