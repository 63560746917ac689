"""Standard output and error as the CLI writes them: the stream never crashes a command.

- **A reader that went away** (``memscope runs | head -1``): stop at once and exit 0,
  quietly, as Unix tools do; Rich's default would exit 1 and Click's too.
- **A closed stdout** (``memscope runs >&-``): output that has nowhere to go is one error
  (exit 1); a command that prints nothing to stdout (``ingest``) runs as usual.
- **No terminal** for the app (``memscope open < /dev/null > log 2>&1``): one error,
  exit 2, before anything is drawn; Textual would otherwise draw into the file and spin.
- **An encoding that cannot hold a character** (``PYTHONIOENCODING=ascii``, a C locale):
  an ASCII stand-in (``·`` → ``.``, ``–`` → ``-``) or an escape (``\\u2013``), never a
  ``UnicodeEncodeError``. JSON stays exact: non-ASCII characters become ``\\uXXXX``
  escapes, which JSON readers decode to the same text.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from typing import IO, NoReturn, TextIO

from rich.console import Console

from memscope.errors import MemscopeError, NoTerminalError

ERROR_HANDLER = "memscope-ascii"
STAND_INS = {
    "·": ".",
    "–": "-",
    "−": "-",
    "×": "x",
    "→": ">",
    "←": "<",
    "≈": "~",
    "Δ": "D",
    "α": "a",
    "λ": "l",
    "✓": "v",
    "✗": "x",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "█": "#",
    "▏": "|",
    "…": "...",
    "—": "--",
    "≤": "<=",
    "≥": ">=",
}
"""ASCII stand-ins for the characters memscope's own output uses (one character for one
where that keeps the meaning, so table columns stay aligned); others are escaped."""


class OutputClosedError(MemscopeError):
    """The command has output to print, but its standard output is closed."""

    title = "No output stream"


def stop_quietly() -> NoReturn:
    """The reader of stdout went away: exit 0 now, and keep Python from complaining
    about the unwritten rest while it flushes stdout on exit."""
    with contextlib.suppress(AttributeError, OSError, ValueError):  # no stdout left to quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(0)


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    replaced = "".join(
        STAND_INS.get(char) or char.encode("ascii", "backslashreplace").decode() for char in text
    )
    return replaced, error.end


codecs.register_error(ERROR_HANDLER, _stand_in)


def prepare_streams() -> None:
    """Make stdout and stderr degrade instead of raising on a character they cannot encode."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(OSError, ValueError):  # a stream that does not take it
                reconfigure(errors=ERROR_HANDLER)


def encodes_utf(stream: object) -> bool:
    """Whether ``stream``'s encoding can hold any character (UTF-8/16/32)."""
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("_", "-")
    return encoding.startswith("utf")


def ascii_json(data: bytes) -> bytes:
    """UTF-8 JSON with every non-ASCII character written as a ``\\uXXXX`` escape.

    Outside strings JSON is ASCII, so escaping every non-ASCII character escapes only
    string content, and a JSON reader gets the same text back.
    """
    if data.isascii():
        return data
    out = []
    for char in data.decode("utf-8"):
        code = ord(char)
        if code < 0x80:
            out.append(char)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:  # a surrogate pair, as JSON spells characters beyond the BMP
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
    return "".join(out).encode("ascii")


def stdout_or_fail() -> TextIO:
    """``sys.stdout``, or :class:`OutputClosedError` when it is closed."""
    stream = sys.stdout
    if stream is None:
        raise OutputClosedError(
            "standard output is closed, so the output has nowhere to go",
            fix="Run the command without closing stdout (>&-), or send it to a file (> FILE).",
        )
    return stream


class _ClosedStdout:
    """What the stdout console writes to when stdout is closed: the first write fails."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        stdout_or_fail()
        return 0

    def flush(self) -> None:
        """Nothing to flush."""

    def isatty(self) -> bool:
        return False


class OutputConsole(Console):
    """A Rich console whose stream problems end the command the CLI's way (see the module)."""

    @property
    def file(self) -> IO[str]:
        if self._file is None and not self.stderr and sys.stdout is None:
            return _ClosedStdout()  # type: ignore[return-value]
        return super().file

    @file.setter
    def file(self, new_file: IO[str]) -> None:
        self._file = new_file

    def on_broken_pipe(self) -> None:
        if self.stderr:  # nobody reads the messages any more; the command's work goes on
            self.quiet = True
            return
        stop_quietly()


def quiet_broken_pipes(console: Console) -> Console:
    """``console`` (one Typer made for its help and usage errors) exiting 0 on a broken pipe."""
    console.on_broken_pipe = stop_quietly  # type: ignore[method-assign]
    return console


def write_text(text: str) -> None:
    """Write ``text`` to stdout as it is (a rendered table, CSV)."""
    stream = stdout_or_fail()
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        stop_quietly()


def write_bytes(data: bytes) -> None:
    """Write ``data`` (UTF-8: JSON, CSV) to stdout's binary stream."""
    stream = stdout_or_fail()
    try:
        stream.flush()
        stream.buffer.write(data)
        stream.flush()
    except BrokenPipeError:
        stop_quietly()


def _is_terminal(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):  # closed
        return False


def require_terminal(command: str) -> None:
    """Refuse to start the app unless it can read keys and draw (Textual reads stdin and
    draws on stderr; stdout may go to a file).

    Raises:
        NoTerminalError: stdin or stderr is not a terminal.
    """
    missing = [
        name
        for name, stream in (("input (stdin)", sys.__stdin__), ("error (stderr)", sys.__stderr__))
        if not _is_terminal(stream)
    ]
    if missing:
        raise NoTerminalError(
            f"{command} is an interactive app and needs a terminal, but its standard "
            f"{' and standard '.join(missing)} {'is' if len(missing) == 1 else 'are'} not one "
            "(redirected, a pipe, or no terminal at all)",
            fix="Run it in a terminal without redirecting stdin or stderr. Without one, "
            "memscope report, suggest and export-labels give the same data as text.",
        )
