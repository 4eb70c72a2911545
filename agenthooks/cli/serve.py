"""``agenthooks serve``: the hook server (the bus and its installed plugins, over HTTP).

    agenthooks serve [--host 127.0.0.1] [--port 8765] (--token-file FILE | --no-auth)
                     [--workers N --redis URL] [--rate CALLS/SECONDS] [--body-limit BYTES]
                     [--ssl-certfile F --ssl-keyfile F]

Needs the ``server`` extra. ``--no-auth`` is refused unless the host is a loopback address.
"""

from __future__ import annotations

import argparse
import ipaddress
import os

from .common import CLIError, Subparsers


def add_parser(sub: Subparsers) -> None:
    """Register the ``serve`` command."""
    parser = sub.add_parser(
        "serve",
        help="serve the bus and its plugins to hook clients (Claude Code, Codex) over HTTP",
        description="Serve the installed plugins (loaded as HookBus(plugins='auto') loads "
        "them, configured by their environment variables) to hook clients over HTTP: "
        "Claude Code at /v1/hooks/claude-code, Codex at /v1/hooks/codex, and more. "
        "Needs pip install 'agenthooks[server]'.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (8765)")
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="accepted bearer tokens, one 'NAME = SHA256HEX' per line (NAME is the caller)",
    )
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="serve without tokens (refused unless --host is a loopback address)",
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (1)")
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="share sessions' state through this Redis (needed for --workers above 1 and for "
        "several hosts)",
    )
    parser.add_argument(
        "--body-limit",
        type=int,
        default=None,
        metavar="BYTES",
        help="largest request body accepted (1048576)",
    )
    parser.add_argument(
        "--redis-prefix",
        metavar="PREFIX",
        default="agenthooks:server:session:",
        help="key prefix of the sessions' state in Redis (agenthooks:server:session:)",
    )
    parser.add_argument(
        "--rate",
        metavar="CALLS/SECONDS",
        help="requests per caller in any window (600/60); over it: 429 (with --redis: across "
        "workers)",
    )
    parser.add_argument("--ssl-certfile", metavar="FILE", help="TLS certificate (PEM)")
    parser.add_argument("--ssl-keyfile", metavar="FILE", help="TLS private key (PEM)")
    parser.add_argument("--log-level", default="warning", help="uvicorn's log level (warning)")
    parser.set_defaults(run=run)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with the app; returns when the server stops."""
    try:
        from ..server import main
        from ..server.auth import TokenFileError, Tokens
    except ImportError as exc:
        raise CLIError(str(exc).split(" (")[0], 1) from None
    import uvicorn

    if args.no_auth and args.token_file:
        raise CLIError("give --token-file or --no-auth, not both")
    if args.no_auth:
        if not is_loopback(args.host):
            raise CLIError(
                f"--no-auth is refused on {args.host}: without tokens the server listens on "
                "a loopback address only (--host 127.0.0.1)"
            )
        os.environ[main.NO_AUTH_ENV] = "1"
        os.environ.pop(main.TOKEN_FILE_ENV, None)
    elif args.token_file:
        try:
            Tokens.from_file(args.token_file)  # a bad file fails here, in one line
        except TokenFileError as exc:
            raise CLIError(str(exc)) from None
        os.environ[main.TOKEN_FILE_ENV] = os.path.abspath(args.token_file)
        os.environ.pop(main.NO_AUTH_ENV, None)
    else:
        raise CLIError("give --token-file FILE (NAME = SHA256HEX lines), or --no-auth on loopback")
    if args.body_limit is not None:
        if args.body_limit < 1:
            raise CLIError("--body-limit must be a positive number of bytes")
        os.environ[main.BODY_LIMIT_ENV] = str(args.body_limit)
    if args.workers < 1:
        raise CLIError("--workers must be at least 1")
    if args.workers > 1 and not args.redis:
        raise CLIError(
            "--workers above 1 needs --redis URL: the workers share sessions through Redis"
        )
    if args.redis:
        os.environ[main.REDIS_ENV] = args.redis
        os.environ[main.REDIS_PREFIX_ENV] = args.redis_prefix
    else:
        os.environ.pop(main.REDIS_ENV, None)
    if args.rate:
        try:
            main.parse_rate(args.rate)
        except ValueError as exc:
            raise CLIError(f"--rate: {exc}") from None
        os.environ[main.RATE_ENV] = args.rate
    else:
        os.environ.pop(main.RATE_ENV, None)
    if bool(args.ssl_certfile) != bool(args.ssl_keyfile):
        raise CLIError("TLS needs both --ssl-certfile and --ssl-keyfile")
    uvicorn.run(
        "agenthooks.server.main:app_from_environment",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile,
        timeout_keep_alive=5,
    )
    return 0


__all__ = ["add_parser", "is_loopback", "run"]
