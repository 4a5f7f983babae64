"""A small HTTP server a test runs (trio, 127.0.0.1 port 0) to receive notification POSTs: it
answers each with `status`, or (`hang`) accepts and never reads nor answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import trio


@dataclass
class Sink:
    status: int = 204
    hang: bool = False
    port: int = 0
    connections: int = 0
    posts: list[dict[str, Any]] = field(default_factory=list)  # {"path", "headers", "json"}
    open: list[trio.SocketStream] = field(default_factory=list)  # the connections a hanging sink holds
    _news: trio.Event = field(default_factory=trio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook/t0ken"

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._handle, listeners)

    async def _handle(self, stream: trio.SocketStream) -> None:
        self.connections += 1
        self._tell()
        if self.hang:
            self.open.append(stream)
            await trio.sleep_forever()
        async with stream:
            got = b""
            while b"\r\n\r\n" not in got:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    return
                got += chunk
            head, _, body = got.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            while len(body) < int(headers.get("content-length", "0")):
                body += await stream.receive_some(65536)
            method, path, _ = lines[0].split(" ", 2)
            self.posts.append({"method": method, "path": path, "headers": headers, "json": json.loads(body)})
            await stream.send_all(f"HTTP/1.1 {self.status} Whatever\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
            self._tell()

    def _tell(self) -> None:
        self._news.set()
        self._news = trio.Event()

    async def until(self, done: Any) -> None:
        """Wait until `done()` (news comes with every connection and every POST)."""
        while not done():
            await self._news.wait()


@asynccontextmanager
async def serving_sinks(*sinks: Sink) -> AsyncIterator[trio.Nursery]:
    """The sinks listening (their ports set) until the block ends; a nursery for the test's own tasks."""
    async with trio.open_nursery() as nursery:
        for sink in sinks:
            await nursery.start(sink.serve)
        yield nursery
        nursery.cancel_scope.cancel()


async def closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on (a connection there is refused)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = int(listeners[0].socket.getsockname()[1])
    for listener in listeners:
        await listener.aclose()
    return port
