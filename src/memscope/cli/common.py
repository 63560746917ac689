"""What every command shares: the --db and --format options, consoles, error handling.

Errors reach the user as one message on stderr and an exit code (0 success, 1 a user or
data error, 2 a usage error, 130 interrupted). A traceback appears only with
``MEMSCOPE_DEBUG=1``.

Everything the CLI prints goes through :data:`stdout` / :data:`stderr` (or :func:`echo`),
and Typer's own usage errors ("No such command … Did you mean …") through a console made
the same way: each carries :class:`Sanitised`, a Rich render hook that passes every piece
of text through ``memscope.textsafe.printable``, so no escape sequence from a file name,
run id or argument reaches the terminal whatever the caller forgot.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import (
    Console,
    ConsoleOptions,
    ConsoleRenderable,
    RenderHook,
    RenderResult,
    RichCast,
)
from rich.markup import escape
from rich.segment import Segment

# typer (<0.29) vendors click; the commands it builds take its own click types.
from typer._click.core import Context, Parameter
from typer._click.globals import get_current_context
from typer.core import TyperCommand

from memscope.cli.streams import (
    OutputConsole,
    ascii_json,
    encodes_utf,
    quiet_broken_pipes,
    stop_quietly,
    write_bytes,
)
from memscope.cli.typer_errors import route_typer_consoles
from memscope.errors import MemscopeError
from memscope.records import Notice
from memscope.textsafe import is_printable, printable

if TYPE_CHECKING:
    from memscope.usecases.runs.store_access import ReadOptions, Store

F = TypeVar("F", bound=Callable[..., Any])


class _SanitisedRenderable:
    """A renderable whose text segments pass through the sanitiser (styles untouched)."""

    def __init__(self, renderable: ConsoleRenderable | RichCast | str) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            if segment.control or is_printable(segment.text):
                yield segment
            else:
                yield Segment(printable(segment.text), segment.style)


class Sanitised(RenderHook):
    """Render hook: nothing a console prints can carry a control or bidi character."""

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_SanitisedRenderable(renderable) for renderable in renderables]


def sanitised(console: Console) -> Console:
    """``console`` with the :class:`Sanitised` hook installed."""
    console.push_render_hook(Sanitised())
    return console


stdout = sanitised(OutputConsole(highlight=False, soft_wrap=False))
stderr = sanitised(OutputConsole(stderr=True, highlight=False, soft_wrap=True))


# Typer's own usage errors ("No such command … Did you mean …") and help: the same hooks.
route_typer_consoles(lambda console: quiet_broken_pipes(sanitised(console)))


def echo(text: object, *, err: bool = False) -> None:
    """Print one plain line (no markup) through the sanitiser."""
    (stderr if err else stdout).print(printable(text), markup=False, highlight=False)


class OutputFormat(str, Enum):
    """How a reporting command prints its result."""

    table = "table"
    json = "json"


DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="Store file (default: $MEMSCOPE_DB, else the nearest .memscope/ folder upward, else ./.memscope/).",
        show_default=False,
    ),
]
FormatOption = Annotated[
    OutputFormat, typer.Option("--format", "-f", help="table (Rich) or json (to stdout).")
]
DatasetOption = Annotated[
    Path | None,
    typer.Option(
        "--dataset",
        help="The dialog JSON (or a folder of them) the run was made from, when the path it recorded does not exist here.",
        show_default=False,
    ),
]

READ_OPTIONS_META = "memscope.read_options"
"""Where a :class:`ReadsRuns` command keeps the benchmarks' own options it was given."""


def _benchmark_option_params(*, plugins: bool = True) -> list[Parameter]:
    """A click option per read option an installed benchmark declares (a path it needs,
    such as a cue registry), named by the option's key; without ``plugins``, only those of
    memscope's own benchmarks (no plugin is imported)."""
    from typer.core import TyperOption

    from memscope.usecases.runs.store_access import declared_read_options

    return [
        TyperOption(
            param_decls=[option.flag, option.key],
            default=None,
            help=markdown_literal(f"{option.help} ({title})"),
            show_default=False,
        )
        for title, option in declared_read_options(plugins=plugins)
    ]


_MARKDOWN = re.compile(r"([\\`*_\[\]<>#|~])")


