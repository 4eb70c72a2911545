"""``python -m agenthooks.cli``: the same as the ``agenthooks`` console script."""

import sys

from . import main

sys.exit(main())
