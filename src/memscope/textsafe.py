"""Making text from run files safe to show: control characters become visible escapes.

Run files are untrusted: a question may contain ANSI escape sequences or other control
characters that would move the cursor or recolour the terminal. Both front ends pass such
text through :func:`printable` and show it as plain text (never as Rich markup).
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


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
