"""Opening the app's connections to a host or server: plain TCP, or TLS when the address said
`tls://` (the certificate checked as `cthulhu.net.tls` checks it for the trio clients)."""

from __future__ import annotations

import asyncio
import ssl

from cthulhu.net import TlsFailed, failure


async def open_stream(host: str, port: int, tls: ssl.SSLContext | None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to `host`:`port`, over TLS with `tls`: `TlsFailed` if the host's certificate
    is not trusted or the port speaks no TLS (not worth retrying), `OSError` if nothing answers."""
    try:
        return await asyncio.open_connection(host, port, ssl=tls, server_hostname=host if tls is not None else None)
    except ssl.SSLError as exc:
        raise (failure(exc, f"{host}:{port}") or TlsFailed(f"TLS with {host}:{port} failed: {exc}")) from None


__all__ = ["TlsFailed", "open_stream"]
