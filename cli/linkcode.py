"""`cthulhu join HOST --link`: a one-time code that makes another door (the server's SSH or web
lobby, its `l` key) this machine's identity there: one name, one "my tables" at every door."""

from __future__ import annotations

import sys

from .common import refuse


async def print_link_code(host: str, port: int, address: str, name: str) -> int:
    from cthulhu.net import LobbyRefused, open_lobby
    from cthulhu.net import Rejected
    from cthulhu.net import SeatStore
    from cthulhu.net import clean_text

    try:
        ident = SeatStore().identity(address)
    except OSError as exc:
        return refuse("join", f"could not keep this machine's identity key, so there is nothing to link: {exc.strerror or exc}")
    try:
        async with open_lobby(host, port, name, ident) as lobby:
            answer = await lobby.new_link_code()
            known = lobby.client.welcome.name if lobby.client.welcome is not None else name
    except LobbyRefused as exc:
        if exc.code == "not_a_server":
            return refuse("join", f"{address} hosts one table, not a server of many: there is no identity to link")
        return refuse("join", f"the server refused: {exc.reason} ({exc.code})")
    except OSError as exc:
        print(f"cthulhu join: cannot reach {address}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if isinstance(answer, Rejected):
        return refuse("join", f"the server refused: {answer.reason} ({answer.code})")
    print(clean_text(f"Link code {answer.code} (once, until {answer.expires.replace('T', ' ')} UTC)."))
    print(clean_text(f"At the server's SSH or web lobby, press l and type it: that door becomes {known} too, "
                     "with its tables."))
    return 0
