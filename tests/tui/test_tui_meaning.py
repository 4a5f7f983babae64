"""Choices say what they do, the panes show what the rules use, and the settings for a first game (issue 14)."""

from __future__ import annotations

import asyncio

from support.helpers import new_game, rearrange
from support.helpers import hastur_summoned

from cthulhu.cli.embedded import table_link
from cthulhu.content import builtin
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.modes.main.panes import render_investigators, render_story
from cthulhu.tui.modes.main.prompt import option_labels
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.screens.dialogs import help_text
from cthulhu.tui.screens.title import TitleScreen


def discovery_choice(name: str):
    """A game waiting on the choice of the Discovery card `name` (Ada investigates a safe Yard Gate)."""
    game = new_game("ada_whitlock", "mina_castellane", episode="wexley_mill")
    rearrange(game, at={0: "yard_gate", 1: "yard_gate"}, figures=[], fire={})
    s = game.state
    s.discovery_deck[:] = [str(n) for n, card in enumerate(game.content.main.episodes["wexley_mill"].discovery) if card.name == name]
    s.pending = None
    s.stack[-1:] = [{"k": "invest_fight", "inv": 0}]  # straight to Investigate
    game.rules.engine(s).run()
    assert game.prompt.kind == "choose"
    return game


def test_a_discovery_choice_names_its_card_and_shows_what_each_half_does():
    game = discovery_choice("Fire Point")
    view = game.view(0)
    labels, line = option_labels(view["prompt"], view, 200)
    assert line == "Ada Whitlock, Fire Point: choose one"
    assert labels[0] == "Take the axe [Item Fire Axe: Roll 2 extra bonus dice when you attack.]"
    assert labels[1].startswith("Take the coat [Item Wet Canvas Coat: Ignore 1 wound from every enemy attack")


def test_a_choice_whose_label_hides_its_cost_says_it():
    game = discovery_choice("Sleepwalking Weaver")
    view = game.view(0)
    labels, _ = option_labels(view["prompt"], view, 200)
    # "Wake her: roll, 2 successes and she joins you, else lose 1 sanity": the companion it may bring is shown.
    assert "[Companion Agnes Marlow, Weaver: " in labels[0]
    assert labels[1] == "Let her sleep: take 1 stress"


def test_skills_show_every_level_reached():
    game = new_game("ada_whitlock", "mina_castellane")
    game.state.investigators[0].levels["brawling"] = 3
    text = render_investigators(game.view(0), width=70).plain
    levels = game.content.main.skills["brawling"].levels
    for n in range(3):
        assert f"{n + 1}: {levels[n].text[:30]}" in text.replace("\n      ", " ")
    assert f"4: {levels[3].text[:20]}" not in text


def test_the_story_board_shows_the_elder_ones_real_attack_dice():
    game = new_game("ada_whitlock", "mina_castellane", elder_one="hastur")
    rearrange(game, figures=[])
    hastur_summoned(game, stage=3)
    view = game.view(0)
    engine = game.rules.engine(game.state)
    standard, bonus = engine.attack_dice(game.state.figure("elder_one"))
    assert (standard, bonus) == (2 + 1 + 0, 1 + 2 + 1)  # the sum over the revealed stages, not the current one's
    assert f"Hastur attacks with {standard} + {bonus} dice" in render_story(view, 80).plain


def test_shamblers_help_ends_with_its_own_legend_and_the_main_game_with_its_dice():
    content = builtin()
    shamblers = help_text("shamblers", content).strip().splitlines()
    main = help_text("main", content).strip().splitlines()
    assert "Marks: R Rage (red)" in "\n".join(shamblers[-4:])
    assert "success" not in "\n".join(shamblers[-4:]) and "elder sign" not in help_text("shamblers", content)
    assert "* success" in "\n".join(main[-2:])  # the dice legend, wrapped


