"""StructlogPlugin: one structlog line per agenthooks event, from the uniform ``on_event`` record."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any, TextIO, cast

import structlog

from agenthooks import HookBus
from agenthooks.events import EventRecord
from agenthooks.plugins import ExportRedaction

from .render import as_text, clip, field_value
from .settings import DEFAULT_LEVELS, LEVELS, StructlogConfigError, StructlogSettings

CONTEXT_FIELDS = (
    "run_id",
    "parent_run_id",
    "session_id",
    "agent",
    "branch",
    "iteration",
    "tool_call_id",
)
"""Record fields bound as structlog contextvars while a line is logged (when set)."""

_RANK = {level: rank for rank, level in enumerate(LEVELS)}
_WARNING = _RANK["warning"]
_NUMERIC = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}


class StructlogPlugin:
    """Log every agenthooks event through structlog: ``bus.use(StructlogPlugin())``.

    Each line's event is the agenthooks event name (``pre_tool_call``); ``run_id``,
    ``parent_run_id``, ``session_id``, ``agent``, ``branch``, ``iteration`` and
    ``tool_call_id`` (those that are set) are bound with ``structlog.contextvars`` for the
    duration of the log call; the payload fields are ``tool_name``, ``input``, ``output``,
    ``error``, ``denied``, ``duration``, ``is_error`` (only when true) and, on
    ``on_chat_end``, ``usage``. Text payloads are cut to ``max_chars`` characters each, after
    the redaction of every redacting plugin that reaches the run (``agenthooks.redaction``):
    no line carries text a redaction would have removed, whatever order the plugins were
    installed in.

    The global structlog configuration is never touched. A failing logger (a closed file)
    never breaks a run: the handler is isolated (``errors = "isolate"``).

    Args:
        renderer: ``"console"`` (default) or ``"json"``, for the plugin's own logger.
        levels: ``{event: level}`` overrides; by default chunks log at ``debug``, errors
            (``on_model_error``, ``on_tool_call_error``, ...) and any deny or error record
            at ``warning``, ``on_chat_error`` at ``error``, everything else at ``info``.
        max_chars: The most characters of each text payload.
        logger: Any structlog logger, to log through your own configuration instead;
            ``renderer``, ``file`` and ``min_level`` then do not apply.
        events: Log only these events (names or aliases); default: all.
        min_level: The plugin's own logger drops lines below it (default ``"info"``).
        file: Where the plugin's own logger writes: a path or a text stream; default
            ``sys.stderr``.

    Raises:
        StructlogConfigError: An option is bad; it names the option.
    """

    name = "structlog"
    errors = "isolate"

    def __init__(
        self,
        renderer: str | None = None,
        levels: Mapping[str, str] | None = None,
        max_chars: int | None = 200,
        logger: Any = None,
        events: Iterable[str] | None = None,
        *,
        min_level: str | None = None,
        file: str | IO[str] | None = None,
    ) -> None:
        settings = StructlogSettings.of(
            "StructlogPlugin",
            renderer=renderer,
            levels=levels,
            max_chars=max_chars,
            logger=logger,
            events=events,
            min_level=min_level,
            file=file,
        )
        self._configure("StructlogPlugin", settings)

    @classmethod
    def from_env(cls) -> StructlogPlugin:
        """The plugin the ``AGENTHOOKS_STRUCTLOG_*`` variables configure (the ``structlog``
        entry point builds it so): ``RENDERER`` (console|json), ``MIN_LEVEL``, ``MAX_CHARS``
        (or ``none``), ``LEVELS`` (``on_message=debug,pre_request=warning``), ``EVENTS``
        (``on_chat_start,on_chat_end``), ``FILE`` (a path to append to; default stderr).

        Raises:
            StructlogConfigError: Naming the variable that is unknown or bad.
        """
        plugin = cls.__new__(cls)
        plugin._configure("environment", StructlogSettings.from_env())
        return plugin

    def _configure(self, source: str, options: StructlogSettings) -> None:
        names = StructlogSettings.env_names() if source == "environment" else {}

        def key(option: str) -> str:
            return names.get(option, option)

        logger, file = options.logger, options.file
        if logger is not None:
            for option in ("renderer", "file", "min_level"):
                if getattr(options, option) is not None:
                    raise StructlogConfigError(
                        "structlog",
                        source,
                        key(option),
                        "applies to the plugin's own logger only; "
                        "with logger= your logger's configuration renders and filters",
                    )
        self._redaction = ExportRedaction()
        self.levels: dict[str, str] = dict(options.levels or {})
        self.max_chars = options.max_chars
        self.events = None if options.events is None else frozenset(options.events)
        self.renderer = options.renderer or "console"
        self._owned: IO[str] | None = None
        self._min_rank = -1
        if logger is not None:
            self.logger = logger
            return
        stream = sys.stderr if file is None else file
        if isinstance(stream, str):
            try:
                stream = self._owned = open(stream, "a", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                raise StructlogConfigError(
                    "structlog", source, key("file"), f"cannot open {file!r} for appending: {exc}"
                ) from None
        min_name = options.min_level or "info"
        self._min_rank = _RANK[min_name]
        self.logger = own_logger(self.renderer, min_name, stream)

    def setup(self, bus: HookBus) -> Callable[[], None]:
        """Follow the redacting plugins that reach the bus's runs; returns the undo."""
        return self._redaction.watch(bus)

    def on_event(self, record: EventRecord) -> None:
        """Log one event record (see the class docstring for the fields)."""
        try:
            self._log(record)
        finally:
            if record.type == "on_chat_end":
                self._redaction.forget(record.run_id)

    def _log(self, record: EventRecord) -> None:
        if self.events is not None and record.type not in self.events:
            return
        level = self.level_of(record)
        if _RANK[level] < self._min_rank:
            return  # filtered anyway: skip rendering the payload
        bound = {}
        for name in CONTEXT_FIELDS:
            value = getattr(record, name)
            if value is not None and value != "":
                bound[name] = value
        with structlog.contextvars.bound_contextvars(**bound):
            getattr(self.logger, level)(record.type, **self.payload(record))

    def level_of(self, record: EventRecord) -> str:
        """The level ``record`` logs at: the explicit one for its event, else the default
        (raised to ``warning`` for a deny or an error)."""
        explicit = self.levels.get(record.type)
        if explicit is not None:
            return explicit
        level = DEFAULT_LEVELS.get(record.type, "info")
        if (record.is_error or record.denied is not None) and _RANK[level] < _WARNING:
            return "warning"
        return level

    def payload(self, record: EventRecord) -> dict[str, Any]:
        """The fields of ``record``'s line beside the bound context."""
        n = self.max_chars
        fields: dict[str, Any] = {}
        if record.tool_name is not None:
            fields["tool_name"] = record.tool_name
        texts = {
            k: v
            for k, v in (
                ("input", record.input),
                ("output", record.output),
                ("error", record.error),
                ("denied", record.denied),
            )
            if v is not None
        }
        if texts and self._redaction.active(record.run_id):  # redact whole, then clip
            shown = {
                k: v if isinstance(v, (bool, int, float)) else as_text(v) for k, v in texts.items()
            }
            texts = self._redaction.redact_record(record.type, shown, record.run_id)
            texts = {k: v for k, v in texts.items() if v is not None}
        if "input" in texts:
            fields["input"] = field_value(texts["input"], n)
        if "output" in texts:
            fields["output"] = field_value(texts["output"], n)
        if record.is_error:
            fields["is_error"] = True
        if "error" in texts:
            fields["error"] = clip(texts["error"], n)
        if "denied" in texts:
            fields["denied"] = clip(texts["denied"], n)
        if record.duration is not None:
            fields["duration"] = record.duration
        if record.type == "on_chat_end":
            fields["usage"] = record.usage.model_dump()
        return fields

    def teardown(self) -> None:
        """Close the log file the plugin opened itself (called when the plugin is removed)."""
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def __repr__(self) -> str:
        return f"StructlogPlugin(renderer={self.renderer!r}, max_chars={self.max_chars!r})"


def own_logger(renderer: str, min_level: str, stream: IO[str]) -> Any:
    """A logger with its own processor chain (the global configuration stays untouched)."""
    last: Any
    if renderer == "json":
        last = structlog.processors.JSONRenderer()
    else:
        isatty = getattr(stream, "isatty", None)
        last = structlog.dev.ConsoleRenderer(colors=bool(isatty and isatty()))
    return structlog.wrap_logger(
        structlog.PrintLogger(cast(TextIO, stream)),
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            last,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_NUMERIC[min_level]),
        context_class=dict,
        cache_logger_on_first_use=True,
    )


__all__ = ["CONTEXT_FIELDS", "StructlogPlugin", "own_logger"]
