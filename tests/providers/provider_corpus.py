"""A corpus of OpenAI-compatible answers, well-formed and malformed, for a loopback server.

Each ``Case`` holds the reply served to ``complete()`` (``json``) and the one served to
``stream()`` (``sse``), either of which may be absent, and what must come of them: a
``ProviderResponse`` that is exactly right, or a ``Failure`` (a typed error with the status,
a message fragment and the raw bytes). A case with both replies is one answer in its two
shapes, and the two paths must agree on it. The generators of ``corpus_answers`` and
``corpus_wire`` cover each class; the well-formed baselines are built with the official
``openai`` package's types (``corpus_kit``), so they have the shapes OpenAI itself sends.
"""

from __future__ import annotations

from corpus_answers import lenient, malformed_fields, model_mistakes, server_errors, well_formed
from corpus_kit import UNSET, Case, Failure
from corpus_wire import (
    framing,
    http_statuses,
    incomplete,
    sse_framing,
    tool_call_assembly,
    transport,
)


def corpus() -> list[Case]:
    """Every case, class by class."""
    return [
        *well_formed(),
        *lenient(),
        *model_mistakes(),
        *malformed_fields(),
        *server_errors(),
        *http_statuses(),
        *framing(),
        *sse_framing(),
        *tool_call_assembly(),
        *incomplete(),
        *transport(),
    ]


__all__ = ["UNSET", "Case", "Failure", "corpus"]
