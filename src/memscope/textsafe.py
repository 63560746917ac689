"""The one sanitiser for text that leaves memscope for a terminal.

Run files, directory names and arguments are untrusted: a question, a run id or a folder
name may hold ANSI escape sequences (an OSC 52 sequence writes the clipboard), other C0/C1
control characters, or bidi controls that reorder what a reader sees. Every path to a
terminal passes such text through :func:`printable`, which turns each of them into a
visible escape (``\x1b``): the CLI's consoles do it for everything they print
(``cli/common.py``), errors do it for their message (``errors.py``), the app does it for
widgets (``tui/text.py``) and notifications. Rich markup is never interpreted in such text.
"""

from __future__ import annotations

import re

# C0 except tab and newline, DEL, C1, line/paragraph separators, and every bidi control
# (ALM, LRM/RLM, embeddings/overrides, isolates).
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, *, keep_newlines: bool = True) -> str:
    """Return ``text`` with control and bidi-override characters replaced by ``\\xNN``.

    Tabs stay; newlines stay unless ``keep_newlines`` is False (then they become spaces).
    """
    if text is None:
        return ""
    value = str(text)
    if not keep_newlines:
        value = value.replace("\r\n", " ").replace("\n", " ")
    return _CONTROL.sub(_escape, value)


def is_printable(text: str) -> bool:
    """Whether ``text`` holds nothing :func:`printable` would escape."""
    return _CONTROL.search(text) is None
