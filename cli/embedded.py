"""`cthulhu play` and `cthulhu host`: the table in this process, seated and handed to the app.

The interface only knows table links. This module builds the table the player's choices
describe (`table_spec`), runs its host in a thread beside the app (`table.thread.ThreadedHost`),
takes this terminal's seats at it and gives the app the link: `table_link` is the factory the
app is handed (`tui.app.run(options, table_link)`), a host elsewhere (`--join`) included.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cthulhu.tui.english import plural
from cthulhu.tui.who import characters, playing

if TYPE_CHECKING:
    from cthulhu.core import Game
    from cthulhu.table import Host
    from cthulhu.net import SeatStore
    from cthulhu.table import TableSpec
    from cthulhu.tui.link import TableLink
    from cthulhu.tui.netlink import NetLink
    from cthulhu.tui.options import PlayOptions


def table_spec(options: PlayOptions) -> TableSpec:
    """The table these choices describe (`cthulhu play`, the title screen): this terminal's seats,
    the last `bots` seats played by bots, autosaved into the saves folder (fsynced at the end)."""
    from cthulhu.core import Setup, modes
    from cthulhu.core.search import Thinking
    from cthulhu.table import SaveTo, StandIns, TableSpec

    start: Setup | Path
    if options.load is not None:
        from cthulhu.savegame import load

        start, setup = options.load, load(options.load).setup
    else:
        start = setup = options.setup()
    kind = options.bot_kind or modes.get(setup.mode).default_bot
    n = setup.players
    save = None
    if not options.no_save and (options.load is not None or options.save_to is not None or options.saves_dir is not None):
        save = SaveTo(file=options.save_to, folder=options.saves_dir, stem="net-" if options.hosting else "", fsync=False)
    return TableSpec(
        start=start,
        bots={seat: kind for seat in range(n - options.bots, n)} if options.bots and options.load is None else {},  # a save's own come back
        stand_ins=StandIns(kind=kind),
        save=save,
        code=options.code,
        keep_seats=options.hosting,
        bot_delay=options.bot_delay,
        thinking=options.thinking or Thinking(),
    )


async def table_link(options: PlayOptions) -> TableLink:
    """The app's link factory: a host elsewhere (`--join`), else this process's own table."""
    if options.join is not None:
        from cthulhu.tui.netlink import join_link  # (the app's link: only the app loads it, `--reader` never does)

        return join_link(options)
    return await embedded_link(options)


def _label(options: PlayOptions, humans: list[int], bots: int, port: int, code: str | None) -> str:
    if options.hosting:
        return f"hosting on port {port}" + (f", code {code}" if code else "")
    if len(humans) <= 1 and not bots:
        return "solo"
    return f"{len(humans)} here, {plural(bots, 'bot')}"


def own_seats(host: Host, options: PlayOptions, store: SeatStore | None, loaded: bool) -> list[int]:
    """The seats this terminal takes: every person's seat at one terminal; hosting, the first
    (and any not left for others), or, for a loaded game, the hosting player's own seat: the one
    their token on this machine names, else the first person's, given up for them to take."""
    people = [s.index for s in host.seats if s.kind != "bot"]
    if not options.hosting:
        return people
    if loaded:  # its seats wait for their owners
        mine = store.find(name=options.name, table=host.table_id, hosting=True) if store is not None else None
        if mine is not None:
            return [mine.seat]
        if people and host.seats[people[0]].kind == "human":
            host.free_seat(people[0])  # no token of ours here: this terminal takes the first person's seat
        return people[:1]
    return people[: max(1, len(people) - options.remote_seats)]


async def embedded_link(options: PlayOptions, host: Host | None = None) -> NetLink:
    """A table's host in this process (`host`, already opened by `cthulhu host`, else the one
    `open_table` builds from the options), and this terminal's seats joined to it.

    Hosting (`options.hosting`), the other seats stay open for `cthulhu join`, a
    loaded game's seats wait for their owners' tokens, and this terminal's own
    seat token is kept in the seat store like any joiner's."""
    from cthulhu.net import SeatStore
    from cthulhu.table import ThreadedHost, open_table
    from cthulhu.tui.netlink import JoinAs, NetLink

    if host is None:
        host = open_table(table_spec(options))
    store = SeatStore() if options.hosting else None
    humans = own_seats(host, options, store, isinstance(host.spec.start, Path))
    host.own_seats = frozenset(humans)  # taking them is no reason to write a save before the first move
    bind = options.host_bind or "127.0.0.1"
    threaded = ThreadedHost(host, bind=bind, port=options.host_port, hosting=options.hosting, doors=options.doors)
    try:
        port = await threaded.start()
    except BaseException:
        threaded.abandon()  # a game that never started leaves no save behind
        raise
    link = NetLink(
        JoinAs(
            host="127.0.0.1" if bind in ("0.0.0.0", "", "::") else bind,
            port=port,
            name=options.name,
            code=host.code,
            seats=tuple(humans),
            label=_label(options, humans, sum(1 for s in host.seats if s.kind == "bot"), port, host.code),
            names=tuple(hot_seat_names(host.game, humans)) if len(humans) > 1 else None,
        ),
        store=store,
        embedded=threaded,
    )
    link.warning = host.warning
    return link


def hot_seat_names(game: Game, seats: list[int]) -> list[str]:
    """Several people at one terminal are named by what they play (not "you 1", "you 2"): all of
    it when the name has room, else the first investigator."""
    from cthulhu.net import NAME_MAX

    view = game.view(None)
    return [name if len(name := playing(view, seat)) <= NAME_MAX else characters(view, seat)[0] for seat in seats]
