"""The one error a lobby request is refused with, apart from the server that raises it, so the lobby
and the link codes can raise it and catch it without importing the server."""

from __future__ import annotations


class Refused(Exception):
    """A lobby request refused: a wire code and one line for the asker."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
