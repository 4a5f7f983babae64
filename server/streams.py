"""A stream whose first bytes were already read: the server reads a connection's hello to route it
to its table, then hands the table the connection as if nothing had been read (with the hello
as the server passes it on)."""

from __future__ import annotations

import trio


class Prefixed(trio.abc.HalfCloseableStream):
    """`stream`, with `prefix` handed out first by `receive_some`."""

    def __init__(self, stream: trio.abc.Stream, prefix: bytes) -> None:
        self.stream = stream
        self.prefix = bytearray(prefix)

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        if self.prefix:
            n = len(self.prefix) if max_bytes is None else max_bytes
            out = bytes(self.prefix[:n])
            del self.prefix[:n]
            await trio.lowlevel.checkpoint()
            return out
        return await self.stream.receive_some(max_bytes)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        if isinstance(self.stream, trio.abc.HalfCloseableStream):
            await self.stream.send_eof()

    async def aclose(self) -> None:
        await self.stream.aclose()
