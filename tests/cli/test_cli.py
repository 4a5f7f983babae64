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


def test_difficulty_is_chosen_for_shamblers_in_play_host_and_sim(capsys):
    import json

    assert cli.main(["sim", "--mode", "shamblers", "--games", "3", "--difficulty", "hard", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["difficulty"] == "hard"
    assert cli.main(["sim", "--mode", "shamblers", "--games", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["difficulty"] == "normal"  # the default
    # A level that does not exist, or a level for the main game: one line, exit 2, before anything starts.
    for argv in (["play", "--mode", "shamblers", "--difficulty", "nightmare"],
                 ["host", "--mode", "shamblers", "--difficulty", "nightmare", "--headless", "--no-save", "--port", "0"],
                 ["sim", "--mode", "shamblers", "--difficulty", "nightmare"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"cthulhu {argv[0]}: --difficulty: unknown difficulty 'nightmare'; choose from easy, normal, hard"]
    for argv in (["play", "--difficulty", "hard"], ["host", "--difficulty", "hard", "--port", "0"], ["sim", "--difficulty", "hard"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"cthulhu {argv[0]}: --difficulty: difficulty levels are for Shamblers mode (--mode shamblers)"]


def test_host_builds_its_table_at_the_chosen_difficulty():
    from cthulhu.cli import build_parser
    from cthulhu.cli.host import table_spec
    from cthulhu.table import open_table

    args = build_parser().parse_args(["host", "--mode", "shamblers", "--difficulty", "easy", "--seats", "2", "--no-save", "--seed", "4"])
    host = open_table(table_spec(args))
    assert host.game.setup.one("difficulty") == "easy" and host.game.state.cfg.difficulty == "easy"


def test_sim_plays_the_heuristic_bot_unless_told_and_says_what_happened_in_sentences(capsys):
    import json
    import re

    assert cli.main(["sim", "--games", "6", "--seed", "2", "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert cli.main(["sim", "--games", "6", "--seed", "2", "--json", "--bot", "heuristic"]) == 0
    heuristic = json.loads(capsys.readouterr().out)
    assert default["bot"] == "heuristic" and default["digest"] == heuristic["digest"]
    assert set(default) == {"mode", "bot", "games", "finished", "errors", "outcomes", "win_rate", "mean_turns", "summoned_share",
                            "loss_causes", "commands", "seconds", "games_per_second", "digest", "content_coverage"}  # --json as it was
    for argv in (["sim", "--games", "6", "--seed", "2"], ["sim", "--games", "6", "--mode", "shamblers", "--bot", "random"]):
        assert cli.main(argv) == 0
        text = capsys.readouterr().out
        assert not re.search(r"[{}\[\]]|\w_\w", text), text  # no dict reprs, no field names
        lines = text.splitlines()
        assert all(line[:1].isupper() or line[:1].isdigit() for line in lines) and all(line.endswith(".") for line in lines), text
        assert re.search(r"^Won \d+ \(\d+\.\d%\), lost \d+ \(\d+\.\d%\); a game lasts [\d.]+ turns on average\.$", text, re.M)
        assert "the same options and seed always give the same digest" in text
    assert cli.main(["sim", "--games", "6", "--seed", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Main game: 6 games, the heuristic bot in every seat, 1 player a table, from seed 2.")
    assert f"Digest {heuristic['digest']}" in text


def test_sims_loss_causes_are_the_modes_own_words_as_the_game_over_summary_says_them(capsys):
    """Not codes with spaces ("all dead", "died before summoning"): each loss cause is told once, in
    the sentence the mode declares for it (the one the game-over dialog shows), with its share."""
    import re

    from cthulhu.core import modes

    for mode in ("main", "shamblers"):
        assert cli.main(["sim", "--games", "10", "--seed", "2", "--bot", "random", "--mode", mode]) == 0
        text = capsys.readouterr().out
        assert not re.search(r"all dead|track end|died before summoning|mat full|by cause", text), text
        endings = {ending.format(elder="the Elder One") for ending in modes.get(mode).endings.values()}
        told = re.findall(r"^Lost \d+ \(\d+\.\d%\): (.+)$", text, re.M)
        assert told and set(told) <= endings, text
