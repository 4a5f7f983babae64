"""What a host hands out: table codes, seat tokens, table ids, and the join line people paste.

Codes and tokens come from `secrets` and never begin with ``-``: a command line
such as ``cthulhu join HOST --code -AbC`` would read the code as an option. The
join line is built here once, quoted for a POSIX shell, so whatever the program
prints for someone else to type works when pasted as it is.
"""

from __future__ import annotations

import secrets
import shlex
import socket

CODE_BYTES = 6  # 8 characters: short enough to read out loud
TOKEN_BYTES = 24  # 32 characters: a seat token is a password nobody types


def _url_safe(nbytes: int) -> str:
    while True:
        text = secrets.token_urlsafe(nbytes)
        if not text.startswith("-"):  # 1 draw in 64 would, and argparse would take it for an option
            return text


def new_table_code() -> str:
    """A table code for `cthulhu host` (what every `hello` must present)."""
    return _url_safe(CODE_BYTES)


def new_seat_token() -> str:
    """The secret that gives a seat back to its owner."""
    return _url_safe(TOKEN_BYTES)


def new_table_id() -> str:
    """A public name for one game's table, kept in its save, so a restarted host is the same table."""
    return secrets.token_hex(6)


def join_address(bind: str, port: int) -> str:
    """Where others reach a host listening on `bind`: this machine's name for a wildcard bind."""
    if bind in ("0.0.0.0", "::", ""):
        bind = socket.gethostname()
    return f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}"


def shell_option(name: str, value: str) -> str:
    """`--name value` for a POSIX shell, whatever the value holds."""
    # `--code=-x` is the one spelling argparse never mistakes for an option; quote for the shell.
    return shlex.quote(f"{name}={value}") if value.startswith("-") else f"{name} {shlex.quote(value)}"


def join_command(address: str, code: str | None = None, *, token: str | None = None, table: str | None = None) -> str:
    """`cthulhu join ADDRESS [--table ID] [--code C] [--token T]`, ready to paste into a shell
    (`table`: one of a server's tables).

    A token finds its own seat, so the line never needs a seat number."""
    parts = ["cthulhu", "join", shlex.quote(address)]
    if table:
        parts.append(shell_option("--table", table))
    if code:
        parts.append(shell_option("--code", code))
    if token:
        parts.append(shell_option("--token", token))
    return " ".join(parts)
