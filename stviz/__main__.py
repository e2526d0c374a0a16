"""``python -m stviz``: the command line."""

import sys

from stviz.cli import main

sys.exit(main())
