"""What a link tells the screen, in its pieces: the sentences about seats (`tui.news`, pure), one
typed message per kind of news with a handler of its own on the game screen, and the link and the
screen kept small enough to read (issue 37)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from cthulhu.core import Game, Setup
from cthulhu.net.messages import SeatInfo, Table
from cthulhu.tui import link, netlink, news
from cthulhu.tui.screens.game import GameScreen

VIEW = Game.new(Setup(seed=4, players=2)).view(None)
ROOT = Path(__file__).resolve().parents[2]


def _table(*seats: SeatInfo, started: bool = True) -> Table:
    return Table(mode="main", seats=list(seats), started=started)


def _told(before: Table, after: Table, own: frozenset[int] = frozenset()) -> list[str]:
    seen: dict[int, news.SeatState] = {}
    assert news.seat_news(seen, before, VIEW, own) == []  # the first seat list is no news
    return news.seat_news(seen, after, VIEW, own)


def test_each_change_of_a_seat_is_one_sentence_naming_what_it_plays():
    ann = SeatInfo(seat=1, kind="human", name="Ann", connected=True)
    open_ = SeatInfo(seat=1, kind="open")
    plays = news.plays(VIEW, [1])
    assert _told(_table(open_), _table(ann)) == [f"Ann sits down to play {plays}."]
    assert _told(_table(ann), _table(SeatInfo(seat=1, kind="human", name="Ann"))) == [f"Ann left; {plays} waits for them."]
    assert _told(_table(ann), _table(SeatInfo(seat=1, kind="human", name="Ann", stand_in=True))) == [
        f"Ann is away; a bot plays {plays} until they are back."]
    assert _told(_table(open_), _table(SeatInfo(seat=1, kind="bot"))) == [f"A bot plays {plays} for the whole game."]
    assert _told(_table(ann), _table(open_)) == [f"Nobody plays {plays} now: the seat is open."]
    assert _told(_table(open_), _table(ann), own=frozenset({1})) == []  # this terminal's own seat is no news to it


def test_the_bar_says_who_is_missing_until_the_game_starts_and_how_to_join():
    waiting = news.waiting(_table(SeatInfo(seat=0, kind="open"), started=False), VIEW, "cthulhu join h:1 --code owl", hosting=True)
    assert waiting is not None and news.plays(VIEW, [0]) in waiting and "cthulhu join h:1 --code owl" in waiting and "L then S" in waiting
    assert news.waiting(_table(SeatInfo(seat=0, kind="bot")), VIEW, None, hosting=False) is None
    assert news.begins({"step": 0}) == "Every seat is taken: the game begins."
    assert news.begins({"step": 7}) == "Every seat is taken again: the game goes on."


def test_every_kind_of_news_is_a_message_with_a_handler_of_its_own_on_the_game_screen():
    kinds = [k for k in vars(link).values() if isinstance(k, type) and issubclass(k, link.Update) and k not in (link.Update, link.Opened)]
    assert len(kinds) >= 9
    for kind in kinds:
        assert hasattr(GameScreen, kind.handler_name), kind  # (`Opened` is the first news, posted one by one)
    assert not [f for f in link.Update.__dataclass_fields__ if f not in ("view", "status")]  # no record of optional fields


def test_the_link_and_the_game_screen_stay_small():
    source = inspect.getsource(netlink)
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "NetLink"]
    assert cls.end_lineno - cls.lineno + 1 < 450
    for path in ("tui/netlink.py", "tui/screens/game.py"):
        assert len((ROOT / path).read_text(encoding="utf-8").splitlines()) <= 600, path
