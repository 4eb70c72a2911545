"""``python -m agenthooks.demo``: run the demo."""

from . import main

raise SystemExit(main())
