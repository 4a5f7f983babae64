"""The host's own work per command, in-process: what `net_latency.py`'s host CPU holds besides the sockets.

    python bench/host_step.py [--mode main] [--games 6] [--seats 5] [--rounds 5] [--json]

A real table (`open_table`, no save) with `--seats` connected peers that are only outboxes (no
socket, no task: what the host queues for them is dropped), and seeded random bots deciding
for every seat; each command goes through the host's own path (`Host._apply`: apply, the log's
state hash, the story, one view, diff, hash and frame per projection, a push per peer). Figure:
process CPU time per command, the cheapest of `--rounds` rounds (this machine is shared: the
cheapest round is the one least disturbed). Run it with `PYTHONPATH` pointing at another
checkout's package links to compare two versions in one session.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import trio


def _round(mode: str, games: int, seats: int, first_seed: int) -> tuple[float, int]:
    from cthulhu.core import Setup
    from cthulhu.core.bots import make_bot
    from cthulhu.net import Limits, Quiet
    from cthulhu.table import TableSpec, open_table
    from cthulhu.table.peers import Peer

    cpu = 0.0
    commands = 0

    async def main() -> None:
        nonlocal cpu, commands
        for g in range(games):
            seed = first_seed + g
            host = open_table(TableSpec(start=Setup(mode=mode, seed=seed, players=seats)))
            host.started.set()
            for seat in range(seats):
                host.peers.append(Peer.new(seat + 1, f"p{seat}", seat, "10.0.0.1", Limits(), Quiet()))
            bots = [make_bot("random", mode, seed * 100 + s) for s in range(seats)]
            game = host.game
            while game.outcome is None and game.prompt is not None:
                prompt = game.prompt
                command = bots[prompt.seat].choose(game, prompt.seat)
                start = time.process_time()
                await host._apply(prompt.seat, command, prompt.version)
                cpu += time.process_time() - start
                commands += 1
                for peer in host.peers:
                    peer.outbox._q.clear()  # the socket's part, left out: the floor measures it
                    peer.outbox.backlog = 0

    trio.run(main)
    return cpu, commands


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--mode", choices=["main", "shamblers"], default="main")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    seats = args.seats if args.mode == "main" else min(args.seats, 2)
    per = []
    for _ in range(args.rounds):
        cpu, commands = _round(args.mode, args.games, seats, args.seed)
        per.append(cpu / commands * 1000)
    out = {"mode": args.mode, "seats": seats, "commands_per_round": commands, "host_ms_per_command_best": round(min(per), 4),
           "host_ms_per_command_rounds": [round(p, 4) for p in per], "load": os.getloadavg()[0]}
    print(json.dumps(out) if args.json else f"{args.mode}, {seats} seats: {min(per):.3f} ms per command (best of {args.rounds}; rounds "
          f"{', '.join(f'{p:.3f}' for p in per)}), load {out['load']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
