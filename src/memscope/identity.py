"""Identity rules shared by every layer (design.md "Identity").

- ``qid = "q<idx>"`` for a question at 1-based position ``idx``.
- The question key matches one question across runs: a hash of the task, the answer mode
  (an MCQ item and its open-ended twin are scored differently, so they are different items)
  and the question text with whitespace collapsed; the MCQ options block is never part of it.

The store computes the same key in SQL for large datasets; ``WHITESPACE_PATTERN`` is the
RE2 class matching exactly the characters Python's ``str.split()`` splits on, so both give
identical keys (tests/test_identity.py).
"""

from __future__ import annotations

import hashlib

KEY_SEPARATOR = "\x1f"
KEY_LENGTH = 16
WHITESPACE_PATTERN = (
    r"[\t\n\x{0b}\f\r\x{1c}-\x{1f} \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}"
    r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+"
)


def qid_for(idx: int) -> str:
    """The qid of the question at 1-based position ``idx``."""
    return f"q{idx}"


def question_key(task: str, mode: str, question: str) -> str:
    """Return the key that matches one question across runs."""
    normalized = " ".join(question.split())
    payload = f"{task.strip().lower()}{KEY_SEPARATOR}{mode}{KEY_SEPARATOR}{normalized}".encode()
    return hashlib.sha1(payload).hexdigest()[:KEY_LENGTH]
