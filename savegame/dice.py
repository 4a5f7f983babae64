"""The dice commitment a game is played under: its seed, a secret salt, and the hash of both.

The host sends the commitment to every peer at the start and reveals seed and salt at the end
(`net.commitment` checks them); a save keeps the salt, so a table carried on from it keeps its word.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

PERSON = b"cthulhu-dice"
SALT_BYTES = 32


def seed_bytes(seed: int) -> bytes:
    """The seed as the commitment hashes it: 8 bytes, unsigned, big-endian (seeds are below 2**63)."""
    return int(seed).to_bytes(8, "big")


def commit(seed: int, salt: bytes) -> str:
    """The commitment to `seed` (hex): BLAKE2b-256 of the seed's 8 bytes then the salt."""
    return hashlib.blake2b(seed_bytes(seed) + salt, digest_size=32, person=PERSON).hexdigest()


def opens(commitment: str, seed: int, salt: bytes) -> bool:
    """Whether seed and salt are what `commitment` was made from (constant time)."""
    return hmac.compare_digest(commit(seed, salt), commitment)


@dataclass(frozen=True, slots=True)
class Dice:
    """A game's seed with the secret salt of its commitment; the host's (and its save's) secret."""

    seed: int
    salt: bytes

    @classmethod
    def new(cls, seed: int) -> "Dice":
        return cls(seed, secrets.token_bytes(SALT_BYTES))

    @property
    def commit(self) -> str:
        return commit(self.seed, self.salt)
