"""The lobby's list: which tables an asker sees, in which order, a page at a time, at a cost that
does not grow with the number of tables.

All tables share one event loop, so a listing must never be a walk over every table. `Listings`
keeps the live tables that everyone may see in the listing's order (a sorted list, updated as a
table's record changes: a few times a second at most) and their words in an index (word -> the
tables that have it, and the sorted words for prefix look-ups). A page of the plain listing is
then a slice; a search checks the tables of its rarest word against its other words (at most
`MAX_WALK` tables, each check a substring test at C speed) and sorts what matched; when every
word is common, it searches the newest `MAX_WALK` tables. Private tables are not in the shared
order: the asker's own (created, or with a seat held) are few and merged in. A page's rows are
kept packed, as they go on the wire, until the table's record changes.

The order puts what an asker can act on first: in "my tables", the ones where it is their move;
otherwise the games still looking for players, then those under way, then the finished ones;
newest activity first within each. A search's words each match the start of a word of the
table's id, mode, set-up or players' names (a word of one or two letters: a whole word); at most
`MAX_WORDS` of them are used (the most specific). So a listing's work is bounded by its page,
`MAX_WALK` and the asker's own tables, whatever the number of tables. `examined` counts the entries each listing
touched, the work a test can bound.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import msgpack

from cthulhu.net import HEADER, MAX_FRAME, FrameTooLarge

from .people import People
from .table import ServerTable

MAX_WORDS = 6  # words of a query used (the longest, after dropping those that a longer one implies)
PREFIX_FROM = 3  # shorter words match whole words only
BROAD = 64  # a word that starts more distinct words than this is checked table by table, not unioned
MAX_WALK = 300  # tables a search checks word by word at most: its rarest word's, or else the newest

Key = tuple[bool, bool, float, str]  # (finished, no open seat, -last activity, id): the public order
_WORD = re.compile(r"\w+")
_PACKER = msgpack.Packer(use_bin_type=True)


def _pack(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _when(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


def order_key(table: ServerTable) -> Key:
    return (table.record.finished, table.open_seats() == 0, -_when(table.activity()), table.id)


def query_words(query: str) -> list[str]:
    """The words a search uses: distinct, none implied by a longer one, at most `MAX_WORDS`."""
    words = sorted(set(words_of(query)), key=lambda w: (-len(w), w))
    kept: list[str] = []
    for word in words:
        if not any(other.startswith(word) for other in kept if len(word) >= PREFIX_FROM):
            kept.append(word)
    return kept[:MAX_WORDS]


def joined(words: Iterable[str]) -> str:
    """A table's words as one string, so that a query's word is checked at C speed: " word"
    in it means a word starts so, " word " that one is the word."""
    return " " + " ".join(sorted(set(words))) + " "


def needles(words: list[str]) -> list[str]:
    """What to look for in a `joined` text: " word" (a short word: " word ")."""
    return [" " + w if len(w) >= PREFIX_FROM else " " + w + " " for w in words]


def matches(text: str, words: list[str]) -> bool:
    """Every word starts one of the words of `text` (`joined`; a short word: equals one)."""
    return all(n in text for n in needles(words))


class Listings:
    """The live tables as the lobby lists them (see the module's docstring)."""

    def __init__(self, tables: Iterable[ServerTable] = ()) -> None:
        self.tables: dict[str, ServerTable] = {}
        self.order: list[Key] = []  # public live tables, in the listing's order
        self.keys: dict[str, Key] = {}
        self.private_by_creator: dict[str | None, set[str]] = {}
        self.by_creator: dict[str | None, set[str]] = {}
        self.tokens: dict[str, str] = {}  # table -> its words (`joined`)
        self.postings: dict[str, set[str]] = {}  # word -> public tables with it
        self.vocabulary: list[str] = []  # the words of `postings`, sorted
        self.rows: dict[str, tuple[dict[str, Any], bytes]] = {}  # table -> its row for nobody's in particular, and packed
        self.examined = 0  # entries touched by listings so far (the work, for tests and benches)
        for table in tables:
            self.put(table)

    def __len__(self) -> int:
        return len(self.tables)

    # -- keeping it up to date ----------------------------------------------------------------

    def put(self, table: ServerTable) -> None:
        """The table as its record stands now (a table no longer live leaves)."""
        self.drop(table.id)
        if not table.live:
            return
        self.tables[table.id] = table
        self.by_creator.setdefault(table.record.created_by, set()).add(table.id)
        tokens = set(words_of(table.search_text()))
        self.tokens[table.id] = joined(tokens)
        if table.record.private:
            self.private_by_creator.setdefault(table.record.created_by, set()).add(table.id)
            return
        key = order_key(table)
        self.keys[table.id] = key
        bisect.insort(self.order, key)
        for token in tokens:
            holders = self.postings.get(token)
            if holders is None:
                holders = self.postings[token] = set()
                bisect.insort(self.vocabulary, token)
            holders.add(table.id)

    def drop(self, table_id: str) -> None:
        table = self.tables.pop(table_id, None)
        self.rows.pop(table_id, None)
        if table is None:
            return
        tokens = set(self.tokens.pop(table_id, "").split())
        key = self.keys.pop(table_id, None)
        _discard(self.by_creator, table.record.created_by, table_id)  # (the record as it was put: created_by never changes)
        if key is None:
            _discard(self.private_by_creator, table.record.created_by, table_id)
            return
        del self.order[bisect.bisect_left(self.order, key)]
        for token in tokens:
            holders = self.postings[token]
            holders.discard(table_id)
            if not holders:
                del self.postings[token]
                del self.vocabulary[bisect.bisect_left(self.vocabulary, token)]

    def unfinished_by(self, identity: str) -> int:
        """How many live tables `identity` made are not finished."""
        return sum(1 for t in self.by_creator.get(identity, ()) if not self.tables[t].record.finished)

    # -- answering ------------------------------------------------------------------------------

    def page(self, people: People, identity: str | None, *, seq: int = 0, query: str = "", page: int = 0,
             size: int = 20, mine: bool = False, finished: bool = True) -> bytes:
        """One page (the frame of a `tables` message) for `identity` (None: anonymous) of the
        live tables matching every word of `query`. `mine`: the tables where it holds a seat, or
        that it made (`tables --create` sits nobody down); `finished`: False leaves out the games
        that are over."""
        held = {t: seats for t, seats in people.seats_of(identity).items() if t in self.tables}
        words = query_words(query)
        if mine:
            ids_mine = set(held) | (self.by_creator.get(identity, set()) if identity is not None else set())
            chosen = [t for t in ids_mine if (finished or not self.tables[t].record.finished)
                      and (not words or matches(self.tokens[t], words))]
            self.examined += len(ids_mine)
            chosen.sort(key=lambda t: self._mine_key(t, held.get(t, [])))
            total = len(chosen)
            lo, hi = _bounds(total, page, size)
            ids = chosen[lo:hi]
        else:
            own = [k for k in self._own_private(identity, held, words) if finished or not k[0]]
            public, count = self._public(words)
            if not finished:  # the finished ones come last in the kept order: cut them off
                public = public[:bisect.bisect_left(public, (True,))]
                count = len(public)
            total = count + len(own)
            lo, hi = _bounds(total, page, size)
            ids = [key[-1] for key in self._merged(public, own, lo, hi)]
        self.examined += len(ids)
        pages = max(1, -(-total // size))
        head = {"t": "tables", "seq": seq, "page": min(page, pages - 1), "pages": pages, "total": total}
        body = b"".join([_PACKER.pack_map_header(len(head) + 1), *(_pack(k) + _pack(v) for k, v in head.items()),
                         _pack("rows"), _PACKER.pack_array_header(len(ids)), *(self._row(t, identity, held.get(t, [])) for t in ids)])
        if len(body) > MAX_FRAME:
            raise FrameTooLarge(f"refusing to send a {len(body)}-byte frame (limit {MAX_FRAME})")
        return HEADER.pack(len(body)) + body

    def _row(self, table_id: str, identity: str | None, seats: list[int]) -> bytes:
        """The table's row for this asker, packed: the one kept since its record last changed, or
        (with the asker's own seats, or a private table's code for its creator) packed now."""
        kept = self.rows.get(table_id)
        if kept is None:
            row = self.tables[table_id].row(None, []).model_dump()
            kept = self.rows[table_id] = (row, _pack(row))
        record = self.tables[table_id].record
        code = record.code if record.private and identity is not None and identity == record.created_by else None
        if not seats and code is None:
            return kept[1]
        return _pack({**kept[0], "mine": list(seats), "code": code})

    def _mine_key(self, table_id: str, seats: list[int]) -> tuple[bool, bool, float, str]:
        record = self.tables[table_id].record
        return (record.finished, not set(seats) & set(record.to_move), -_when(self.tables[table_id].activity()), table_id)

    def _own_private(self, identity: str | None, held: dict[str, list[int]], words: list[str]) -> list[Key]:
        """The private tables this asker may see (its own and those it sits at), in order."""
        ids = set(self.private_by_creator.get(identity, ())) if identity is not None else set()
        ids |= {t for t in held if t not in self.keys}
        self.examined += len(ids)
        return sorted(order_key(self.tables[t]) for t in ids if not words or matches(self.tokens[t], words))

    def _public(self, words: list[str]) -> tuple[list[Key], int]:
        """The public tables matching `words`, in order, and how many. The rarest word's tables
        (at most `MAX_WALK` of them) are narrowed by the other words; when every word is common
        (on more tables than that, or the start of more than `BROAD` distinct words), the newest
        `MAX_WALK` tables are the ones searched."""
        if not words:
            return self.order, len(self.order)
        rarest: set[str] | None = None
        for word in words:
            holding = self._holding(word)
            if holding is not None and (rarest is None or len(holding) < len(rarest)):
                rarest = holding
        tokens, wanted = self.tokens, needles(words)
        if rarest is not None and len(rarest) <= MAX_WALK:
            self.examined += len(rarest)
            found = sorted(self.keys[t] for t in rarest if all(n in tokens[t] for n in wanted))
        else:
            self.examined += min(MAX_WALK, len(self.order))
            found = [key for key in itertools.islice(self.order, MAX_WALK) if all(n in tokens[key[-1]] for n in wanted)]
        return found, len(found)

    def _holding(self, word: str) -> set[str] | None:
        """The public tables with a word that `word` starts (a short word: equals); None when it
        starts more than `BROAD` distinct words (it narrows nothing down cheaply)."""
        if len(word) < PREFIX_FROM:
            return self.postings.get(word, set())
        lo = bisect.bisect_left(self.vocabulary, word)
        hi = bisect.bisect_left(self.vocabulary, word + "\U0010ffff", lo)
        self.examined += min(hi - lo, BROAD)
        if hi - lo > BROAD:
            return None
        if hi - lo == 1:
            return self.postings[self.vocabulary[lo]]
        return set().union(*(self.postings[w] for w in self.vocabulary[lo:hi]))

    @staticmethod
    def _merged(public: list[Key], own: list[Key], lo: int, hi: int) -> list[Key]:
        """Entries `lo` to `hi` of the two ordered lists merged (what precedes `lo` in the big
        one is skipped by bisecting, not walking)."""
        if not own:
            return public[lo:hi]
        start, own_start = _skip_merged(public, own, lo)
        return list(itertools.islice(heapq.merge(public[start:start + (hi - lo)], own[own_start:]), hi - lo))


def _skip_merged(big: list[Key], small: list[Key], lo: int) -> tuple[int, int]:
    """How many of `big` and of `small` come before entry `lo` of the two merged."""
    taken_small = 0
    for key in small:
        position = bisect.bisect_left(big, key) + taken_small  # its place among the merged
        if position >= lo:
            break
        taken_small += 1
    return lo - taken_small, taken_small


def _discard(index: dict[str | None, set[str]], key: str | None, table_id: str) -> None:
    held = index.get(key)
    if held is not None:
        held.discard(table_id)
        if not held:
            del index[key]


def _bounds(total: int, page: int, size: int) -> tuple[int, int]:
    pages = max(1, -(-total // size))
    page = min(page, pages - 1)
    return page * size, (page + 1) * size
