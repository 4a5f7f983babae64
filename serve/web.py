"""The web door: `http://HOST:PORT/?code=CODE` gives the game interface in a browser tab.

The terminal in the page and the process protocol behind it are textual-serve's
(`textual.js`, an xterm.js bundle, and `AppService`, which runs an app under
Textual's web driver). What is ours: the pages (no remote fonts or scripts:
everything comes from this server, so it works without internet), the table
code check before any process starts, one `cthulhu join --kiosk` process per
tab started without a shell, and a visitor cookie that brings a reloaded tab
back to its seat. A second tab of the same browser watches.
"""

from __future__ import annotations

import asyncio
import html
import logging
import secrets
import time
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import quote

import textual_serve
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from cthulhu.net.textclean import clean_name, clean_text

from .admission import Admission, Refused
from .visitor import stop_process

log = logging.getLogger(__name__)

STATIC = Path(textual_serve.__file__).resolve().parent / "static"
PAGES = Path(__file__).resolve().parent / "pages"
COOKIE = "cthulhu_visitor"
PASS_SECONDS = 120  # a page's pass to its websocket is good this long, and once
MAX_PASSES = 256


def _page(name: str, **fields: str) -> str:
    return Template((PAGES / name).read_text(encoding="utf-8")).substitute({k: html.escape(v, quote=True) for k, v in fields.items()})


