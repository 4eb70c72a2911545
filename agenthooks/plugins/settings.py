"""A plugin's options, given in code or set by the environment, validated in one place.

Every plugin distribution declares its options as a ``PluginSettings`` subclass (one field per
option, ``env_prefix`` naming its variables) instead of a parser of its own. A bad option is a
``PluginOptionError`` naming the plugin, where the value came from, the key (the keyword
argument or the environment variable) and what was wrong; a mistyped key names the closest
valid one, also for an environment variable with the plugin's prefix.

Lists in the environment are comma-separated (``AGENTHOOKS_RETRY_STACKS=provider,tool``):
annotate such a field ``CommaList``.
"""

from __future__ import annotations

import difflib
import os
from contextvars import ContextVar
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BeforeValidator, ValidationError
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from typing_extensions import Self

from ..errors import ConfigError

S = TypeVar("S", bound="PluginSettings")
_CODE_ONLY: ContextVar[bool] = ContextVar("agenthooks_plugin_options_in_code", default=False)


def _split_commas(value: Any) -> Any:
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    return value


CommaList = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_split_commas)]
"""A list option: a sequence of strings in code, comma-separated in the environment."""


class PluginOptionError(ConfigError):
    """A plugin option that is unknown or has a bad value.

    Attributes:
        plugin: The plugin's name.
        source: Where the value came from (``"arguments"``, ``"environment"``, a file name).
        key: The option as it was given (a keyword argument or an environment variable).
        problem: What is wrong with it.
    """

    def __init__(self, plugin: str, source: str, key: str, problem: str) -> None:
        super().__init__(problem, source=source, key=key)
        self.plugin = plugin
        self.args = (f"{plugin} plugin: {source}: {key}: {problem}",)


class PluginSettings(BaseSettings):
    """The base of a plugin's options: one field per option.

    Subclasses set ``plugin`` (the name errors use) and ``model_config`` with the
    ``env_prefix`` of their variables::

        class RetrySettings(PluginSettings):
            plugin: ClassVar[str] = "retry"
            model_config = SettingsConfigDict(env_prefix="AGENTHOOKS_RETRY_")

            attempts: int = Field(3, ge=1)
            stacks: CommaList = ("provider",)

    Construct with ``of(**options)`` in code and ``from_env()`` from the environment; both
    raise ``PluginOptionError``.
    """

    plugin: ClassVar[str] = "plugin"
    error: ClassVar[type[PluginOptionError]] = PluginOptionError
    """What a bad option raises: a subclass a plugin names (``RetryConfigError``) or this."""
    model_config = SettingsConfigDict(extra="forbid", frozen=True, env_ignore_empty=True)

    @classmethod
    def of(cls, source: str = "arguments", /, **options: Any) -> Self:
        """The options given in code, validated (the environment is not read).

        Raises:
            PluginOptionError: Naming the first bad or unknown option.
        """
        unknown = [key for key in options if key not in cls.model_fields]
        if unknown:
            raise cls._unknown(source, unknown[0], list(cls.model_fields))
        token = _CODE_ONLY.set(True)
        try:
            return cls(**options)
        except ValidationError as exc:
            raise cls._invalid(source, exc, env=False) from None
        finally:
            _CODE_ONLY.reset(token)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Options in code (``of``) read only the keyword arguments; ``from_env`` reads the
        environment; no ``.env`` file or secrets directory is read behind a user's back."""
        if _CODE_ONLY.get():
            return (init_settings,)
        return (init_settings, env_settings)

    @classmethod
    def from_env(cls) -> Self:
        """The options the environment sets: ``env_prefix`` + the option's name in capitals
        (read by pydantic-settings; empty variables count as unset).

        Raises:
            PluginOptionError: Naming the variable that is unknown (a variable with the
                plugin's prefix that names no option) or has a bad value.
        """
        prefix = cls.model_config.get("env_prefix", "").upper()
        if prefix:
            variables = set(cls.env_names().values())
            for key in os.environ:
                if key.upper().startswith(prefix) and key.upper() not in variables:
                    raise cls._unknown("environment", key, sorted(variables))
        try:
            return cls()
        except ValidationError as exc:
            raise cls._invalid("environment", exc, env=True) from None

    @classmethod
    def env_names(cls) -> dict[str, str]:
        """Each option's environment variable, by option name."""
        prefix = cls.model_config.get("env_prefix", "")
        return {name: prefix + name.upper() for name in cls.model_fields}

    @classmethod
    def _unknown(cls, source: str, key: str, valid: list[str]) -> PluginOptionError:
        close = difflib.get_close_matches(key, valid, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else f"; valid: {', '.join(valid)}"
        return cls.error(cls.plugin, source, key, f"unknown option{hint}")

    @classmethod
    def _invalid(cls, source: str, exc: ValidationError, *, env: bool) -> PluginOptionError:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else "(options)"
        key = cls.env_names().get(name, name) if env else name
        given = error.get("input")
        return cls.error(cls.plugin, source, key, f"{given!r}: {error['msg']}")


__all__ = ["CommaList", "PluginOptionError", "PluginSettings"]
