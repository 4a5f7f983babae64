"""No figure is ever dropped from the map (issue 14): names shrink first, then the marks close up, and a
space that still cannot hold them all ends in `+` and is written out in full under the map.

Checked at the width the Map pane has on an 80x24 terminal, at every step of a crowded replay of every
episode (five investigators who start in one space, enemies following them around), on a table crowded
by hand, and in the real app's replay viewer.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from support.tui_drive import started, wait_for

from cthulhu.cli.embedded import table_link
from cthulhu.content import builtin
from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.core.main.state import Figure
from cthulhu.tui.modes.main.map import draw_map, investigator_marks, render_legend, space_tags

MAP_WIDTH_80X24 = 43  # the Map pane's text width at 80x24, beside its scrollbar (checked against the real app below)
FIVE = ["ada_whitlock", "mina_castellane", "osric_vane", "petra_lindqvist", "ruth_ashby"]


def missing_marks(view, width: int) -> list[str]:
    """Marks of the table absent from their space's line (and, for an overflowing line, from the list under the map)."""
    _, overflow, lines = draw_map(view, width)
    legend = render_legend(view, width, overflow).plain
    marks = investigator_marks(view)
    names = {sp["id"]: sp["name"] for t in view["episode"]["tiles"] for sp in t["spaces"]}
    problems = []
    for sid, line in lines.items():
        tags = [t for t, _ in space_tags(view, sid, marks)]
        if not tags:
            continue
        where = line
        if sid in overflow:
            where = next((row for row in legend.splitlines() if row.startswith(f"+ {names[sid]}:")), "")
        if not re.search(r"\s?".join(re.escape(t) for t in tags), where):
            problems.append(f"{names[sid]}: {tags} not all in {where!r}")
    return problems


def crowded_views(episode: str, seed: int, steps: int = 250):
    """Views along a five-investigator game played by bots (a replay of it shows these tables)."""
    game = Game.new(Setup(seed=seed, episode=episode, investigators=FIVE, players=5))
    bots = {s: make_bot("heuristic", "main", seed + s) for s in range(5)}
    yield game.view(None)
    for _ in range(steps):
        prompt = game.prompt
        if game.outcome is not None or prompt is None:
            return
        game.apply(prompt.seat, bots[prompt.seat].choose(game, prompt.seat))
        yield game.view(None)


@pytest.mark.parametrize("episode", sorted(builtin().main.episodes))
def test_no_figure_is_dropped_at_80x24_in_a_crowded_replay(episode):
    seen = 0
    for view in crowded_views(episode, seed=11):
        problems = missing_marks(view, MAP_WIDTH_80X24)
        assert not problems, (view["step"], problems)
        seen += 1
    assert seen > 20


@pytest.mark.parametrize("episode", sorted(builtin().main.episodes))
def test_a_space_too_crowded_for_its_line_is_written_out_under_the_map(episode):
    game = Game.new(Setup(seed=1, episode=episode, investigators=FIVE, players=5))
    s = game.state
    start = game.content.main.episodes[episode].map.start
    gate = game.content.main.episodes[episode].map.gates["red"]
    for kind in list(s.reserve):  # every figure left in the box onto two spaces
        for n in range(s.reserve[kind]):
            s.figures.append(Figure(id=f"{kind}-x{n}", kind=kind, space=start if n % 2 else gate))
            if n % 3 == 0:
                s.figures[-1].wounds = 1
        s.reserve[kind] = 0
    s.figures.append(Figure(id="elder_one", kind="elder_one", space=start))
    view = game.view(None)
    _, overflow, _ = draw_map(view, MAP_WIDTH_80X24)
    assert start in overflow  # five investigators, the Elder One and a crowd cannot share one short line
    assert not missing_marks(view, MAP_WIDTH_80X24)
    for width in (60, 70, 90):
        assert not missing_marks(view, width)


def test_the_replay_viewer_at_80x24_draws_every_figure(tmp_path):
    from cthulhu.savegame.writer import SaveWriter
    from cthulhu.tui.app import CthulhuApp
    from cthulhu.tui.screens.replay import open_replay

    game = Game.new(Setup(seed=11, episode="wexley_mill", investigators=FIVE, players=5))
    path = tmp_path / "crowd.save"
    writer = SaveWriter(path, game, fsync=False)
    bots = {s: make_bot("heuristic", "main", 11 + s) for s in range(5)}
    for _ in range(60):
        prompt = game.prompt
        command = bots[prompt.seat].choose(game, prompt.seat)
        game.apply(prompt.seat, command)
        writer.append(prompt.seat, command.wire(), game.state_hash())
    writer.write()

    async def main():
        app = CthulhuApp(link_factory=table_link)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.push_screen(open_replay(path))
            screen = await started(pilot)
            pane = screen.query_one("#map")
            await wait_for(pilot, lambda: pane.text_width > 0)
            assert pane.text_width == MAP_WIDTH_80X24
            for _ in range(60):
                await pilot.press("right")
                await pilot.pause(0.02)
                assert not missing_marks(screen.view, pane.text_width), screen.view["step"]
                drawn = pane.text()
                for inv in screen.view["investigators"]:
                    assert inv["alive"] is False or investigator_marks(screen.view)[inv["index"]][0] in drawn
            await pilot.press("ctrl+q")

    asyncio.run(main())