class _App(AppService):
    """textual-serve's app process, started from an argument list (no shell) with our environment.

    What the process says on stderr (a refusal from the host, say) is kept for the
    visitor's page and the host's log; textual-serve would copy it to the host's own
    stdout, which is the hosting player's terminal."""

    def __init__(self, argv: list[str], env: dict[str, str], **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = argv
        self.env = env
        self.said = b""

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        return {**self.env, **{k: v for k, v in environment.items() if k.startswith(("TEXTUAL_", "TERM_PROGRAM")) or k in ("COLUMNS", "ROWS")}}

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width, height),
            start_new_session=True,
        )
        self._stdin = process.stdin
        return process

    async def run(self) -> None:
        """textual-serve's packet loop (`AppService.run`, 1.1.3), with stderr kept here."""
        process = self._process
        assert process is not None and process.stdout is not None and process.stderr is not None
        stdout, stderr = process.stdout, process.stderr

        async def read_stderr() -> None:
            while data := await stderr.read(4096):
                self.said = (self.said + data)[-4096:]

        reading = asyncio.create_task(read_stderr())
        try:
            for _ in range(10):  # the prelude: this is a Textual app speaking the web driver's protocol
                line = await stdout.readline()
                if not line or line == b"__GANGLION__\n":
                    break
            while True:
                kind = await stdout.readexactly(1)
                size = int.from_bytes(await stdout.readexactly(4), "big")
                payload = await stdout.readexactly(size)
                if kind == b"D":
                    await self.on_data(payload)
                elif kind == b"M":
                    await self.on_meta(payload)
                elif kind == b"P":
                    await self.on_packed(payload)
        except (asyncio.IncompleteReadError, ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            try:
                await asyncio.wait_for(reading, 2)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass

    @property
    def last_line(self) -> str:
        lines = [clean_text(line) for line in self.said.decode("utf-8", "replace").splitlines()]
        lines = [line.strip() for line in lines if line.strip()]
        return lines[-1] if lines else ""


class WebDoor:
    """The web server of one table (run on an asyncio loop; see `doors.FrontDoors`)."""

    def __init__(self, admission: Admission, env: dict[str, str], title: str = "cthulhu") -> None:
        self.admission = admission
        self.env = env
        self.title = title
        self.passes: dict[str, tuple[float, str | None, str, bool]] = {}  # pass -> (expiry, name, identity, watch)
        self.services: set[AppService] = set()
        self.downloads = DownloadManager()
        self.runner: web.AppRunner | None = None
        self.port: int | None = None

    def url(self, where: str) -> str:
        """The address to give friends (the code in it, so the page asks nothing)."""
        query = f"/?code={quote(self.admission.code)}" if self.admission.code else "/"
        return f"http://{where}:{self.port}{query}"

    def make_app(self) -> web.Application:
        app = web.Application()
        app.add_routes(
            [
                web.get("/", self.index),
                web.get("/ws/{pass_}", self.websocket),
                web.get("/favicon.ico", self.no_icon),
                web.static("/static", STATIC, show_index=False),
            ]
        )
        return app

    async def start(self, bind: str, port: int) -> int:
        self.runner = web.AppRunner(self.make_app(), access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, bind, port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self.port

    async def stop(self) -> None:
        await asyncio.gather(*(self._end(service) for service in list(self.services)), return_exceptions=True)
        if self.runner is not None:
            await self.runner.cleanup()

    async def _end(self, service: AppService) -> None:
        """Ask the app to quit (textual-serve's way), then make sure its process is gone and reaped."""
        self.services.discard(service)
        try:
            await asyncio.wait_for(service.stop(), 3)
        except Exception:
            pass
        await stop_process(service._process)

    # -- pages ---------------------------------------------------------------

    @staticmethod
    async def no_icon(request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def index(self, request: web.Request) -> web.Response:
        code = request.query.get("code")
        name = clean_name(request.query.get("name", "")[:200]) or None  # the visitor's words: cleaned at the door
        watch = request.query.get("watch") in ("1", "on", "yes")
        if self.admission.code is not None and code is None:
            return self._html(_page("form.html", title=self.title, message="Type the table code the host gave you."))
        address = request.remote or "?"
        try:
            await self.admission.check_code(address, code)
        except Refused as exc:
            self.admission.warn(f"web {exc}", "web door: refused %s: %s", address, str(exc))
            return self._html(_page("form.html", title=self.title, message=f"Refused: {exc}."), status=403)
        visitor = request.cookies.get(COOKIE) or ""
        if len(visitor) < 24 or len(visitor) > 64:
            visitor = secrets.token_urlsafe(24)
        self._sweep()
        if len(self.passes) >= MAX_PASSES:
            return self._html(_page("form.html", title=self.title, message="Refused: too many visitors at once; try again later."), status=503)
        pass_ = secrets.token_urlsafe(18)
        self.passes[pass_] = (time.monotonic() + PASS_SECONDS, name, f"web:{visitor}", watch)
        response = self._html(_page("game.html", title=self.title, pass_=pass_))
        response.set_cookie(COOKIE, visitor, httponly=True, samesite="Strict", max_age=30 * 86400)
        return response

    def _sweep(self) -> None:
        now = time.monotonic()
        for key in [k for k, v in self.passes.items() if v[0] < now]:
            del self.passes[key]

    @staticmethod
    def _html(text: str, status: int = 200) -> web.Response:
        return web.Response(
            text=text,
            status=status,
            content_type="text/html",
            headers={"Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'"},
        )

    # -- the terminal's websocket ---------------------------------------------

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        self._sweep()
        entry = self.passes.pop(request.match_info["pass_"], None)
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=64 * 1024)
        await ws.prepare(request)
        if entry is None:
            await ws.close(message=b"this page has expired; reload it")
            return ws
        _, name, identity, watch = entry
        address = request.remote or "?"
        service: _App | None = None
        visit = None
        try:
            visit = await self.admission.admit(address=address, code=self.admission.code, name=name, identity=identity, watch=watch)
            visit.comeback = "To come back to your seat, open this page again in this browser (a cookie keeps your place)."
            width = _int(request.query.get("width"), 80)
            height = _int(request.query.get("height"), 24)
            service = _App(visit.argv, visit.env(self.env), write_bytes=ws.send_bytes, write_str=ws.send_str, close=ws.close,
                           download_manager=self.downloads)
            self.services.add(service)
            await service.start(width, height)
            pump = asyncio.create_task(self._pump(ws, service))
            assert service._task is not None
            await asyncio.wait({pump, service._task}, return_when=asyncio.FIRST_COMPLETED)
            pump.cancel()
            if service._task.done() and service.last_line:  # the interface ended by itself: its last words
                try:
                    code = await asyncio.wait_for(service._process.wait(), 3) if service._process is not None else 0
                except asyncio.TimeoutError:
                    code = None
                if code != 0:
                    self.admission.warn("web ended", "web door: a visitor's interface at %s ended: %s", address, service.last_line)
                await ws.send_bytes(f"\r\n{service.last_line}\r\n".encode())
        except Refused as exc:
            self.admission.warn(f"web {exc}", "web door: refused %s: %s", address, str(exc))
            await ws.send_bytes(clean_text(f"cthulhu: {exc}").encode() + b"\r\n")
        except Exception:
            log.exception("web: a session failed")
        finally:
            if visit is not None:
                self.admission.leaving(visit)
            if service is not None:
                await self._end(service)
            if visit is not None:
                self.admission.release(visit)
            await ws.close()
        return ws

    @staticmethod
    async def _pump(ws: web.WebSocketResponse, service: AppService) -> None:
        """What the page sends (keys, sizes, pings) to the app process; nothing else is accepted."""
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, data = message.json()
                if kind == "stdin" and isinstance(data, str):
                    await service.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    await service.set_terminal_size(_int(data.get("width"), 80), _int(data.get("height"), 24))
                elif kind == "ping":
                    await ws.send_json(["pong", data])
                elif kind == "blur":
                    await service.blur()
                elif kind == "focus":
                    await service.focus()
            except (ValueError, TypeError):
                continue  # a malformed message from the page: ignored, like any bad key


def _int(value: Any, default: int) -> int:
    try:
        return max(1, min(int(value), 1000))
    except (TypeError, ValueError):
        return default
