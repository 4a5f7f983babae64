"""Who comes back to a server, without accounts: identities, their names, and the seats they hold.

An identity is a key the visitor's own machine made and keeps for this server (`cthulhu join`'s
seat store; the doors keep one per SSH key, return ticket or browser), sent in every hello. The
server keeps only a keyed hash of it, the name chosen at the first visit (later hellos may say
another name: the identity's is used, so a player is the same person at every table), and which
seats it holds, so the lobby's "my tables" follows the person from table to table. The seat
tokens themselves stay with the player, as ever. Hellos without a key are anonymous: they sit and
play, and are in nobody's "my tables".

New identities are rationed per address (`ServerLimits.identities`): past that, a newcomer is
anonymous for a while, never refused.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable

from cthulhu.net.limits import TokenBucket
from cthulhu.net.textclean import clean_name

from .store import Identity, SeatLink, Seen

MAX_ADDRESSES = 4096


def key_hash(key: str) -> str:
    """What the server keeps of an identity key: a keyed BLAKE2 hash, never the key."""
    return hashlib.blake2b(key.encode(), digest_size=16, person=b"cthulhu-ident").hexdigest()


class People:
    """Identities by key, the seat each holds, and what each last saw (all in memory; the server
    writes every change to its store)."""

    def __init__(self, identities: Iterable[Identity], links: Iterable[SeatLink], seen: Iterable[Seen],
                 rate: tuple[float, int], clock: Callable[[], float]) -> None:
        self.by_hash = {i.key_hash: i for i in identities}
        self.by_id = {i.id: i for i in self.by_hash.values()}
        self.holder: dict[str, dict[int, SeatLink]] = {}  # table -> seat -> who holds it
        self.held: dict[str, set[tuple[str, int]]] = {}
        for link in links:
            self._hold(link)
        self.seen = {(s.identity, s.table): s for s in seen}
        self.rate = rate
        self.clock = clock
        self._budgets: OrderedDict[str, TokenBucket] = OrderedDict()

    def find(self, key: str | None) -> Identity | None:
        return self.by_hash.get(key_hash(key)) if key else None

    def arrive(self, key: str | None, name: str, address: str, wall: str) -> tuple[Identity | None, bool]:
        """The identity a hello's key stands for (and True if it is new: the caller stores it), or
        None for an anonymous hello (no key, or too many new identities from `address` lately)."""
        if not key:
            return None, False
        known = self.find(key)
        if known is not None:
            known.last_seen = wall
            return known, False
        budget = self._budgets.get(address)
        now = self.clock()
        if budget is None:
            budget = self._budgets[address] = TokenBucket.of(self.rate, now)
            if len(self._budgets) > MAX_ADDRESSES:
                self._budgets.popitem(last=False)
        if not budget.take(now):
            return None, False
        identity = Identity(id=secrets.token_hex(5), key_hash=key_hash(key), name=clean_name(name) or "player", created=wall, last_seen=wall)
        self.by_hash[identity.key_hash] = identity
        self.by_id[identity.id] = identity
        return identity, True

    # -- seats -----------------------------------------------------------------------------------

    def _hold(self, link: SeatLink) -> None:
        self.holder.setdefault(link.table, {})[link.seat] = link
        self.held.setdefault(link.identity, set()).add((link.table, link.seat))

    def link(self, table: str, seat: int, identity: str, wall: str) -> SeatLink | None:
        """`identity` holds the seat now; the new link (to store), or None if it already did."""
        old = self.holder.get(table, {}).get(seat)
        if old is not None and old.identity == identity:
            return None
        if old is not None:
            self.held.get(old.identity, set()).discard((table, seat))
        link = SeatLink(table, seat, identity, wall)
        self._hold(link)
        return link

    def unlink(self, table: str, seat: int) -> bool:
        """Nobody holds the seat any more; True if somebody did."""
        old = self.holder.get(table, {}).pop(seat, None)
        if old is None:
            return False
        self.held.get(old.identity, set()).discard((table, seat))
        return True

    def seats_of(self, identity: str | None) -> dict[str, list[int]]:
        """The seats `identity` holds, by table."""
        out: dict[str, list[int]] = {}
        for table, seat in sorted(self.held.get(identity, ())) if identity else ():
            out.setdefault(table, []).append(seat)
        return out

    def holders(self, table: str) -> dict[int, str]:
        """Who holds each linked seat of `table` (identity ids)."""
        return {seat: link.identity for seat, link in self.holder.get(table, {}).items()}

    def forget_table(self, table: str) -> None:
        """An archived table's seats are nobody's "my tables" any more (the store keeps the links)."""
        for seat in list(self.holder.get(table, {})):
            self.unlink(table, seat)
        self.holder.pop(table, None)
