"""Recordings: `cthulhu replay --cast` writes an asciinema v2 file that, read back line by line with
`json` and played through a terminal emulator (pyte), shows at every step the screen the app drew;
`--svg` writes the app's own pictures; neither needs a terminal, and an unfinished game's seed
stays out of both."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pyte
import pytest

from cthulhu.core import Game, Setup
from cthulhu.savegame import SaveWriter, load
from cthulhu.tui.compositor import CompositorUpdate
from cthulhu.tui.record import Recorder
from cthulhu.tui.terminal import DiffUpdate
from support.saveplay import play

SIZE = (100, 32)


def short_save(tmp_path: Path, mode: str, steps: int = 10, seed: int = 4242) -> Path:
    game = Game.new(Setup(mode=mode, seed=seed, players=2))
    path = tmp_path / f"{mode}.save"
    writer = SaveWriter(path, game, players=[{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bo"}])
    play(game, writer.append, steps=steps)
    writer.close()
    return path


def read_cast(path: Path) -> tuple[dict, list[list]]:
    """The header and events of an asciinema v2 file, as its format says: one JSON value a line."""
    with path.open(encoding="utf-8") as f:
        header = json.loads(f.readline())
        events = [json.loads(line) for line in f if line.strip()]
    return header, events


def screen_of(events: list[list], upto: float, size: tuple[int, int]) -> list[str]:
    screen = pyte.Screen(*size)
    stream = pyte.Stream(screen)
    for at, kind, data in events:
        if at <= upto:
            stream.feed(data)
    return list(screen.display)


@pytest.mark.parametrize("mode", ["main", "shamblers"])
def test_the_cast_replays_through_pyte_into_the_screen_the_app_drew_at_every_step(tmp_path, mode):
    path = short_save(tmp_path, mode)
    save = load(path)
    drawn: dict[int, list[str]] = {}
    reference = pyte.Screen(*SIZE)
    feed = pyte.Stream(reference)

    def watch(step: int, app) -> None:
        drawn[step] = list(reference.display)

    recorder = Recorder(save, size=SIZE, speed=2, on_step=watch, name=path.name)
    app = recorder.app
    display = app._display

    def whole_frames(screen, renderable) -> None:  # Textual's own output, every region in full: the app's screen
        if isinstance(renderable, CompositorUpdate) and not isinstance(renderable, DiffUpdate):
            feed.feed(renderable.render_segments(app.console))
        display(screen, renderable)

    app._display = whole_frames
    recording = asyncio.run(asyncio.wait_for(recorder.run(), 600))
    cast = tmp_path / "game.cast"
    cast.write_text("".join(line + "\n" for line in recording.lines()), encoding="utf-8")

    header, events = read_cast(cast)
    assert header["version"] == 2 and (header["width"], header["height"]) == SIZE
    assert events and all(len(e) == 3 and isinstance(e[0], float | int) and e[1] == "o" and isinstance(e[2], str) for e in events)
    assert [e[0] for e in events] == sorted(e[0] for e in events)
    assert sorted(drawn) == list(range(save.last_step + 1))
    for step, want in drawn.items():
        assert screen_of(events, step / 2, SIZE) == want, f"step {step}"
    last = "\n".join(drawn[save.last_step])
    assert f"step {save.last_step} of {save.last_step}" in last
    # An unfinished game: its seed would tell what is still to come, so it is nowhere in the recording.
    assert save.header.outcome is None
    assert f"seed {save.setup.seed}" not in "\n".join("\n".join(s) for s in drawn.values())
    assert str(save.setup.seed) not in "".join(e[2] for e in events)


def test_replay_cast_and_svg_from_the_command_line_without_a_terminal(tmp_path):
    path = short_save(tmp_path, "main", steps=6)
    cast, pictures = tmp_path / "out.cast", tmp_path / "pics"
    result = subprocess.run([sys.executable, "-m", "cthulhu.cli", "replay", str(path), "--cast", str(cast), "--size", "90x30",
                             "--speed", "3", "--svg", str(pictures), "--at", "2,6"],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
    assert result.returncode == 0, result.stderr
    assert f"Recorded 6 steps to {cast}" in " ".join(result.stdout.split())  # wrapped to the terminal's width
    header, events = read_cast(cast)
    assert (header["version"], header["width"], header["height"]) == (2, 90, 30)
    assert events[-1][0] == 2.0  # the sixth step, at three steps a second
    final = "\n".join(screen_of(events, 2.0, (90, 30)))
    assert "Replay: step 6 of 6" in final
    svgs = sorted(p.name for p in pictures.iterdir())
    assert svgs == ["main-step-0002.svg", "main-step-0006.svg"]
    text = (pictures / "main-step-0006.svg").read_text(encoding="utf-8")
    assert text.lstrip().startswith("<svg") and "step&#160;6&#160;of&#160;6" in text


def test_a_bad_size_or_step_is_one_line_and_writes_nothing(tmp_path):
    path = short_save(tmp_path, "shamblers", steps=3)
    for args, words in ((["--cast", "x.cast", "--size", "20x5"], "--size must be from 80x24"),
                        (["--svg", "pics", "--at", "9"], "there is no step 9"),
                        (["--svg", "pics", "--every", "0"], "--every takes")):
        result = subprocess.run([sys.executable, "-m", "cthulhu.cli", "replay", str(path), *args], capture_output=True, text=True,
                                cwd=tmp_path, timeout=120)
        assert result.returncode == 2 and words in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert not (tmp_path / "x.cast").exists() and not (tmp_path / "pics").exists()