def markdown_literal(text: str) -> str:
    """``text`` as the CLI's help (Markdown) shows it, character for character: a plugin's
    ``*_retrievallog_<granularity>_<retriever>`` is a file pattern, not emphasis."""
    return _MARKDOWN.sub(r"\\\1", text)


class ReadsRuns(TyperCommand):
    """A command that reads run directories: besides its own parameters it takes every
    installed benchmark's read options (``Benchmark.read_options``), without naming any
    benchmark; the command reads them back with :func:`read_options`.

    The options are added when the command parses or shows its help, so building the CLI
    loads no benchmark. A third-party plugin's options are added only when the command line
    has a flag that neither the command nor memscope's own benchmarks know (or asks for
    help): a command over built-in runs never imports a plugin to parse its flags.
    """

    _extra: list[Parameter] | None = None
    _plugins = True
    """Whether the plugins' options are offered (decided per command line in parse_args)."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        self._plugins = self._needs_plugins(ctx, args)
        self._extra = None
        return super().parse_args(ctx, args)

    def _needs_plugins(self, ctx: Context, args: list[str]) -> bool:
        """Whether ``args`` has a flag only a plugin could declare, or asks for help."""
        if ctx.resilient_parsing or any(arg in ctx.help_option_names for arg in args):
            return True
        own = [*super().get_params(ctx), *_benchmark_option_params(plugins=False)]
        known = {flag for param in own for flag in (*param.opts, *param.secondary_opts)}
        for arg in args:
            if arg == "--":
                break
            if arg.startswith("-") and len(arg) > 1 and arg.partition("=")[0] not in known:
                return True
        return False

    def _benchmark_params(self) -> list[Parameter]:
        if self._extra is None:
            own = {param.name for param in self.params}
            flags = {opt for param in self.params for opt in param.opts}
            # A flag the command has itself is never a benchmark's (the registry refuses a
            # plugin that declares one of memscope's flags; this keeps the command whole).
            self._extra = [
                p
                for p in _benchmark_option_params(plugins=self._plugins)
                if p.name not in own and not flags.intersection(p.opts)
            ]
        return self._extra

    def get_params(self, ctx: Context) -> list[Parameter]:
        params = super().get_params(ctx)
        help_option = self.get_help_option(ctx)
        if help_option is not None and params and params[-1] is help_option:
            return [*params[:-1], *self._benchmark_params(), help_option]
        return [*params, *self._benchmark_params()]

    def invoke(self, ctx: Context) -> Any:
        ctx.meta[READ_OPTIONS_META] = {
            param.name: ctx.params.pop(param.name)
            for param in self._benchmark_params()
            if param.name in ctx.params
        }
        return super().invoke(ctx)


def read_options(dataset: Path | None = None) -> ReadOptions:
    """The ReadOptions for ``--dataset`` and the benchmarks' own options the running
    :class:`ReadsRuns` command was given."""
    from memscope.usecases.runs.store_access import read_options as build

    context = get_current_context(silent=True)
    given = context.meta.get(READ_OPTIONS_META, {}) if context is not None else {}
    return build(dataset, {key: Path(value) for key, value in given.items() if value})


def open_store(db: Path | None) -> Store:
    """The store the user chose (see ``memscope --help`` for the precedence)."""
    from memscope.usecases.runs.store_access import open_store as open_chosen

    return open_chosen(db)


def print_json(data: object, *, rows: tuple[str, list[bytes]] | None = None) -> None:
    """Write ``data`` as indented JSON to stdout (never through Rich, so nothing is re-wrapped).

    ``rows`` = (key, already-encoded objects) adds a last member holding a list with one
    object per line: how large per-question arrays are written without building dicts.
    """
    import orjson

    try:
        encoded = orjson.dumps(
            data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY
        )
    except TypeError:  # a value orjson does not know (e.g. a Path): fall back to the stdlib
        encoded = json.dumps(data, ensure_ascii=False, indent=2, default=str).encode()
    if rows is not None and encoded.endswith(b"}"):
        key, objects = rows
        body = b",\n    ".join(objects)
        opening = b"\n" if encoded == b"{}" else b",\n"
        listing = b"[\n    " + body + b"\n  ]" if objects else b"[]"
        encoded = (
            encoded[:-1].rstrip() + opening + b"  " + orjson.dumps(key) + b": " + listing + b"\n}"
        )
    if not encodes_utf(sys.stdout):  # e.g. PYTHONIOENCODING=ascii: the same JSON, escaped
        encoded = ascii_json(encoded)
    write_stdout(encoded + b"\n")


def write_stdout(data: bytes) -> None:
    """Write bytes (JSON, CSV) to stdout: exact into a pipe or file, sanitised on a terminal.

    A closed stdout is one error; a reader that went away ends the command quietly
    (``memscope.cli.streams``).
    """
    if sys.stdout is not None and sys.stdout.isatty():
        data = printable(data.decode("utf-8", errors="replace")).encode()
    write_bytes(data)


def warn(notice: Notice | str) -> None:
    """Print one warning to stderr."""
    stderr.print(f"[yellow]warning:[/] {escape(printable(str(notice)))}")


def fail(error: MemscopeError) -> None:
    """Print an error to stderr."""
    stderr.print(f"[bold red]error:[/] {escape(error.message)}")  # message is sanitised


def is_interrupt(error: BaseException) -> bool:
    """Whether ``error`` is Ctrl-C, however it surfaced (DuckDB turns it into its own error)."""
    return (
        isinstance(error, KeyboardInterrupt)
        or (
            type(error).__module__.startswith(("duckdb", "_duckdb"))
            and "interrupted" in str(error).lower()
        )
        or (isinstance(error, RuntimeError) and str(error).strip() == "Query interrupted")
    )


def os_error_message(error: OSError) -> str:
    """One line for an OS error: the cause (ENOSPC, EACCES …) and the file it concerns."""
    import errno

    cause = error.strerror or str(error)
    code = errno.errorcode.get(error.errno or 0)
    where = error.filename if error.filename is not None else None
    text = f"{cause} [{code}]" if code else cause
    return f"{text} ({where})" if where else text


NO_WORKING_DIR = MemscopeError(
    "the working directory no longer exists (it was deleted or moved away), and this command "
    "needs it: for a relative path, or to find the store (the nearest .memscope/ upward)",
    fix="cd to a folder that exists, or give absolute paths and --db PATH (or $MEMSCOPE_DB).",
)


def lost_working_dir(error: OSError) -> bool:
    """Whether ``error`` is the working directory having gone (``os.getcwd`` failing)."""
    import errno

    from memscope.paths import working_dir

    return error.errno == errno.ENOENT and error.filename is None and working_dir() is None


def handles_errors(func: F) -> F:
    """Turn MemscopeErrors (and interrupts, OS errors) into a message and an exit code."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MemscopeError as error:
            if os.environ.get("MEMSCOPE_DEBUG"):
                raise
            cause = error.__cause__ or error.__context__
            if cause is not None and is_interrupt(cause):
                stderr.print("interrupted")
                raise typer.Exit(130) from None
            fail(error)
            raise typer.Exit(error.exit_code) from None
        except KeyboardInterrupt:
            stderr.print("interrupted")
            raise typer.Exit(130) from None
        except BrokenPipeError:
            # The reader went away (`memscope report -f json | head`): stop quietly.
            stop_quietly()
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except OSError as error:  # a file the command reads or writes: the cause is the message
            if os.environ.get("MEMSCOPE_DEBUG"):
                raise
            if lost_working_dir(error):
                fail(NO_WORKING_DIR)
                raise typer.Exit(1) from None
            stderr.print(f"[bold red]error:[/] {escape(printable(os_error_message(error)))}")
            raise typer.Exit(1) from None
        except Exception as error:  # a bug: say so plainly instead of a traceback
            if is_interrupt(error):
                stderr.print("interrupted")
                raise typer.Exit(130) from None
            if os.environ.get("MEMSCOPE_DEBUG"):
                raise
            stderr.print(
                f"[bold red]internal error:[/] {escape(type(error).__name__)}: {escape(printable(str(error)))}\n"
                "  This is a memscope bug; run again with MEMSCOPE_DEBUG=1 for the traceback and report it."
            )
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def fmt(value: float | None, digits: int = 3) -> str:
    """A metric for a table: fixed digits, an en dash when undefined."""
    if value is None:
        return "–"
    return f"{value:.{digits}f}"
