"""The web door's reader page: the reader mode (`join --kiosk --reader`) in a browser tab, as text.

No terminal emulator: the visitor's process runs on three pipes (forked by the zygote like every
visitor), each line it writes goes to the page as one websocket text message, and the page
appends it to a live region that a screen reader announces; each line the visitor types in the
page's text box is one message back, written to the process's stdin. A message the page never
sends (not text, more than one line, too long) is refused and counted as on the game page.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from cthulhu.net import clean_text

from .visitor import Child

if TYPE_CHECKING:
    from .zygote import Zygote

LINE_MAX = 1000  # characters in one typed line (a choice's number, a key, a chat line)
COLUMNS_MIN, COLUMNS_MAX = 40, 200  # the widths the page may ask the reader to wrap to


def columns(value: Any) -> str:
    """The width the page measured, in characters, kept within what the reader takes."""
    try:
        return str(max(COLUMNS_MIN, min(int(value), COLUMNS_MAX)))
    except (TypeError, ValueError):
        return "80"


async def spawn(zygote: Zygote, argv: list[str], env: dict[str, str], on_reaped: Any
                ) -> tuple[Child, asyncio.StreamReader, asyncio.StreamReader, asyncio.StreamWriter]:
    """The reader's process on three pipes: the child, its stdout and stderr, and its stdin."""
    loop = asyncio.get_running_loop()
    pipes = [os.pipe() for _ in range(3)]
    theirs = (pipes[0][0], pipes[1][1], pipes[2][1])
    ours = (pipes[0][1], pipes[1][0], pipes[2][0])
    try:
        child = await zygote.spawn(argv, env, theirs, tty=False, on_reaped=on_reaped)
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    stdout, stderr = asyncio.StreamReader(), asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(ours[1], "rb", 0))
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stderr), os.fdopen(ours[2], "rb", 0))
    transport, protocol = await loop.connect_write_pipe(lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
                                                        os.fdopen(ours[0], "wb", 0))
    return child, stdout, stderr, asyncio.StreamWriter(transport, protocol, None, loop)


async def relay(ws: web.WebSocketResponse, stdout: asyncio.StreamReader, stdin: asyncio.StreamWriter, refused: Any) -> None:
    """Lines out to the page and typed lines in, until either side ends. `refused(why)` is told of
    every message the page never sends (it decides when enough is enough)."""

    async def out() -> None:
        while line := await stdout.readline():
            await ws.send_str(clean_text(line.decode("utf-8", "replace").rstrip("\n")))

    async def into() -> None:
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                if not await refused("it was not text"):
                    return
                continue
            text = message.data
            if len(text) > LINE_MAX or "\n" in text or "\r" in text:
                if not await refused("a typed line is one line of at most 1000 characters"):
                    return
                continue
            stdin.write(text.encode("utf-8") + b"\n")
            await stdin.drain()

    tasks = {asyncio.create_task(out()), asyncio.create_task(into())}
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
