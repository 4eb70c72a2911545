"""Hypothesis draws the same examples on every ``make test`` (a red run is then reproducible
and never a matter of luck); ``make soak`` (``AGENTHOOKS_SOAK=1``) explores at random."""

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("AGENTHOOKS_SOAK") == "1" else "repeatable")
