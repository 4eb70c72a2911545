"""Durable runs: a run that pauses for a human (``pausing``) and goes on at ``resume()``
(``resume``), and a conversation kept in a store (``stored_session``: claims and reads;
``keeper``: what a run stores as it goes and at its end; ``journal``: each tool call noted
before and after it runs, so a crash loses nothing). The paused-run data itself
(``PausedRun``) is ``agenthooks/paused.py``: the stores read and write it too."""
