"""Who comes back to a server, without accounts: identities, their names, and the seats they hold.

An identity is a key the visitor's own machine made and keeps for this server (`cthulhu join`'s
seat store; the doors keep one per SSH key, return ticket or browser), sent in every hello. The
server keeps only a keyed hash of it, the name chosen at the first visit (later hellos may say
another name: the identity's is used, so a player is the same person at every table), and which
seats it holds, so the lobby's "my tables" follows the person from table to table. The seat
tokens themselves stay with the player, as ever. Hellos without a key are anonymous: they sit and
play, and are in nobody's "my tables".

New identities are rationed per network (`ServerLimits.identities`, by /24 or /64): past that, a
newcomer is anonymous for a while, never refused for it.

One person, one name: a name (compared case-insensitively, after cleaning) held by an identity is
refused to any other newcomer (`NameTaken`); a returning identity keeps its own. A person who comes
through several doors (`cthulhu join` on a laptop, the SSH door, a browser) links them into one
identity with a one-time code (`server.linking`): the linked identity's key stands for the other
from then on (`merged_into`), and its seats become the other's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from cthulhu.net import PrefixBudgets
from cthulhu.net import clean_name

from .store import Identity, SeatLink, Seen


class NameTaken(Exception):
    """A newcomer asked for a name another identity holds: one line for them."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is taken on this server")
        self.reason = f"{name} is taken on this server"


def name_key(name: str) -> str:
    """What two names are compared by: cleaned, case-insensitive."""
    return clean_name(name).casefold()


def key_hash(key: str) -> str:
    """What the server keeps of an identity key: a keyed BLAKE2 hash, never the key."""
    return hashlib.blake2b(key.encode(), digest_size=16, person=b"cthulhu-ident").hexdigest()


def identity_id(key: str) -> str:
    """A new identity's id, drawn from its key (another hash of it): two processes of a fleet that
    meet the same new key at once make the same identity, not two that the store refuses as one."""
    return hashlib.blake2b(key.encode(), digest_size=5, person=b"cthulhu-id").hexdigest()


class People:
    """Identities by key, the seat each holds, and what each last saw (all in memory; the server
    writes every change to its store)."""

    def __init__(self, identities: Iterable[Identity], links: Iterable[SeatLink], seen: Iterable[Seen],
                 rate: tuple[float, int], clock: Callable[[], float]) -> None:
        everyone = list(identities)
        self.by_id = {i.id: i for i in everyone}
        self.by_hash = {i.key_hash: self.current(i) for i in everyone}
        self.by_name: dict[str, Identity] = {}
        for identity in everyone:
            if identity.merged_into is None:
                self.by_name.setdefault(name_key(identity.name), identity)  # an old store's duplicates: the first keeps it
        self.holder: dict[str, dict[int, SeatLink]] = {}  # table -> seat -> who holds it
        self.held: dict[str, set[tuple[str, int]]] = {}
        for link in links:
            self._hold(link)
        self.seen = {(s.identity, s.table): s for s in seen}
        self._budgets = PrefixBudgets(rate, clock)  # by network: churned addresses give no spent budget back

    def current(self, identity: Identity) -> Identity:
        """The identity `identity` stands for now (itself, or the one it was linked into)."""
        seen = {identity.id}
        while identity.merged_into is not None and identity.merged_into in self.by_id and identity.merged_into not in seen:
            identity = self.by_id[identity.merged_into]
            seen.add(identity.id)
        return identity

    def find(self, key: str | None) -> Identity | None:
        return self.by_hash.get(key_hash(key)) if key else None

    def arrive(self, key: str | None, name: str, address: str, wall: str) -> tuple[Identity | None, bool]:
        """The identity a hello's key stands for (and True if it is new: the caller stores it), or
        None for an anonymous hello (no key, or too many new identities from `address` lately).
        `NameTaken` if a newcomer asks for a name another identity holds (an anonymous hello is
        checked where it would sit down: `check_free`)."""
        known = self.find(key)
        if known is not None:
            known.last_seen = wall
            return known, False
        if not key:
            return None, False
        self.check_free(name)
        if not self._budgets.take(address):
            return None, False
        identity = Identity(id=identity_id(key), key_hash=key_hash(key), name=clean_name(name) or "player", created=wall, last_seen=wall)
        self.by_hash[identity.key_hash] = identity
        self.by_id[identity.id] = identity
        self.by_name[name_key(identity.name)] = identity
        return identity, True

    def learn(self, identity: Identity) -> None:
        """An identity another process of the server made (`server.fleet`): known here from now on."""
        self.by_id[identity.id] = identity
        self.by_hash[identity.key_hash] = self.current(identity)
        if identity.merged_into is None:
            self.by_name.setdefault(name_key(identity.name), identity)

    def check_free(self, name: str) -> None:
        """`NameTaken` if an identity holds `name` (a newcomer's, or an anonymous player's at a table)."""
        holder = self.by_name.get(name_key(name))
        if holder is not None:
            raise NameTaken(holder.name)

    def merge(self, gone: Identity, into: Identity, wall: str) -> tuple[list[Identity], list[SeatLink]]:
        """`gone` is `into` from now on (a door linked with `into`'s code): every key that stood for
        `gone` stands for `into`, and `gone`'s seats and last-seen steps are `into`'s; its name is
        free again. The changed identities and the new seat links, to store."""
        changed = []
        for identity in self.by_id.values():
            if identity is gone or identity.merged_into == gone.id:
                identity.merged_into = into.id
                changed.append(identity)
        for hashed, identity in self.by_hash.items():
            if identity is gone:
                self.by_hash[hashed] = into
        if self.by_name.get(name_key(gone.name)) is gone:
            del self.by_name[name_key(gone.name)]
        links = [link for table, seat in sorted(self.held.get(gone.id, ()))
                 if (link := self.link(table, seat, into.id, wall)) is not None]
        self.held.pop(gone.id, None)
        for (who, table), seen in list(self.seen.items()):
            if who == gone.id:
                del self.seen[(who, table)]
                mine = self.seen.get((into.id, table))
                if mine is None or mine.step < seen.step:
                    self.seen[(into.id, table)] = Seen(into.id, table, seen.step, seen.at)
        into.last_seen = wall
        return [*changed, into], links

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
