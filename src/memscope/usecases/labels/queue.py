"""The triage queue: which questions to look at, in which order, and how far along we are.

Pure data over one loaded run: :class:`TriageTable` keeps one row per question (numpy
columns) with its coordinate, correctness, score, suggested code and current label;
:class:`QueueSpec` says which of them form the queue (failing / all / unlabelled, a cell, a
filter expression) and how they are sorted. Selecting a queue is a few numpy masks, so it
stays instant on 50,000 questions. Both front ends can use it; nothing here knows Textual.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from memscope.analysis.aggregate import cell_labels
from memscope.analysis.answers import answer_score, correctness
from memscope.errors import InputError
from memscope.usecases.benchmarks import all_axis_keys, benchmarks, coordinate_levels
from memscope.usecases.runs.loading import RunData

QUEUE_KINDS = ("failing", "all", "unlabelled", "sample")
"""The queues ``memscope open --queue`` offers (design.md: the default is the failures);
``sample`` is the failures in the order of the run's stored sample plan (usecases/labels/sample.py)."""
SORT_KEYS = ("idx", "qid", "task", "x", "y", "correct", "score", "suggested", "label", "mode")
"""Columns the queue can be sorted by (``idx`` is the benchmark's own order)."""
FILTER_FIELDS = ("cell", "task", "x", "y", "code", "label", "correct", "labelled", "mode", "other")
"""``field:value`` terms the filter expression understands, besides the axes of each
benchmark (``adapters.axes``: ``evidence:implicit``, ``reach:2``, ``bank:>=30`` …); other
words match the text."""

_CELL_SEPARATORS = re.compile(r"[\s_\-,/]+")
_YES = {"yes", "y", "true", "1", "✓"}
_NO = {"no", "n", "false", "0", "✗"}


def coordinate_grid() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The x and the y levels of every installed benchmark that places questions on the
    question table's coordinates (MemEye's X1–X4 × Y1–Y3), in order."""
    xs: dict[str, None] = {}
    ys: dict[str, None] = {}
    for spec in benchmarks():
        found_x, found_y = coordinate_levels(spec)
        xs.update(dict.fromkeys(found_x))
        ys.update(dict.fromkeys(found_y))
    return tuple(xs), tuple(ys)


def parse_cell(text: str) -> str:
    """Normalise a cell as typed (``X4Y3``, ``x4_y3``, ``X4-Y3``) to ``"X4_Y3"``.

    Raises:
        InputError: when ``text`` is not a cell of the coordinate grid (X1–X4 × Y1–Y3).
    """
    xs, ys = coordinate_grid()
    typed = _CELL_SEPARATORS.sub("", text or "").upper()
    for x in xs:
        if typed.startswith(x.upper()):
            y = next((y for y in ys if typed[len(x) :] == y.upper()), None)
            if y is not None:
                return f"{x}_{y}"
    cells = [f"{x}{y}" for x in xs for y in ys]
    raise InputError(
        f"not a cell: {text!r}",
        fix=f"Write a cell as {cells[0]} … {cells[-1]} ({', '.join(cells[:3])}, …)."
        if cells
        else "No installed benchmark places questions on an x × y grid; filter by its axes.",
    )


def _axis_fields() -> str:
    """Each installed benchmark's filter words, for the unknown-field message."""
    return "; ".join(
        f"{spec.title} {', '.join(axis.key for axis in spec.axes.axes)}" for spec in benchmarks()
    )


@dataclass(frozen=True)
class FilterTerms:
    """A parsed filter expression (all terms must hold)."""

    fields: dict[str, str] = field(default_factory=dict)
    words: tuple[str, ...] = ()


