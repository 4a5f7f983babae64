"""`cthulhu records HOST[:PORT]`: the club's records at a server.

Per mode, scenario (episode and Elder One, or Shamblers level) and player count: games, wins, the
win rate and the fastest win in turns with the teams who did it; games where a bot held a seat in
rows of their own. Only games the server replayed from their saves count. `--json`: one object,
`rows` (each `{mode, setup, about, players, bots, games, wins, win_rate, fastest, teams}`) and
`refused` (finished games whose saves did not verify).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from .lobbytalk import add_address, talk

if TYPE_CHECKING:
    from cthulhu.net import TrioLobby


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("records", help="a server's records: games, wins and fastest wins by scenario",
                       description="The club's records at a server of many tables, from the games it verified.")
    add_address(p)
    p.add_argument("--json", action="store_true", help="JSON for scripts")
    p.set_defaults(func=run)


def row_json(row: Any) -> dict[str, Any]:
    out: dict[str, Any] = row.model_dump()
    out["win_rate"] = round(row.wins / row.games, 3) if row.games else 0.0
    return out


def run(args: argparse.Namespace) -> int:
    async def records(lobby: TrioLobby) -> int:
        from cthulhu.core import modes
        from cthulhu.net import Rejected
        from cthulhu.net import record_line

        from .common import refuse

        answer = await lobby.records()
        if isinstance(answer, Rejected):
            return refuse("records", f"the server refused: {answer.reason} ({answer.code})")
        if args.json:
            print(json.dumps({"rows": [row_json(r) for r in answer.rows], "refused": answer.refused}, sort_keys=True))
            return 0
        if not answer.rows:
            print("No games finished here yet.")
        for row in answer.rows:
            print(record_line(row, modes.get(row.mode).title if row.mode in modes.names() else row.mode))
        if answer.refused:
            print(f"{answer.refused} finished game{'s' if answer.refused != 1 else ''} left out: the save did not verify.")
        return 0

    return talk("records", args, records)
