"""One table, built one way (`table.open_table`): the same table opened through every entry point
behaves the same: the dice verified at game over, a save written or not as asked, the stand-in kind
honoured. The first tests pin the two ways the entry points had drifted apart."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path

import trio

from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.savegame import SaveWriter
from cthulhu.tui.link import Update
from cthulhu.cli.embedded import embedded_link
from cthulhu.tui.netlink import NetLink
from cthulhu.tui.options import PlayOptions

SAFETY = 60  # seconds: a net against hangs, never a claim about speed


def _partway_save(path: Path, seed: int, steps: int) -> Path:
    """A one-player game saved after `steps` random moves, its seat a person's (a token hash)."""
    game = Game.new(Setup(seed=seed, players=1))
    writer = SaveWriter(path, game, players=[{"seat": 0, "name": "Ann", "token_hash": "0" * 32}], fsync=False)
    bot = make_bot("random", "main", 1)
    while game.step < steps and game.outcome is None:
        seat = game.prompt.seat
        command = bot.choose(game, seat)
        game.apply(seat, command)
        writer.append(seat, command.wire(), game.state_hash())
    writer.close()
    return path


async def _play_to_the_end(link: NetLink) -> None:
    """This terminal's seats take their first option until the game is over and the dice are judged."""
    update: Update = await link.open()
    updates = link.updates()
    while True:
        prompt = update.view.get("prompt")
        if update.view.get("outcome") is not None and link.dice is not None:
            return
        if prompt is not None and prompt["seat"] in link.local_seats and update.view.get("outcome") is None:
            await link.send(prompt["seat"], prompt["options"][0]["command"], prompt["version"])
        update = await anext(updates)


def test_a_loaded_game_hosted_without_saving_still_lets_every_peer_verify_its_dice(tmp_path):
    """`cthulhu host --load X --no-save` from the interface used to give its host no command log,
    so every peer's dice report said "NOT verified" where the headless host said "verified"."""
    save = _partway_save(tmp_path / "partway.save", seed=5, steps=12)

    async def main() -> None:
        options = PlayOptions(load=save, no_save=True, host_table=True, name="Ann", skip_title=True, bot_delay=0)
        link = await embedded_link(options)
        try:
            await _play_to_the_end(link)
            assert link.dice is not None and link.dice.verified, link.dice
        finally:
            await link.close()

    asyncio.run(asyncio.wait_for(main(), SAFETY))


def test_cthulhu_host_in_its_interface_puts_the_bot_it_is_told_into_open_seats(monkeypatch, tmp_path):
    """`cthulhu host --bot random` from the interface used to ignore `--bot` for the bots of the
    table dialog's "start now" and for stand-ins: they were heuristic bots whatever was asked."""
    from cthulhu import cli
    from cthulhu.tui import app as tui_app

    seen: dict[str, object] = {}

    def run_without_a_screen(options, link_factory=None, loop=None):
        async def main() -> None:
            link = await (link_factory or tui_app.default_link)(options)
            try:
                assert isinstance(link, NetLink) and link.embedded is not None
                await link.open()
                host = link.embedded.host
                seen["stand_in_kind"] = host.stand_in_kind
                await link.start_with_bots()
                seen["open_seats_got"] = [s.bot_kind for s in host.seats[1:]]
            finally:
                await link.close()

        asyncio.run(asyncio.wait_for(main(), SAFETY))
        return 0

    monkeypatch.setattr(tui_app, "run", run_without_a_screen)
    assert cli.main(["host", "--port", "0", "--seats", "3", "--bot", "random", "--no-save", "--seed", "4", "--open"]) == 0
    assert seen == {"stand_in_kind": "random", "open_seats_got": ["random", "random"]}


# ---- the same table through every entry point ---------------------------------------------------

SEED = 4
# Two seats: a person (who always takes the first option) and a random bot; stand-ins random too.
HOST = ["host", "--port", "0", "--seats", "2", "--bots", "1", "--bot", "random", "--seed", str(SEED), "--open", "--bot-delay", "0"]


@dataclass(frozen=True)
class Seen:
    """What a table showed: the end it reached, whether the person's dice check held, its save."""

    final_hash: str
    verified: bool
    saved: str | None  # the final hash in the save file (None: no file was written)
    stand_in_kind: str
    seat_bots: tuple[str | None, ...]


def _seen_save(save: Path | None) -> str | None:
    if save is None or not save.exists():
        return None
    from cthulhu.savegame import load

    steps = load(save).steps
    return steps[-1].hash if steps else None


def _seen(host, verified: bool, save: Path | None) -> Seen:
    saved = _seen_save(save)
    return Seen(host.game.state_hash(), verified, saved, host.stand_in_kind, tuple(s.bot_kind for s in host.seats))


async def _person_over_a_link(link: NetLink) -> None:
    """This terminal's seat takes its first option each time, to the end and the dice verdict."""
    update: Update = await link.open()
    updates = link.updates()
    answered: set[int] = set()
    while not (update.view.get("outcome") is not None and link.dice is not None):
        prompt = update.view.get("prompt")
        if prompt is not None and prompt["seat"] in link.local_seats and prompt["version"] not in answered:
            answered.add(prompt["version"])
            await link.send(prompt["seat"], prompt["options"][0]["command"], prompt["version"])
        update = await anext(updates)


