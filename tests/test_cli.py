"""The `cthulhu` command line: defaults and argument routing."""

from __future__ import annotations

from cthulhu import cli


def test_bare_options_and_no_arguments_start_play(monkeypatch):
    seen = []

    def fake(args):
        seen.append(args.seed)
        return 0

    monkeypatch.setattr("cthulhu.cli.play.run", fake)
    assert cli.main(["--seed", "3"]) == 0
    assert cli.main([]) == 0
    assert seen == [3, None]


def test_join_with_a_bot_needs_headless(capsys):
    assert cli.main(["join", "127.0.0.1:9", "--bot", "random"]) == 2
    assert "--headless" in capsys.readouterr().err


def test_host_refuses_bad_seat_counts(capsys):
    assert cli.main(["host", "--seats", "2", "--bots", "3"]) == 2
    assert cli.main(["host", "--seats", "2", "--bots", "2"]) == 2
    assert "seat" in capsys.readouterr().err
