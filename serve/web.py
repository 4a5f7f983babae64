"""The web door: `http://HOST:PORT/?code=CODE` gives the game interface in a browser tab.

The terminal in the page and the process protocol behind it are textual-serve's
(`textual.js`, an xterm.js bundle, and `AppService`, which runs an app under
Textual's web driver). What is ours: the pages (no remote fonts or scripts:
everything comes from this server, so it works without internet), the table
code check before any process starts, one `cthulhu join --kiosk` process per
tab forked by the visitors' zygote (`zygote`, never a shell), and a visitor cookie that brings a reloaded tab
back to its seat. A second tab of the same browser watches.

Visiting the link starts nothing: it shows a form (a name, then "Sit down" or
"Only watch"), so a link preview or a screenshot never takes a seat. Only
that form's answer (`/table`) gives the page a pass for its terminal's
websocket: at most `PASSES_PER_ADDRESS` waiting from one address (its oldest
makes room, so a loop of fetches only ever pushes out its own), each good for
`PASS_SECONDS`, and the pass is used up only when a visitor process is started
for it. What the page sends on that websocket is checked as the page would
send it (`_message`); anything else is refused, with a line in the page and
one in the host's log, and the session carries on.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import quote

import textual_serve
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from cthulhu.net import Crowd
from cthulhu.net import clean_name, clean_text

from .admission import Admission, Refused, Visit
from .visitor import Child
from .zygote import Zygote

log = logging.getLogger(__name__)

STATIC = Path(textual_serve.__file__).resolve().parent / "static"
PAGES = Path(__file__).resolve().parent / "pages"
COOKIE = "cthulhu_visitor"
PASS_SECONDS = 30.0  # a game page's pass to its websocket is good this long (the page connects at once)
PASSES_PER_ADDRESS = 4  # passes waiting to be used, from one address; its oldest makes room
MAX_PASSES = 256  # ... from all addresses; the oldest of the address holding the most makes room
MAX_BAD_MESSAGES = 20  # messages a page never sends, before its session is closed
WS_MESSAGE = 64 * 1024  # bytes in one websocket message (a paste); aiohttp closes the socket beyond
KINDS = {"stdin", "resize", "ping", "blur", "focus"}  # what textual.js sends


class BadMessage(ValueError):
    """A websocket message the game page never sends; its text says why, for the page and the log."""


def _page(template: str, html_fields: dict[str, str] | None = None, **fields: str) -> str:
    """A page from its template: `fields` escaped, `html_fields` as given (built here, escaped inside)."""
    values = {k: html.escape(v, quote=True) for k, v in fields.items()}
    return Template((PAGES / template).read_text(encoding="utf-8")).substitute(values, **(html_fields or {}))


def _message(text: str) -> tuple[str, Any]:
    """A message from the game page: `[kind, data]` as textual.js sends it, or `BadMessage`."""
    try:
        message = json.loads(text)
    except RecursionError:
        raise BadMessage("it was nested too deep") from None
    except ValueError:
        raise BadMessage("it was not JSON") from None
    if not isinstance(message, list) or not 1 <= len(message) <= 2 or message[0] not in KINDS:
        raise BadMessage("it was not a message this page sends")
    kind, data = message[0], message[1] if len(message) == 2 else None
    if kind == "stdin" and not isinstance(data, str):
        raise BadMessage("keys must be text")
    if kind == "resize" and not (isinstance(data, dict) and all(isinstance(data.get(k), int) for k in ("width", "height"))):
        raise BadMessage("a size must be a width and a height")
    if kind == "ping" and not isinstance(data, (str, type(None))):
        raise BadMessage("a ping carries text")
    return kind, data


@dataclass(frozen=True)
class _Pass:
    expires: float
    name: str | None
    identity: str
    watch: bool
    reader: bool = False  # for the reader page's websocket (`/read/`), not the terminal's


class _App(AppService):
    """textual-serve's app process, started from an argument list (no shell) with our environment.

    What the process says on stderr (a refusal from the host, say) is kept for the
    visitor's page and the host's log; textual-serve would copy it to the host's own
    stdout, which is the hosting player's terminal."""

    def __init__(self, argv: list[str], env: dict[str, str], zygote: Zygote, on_reaped: Any, **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = argv
        self.env = env
        self.zygote = zygote
        self.on_reaped = on_reaped
        self.child: Child | None = None
        self.said = b""
        self._stdout: asyncio.StreamReader | None = None
        self._stderr: asyncio.StreamReader | None = None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        return {**self.env, **{k: v for k, v in environment.items() if k.startswith(("TEXTUAL_", "TERM_PROGRAM")) or k in ("COLUMNS", "ROWS")}}

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        """The app process, forked by the visitors' zygote, on three pipes (textual-serve would run a shell command)."""
        loop = asyncio.get_running_loop()
        pipes = [os.pipe() for _ in range(3)]
        theirs = (pipes[0][0], pipes[1][1], pipes[2][1])
        ours = (pipes[0][1], pipes[1][0], pipes[2][0])
        try:
            self.child = await self.zygote.spawn(self.argv, self._build_environment(width, height), theirs, tty=False,
                                                 on_reaped=self.on_reaped)  # counted until reaped
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        self._stdout = stdout = asyncio.StreamReader()
        self._stderr = stderr = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(ours[1], "rb", 0))
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stderr), os.fdopen(ours[2], "rb", 0))
        transport, protocol = await loop.connect_write_pipe(lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
                                                            os.fdopen(ours[0], "wb", 0))
        self._stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        return self.child

    async def run(self) -> None:
        """textual-serve's packet loop (`AppService.run`, 1.1.3), with stderr kept here."""
        stdout, stderr = self._stdout, self._stderr
        assert stdout is not None and stderr is not None

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

    def __init__(self, admission: Admission, env: dict[str, str], zygote: Zygote, title: str = "cthulhu") -> None:
        self.admission = admission
        self.zygote = zygote
        self.env = env
        self.title = title
        self.passes: dict[str, _Pass] = {}
        self.waiting: Crowd[str] = Crowd(PASSES_PER_ADDRESS, MAX_PASSES)  # the passes, per address, oldest first
        self.pass_seconds = PASS_SECONDS
        self.services: set[_App] = set()
        self.downloads = DownloadManager()
        self.runner: web.AppRunner | None = None
        self.port: int | None = None

    def url(self, where: str) -> str:
        """The address to give friends (the code in it, so the page asks only for a name)."""
        query = f"/?code={quote(self.admission.code)}" if self.admission.code else "/"
        return f"http://{where}:{self.port}{query}"

    def make_app(self) -> web.Application:
        app = web.Application()
        app.add_routes(
            [
                web.get("/", self.index),
                web.get("/table", self.table),
                web.get("/ws/{pass_}", self.websocket),
                web.get("/read/{pass_}", self.read),
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

    async def _end(self, service: _App) -> None:
        """Ask the app to quit (textual-serve's way), then make sure its process is gone and reaped."""
        self.services.discard(service)
        try:
            await asyncio.wait_for(service.stop(), 3)
        except Exception:
            pass
        if service.child is not None:
            await service.child.stop()
        if service._stdin is not None:
            service._stdin.close()

    # -- pages ---------------------------------------------------------------

    @staticmethod
    async def no_icon(request: web.Request) -> web.Response:
        return web.Response(status=204)

    def _form(self, request: web.Request, message: str, code: str | None, status: int = 200) -> web.Response:
        """Who you are at the table, then sit down or watch: nothing starts before this is answered."""
        seated = self.admission.seated_name(f"web:{self._visitor(request)}")
        if code is None and self.admission.code is not None:
            code_field = ('<label for="code">Table code</label>\n'
                          '  <input type="text" id="code" name="code" autocomplete="off" autofocus required>')
            focus = ""
        else:
            code_field = f'<input type="hidden" name="code" value="{html.escape(code or "", quote=True)}">'
            focus = " autofocus"
        reader = (
            '<label class="check"><input type="checkbox" name="reader" value="1" id="reader"'
            f'{" checked" if self.admission.reader else ""}> Plain text: one sentence a line, for screen readers and small screens</label>')
        return self._html(_page("form.html", {"code_field": code_field, "name_focus": focus, "reader_field": reader}, title=self.title, message=message,
                                name=seated or "", sit="Back to your seat" if seated else "Sit down"), status=status)

    async def _code_refused(self, request: web.Request, code: str | None) -> web.Response | None:
        address = request.remote or "?"
        try:
            await self.admission.check_code(address, code)
        except Refused as exc:
            self.admission.warn(f"web {exc}", "web door: refused %s: %s", address, str(exc))
            return self._form(request, f"Refused: {exc}.", None, status=403)
        return None

    async def index(self, request: web.Request) -> web.Response:
        """The link friends are given: a form (a link preview or a screenshot takes no seat)."""
        code = request.query.get("code")
        if self.admission.code is not None and code is None:
            return self._form(request, "Type the table code the host gave you.", None)
        return await self._code_refused(request, code) or self._form(request, "Choose a name, then sit down or watch.", code)

    async def table(self, request: web.Request) -> web.Response:
        """The form's answer: the game page, with a pass for its terminal."""
        code = request.query.get("code")
        refused = await self._code_refused(request, code)
        if refused is not None:
            return refused
        name = clean_name(request.query.get("name", "")[:200]) or None  # the visitor's words: cleaned at the door
        watch = request.query.get("as") == "watch"
        full = self.admission.no_room(request.remote or "?")
        if full is not None:  # said on the form, before any pass: a pass the door would then refuse shows a blank terminal
            self.admission.warn(f"web {full}", "web door: refused %s: %s", request.remote or "?", full)
            return self._form(request, f"Refused: {full}.", code, status=503)
        visitor = self._visitor(request) or secrets.token_urlsafe(24)
        reader = request.query.get("reader") == "1"
        pass_ = self._give_pass(request.remote or "?", _Pass(time.monotonic() + self.pass_seconds, name, f"web:{visitor}", watch, reader))
        response = self._html(_page("reader.html" if reader else "game.html", title=self.title, pass_=pass_))
        response.set_cookie(COOKIE, visitor, httponly=True, samesite="Strict", max_age=30 * 86400)
        return response

    @staticmethod
    def _visitor(request: web.Request) -> str:
        visitor = request.cookies.get(COOKIE) or ""
        return visitor if 24 <= len(visitor) <= 64 else ""

    # -- passes ----------------------------------------------------------------

    def _give_pass(self, address: str, entry: _Pass, pass_: str | None = None) -> str:
        self._expire()
        pass_ = pass_ or secrets.token_urlsafe(18)
        self.passes[pass_] = entry
        for old in self.waiting.add(pass_, address):
            del self.passes[old]
        return pass_

    def _take_pass(self, pass_: str) -> _Pass | None:
        self._expire()
        self.waiting.discard(pass_)
        return self.passes.pop(pass_, None)

    def _expire(self) -> None:
        now = time.monotonic()
        while (oldest := self.waiting.oldest()) is not None and self.passes[oldest].expires <= now:
            self.waiting.discard(oldest)
            del self.passes[oldest]

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
        pass_ = request.match_info["pass_"]
        entry = self._take_pass(pass_)
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=WS_MESSAGE)
        await ws.prepare(request)
        if entry is None or entry.reader:
            await ws.close(message=b"this page has expired; reload it")
            return ws
        address = request.remote or "?"
        service: _App | None = None
        visit: Visit | None = None
        try:
            try:
                visit = await self.admission.admit(address=address, code=self.admission.code, name=entry.name, identity=entry.identity,
                                                   watch=entry.watch, reader=False)  # the terminal runs the interface
            except Refused:
                self._give_pass(address, entry, pass_)  # not used up: no process was started for it
                raise
            visit.comeback = "To come back to your seat, open this page again in this browser (a cookie keeps your place)."
            width = _int(request.query.get("width"), 80)
            height = _int(request.query.get("height"), 24)
            service = _App(visit.argv, visit.env(self.env), self.zygote, on_reaped=lambda v=visit: self.admission.release(v),
                           write_bytes=ws.send_bytes, write_str=ws.send_str, close=ws.close, download_manager=self.downloads)
            self.services.add(service)
            await service.start(width, height)
            pump = asyncio.create_task(self._pump(ws, service, address))
            assert service._task is not None
            await asyncio.wait({pump, service._task}, return_when=asyncio.FIRST_COMPLETED)
            pump.cancel()
            if service._task.done() and service.last_line:  # the interface ended by itself: its last words
                code: int | None = 0
                if service.child is not None:
                    try:
                        code = await asyncio.wait_for(asyncio.shield(service.child.reaped), 3)
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
            if visit is not None and (service is None or service.child is None):
                self.admission.release(visit)  # no process was started; one started is let go when reaped
            await ws.close()
        return ws

    async def read(self, request: web.Request) -> web.StreamResponse:
        """The reader page's websocket: the visitor's `join --kiosk --reader` on pipes, a line a message."""
        from . import webreader

        entry = self._take_pass(request.match_info["pass_"])
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=WS_MESSAGE)
        await ws.prepare(request)
        if entry is None or not entry.reader:
            await ws.close(message=b"this page has expired; reload it")
            return ws
        address = request.remote or "?"
        visit: Visit | None = None
        child: Child | None = None
        bad = 0

        async def refused(why: str) -> bool:
            nonlocal bad
            bad += 1
            self.admission.warn("web bad message", "web door: refused a message from the reader page at %s: %s", address, why)
            await ws.send_str(f"(A message from this page was refused: {why}.)")
            return bad <= MAX_BAD_MESSAGES

        try:
            visit = await self.admission.admit(address=address, code=self.admission.code, name=entry.name, identity=entry.identity,
                                               watch=entry.watch, reader=True)
            visit.comeback = "To come back to your seat, open this page again in this browser (a cookie keeps your place)."
            env = dict(visit.env(self.env), COLUMNS=webreader.columns(request.query.get("width")))
            child, stdout, stderr, stdin = await webreader.spawn(self.zygote, visit.argv, env, lambda v=visit: self.admission.release(v))
            await webreader.relay(ws, stdout, stdin, refused)
            stdin.close()
            said = (await stderr.read(4096)).decode("utf-8", "replace").strip().splitlines()
            if said and not child.running and (await asyncio.shield(child.reaped)) != 0:
                await ws.send_str(clean_text(said[-1]))
        except Refused as exc:
            self.admission.warn(f"web {exc}", "web door: refused %s: %s", address, str(exc))
            await ws.send_str(clean_text(f"cthulhu: {exc}"))
        except Exception:
            log.exception("web: a reader session failed")
        finally:
            if visit is not None:
                self.admission.leaving(visit)
            if child is not None:
                await child.stop()
            elif visit is not None:
                self.admission.release(visit)  # no process was started
            await ws.close()
        return ws

    async def _pump(self, ws: web.WebSocketResponse, service: AppService, address: str) -> None:
        """What the page sends (keys, sizes, pings) to the app process; nothing else is accepted.
        A message the page never sends is refused, said in the page and logged (a flood of them
        is one line and a count); after `MAX_BAD_MESSAGES` of them the session is closed."""
        bad = 0
        async for message in ws:
            try:
                if message.type != WSMsgType.TEXT:
                    raise BadMessage("it was not text")
                kind, data = _message(message.data)
            except BadMessage as exc:
                bad += 1
                self.admission.warn("web bad message", "web door: refused a message from the page at %s: %s", address, str(exc))
                if bad > MAX_BAD_MESSAGES:
                    await ws.close(code=1008, message=b"closed: this page sent too many messages it never sends")
                    return
                await ws.send_str(json.dumps(["notice", f"A message from this page was refused: {exc}."]))
                continue
            if kind == "stdin":
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize":
                await service.set_terminal_size(_int(data.get("width"), 80), _int(data.get("height"), 24))
            elif kind == "ping":
                await ws.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()


def _int(value: Any, default: int) -> int:
    try:
        return max(1, min(int(value), 1000))
    except (TypeError, ValueError):
        return default