def parse_filter(text: str) -> FilterTerms:
    """Parse ``"y:Y3 code:SEL-STALE paint"`` into field terms and free words.

    Field terms: ``cell:X4Y3``, ``task:NAME``, ``x:X4``, ``y:Y3``, ``code:CODE`` (the
    suggested code), ``label:CODE`` (a labelled code), ``correct:yes|no``,
    ``labelled:yes|no``, ``mode:mcq|open``, ``other:yes|no`` (the compared run's
    correctness). Other words must all occur in the qid or the question text.

    Raises:
        InputError: naming an unknown field or a bad value.
    """
    fields: dict[str, str] = {}
    words: list[str] = []
    for token in (text or "").split():
        name, sep, value = token.partition(":")
        if not sep:
            words.append(token.lower())
            continue
        name = name.lower()
        if name not in FILTER_FIELDS and name not in all_axis_keys():
            raise InputError(
                f"unknown filter field {name!r}",
                fix=f"Fields: {', '.join(FILTER_FIELDS)} and the benchmark's axes "
                f"({_axis_fields()}); other words match the question text.",
            )
        if not value:
            raise InputError(
                f"filter field {name!r} has no value", fix=f"Write it as {name}:VALUE."
            )
        if name == "cell":
            value = parse_cell(value)
        elif name in ("x", "y"):
            value = value.upper()
            levels = coordinate_grid()[0 if name == "x" else 1]
            if value not in levels:
                raise InputError(
                    f"{name}:{value} is not a level", fix=f"Use one of {', '.join(levels)}."
                )
        elif name in ("correct", "labelled", "other"):
            lowered = value.lower()
            if lowered not in _YES | _NO:
                raise InputError(f"{name}:{value} must be yes or no")
            value = "yes" if lowered in _YES else "no"
        fields[name] = value
    return FilterTerms(fields, tuple(words))


@dataclass(frozen=True)
class QueueSpec:
    """Which questions form the queue and in which order.

    Attributes:
        kind: ``failing`` (default), ``all``, ``unlabelled`` (failing and not labelled yet)
            or ``sample`` (the failures in sample-plan order; see :meth:`TriageTable.set_sample_order`).
        cell: ``"X4_Y3"`` to keep one cell of the matrix, else None.
        text: a filter expression (see :func:`parse_filter`).
        sort: one of :data:`SORT_KEYS`.
        descending: reverse the sort.
    """

    kind: str = "failing"
    cell: str | None = None
    text: str = ""
    sort: str = "idx"
    descending: bool = False

    def __post_init__(self) -> None:
        if self.kind not in QUEUE_KINDS:
            raise InputError(
                f"unknown queue {self.kind!r}", fix=f"Use one of {', '.join(QUEUE_KINDS)}."
            )
        if self.sort not in SORT_KEYS:
            raise InputError(
                f"cannot sort by {self.sort!r}", fix=f"Sort by one of {', '.join(SORT_KEYS)}."
            )

    def describe(self) -> str:
        """A short human description, e.g. ``failing · X4Y3 · y:Y3 · by score ↓``."""
        parts = [self.kind]
        if self.cell:
            x, _, y = self.cell.partition("_")
            xs, ys = coordinate_grid()
            parts.append(f"{x}{y}" if x in xs and y in ys else self.cell)
        if self.text.strip():
            parts.append(self.text.strip())
        if self.sort != "idx" or self.descending:
            parts.append(f"by {self.sort} {'↓' if self.descending else '↑'}")
        return " · ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The spec as a JSON-ready dict (remembered in the store)."""
        return asdict(self)

    @classmethod
    def from_json(cls, value: Mapping[str, Any] | None) -> QueueSpec:
        """Rebuild a spec; anything unreadable falls back to the default queue."""
        if not value:
            return cls()
        try:
            spec = cls(
                kind=str(value.get("kind", "failing")),
                cell=parse_cell(value["cell"]) if value.get("cell") else None,
                text=str(value.get("text", "")),
                sort=str(value.get("sort", "idx")),
                descending=bool(value.get("descending", False)),
            )
            parse_filter(spec.text)
        except (InputError, TypeError):
            return cls()
        return spec

    def with_changes(self, **changes: Any) -> QueueSpec:
        """A copy with some attributes changed (validated)."""
        return replace(self, **changes)


def _as_text(values: np.ndarray) -> np.ndarray:
    """An object array with None replaced by ``""`` (for masks and sorting)."""
    return np.array(["" if v is None else str(v) for v in values.tolist()], dtype=object)


