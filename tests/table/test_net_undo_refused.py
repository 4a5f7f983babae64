"""A refused take-back is answered at once, on the receiving task (issue 36 item 8).

It used to go through the game task like a command: a frame that changes nothing cost a trip
through the channel, the game task and back (~500 µs of host CPU each in the issue's figures,
`bench/hostile_peers.py --parts frames`), and while a bot paused before its move it waited out
the pause. Now, with nothing applied or queued, the host answers what the game would say on the
spot. On in-memory streams and virtual time: "at once" is no virtual time at all."""

from __future__ import annotations

import pytest
import trio

from cthulhu.core import Setup
from cthulhu.table import TableSpec

from support.memory import memory_table, play_until_seat_decides, until

pytestmark = pytest.mark.trio


async def test_a_refused_undo_is_answered_at_once_while_a_bot_pauses(autojump_clock):
    spec = TableSpec(start=Setup(mode="main", seed=5, players=2), bots={1: "heuristic"}, bot_delay=30.0)
    async with memory_table(spec) as table:
        ann = await table.connect("Ann")
        await play_until_seat_decides(ann, 1)  # the bot's turn: it waits 30 s before it moves
        step = table.host.game.step
        for version, code in [(step, "cannot_undo"), (step - 1, "stale_prompt")]:
            asked = trio.current_time()
            ann.session.send_undo(version)
            await ann.flush()
            await until(ann, lambda: len(ann.session.rejections) > 0)
            answer = ann.session.rejections.pop()
            assert answer.code == code, answer
            assert trio.current_time() == asked, "the refusal waited for the game task"
        assert table.host.game.step == step  # nothing changed meanwhile: the bot still pauses
