"""The one sanitiser for text that leaves memscope for a terminal.

Run files, directory names and arguments are untrusted: a question, a run id or a folder
name may hold ANSI escape sequences (an OSC 52 sequence writes the clipboard), other C0/C1
control characters, or bidi controls that reorder what a reader sees. Every path to a
terminal passes such text through :func:`printable`, which turns each of them into a
visible escape (``\x1b``): the CLI's consoles do it for everything they print
(``cli/common.py``), errors do it for their message (``errors.py``), the app does it for
widgets (``tui/text.py``) and notifications. Rich markup is never interpreted in such text.

Identifiers (run ids, file and folder names, question ids, the ``where`` of an error) must
also never *look* alike when they differ: ``srag_v`` and ``srag_v`` + U+200B, or ``café``
composed (NFC) and decomposed (NFD), print the same. :func:`printable_id` shows them
unambiguously: invisible and format characters, spaces other than a plain inner space, and
(in a name that is not in NFC) combining marks become escapes, and a backslash is doubled,
so two different names never print the same and :func:`parse_id` reads a printed name back.
Prose (a question, an answer, a note) keeps those characters: they shape scripts and emoji
(ZWJ, ZWNJ, soft hyphens, decomposed accents) and a reader sees the text as written.
:func:`lookalike_key` is what two names that look alike have in common, so a name typed
without its invisible characters can be answered with the runs it could mean.
"""

from __future__ import annotations

import re
import unicodedata

# C0 except tab and newline, DEL, C1, line/paragraph separators, every bidi control (ALM,
# LRM/RLM, embeddings/overrides, isolates), and lone surrogates (an undecodable byte of a
# file name: no terminal encoding can write one).
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    r"\ud800-\udfff]"
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


_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)
"""Default-ignorable characters outside category Cf: the combining grapheme joiner, Hangul
fillers, Khmer inherent vowels, Mongolian and other variation selectors. They draw nothing
(or only change the glyph of the character before them)."""

_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
"""Controls, format characters (U+200B, U+2060, U+FEFF, U+00AD, tags …), surrogates, private
use, unassigned code points and every separator: in a name, each is shown as an escape
(a plain inner space excepted)."""

_ID_ESCAPE = re.compile(r"\\(\\|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def _code_escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _hidden(char: str) -> bool:
    """Whether ``char`` draws nothing of its own, or nothing a reader can tell apart."""
    return unicodedata.category(char) in _HIDDEN_CATEGORIES or bool(_IGNORABLE.match(char))


def _composes(char: str) -> bool:
    """Whether ``char`` can differ from the NFC form it belongs to: a combining mark, a
    character NFC replaces (U+212B ANGSTROM SIGN), or a Hangul vowel or final jamo."""
    return (
        unicodedata.category(char).startswith("M")
        or not unicodedata.is_normalized("NFC", char)
        or "\u1161" <= char <= "\u11ff"
    )


def printable_id(text: object) -> str:
    """``text`` as a name that no different name prints as: see the module docstring.

    An ASCII name without a backslash or an outer space comes back unchanged.
    """
    if text is None:
        return ""
    value = str(text)
    if value.isascii() and value.isprintable() and "\\" not in value and value == value.strip(" "):
        return value
    marks = not unicodedata.is_normalized("NFC", value)
    last = len(value) - 1
    shown = []
    for index, char in enumerate(value):
        if char == "\\":
            shown.append("\\\\")
        elif char == " ":
            shown.append("\\x20" if index in (0, last) else " ")
        elif _hidden(char) or (marks and _composes(char)):
            shown.append(_code_escape(char))
        else:
            shown.append(char)
    return "".join(shown)


def parse_id(shown: str) -> str:
    """The name :func:`printable_id` printed as ``shown`` (its escapes read back).

    ``\\\\``, ``\\xNN``, ``\\uNNNN`` and ``\\UNNNNNNNN`` are read; any other backslash
    stays as it is.
    """

    def unescape(match: re.Match[str]) -> str:
        body = match.group(1)
        if body == "\\":
            return "\\"
        code = int(body[1:], 16)
        return chr(code) if code <= 0x10FFFF else match.group()

    return _ID_ESCAPE.sub(unescape, shown)


def lookalike_key(name: str) -> str:
    """What ``name`` looks like: without invisible characters, other spaces as plain ones,
    outer spaces stripped, in NFC. Names that differ only in what a reader cannot see (or
    only in composed and decomposed accents) have the same key."""
    visible = "".join(
        " " if unicodedata.category(char) == "Zs" else char
        for char in name
        if not (_hidden(char) and unicodedata.category(char) != "Zs")
    )
    return unicodedata.normalize("NFC", visible.strip(" "))


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a CSV text cell as a formula (OWASP's list)."""


def defuse_cell(value: str | None) -> str | None:
    """A CSV text cell made inert for spreadsheets: a leading ``'`` before a formula start.

    Every CSV memscope writes passes its text cells (never its numbers) through this:
    a run id, annotator or level named ``=HYPERLINK(…)`` or ``-evil`` stays text.
    """
    if value is not None and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