class TriageTable:
    """One row per question of a run, the columns the queue shows, filters and sorts by.

    Suggestions and labels can change while the app runs (``set_label``); everything else
    is fixed once built.
    """

    def __init__(
        self,
        data: RunData,
        suggestions: Mapping[str, Any] | None = None,
        labels: Mapping[str, Iterable[str]] | None = None,
        other: RunData | None = None,
    ) -> None:
        self.qids = _as_text(data.qids)
        n = len(self.qids)
        self.row_of: dict[str, int] = {qid: row for row, qid in enumerate(self.qids.tolist())}
        self.idx = data.column("idx").astype(np.int64) if n else np.zeros(0, dtype=np.int64)
        self.task = _as_text(data.column("task"))
        self.x = _as_text(data.column("x"))
        self.y = _as_text(data.column("y"))
        self.mode = _as_text(data.column("mode"))
        em = data.column("em").astype(float)
        judge = data.column("judge").astype(float)
        f1 = data.column("f1")
        self.correct = correctness(self.mode, em, judge, f1)
        self.score = answer_score(self.mode, em, judge, f1)
        # MCQ rotations answered right of those asked ("3/4"); EM is their mean.
        rotations = (
            data.column("n_rotations").astype(np.int64)
            if n and "n_rotations" in data.questions.column_names
            else np.zeros(n, dtype=np.int64)
        )
        right = np.rint(np.nan_to_num(em) * rotations).astype(np.int64)
        self.rotations = np.array(
            [
                f"{r}/{t}" if t > 1 else ""
                for r, t in zip(right.tolist(), rotations.tolist(), strict=True)
            ],
            dtype=object,
        )
        self.cell = cell_labels(self.x, self.y).astype(object)
        from memscope.usecases.runs.axes import axis_columns, run_axes

        self.spec = data.spec
        """The run's benchmark: how its queue, matrix and panels are shown."""
        self.axes = run_axes(data)
        """The run's benchmark axes: the queue's columns and filter words."""
        self.axis_labels, self.axis_numbers, self.axis_levels = axis_columns(data, self.axes)
        self.question = _as_text(data.column("question"))
        self._search_text: np.ndarray | None = None
        self.suggested = np.full(n, "", dtype=object)
        self.set_suggestions(suggestions or {})
        self.label = np.full(n, "", dtype=object)
        self.labelled = np.zeros(n, dtype=bool)
        for qid, codes in (labels or {}).items():
            self.set_label(qid, codes)
        self.other_correct = _matched_correctness(data, other) if other is not None else None
        self.sample_rank: np.ndarray | None = None
        self.sample_has_passes = False

    def set_sample_order(self, qids: Iterable[str], *, with_passes: bool = False) -> None:
        """The sampled queue's order (qids in plan order); its questions are ranked 0, 1, …

        ``with_passes``: the sample holds passed answers too (a verdict sample), so the
        queue serves every sampled question, not only the failures."""
        self.sample_has_passes = with_passes
        rank = np.full(len(self), -1, dtype=np.int64)
        for position, qid in enumerate(qids):
            row = self.row_of.get(qid)
            if row is not None:
                rank[row] = position
        self.sample_rank = rank

    def __len__(self) -> int:
        return len(self.qids)

    @property
    def search_text(self) -> np.ndarray:
        """Lower-cased "qid question" per row, built on the first free-word filter."""
        if self._search_text is None:
            self._search_text = np.array(
                [
                    f"{q} {t}".lower()
                    for q, t in zip(self.qids.tolist(), self.question.tolist(), strict=True)
                ],
                dtype=object,
            )
        return self._search_text

    def set_label(self, qid: str, codes: Iterable[str] | None) -> None:
        """Record the current label codes of ``qid`` (None or empty: not labelled)."""
        row = self.row_of.get(qid)
        if row is None:
            return
        code_list = [str(code) for code in (codes or [])]
        self.label[row] = " ".join(code_list)
        self.labelled[row] = bool(code_list)

    def set_suggestions(self, suggestions: Mapping[str, Any]) -> None:
        """Replace every suggested code (``suggestions``: qid -> Suggestion or code)."""
        self.suggested[:] = ""
        for qid, suggestion in suggestions.items():
            row = self.row_of.get(qid)
            if row is not None:
                self.suggested[row] = str(getattr(suggestion, "code", suggestion) or "")

    def select(self, spec: QueueSpec) -> np.ndarray:
        """Row numbers of the queue ``spec`` describes, in its order.

        Raises:
            InputError: when the spec's filter expression is invalid.
        """
        terms = parse_filter(spec.text)
        failing = self.correct == 0.0
        if spec.kind == "failing":
            mask = failing.copy()
        elif spec.kind == "unlabelled":
            mask = failing & ~self.labelled
        elif spec.kind == "sample":
            # Without a plan, the failures (the app draws one before opening this queue).
            if self.sample_rank is None:
                mask = failing
            elif self.sample_has_passes:
                mask = self.sample_rank >= 0
            else:
                mask = failing & (self.sample_rank >= 0)
        else:
            mask = np.ones(len(self), dtype=bool)
        if spec.cell:
            mask &= self.cell == spec.cell
        mask &= self._field_mask(terms)
        for word in terms.words:
            mask &= np.fromiter(
                (word in text for text in self.search_text), dtype=bool, count=len(self)
            )
        rows = np.flatnonzero(mask)
        if spec.kind == "sample" and self.sample_rank is not None and spec.sort == "idx":
            ordered = rows[np.argsort(self.sample_rank[rows], kind="stable")]
            return ordered[::-1] if spec.descending else ordered
        return self._sorted(rows, spec.sort, spec.descending)

    def _field_mask(self, terms: FilterTerms) -> np.ndarray:
        mask = np.ones(len(self), dtype=bool)
        for name, value in terms.fields.items():
            axis = self.axes.axis(name)
            if axis is not None and name not in ("x", "y"):
                from memscope.usecases.runs.axes import level_mask

                mask &= level_mask(
                    axis,
                    self.axis_labels[axis.key],
                    self.axis_numbers.get(axis.key),
                    value,
                )
                continue
            if axis is None and name in all_axis_keys() and name != "task":
                words = ", ".join(a.key for a in self.axes.axes)
                raise InputError(
                    f"{name}: is not an axis of {self.axes.name} runs",
                    fix=f"This run's axes: {words}.",
                )
            if name == "cell":
                mask &= self.cell == value
            elif name == "task":
                mask &= np.char.lower(self.task.astype(str)) == value.lower()
            elif name in ("x", "y"):
                mask &= getattr(self, name) == value
            elif name == "mode":
                mask &= self.mode == value.lower()
            elif name == "code":
                mask &= self.suggested == value.upper()
            elif name == "label":
                mask &= np.fromiter(
                    (value.upper() in codes.split() for codes in self.label.tolist()),
                    dtype=bool,
                    count=len(self),
                )
            elif name == "correct":
                mask &= self.correct == (1.0 if value == "yes" else 0.0)
            elif name == "labelled":
                mask &= self.labelled if value == "yes" else ~self.labelled
            elif name == "other":
                if self.other_correct is None:
                    raise InputError(
                        "other: needs a second run", fix="Open two runs: memscope open RUN_A RUN_B."
                    )
                mask &= self.other_correct == (1.0 if value == "yes" else 0.0)
        return mask

    def _sorted(self, rows: np.ndarray, key: str, descending: bool) -> np.ndarray:
        if key == "idx":
            order = np.argsort(self.idx[rows], kind="stable")
        elif key in ("correct", "score"):
            values = getattr(self, key)[rows]
            order = np.lexsort((self.idx[rows], np.where(np.isnan(values), np.inf, values)))
        elif key == "qid":  # numeric-aware: q2 before q10
            order = np.lexsort((self.idx[rows], self.qid_ranks[rows]))
        else:
            column = {
                "mode": self.mode,
                "task": self.task,
                "x": self.x,
                "y": self.y,
                "suggested": self.suggested,
                "label": self.label,
            }[key][rows].astype(str)
            order = np.lexsort((self.idx[rows], column))
        ordered = rows[order]
        return ordered[::-1] if descending else ordered

    @property
    def qid_ranks(self) -> np.ndarray:
        """Each row's place in numeric-aware qid order (``usecases.runs.qid_order``)."""
        if getattr(self, "_qid_ranks", None) is None:
            from memscope.usecases.runs.qid_order import qid_sort_key

            order = sorted(range(len(self.qids)), key=lambda i: qid_sort_key(str(self.qids[i])))
            ranks = np.empty(len(self.qids), dtype=np.int64)
            ranks[order] = np.arange(len(self.qids))
            self._qid_ranks = ranks
        return self._qid_ranks

    def progress(self, rows: np.ndarray) -> tuple[int, int]:
        """(labelled, total) over ``rows``."""
        return int(self.labelled[rows].sum()), len(rows)


def _matched_correctness(data: RunData, other: RunData) -> np.ndarray:
    """The other run's correctness for each question of ``data``, matched by question key."""
    from memscope.usecases.compare.pairs import match_questions

    other_correct = correctness(
        _as_text(other.column("mode")),
        other.column("em").astype(float),
        other.column("judge").astype(float),
        other.column("f1"),
    )
    rows, other_rows = match_questions(
        data.questions.column("question_key").to_pylist(),
        other.questions.column("question_key").to_pylist(),
    )
    result = np.full(len(data.qids), np.nan)
    result[rows] = other_correct[other_rows]
    return result
