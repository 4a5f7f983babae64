"""The panes' pictures and sentences, without a terminal; and the screens at fixed sizes."""

from __future__ import annotations

import asyncio

import pytest
from support.tui_drive import screen_text, started

from cthulhu.cli.embedded import table_link
from cthulhu.core import Game, Setup
from cthulhu.tui.app import CthulhuApp
from cthulhu.tui.modes.main.dice import face_glyph, faces_text
from cthulhu.tui.modes import check_view
from cthulhu.tui.narrate import tell
from cthulhu.tui.options import PlayOptions
from cthulhu.tui.modes.main.map import render_map
from cthulhu.tui.render import abbreviate
from cthulhu.tui.modes.main.panes import render_investigators, render_story


@pytest.fixture(scope="module")
def view():
    return Game.new(Setup(seed=7)).view(0)


def test_map_lays_tiles_out_by_position(view):
    text = render_map(view, 90).plain
    lines = text.splitlines()
    # Counting House sits at (1, 0): above the Spinning Floor at (1, 1), in the same columns.
    top = next(n for n, line in enumerate(lines) if "Counting House" in line)
    mid = next(n for n, line in enumerate(lines) if "Spinning Floor" in line and "Mill Yard" in line)
    assert top < mid
    assert lines[top].index("Counting House") == lines[mid].index("Spinning Floor")
    assert "Mill Yard" in lines[mid] and "Dye Works" in lines[mid]


def test_map_shows_figures_fire_gates_and_the_start(view):
    lines = render_map(view, 90).plain.splitlines()
    yard = next(line for line in lines if "Yard Gate" in line)
    assert " S " in yard and "A" in yard and "M" in yard  # start, both investigators
    assert "F2" in next(line for line in lines if "Spinning Floor" in line and "Mill Yard" not in line)
    assert "#r" in next(line for line in lines if "Vat Hall" in line)
    assert "FV" in next(line for line in lines if "Drying Loft" in line)


def test_ascii_map_is_plain_ascii(view):
    text = render_map(view, 60, ascii_only=True).plain
    assert text.isascii()
    assert "+-" in text and "|" in text


def test_every_map_line_fits_the_width(view):
    for width in (36, 44, 60, 90):
        assert all(len(line) <= max(width, 36) for line in render_map(view, width).plain.splitlines())


def test_abbreviate_keeps_names_readable():
    assert abbreviate("Yard Gate", 20) == "Yard Gate"
    assert len(abbreviate("Spinning Floor", 8)) <= 8
    assert abbreviate("Spinning Floor", 8).startswith("Spin")


def test_investigators_pane_has_tracks_skills_and_turn(view):
    text = render_investigators(view).plain
    assert "Turn 1" in text and "Ada Whitlock" in text
    assert "Wounds [" in text and "Stress [" in text and "Sanity [" in text
    assert "X]" in text  # the skull ends the sanity track
    assert "Smoke Eater 1" in text


def test_views_off_their_declared_shape_are_refused_before_anything_is_drawn(view):
    """The panes read the declared view as it is; the boundary (`check_view`) keeps anything else out."""
    assert check_view(view) == view and "Enemies" in render_story(view).plain
    with pytest.raises(ValueError, match="summoning"):
        check_view(dict(view, summoning={"space": 2}))  # a key the main view does not declare
    with pytest.raises(ValueError, match="elder_one"):
        check_view(dict(view, elder_one={"name": "The Burning One", "stage": 1, "wounds": 0}))  # parts missing
    with pytest.raises(ValueError, match="mode"):
        check_view({"turn": 1})


def test_dice_faces():
    assert face_glyph("standard", "success+tentacle") == "*T"
    assert face_glyph("bonus", "elder+success") == "e*"
    assert face_glyph("standard", "") == "-"
    assert faces_text([["standard", "success"], ["bonus", ""]]) == "[*] [-]"


