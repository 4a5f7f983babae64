"""`python -m cthulhu.cli`: the same as the `cthulhu` command."""

import sys

from . import main

sys.exit(main())
