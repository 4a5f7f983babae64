"""One-time codes that link another door to an identity: one person, one name, one "my tables".

A player known to a server through `cthulhu join` asks for a code (`cthulhu join HOST --link`,
the lobby's `new_link_code`); typed at another door's lobby (the SSH or web door, `link`), it
makes that door's identity this one: its key stands for the asker's identity from then on and its
seats become the asker's (`People.merge`). A code is made by `secrets` (`CODE_LENGTH` letters
and digits a person can read aloud, about 40 bits), is good for `CODE_LIFETIME` seconds and once,
and only its keyed hash is kept, in memory and in the store; a typed code is hashed and compared
with `hmac.compare_digest`. Wrong codes are counted and throttled by the gate like wrong table
codes, and no code is ever logged.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import logging
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from .refused import Refused
from .store import LinkCode

if TYPE_CHECKING:
    from .server import TableServer
    from .store import Identity

log = logging.getLogger(__name__)

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud or copied by hand
CODE_LENGTH = 8
CODE_LIFETIME = 600  # seconds
MAX_CODES = 1024  # pending codes in all (one per identity at a time): the oldest goes first


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")  # as the server writes its times: ISO strings in UTC compare as times


def code_hash(code: str) -> str:
    """What is kept of a code: a keyed BLAKE2 hash of it as typed, dashes, spaces and case aside."""
    typed = "".join(ch for ch in code.upper() if ch.isalnum())
    return hashlib.blake2b(typed.encode(), digest_size=16, person=b"cthulhu-link").hexdigest()


def shown(code: str) -> str:
    """The code as a person reads it: two groups of four."""
    return f"{code[:4]}-{code[4:]}"


class LinkCodes:
    """The pending codes, by hash (the server stores every change)."""

    def __init__(self, codes: Iterable[LinkCode]) -> None:
        self.codes = {c.code_hash: c for c in codes}

    def new(self, identity: str, now: datetime) -> tuple[str, LinkCode, list[str]]:
        """A fresh code for `identity` (as shown), its record, and the hashes it replaces (the
        identity's earlier code, expired ones, the oldest past `MAX_CODES`): to store."""
        gone = [h for h, c in self.codes.items() if c.identity == identity or c.expires <= _iso(now)]
        for h in gone:
            del self.codes[h]
        while len(self.codes) >= MAX_CODES:
            oldest = min(self.codes.values(), key=lambda c: c.expires)
            del self.codes[oldest.code_hash]
            gone.append(oldest.code_hash)
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        record = LinkCode(code_hash(code), identity, _iso(now + timedelta(seconds=CODE_LIFETIME)))
        self.codes[record.code_hash] = record
        return shown(code), record, gone

    def use(self, typed: str, now: datetime) -> LinkCode | None:
        """The code `typed` stands for, used up (None: no such code, or it expired)."""
        wanted = code_hash(typed)
        found = None
        for hashed, code in self.codes.items():
            if hmac.compare_digest(hashed, wanted):
                found = code
        if found is None:
            return None
        del self.codes[found.code_hash]
        return found if found.expires > _iso(now) else None


def new_link_code(server: TableServer, identity: Identity) -> tuple[str, str]:
    """A one-time code linking another door to `identity` (as shown), and when it expires."""
    code, record, gone = server.codes.new(identity.id, server.wall())
    server._changes.codes.update({h: None for h in gone})
    server._changes.codes[record.code_hash] = record
    server._poke(soon=True)
    return code, record.expires


def link_door(server: TableServer, identity: Identity, typed: str, address: str) -> Identity:
    """`identity` (this door's) becomes the one whose code was `typed`, seats and all; that
    identity. `Refused` for a wrong or used-up code (counted like a wrong table code)."""
    refusal = server.gate.hello(address)  # a wrong code's wait, if this address has been guessing
    if refusal is not None:
        raise Refused(refusal.code, refusal.reason)
    found = server.codes.use(typed, server.wall())
    into = server.people.by_id.get(found.identity) if found is not None else None
    if found is not None:
        server._changes.codes[found.code_hash] = None
    if into is None:
        server.gate.wrong_code(address)
        raise Refused("bad_link_code", "that link code is wrong, used or out of date: ask for a new one (cthulhu join HOST --link)")
    into = server.people.current(into)
    if into is identity:
        return into
    changed, links = server.people.merge(identity, into, server.now())
    for person in changed:
        server._changes.identities[person.id] = copy.copy(person)
    for link in links:
        server._changes.link(link)
    for (who, table_id), seen in server.people.seen.items():
        if who == into.id:
            server._changes.seen[(who, table_id)] = seen
    for table in server.tables.values():
        if table.record.created_by == identity.id:
            table.record.created_by = into.id
            server._changed(table)
        for peer, who in table.identities.items():
            if who == identity.id:
                table.identities[peer] = into.id
    server._poke(soon=True)
    log.info("identity %s linked into %s", identity.id, into.id)
    return into