def test_the_title_screen_turns_hints_off():
    async def main():
        app = CthulhuApp(PlayOptions(seed=5), link_factory=table_link)
        chosen = []
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            title = app.screen
            assert isinstance(title, TitleScreen)
            row = next(n for n, r in enumerate(title.rows) if r.key == "hints")
            for _ in range(row):
                await pilot.press("down")
            await pilot.press("right")
            chosen.append(title.chosen())
            await pilot.press("ctrl+q")
        return chosen[0]

    assert asyncio.run(main()).hints is False


def test_play_and_host_take_the_bot_pace_and_no_hints():
    from cthulhu.cli import build_parser
    from cthulhu.cli.play import options_from

    parser = build_parser()
    options = options_from(parser.parse_args(["play", "--bots", "1", "--bot-delay", "0", "--no-hints"]))
    assert options.bot_delay == 0 and options.hints is False
    defaults = options_from(parser.parse_args(["play"]))
    assert defaults.bot_delay == 0.5 and defaults.hints is True
    host = parser.parse_args(["host", "--no-hints"])
    assert host.bot_delay == 0.5 and host.no_hints


def test_the_investigators_pane_says_what_elder_signs_do_for_each_investigator():
    game = new_game("ada_whitlock", "mina_castellane")
    game.state.investigators[0].levels["brawling"] = 4  # elder signs are successes on her attacks
    view = game.view(0)
    for width, detail in ((70, True), (34, False)):
        text = " ".join(render_investigators(view, detail=detail, width=width).plain.split())
        ada, mina = text.split("Mina Castellane")[0], text.split("Mina Castellane")[1]
        assert "Elder signs: successes on your attacks" in ada if detail else "Elder signs: hits on attack" in ada, text
        assert "Elder signs: no use yet" in mina, text  # the other investigator's lines are short ones
    game.state.active = 1  # her turn: her own lines in full
    text = " ".join(render_investigators(game.view(0), detail=True, width=70).plain.split())
    assert "Elder signs: no use to you yet" in text.split("Ada Whitlock")[0], text


def test_the_dice_line_says_what_the_elder_signs_on_the_dice_do():
    from cthulhu.core import script_dice
    from cthulhu.tui.modes.main.prompt import dice_line

    from support.helpers import do

    game = new_game("yusuf_haddad", "ada_whitlock")  # Warding Sigils 1: elder signs against him cancel successes
    a = game.state.active
    rearrange(game, at={a: "loading_dock"}, figures=[("cultist", "loading_dock")], fire={})
    script_dice(game, "success", "elder")
    do(game, "end_actions")
    line = dice_line(game.view(0), 200).plain
    assert "each elder sign cancels a success" in line, line

    game = new_game("ada_whitlock", "mina_castellane")
    rearrange(game, at={0: "loading_dock"}, figures=[("cultist", "loading_dock")], fire={}, levels={0: {"brawling": 4}})
    script_dice(game, "elder", "", "", "", "")
    do(game, "attack", target="cultist-t1")
    line = dice_line(game.view(0), 200).plain
    assert "each elder sign is a success too" in line, line

    game = new_game("ada_whitlock", "mina_castellane")
    rearrange(game, at={0: "loading_dock"}, figures=[("cultist", "loading_dock")], fire={})
    script_dice(game, "elder", "", "", "", "")
    do(game, "attack", target="cultist-t1")
    line = dice_line(game.view(0), 200).plain
    assert "elder signs do nothing on this roll" in line, line


def test_the_fire_roll_says_and_tells_that_a_shield_cancels_its_successes():
    """The dice line of a Fire roll against a shielded investigator, and the Log's line when it is kept."""
    from support.helpers import burning

    from cthulhu.tui.modes.main.prompt import dice_line
    from cthulhu.tui.narrate import tell

    from support.helpers import do

    game, a = burning("yusuf_haddad", "success", "elder", levels={"warding_sigils": 1})
    line = dice_line(game.view(0), 200).plain
    assert "The flames roll against" in line and "each elder sign cancels a success" in line, line
    view = game.view(0)
    (told,) = [tell(e.wire(), view) for e in do(game, "keep") if e.type == "harm_ignored"]
    assert told == ("good", "Yusuf Haddad's Warding Sigils: 1 elder sign cancels 1 success of the roll against the flames."), told
