"""What a joined player is told of leaving and of saving, as the table they are at is: a seat that
waits, a watcher whose table plays on, a server that saves every move itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cthulhu.net import PeerSession
from cthulhu.net import join_command

if TYPE_CHECKING:
    from .ownhost import OwnTable

WATCHING = "You are watching: quitting leaves the table, which plays on without you."
SERVER_SAVES = "The server saves this table after every move: nothing to do here."
HOST_SAVES = "The host keeps the save of this game (ask them to press s)."


def watching(session: PeerSession | None) -> str | None:
    """The words for a watcher (no seat) of a game still under way, else None."""
    return WATCHING if session is not None and session.game_over is None and session.seat is None else None


def peer_comeback(session: PeerSession | None, address: str, code: str | None, table: str | None) -> str | None:
    """How a joined peer carries on after quitting (`table`: a server's table it sat at)."""
    if session is not None and session.token and session.game_over is None:
        return f"Your seat waits for you; come back with: {join_command(address, code, table=table)}"
    return watching(session)


def not_ours_to_save(table: str | None) -> str:
    """Why `s` saves nothing at a joined table: the server's table (`table`) or the host's."""
    return SERVER_SAVES if table else HOST_SAVES


def link_comeback(session: PeerSession | None, own: OwnTable | None, visitor: str | None, local_seats: frozenset[int],
                  address: str, code: str | None, table: str | None) -> str | None:
    """One line for after the game closes: how to carry on, from our own table (its save), as a
    visitor the host serves (the door's words) or as a joined peer."""
    going_on = session is not None and session.game_over is None
    if own is not None:
        return own.save_hint if going_on and own.save_started else None
    if visitor is not None:
        return visitor if going_on and local_seats else watching(session)
    return peer_comeback(session, address, code, table)
