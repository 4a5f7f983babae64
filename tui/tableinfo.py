"""What the table dialog shows of a link's table, and the line that starts it again: plain data
from the session's last word (its seats, its record) and where this terminal stands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cthulhu.net import PeerSession
from cthulhu.net import join_address, join_command

from .who import characters

if TYPE_CHECKING:
    from .ownhost import OwnTable

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def lobby_info(session: PeerSession | None, *, address: str, port: int, code: str | None, server_table: str | None,
               local_seats: frozenset[int], view: dict[str, Any], status: str | None, own: OwnTable | None,
               visitor: str | None, store_path: Path | None) -> dict[str, Any]:
    """Where to join (our own table: the address it listens on), the code, the host's latest seat
    list, how to come back. `status`: the link's own trouble, if any; `store_path`: where this
    machine keeps its seat tokens (a joiner's)."""
    hosting = own is not None and own.hosting
    if own is not None:
        address = join_address(own.bind, port) if own.bind not in LOOPBACK else f"{own.bind}:{port}"
    table = session.table if session is not None else None
    info: dict[str, Any] = {
        "address": address,
        "code": code,
        "join": join_command(address, code, table=server_table),
        "table_id": server_table,  # one of a server's tables
        "hosting": hosting,
        "local_seats": sorted(local_seats),
        "table": table.model_dump() if table is not None else None,
        "characters": {s.seat: characters(view, s.seat) for s in table.seats} if table is not None else {},
        "step": view.get("step"),
        "status": status,
        "commit": session.record.commit if session is not None else None,
    }
    if session is not None and session.mirror.hash:
        info["view_hash"] = session.mirror.hash
    if own is not None and hosting:
        info["comeback"] = own.save_hint
        info["doors"] = own.doors
    elif visitor is not None:  # the loopback address and `cthulhu join` mean nothing to them
        info["address"] = info["join"] = None
        info["visitor"] = True
        info["comeback"] = visitor if local_seats else None
    elif session is not None and session.token:
        kept = f" (the seat token is kept in {store_path})" if store_path is not None else ""
        info["comeback"] = f"run the same command again to take your seat back{kept}:\n  {join_command(address, code, table=server_table)}"
        info["comeback_elsewhere"] = join_command(address, code, token=session.token, table=server_table)
    return info


def play_again(session: PeerSession | None, seed: int | None, known: dict[int, str | None]) -> str | None:
    """The `cthulhu play` line that starts this table again: from the setup every peer is sent (all but
    the seed), the seed revealed at game over and the table's bot seats (`known`: their kinds, when
    the host is ours and seated them); None until the seed is known."""
    from cthulhu.core import Setup
    from cthulhu.net import play_again_command

    if session is None or seed is None or session.record.setup is None or session.table is None:
        return None
    try:
        setup = Setup.model_validate({**session.record.setup, "seed": seed})
    except ValueError:  # a setup this program cannot make: no line to offer
        return None
    return play_again_command(setup, {s.seat: known.get(s.seat) for s in session.table.seats if s.kind == "bot"})
