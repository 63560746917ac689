"""Identity rules shared by every layer (design.md "Identity").

- ``qid = "q<idx>"`` for a question at 1-based position ``idx``.
- The question key matches one question across runs: a hash of the task, the answer mode
  (an MCQ item and its open-ended twin are scored differently, so they are different items)
  and the question text with whitespace collapsed; the MCQ options block is never part of it.

The store computes the same key in SQL for large datasets; ``WHITESPACE_PATTERN`` is the
RE2 class matching exactly the characters Python's ``str.split()`` splits on, so both give
identical keys (tests/unit/test_identity.py).

Run ids (:func:`run_labels`): a run is named by its folder, ``<folder>`` or
``<folder>:<part>`` for formats with several runs in one folder; folders that share a name
are told apart by the fewest parent folders that make them distinct, joined by ``/``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

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


RUN_LABEL_SEPARATOR = "/"


def folder_label(folder: Path, depth: int) -> str:
    """The last ``depth`` parts of ``folder`` joined by ``/`` (``qwen/MMMemory`` for 2).

    When ``depth`` reaches past the folder's first part, the whole path is the label.
    """
    parts = [part for part in folder.parts if part != folder.anchor]
    if depth >= len(parts):
        return folder.as_posix()
    return RUN_LABEL_SEPARATOR.join(parts[-depth:])


def run_labels(folders: list[Path]) -> dict[Path, str]:
    """The label each run folder gives its run ids: the shortest path suffix no other folder shares.

    A folder whose name is unique keeps its name (``srag_v``, ``cue_mm``); folders that
    share a name get as many parent parts as it takes to tell them apart
    (``qwen3.6-35b-a3b/MMMemory`` and ``gpt-5.4-mini/MMMemory``). The labels depend only
    on the set of folders, not on their order, so ingesting the same set again gives the
    same ids.
    """
    pending = sorted(set(folders))
    labels: dict[Path, str] = {}
    depth = 1
    while pending:
        # Folders whose labels differ at one depth differ at every greater depth, so only
        # those still sharing a label are compared again, one part longer.
        current = {folder: folder_label(folder, depth) for folder in pending}
        counts = Counter(current.values())
        pending = []
        for folder, label in current.items():
            if counts[label] == 1 or label == folder.as_posix():
                labels[folder] = label
            else:
                pending.append(folder)
        depth += 1
    return labels


def relabelled(run_id: str, folder_name: str, label: str) -> str:
    """``run_id`` with its leading folder name replaced by ``label`` (unchanged otherwise)."""
    if label == folder_name or not run_id.startswith(folder_name):
        return run_id
    rest = run_id[len(folder_name) :]
    return label + rest if not rest or rest[0] in ":#" else run_id
