"""A table at run time: what it is opened from (`TableSpec`), the one way it is opened
(`open_table`), and the `Host` that runs it (its game, seats, clock, bots, save and peers).

Between the wire (`cthulhu.net`, both ends) and what serves tables (`cthulhu.server`, the
commands); an interface never imports it. Other packages import these names, not the modules.
"""

from __future__ import annotations

from .events import HostEvents
from .host import Host
from .open import open_table
from .peers import Peer
from .seats import Seat
from .spec import Pace, SaveTo, StandIns, TableSpec
from .thread import DidNotStart, NotRunning, NotSaving, ThreadedHost, ThreadError
from .turnclock import Kept, MoveBegins, StandInMove

__all__ = [
    "Host", "HostEvents", "Kept", "MoveBegins", "Pace", "Peer", "SaveTo", "Seat", "StandInMove", "StandIns", "TableSpec", "open_table",
    "ThreadedHost", "ThreadError", "DidNotStart", "NotRunning", "NotSaving",
]