async def _person_over_trio(port: int) -> bool:
    """The same person as a peer of a trio host; True when the dice verify at game over."""
    from cthulhu.net.client import PeerSession, TrioPeer

    session = PeerSession("Ann")
    peer = await TrioPeer.connect("127.0.0.1", port, session)
    answered: set[int] = set()
    try:
        while session.game_over is None:
            mine = session.my_prompt
            if mine is not None and mine["version"] not in answered:
                answered.add(mine["version"])
                session.send_command(mine["options"][0]["command"], mine["version"])
                await peer.flush()
            if not await peer.receive():
                break
    finally:
        await peer.aclose()
    verdict = await trio.to_thread.run_sync(session.verify_dice)
    return verdict is not None and verdict.verified


def _through_the_app(monkeypatch, argv: list[str], save: Path | None) -> Seen:
    """`cthulhu play` or `cthulhu host` as typed, the interface replaced by the person's loop over
    the very link the interface would have been given."""
    from cthulhu import cli
    from cthulhu.tui import app as tui_app

    seen: list[Seen] = []

    def run_without_a_screen(options, link_factory=None, loop=None):
        async def main() -> None:
            link = await (link_factory or tui_app.default_link)(options)
            try:
                assert isinstance(link, NetLink) and link.embedded is not None
                await _person_over_a_link(link)
                assert link.dice is not None
                verified = link.dice.verified
            finally:
                await link.close()
            seen.append(_seen(link.embedded.host, verified, save))

        asyncio.run(asyncio.wait_for(main(), SAFETY))
        return 0

    monkeypatch.setattr(tui_app, "run", run_without_a_screen)
    monkeypatch.setenv("TEXTUAL_DRIVER", "none")  # `cthulhu play` asks for a terminal otherwise
    assert cli.main(argv) == 0
    (result,) = seen
    return result


def _headless(argv: list[str], save: Path | None) -> Seen:
    """`cthulhu host --headless`: its own table description, opened and served as `run` does."""
    from cthulhu import cli
    from cthulhu.cli.host import serve_headless, table_spec
    from cthulhu.table import open_table

    args = cli.build_parser().parse_args([*argv, "--headless"])
    host = open_table(table_spec(args))

    async def main() -> bool:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_headless, host, args)
            while host.port is None:
                await trio.sleep(0.01)
            return await _person_over_trio(host.port)

    return _seen(host, trio.run(main), save)


def _test_helper(save: Path | None) -> Seen:
    """What the tests and benches do: a `TableSpec` by hand."""
    from cthulhu.table import SaveTo, StandIns, TableSpec, open_table

    spec = TableSpec(start=Setup(seed=SEED, players=2), bots={1: "random"}, stand_ins=StandIns(kind="random"),
                     save=SaveTo(file=save) if save is not None else None)
    host = open_table(spec)

    async def main() -> bool:
        async with trio.open_nursery() as nursery:
            await nursery.start(host.serve)
            verified = await _person_over_trio(host.port)
            nursery.cancel_scope.cancel()
        host.flush_log()
        host.saves.release()
        return verified

    return _seen(host, trio.run(main), save)


def test_the_same_table_through_every_entry_point_plays_the_same_game(monkeypatch, tmp_path):
    saves = tmp_path / "saves"
    runs: dict[str, Seen] = {}
    for saving in ("file", "none"):
        def save(name: str) -> tuple[list[str], Path | None]:
            path = tmp_path / f"{name}-{saving}.save"
            return (["--save", str(path)], path) if saving == "file" else (["--no-save"], None)

        extra, path = save("host")
        runs[f"host, {saving}"] = _through_the_app(monkeypatch, [*HOST, *extra, "--saves", str(saves)], path)
        if saving == "file":  # the doors change where visitors come from, not what is saved
            extra, path = save("doors")
            runs[f"host --ssh, {saving}"] = _through_the_app(monkeypatch, [*HOST, *extra, "--saves", str(saves), "--ssh", "0"], path)
        extra, path = save("headless")
        runs[f"host --headless, {saving}"] = _headless([*HOST, *extra, "--saves", str(saves)], path)
        runs[f"tests, {saving}"] = _test_helper(tmp_path / f"helper-{saving}.save" if saving == "file" else None)
    play_saves = tmp_path / "play-saves"
    played = _through_the_app(monkeypatch, ["play", "--seed", str(SEED), "--bots", "1", "--bot", "random", "--bot-delay", "0",
                                            "--saves", str(play_saves), "--start"], None)
    (play_file,) = play_saves.glob("*.save")  # `cthulhu play` always saves, into its saves folder
    runs["play"] = replace(played, saved=_seen_save(play_file))

    first = runs["tests, file"]
    assert first.verified and first.saved == first.final_hash
    assert first.stand_in_kind == "random" and first.seat_bots == (None, "random")
    for name, seen in runs.items():
        expected = first if "none" not in name else replace(first, saved=None)
        assert seen == expected, name
    assert not saves.exists() or not list(saves.glob("*.save"))  # `--no-save` and `--save FILE` leave the folder alone
