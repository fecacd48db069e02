"""``python -m arena``: the ``arena`` command (same as the console script)."""

import sys

from .cli import main

sys.exit(main())
