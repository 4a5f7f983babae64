"""`cthulhu host --web`: headless Chromium (the system's, driven by Playwright) against the real host.

The page loads from the host alone (no other origin: it works without
internet), a tab takes a seat, keys typed into the page move the game, a second
tab of the same browser watches the same table, and a wrong code is refused.
If the browser cannot be had, the test fails and says so; it never skips.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from support.serve_helpers import HostProcess, Watcher, fill_spectators, visitor_pids

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def visitor_processes(host: HostProcess) -> int:
    """The host's visitors' interface processes running now."""
    return len(visitor_pids(under=host.proc.pid))


def browser(playwright):
    if not CHROMIUM.exists():
        pytest.fail(f"no browser: {CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)")
    profile = tempfile.mkdtemp(prefix="cthulhu-chromium-")
    return playwright.chromium.launch_persistent_context(profile, executable_path=str(CHROMIUM), args=FLAGS, headless=True,
                                                       viewport={"width": 1100, "height": 760})


class Tab:
    """One browser tab and the screens the host's terminal stream has drawn in it.

    The stream sends only the cells that change (`cthulhu.tui.terminal`), so it is played into
    a terminal emulator (pyte, larger than any tab) and every screen it showed is kept."""

    def __init__(self, context, url: str) -> None:
        import pyte

        self.page = context.new_page()
        self.requests: list[str] = []
        self.screen = pyte.Screen(250, 100)
        self.stream = pyte.ByteStream(self.screen)
        self.screens: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.response = self.page.goto(url)

    def _frame(self, payload) -> None:
        if isinstance(payload, bytes):
            self.stream.feed(payload)
            self.screens.append("\n".join(line.rstrip() for line in self.screen.display))

    @property
    def text(self) -> str:
        return "\n".join(self.screens)

    def wait_for_text(self, pattern: str, seconds: float = 30) -> None:
        for _ in range(int(seconds * 10)):
            if re.search(pattern, self.text):
                return
            self.page.wait_for_timeout(100)
        raise AssertionError(f"the tab never showed {pattern!r}")


def test_browser_tabs_sit_play_and_watch(tmp_path: Path) -> None:
    """The link asks for a name and sit-or-watch before anything starts (a link preview or a
    screenshot used to become "guest 2" and start the game); keys reach the game without a click.
    Before that, 300 fetches of the link and 300 of the sit-down page from another address (they
    used to use up the 256 passes: every visitor got 503 for two minutes) spoil nothing; a 10 KB
    deeply nested message from the page (it used to end the session without a word, nothing in
    the host's log) is refused with a reason in the page and one log line, and the game goes on."""
    import http.client

    from playwright.sync_api import sync_playwright

    host = HostProcess(tmp_path / "data", "--seats", "2", "--bots", "1", "--seed", "7", "--web", "0")
    watcher = Watcher(host.port)
    link = urlsplit(host.url)
    origin = f"{link.scheme}://{link.netloc}"
    try:
        looper = http.client.HTTPConnection(link.hostname, link.port, timeout=30, source_address=("127.0.0.2", 0))
        for path in (f"/?{link.query}", f"/table?{link.query}&name=loop&as=sit"):
            for _ in range(300):
                looper.request("GET", path)
                answer = looper.getresponse()
                answer.read()
                assert answer.status == 200, answer.status
        looper.close()
        with sync_playwright() as playwright:
            context = browser(playwright)
            try:
                refused = context.new_page()
                assert refused.goto(f"{origin}/?code=not-it").status == 403
                assert "Refused: wrong table code." in refused.inner_text("body")
                asked = context.new_page()
                asked.goto(origin + "/")
                assert asked.locator("input[name=code]").count() == 1  # no code given: the page asks for it

                first = Tab(context, host.url)  # the link friends are given
                first.page.wait_for_selector("#sit")
                assert first.page.locator("input[name=code]").get_attribute("type") == "hidden"
                first.page.wait_for_timeout(1000)
                assert visitor_processes(host) == 0  # a visit of the link starts nothing and takes no seat
                watcher.poll(0.1)
                assert watcher.seats()[0] == ("open", None, False)
                first.page.fill("#name", "\u202edana\x07\x1b")  # a bidi override, a bell, an escape: cleaned at the door
                first.page.click("#sit")
                first.page.wait_for_selector("body.-first-byte", timeout=30000)
                watcher.until(lambda: watcher.seats()[0] == ("human", "dana", True), "dana seated")
                watcher.until(lambda: watcher.deciding == 0, "dana's decision")
                first.wait_for_text(r"step %d\b" % watcher.step)
                step = watcher.step
                first.page.keyboard.press("1")  # no click into the page first: the terminal has the keys
                watcher.until(lambda: watcher.step > step, "the key to move the game")
                first.wait_for_text(r"step %d\b" % watcher.step)

                first.page.evaluate('window.cthulhuSocket.send("[".repeat(5000) + "]".repeat(5000))')
                # a function, not a string: Playwright polls a string with eval, which the page's CSP refuses (seen on a slow machine)
                first.page.wait_for_function('() => document.getElementById("keys").textContent.includes("refused")')
                assert first.page.inner_text("#keys") == "A message from this page was refused: it was nested too deep."
                watcher.until(lambda: watcher.deciding == 0, "dana's decision")
                step = watcher.step
                first.page.keyboard.press("1")  # still her game
                watcher.until(lambda: watcher.step > step, "the session to carry on")

                spectators = watcher.session.table.spectators
                second = Tab(context, host.url)  # same browser, so same visitor: the seat stays with the first tab
                second.page.wait_for_selector("#sit")
                assert second.page.inner_text("#sit") == "Back to your seat"
                assert second.page.input_value("#name") == "dana"
                second.page.click("#sit")
                second.page.wait_for_selector("body.-first-byte", timeout=30000)
                watcher.until(lambda: watcher.session.table.spectators == spectators + 1, "the second tab watching")
                assert watcher.seats()[0] == ("human", "dana", True)
                second.wait_for_text(r"step %d\b" % watcher.step)
                second.wait_for_text(r"Wexley Mill Fire")

                # The first tab is reloaded: the same visitor (cookie) takes the same seat back.
                first.page.reload()
                first.page.wait_for_selector("body.-first-byte", timeout=30000)
                watcher.until(lambda: watcher.seats()[0] == ("human", "dana", True) and watcher.session.table.spectators == spectators + 1,
                              "dana back in her seat")
                watcher.until(lambda: watcher.deciding == 0, "dana's decision")
                step = watcher.step
                first.page.keyboard.press("1")
                watcher.until(lambda: watcher.step > step, "the reloaded tab to play")

                for tab in (first, second):
                    assert tab.requests and all(u.startswith(origin + "/") for u in tab.requests), tab.requests
            finally:
                context.close()
    finally:
        watcher.close()
        assert host.stop() in (0, 143)
    assert "Traceback" not in host.stderr, host.stderr
    logged = [line for line in host.stderr.splitlines() if "refused a message from the page" in line]
    assert logged == ["cthulhu host: web door: refused a message from the page at 127.0.0.1: it was nested too deep"], host.stderr


def test_no_room_even_to_watch_is_said_in_the_tab(tmp_path: Path) -> None:
    """Every seat and every spectator's place taken: the tab shows the host's one line, the host logs it
    once, and nothing crashes."""
    from playwright.sync_api import sync_playwright

    host = HostProcess(tmp_path / "data", "--seats", "2", "--bots", "2", "--bot-delay", "5", "--seed", "7", "--web", "0")
    crowd = fill_spectators(host.port)
    try:
        with sync_playwright() as playwright:
            context = browser(playwright)
            try:
                tab = Tab(context, host.url)
                tab.page.click("#sit")
                tab.wait_for_text(r"cthulhu: the host refused us: no room for more spectators at this table")
                tab.page.wait_for_selector("body.-closed", timeout=30000)  # and the page says the session ended
            finally:
                context.close()
    finally:
        for sock in crowd:
            sock.close()
        assert host.stop() in (0, 143)
    assert "Traceback" not in host.stderr, host.stderr
    assert "no room for more spectators" in host.stderr
