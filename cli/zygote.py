"""`python -m cthulhu.cli.zygote FD`: the doors' warm parent of visitors' interfaces (`cthulhu.serve.zygote`).

The fork server's loop is the doors' (`serve`); what it warms up is here, above them, since it is
the interface and the command line that every visitor runs: the doors never import those."""

from __future__ import annotations

import sys

from cthulhu.serve.zygote import main as serve_main


def warm() -> None:
    """Import and build, once, what every visitor's interface needs before its first frame (what a
    visitor still imported by itself, found by listing `sys.modules` in one; a test holds that it
    imports nothing: `tests/serve/test_serve_zygote.py`)."""
    import importlib

    from . import build_parser
    from .common import mode_content
    from cthulhu.core import modes
    from cthulhu.tui.modes import tui_mode
    from rich.cells import cell_len

    for name in ("cthulhu.tui.app", "cthulhu.tui.netlink", "cthulhu.tui.render", "cthulhu.net.seatstore", "cthulhu.cli.embedded",
                 "textual.drivers.linux_driver", "textual.drivers.web_driver", "textual.drivers.headless_driver",
                 "textual.layouts.factory", "textual.layouts.horizontal", "textual.layouts.stream", "textual.pilot"):
        importlib.import_module(name)
    build_parser()  # every subcommand's module
    for mode in modes.all_modes():
        mode_content(mode)  # parsed and validated once (cached)
        tui_mode(mode.name)  # its interface's package
        # The checkers of what the host sends (pydantic builds each on first use: 25 ms and 0.4 MB a child).
        mode._view_adapter, mode._data_adapters  # noqa: B018
        if mode.events is not None:
            mode._event_adapter  # noqa: B018
    cell_len("\u2554\u2550\u00e9\u2713")  # rich's table of character widths


def main() -> int:
    return serve_main(warm)


if __name__ == "__main__":
    sys.exit(main())