def test_known_and_unknown_events_read_as_sentences(view):
    kind, text = tell({"type": "moved", "inv": 0, "name": "Ada Whitlock", "frm": "yard_gate", "to": "loading_dock", "space": "Loading Dock"}, view)
    assert (kind, text) == ("move", "Ada Whitlock moves to Loading Dock.")
    kind, text = tell({"type": "mythos_drawn", "inv": 0, "card": "Rising Smoke", "summoning": True, "text": "Smoke."}, view)
    assert (kind, text) == ("story", "Mythos card for Ada Whitlock: Rising Smoke (it bears a summoning symbol). Smoke.")
    # Not one the mode declares (a newer host's): its fields, never a crash or silence.
    kind, text = tell({"type": "brand_new_event", "inv": 0, "to": "loading_dock"}, view)
    assert text == "Brand new event: inv 0, to loading_dock."
    assert tell({"type": "odd", "text": "The walls weep."}, view) == ("story", "The walls weep.")
    # A declared event with a field missing is not told as if it were whole.
    assert tell({"type": "moved", "inv": 0}, view) == ("info", "Moved: inv 0.")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_game_screen_renders_with_all_four_pane_titles(size):
    async def main():
        app = CthulhuApp(PlayOptions(seed=7, skip_title=True), link_factory=table_link)
        async with app.run_test(size=size) as pilot:
            screen = await started(pilot)
            await pilot.pause()
            text = screen_text(app)
            for title in ("Map", "Story Board", "Investigators", "Log"):
                assert title in text
            assert "Run" in text  # the prompt bar
            await pilot.press("tab", "tab")  # the focus goes Map, Investigators, Story Board (shown on small screens)
            await pilot.pause()
            assert "Story Board" in screen_text(app)
            assert screen.focused is screen.query_one("#story")
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_ascii_mode_draws_no_box_characters():
    async def main():
        app = CthulhuApp(PlayOptions(seed=7, skip_title=True, ascii=True), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            await started(pilot)
            await pilot.pause()
            text = screen_text(app)
            assert text.isascii(), sorted({c for c in text if not c.isascii()})
            for key in ("question_mark", "escape", "q"):  # dialogs too
                await pilot.press(key)
                await pilot.pause()
                text = screen_text(app)
                assert text.isascii(), (key, sorted({c for c in text if not c.isascii()}))
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_a_small_terminal_says_what_size_it_needs():
    async def main():
        app = CthulhuApp(PlayOptions(seed=7, skip_title=True), link_factory=table_link)
        async with app.run_test(size=(60, 20)) as pilot:
            await pilot.pause()
            assert "at least 80x24" in screen_text(app)
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_shamblers_mode_gets_its_own_layout():
    async def main():
        app = CthulhuApp(PlayOptions(seed=3, mode="shamblers", skip_title=True), link_factory=table_link)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await started(pilot)
            assert "The Drowned Harbour" in screen.query_one("#map").text()  # tests/test_tui_shamblers_*.py: the rest
            assert screen.query_one("#prompt").options
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_help_screen_opens_and_closes():
    async def main():
        app = CthulhuApp(PlayOptions(seed=7, skip_title=True), link_factory=table_link)
        async with app.run_test(size=(100, 30)) as pilot:
            await started(pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            assert "pick an option" in screen_text(app)
            await pilot.press("escape")
            await pilot.pause()
            assert "pick an option" not in screen_text(app)
            await pilot.press("ctrl+q")

    asyncio.run(main())


def test_reroll_choices_read_their_die_and_cost_from_the_option_data():
    """The bar's reroll labels come from the options' data (die, face, stress), never from the labels."""
    from cthulhu.core import Game, Setup
    from cthulhu.core.bots import make_bot
    from cthulhu.tui.modes.main.prompt import option_labels

    for seed in range(40):
        game = Game.new(Setup(seed=seed))
        bot = make_bot("random", "main", seed)
        while game.outcome is None and game.prompt.kind != "reroll":
            game.apply(game.prompt.seat, bot.choose(game, game.prompt.seat))
        if game.outcome is None and len(game.prompt.options) > 1:
            break
    view = game.view(game.prompt.seat)
    prompt = view["prompt"]
    labels, header = option_labels(prompt, view, 100)
    assert labels[0] == "keep the dice" and prompt["options"][0]["data"] == {"keep": True}
    for label, option in zip(labels[1:], prompt["options"][1:]):
        data = option["data"]
        assert label.startswith(f"reroll {data['die'] + 1}:[")
        assert data["face"] == view["last_roll"]["dice"][data["die"]][1]
    assert header.endswith(("(a reroll is 1 stress)", "(a reroll is free)"))
    assert "keep the dice or reroll one" in header
