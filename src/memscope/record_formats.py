"""Declared file formats: what a benchmark says about a file the store bulk-loads itself.

A benchmark whose per-question result file is too large for Python rows describes it here,
as data (field names, their kinds, which field feeds which stored column, where the ranking
is), and hands it to the store in a :class:`~memscope.records.BulkSource`. The store turns
the description into DuckDB reads, row checks and ``INSERT … SELECT`` statements
(``store/loaders/lines_sql.py``); the benchmark package writes no SQL and imports no DuckDB.
One description serves the per-run loader and the batched ingest of a sweep alike.

The vocabulary is small on purpose: it is what memscope's loaders check and store, named in
words a file format uses, so another benchmark's JSON-lines results can use it unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

FieldKind = Literal["text", "number", "unit", "list", "object", "flag"]
"""What a checked field of a row must hold (absent or null is always allowed):

- ``text``: a string, a number or a boolean (stored as text); never a list or an object;
- ``number``: a number or a boolean (true is 1), finite;
- ``unit``: a ``number`` in [0, 1] (an answer metric such as exact match);
- ``list`` / ``object``: a JSON array / object, stored as JSON;
- ``flag``: true, false or an integer (non-zero is true).

A row holding anything else is a bad line, reported as ``file:line`` and skipped (refused
with ``--strict``)."""

ShapeLeaf = Literal["text", "number", "integer"]
Shape: TypeAlias = ShapeLeaf | list["Shape"] | Mapping[str, "Shape"]
"""The typed structure a nested field is parsed into: a leaf type, ``[shape]`` for a list of
that shape, or ``{name: shape}`` for an object of those members (others ignored). A value of
another structure becomes null instead of making the row bad, so a large nested field
(a method's runtime log) costs only the parts named."""


@dataclass(frozen=True)
class RankedIds:
    """Where a row logs its retrieval as a ranking (runs whose ``retrieval_kind`` is ``ranked``).

    Paths are dotted, from a field of :attr:`LinesFormat.shapes` (``runtime.ranking``).
    """

    ids: str
    """The list of round ids, rank 1 first."""
    candidates: str | None = None
    """A list of scored candidates, usually the first ranks in the same order; a candidate
    scores the round of its id (``candidate_id``), wherever it is ranked."""
    candidate_id: str = "round_id"
    score: tuple[str, ...] = ()
    """The candidate's members holding the fused score, the first non-null one wins."""
    text_score: tuple[str, ...] = ()
    image_score: tuple[str, ...] = ()


@dataclass(frozen=True)
class LinesFormat:
    """A newline-delimited JSON file of one row per question, as the store should read it.

    Every row must carry :attr:`key`, a positive integer: the question's ``idx`` in the
    dataset, whose ``qid`` is :attr:`qid_prefix` followed by it. A duplicated key, a key
    the dataset lacks and a badly typed field make a bad line; when most rows ask another
    question than the dataset's (:attr:`question_field`), the dataset is refused.
    """

    file_name: str
    """The file's name in messages (``predictions.jsonl``)."""
    described: str
    """What the file is, in a hint when no line is usable (``a MemEye predictions file``)."""
    fields: Mapping[str, FieldKind] = field(default_factory=dict)
    """The fields checked on every row, by kind (only these and :attr:`shapes` are read)."""
    shapes: Mapping[str, Shape] = field(default_factory=dict)
    """Nested fields parsed into typed structures, for :attr:`columns` and the rankings."""
    columns: Mapping[str, str] = field(default_factory=dict)
    """The ``predictions`` column each field (or dotted path into a shape) fills:
    ``question``, ``gold``, ``pred``, ``choice``, ``mode``, ``em``, ``exact_match``,
    ``judge``, ``judge_reasoning``, ``f1``, ``bleu_1``, ``rotations``, ``position_bias``,
    ``latency_ms``, ``total_tokens``, ``context_rounds``. A column not named is null."""
    key: str = "idx"
    qid_prefix: str = "q"
    mcq_when: tuple[str, ...] = ()
    """A row without a ``mode`` field is multiple choice when one of these fields is set,
    else open."""
    question_field: str | None = "question"
    """The field holding the question's text, compared with the dataset's (None: never)."""
    dataset_fix: str = "Pass the dataset this run was made from with --dataset PATH."
    """The fix a refused dataset's message proposes."""
    ranked: RankedIds | None = None
    unranked_ids: str | None = None
    """Where a run whose ``retrieval_kind`` is ``unranked`` logs the set of rounds it
    retrieved: a dotted path to a list of ids."""
    unranked_late: int = 0
    """How many rows late :attr:`unranked_ids` is written (a method that snapshots its
    state before answering logs a question's rounds on the next row: 1)."""


@dataclass(frozen=True)
class DatasetFormat:
    """A dataset file holding one JSON object: a session list and a question list.

    The store reads the file with DuckDB once. It hands the session list, as Python values,
    to the ``build_rounds`` of the :class:`~memscope.records.DatasetSource` (benchmark code:
    media need the file system) and derives every question's columns in SQL, as declared
    here (question lists reach tens of thousands of entries). A question's ``qid`` is
    :attr:`qid_prefix` followed by its 1-based position in the list.
    """

    file_name: str
    """The file's name in messages (``dialog JSON``)."""
    sessions: str
    """The top-level member holding the session list."""
    questions: tuple[str, ...]
    """The top-level members that may hold the question list (the first present wins)."""
    session_rounds: str
    """A session's member holding its rounds (a session whose whole value Python cannot
    hold, nested too deeply, is read round by round, to skip only the round at fault)."""
    session_name: str
    """A session's member naming it, in messages."""
    round_name: str
    """A round's member naming it, in messages."""
    fix: str
    """The fix a refused file's message proposes (``Pass the … file with --dataset PATH.``)."""
    question_list: str = "question list"
    """What the question list is called in messages."""
    question: str = "question"
    gold: str | None = "answer"
    options: str | None = None
    """An object or a list of the choices: a question with a non-empty one is ``mcq``."""
    evidence: str | None = None
    """The gold round ids (a string or a list of them), resolved against the rounds."""
    evidence_name: str = "evidence id"
    """What one of :attr:`evidence` is called in messages."""
    evidence_sessions: str | None = None
    """The sessions holding the evidence (a string or a list); without them, the sessions
    of the evidence rounds, in evidence order."""
    images: tuple[str, ...] = ()
    """Members naming the question's own images (each a string or a list)."""
    labels: str | None = None
    """A list of lists of axis labels (``[["X2", "Y1"]]``): an axis's label is its letter
    (:attr:`axes`) and a level; a question's coordinate is its highest level per axis."""
    axes: tuple[str, str] = ("X", "Y")
    max_level_digits: int = 9
    """A level has at most this many digits (longer labels are ignored with a notice)."""
    qid_prefix: str = "q"
