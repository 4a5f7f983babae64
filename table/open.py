"""The one way a table is built: `open_table(spec)`.

`cthulhu play`, `cthulhu host` (with its interface or headless, with or without its front doors),
a server's tables, the tests and the benches describe the table they want as a `TableSpec` and get
a `Host` from here; how it is then served (a TCP port, a thread beside the interface, an in-memory
stream in a test) is the caller's business, as trio's `open_tcp_listeners` is apart from
`serve_listeners`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from cthulhu.net import Gate

from .events import HostEvents
from .host import Host
from .resolve import resolve
from .spec import TableSpec
from .turnclock import Kept


def open_table(spec: TableSpec, *, gate: Gate | None = None, events: HostEvents | None = None,
               wall: Callable[[], datetime] | None = None, kept: Kept | None = None) -> Host:
    """The host of the table `spec` describes, not yet serving. Raises the saves module's errors
    for a save that does not load (or, `SaveTo.at_once`, cannot be written), `ValueError` for a
    setup or a bot the mode does not have. `gate`: the admission it shares with other tables (a
    server's); by default its own. `events`, `wall`, `kept`: see `Host`."""
    opened = resolve(spec)
    host = Host(spec, opened, gate=gate, events=events, wall=wall, kept=kept)
    writer = opened.writer
    if writer is not None and spec.save is not None and spec.save.at_once and not writer.started:
        try:
            writer.keep()  # (after the host is built: its bots' seats are in the first write)
            writer.write()
        except BaseException:
            writer.close()
            raise
    return host
