"""``python -m ledger_context``: the same command line as ``ledger-context``."""

import sys

from .cli import main

sys.exit(main())
