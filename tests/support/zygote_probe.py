"""`python -m support.zygote_probe ARGS`: `cthulhu ARGS`, after writing in the file $ZYGOTE_PROBE_LOG the
TERM and terminal size it was given (first line), then every module it has to import (one line
each). Run through the doors' zygote, it tells what a visitor sees and still imports on its path
to the first frame: nothing, if the zygote is warm."""

from __future__ import annotations

import os
import runpy
import sys

_LOG = open(os.environ["ZYGOTE_PROBE_LOG"], "a", buffering=1, encoding="utf-8")
_SIZE = os.get_terminal_size(sys.__stdout__.fileno())
_LOG.write(f"{os.environ.get('TERM')} {_SIZE.columns}x{_SIZE.lines}\n")


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event == "import":  # raised only when a module is really loaded (not found in sys.modules)
        _LOG.write(f"{args[0]}\n")


sys.addaudithook(_hook)
sys.argv = ["cthulhu", *sys.argv[1:]]
runpy.run_module("cthulhu.cli", run_name="__main__")
