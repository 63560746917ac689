"""The axes every benchmark is read on, defined once per benchmark and looked up here.

A benchmark's axes say how its questions are grouped: MemEye by visual granularity (X) x
reasoning depth (Y), CUE-Mem by task x evidence (explicit / implicit) with modality as a
third view, DMV-Bench by reach x bank size (or x encoding position). The app's matrix, the
queue's columns and filter words, ``report``, ``compare`` and ``export-labels`` all read
them from the run's benchmark spec, so a benchmark speaks the same words everywhere.

Each benchmark's definition lives in its package (``memeye/axes.py``, ``cuemem/axes.py``,
``dmv/axes.py`` …) and reaches the rest of memscope through its spec
(``adapters.registry``); this module holds the types. Pure data: no numpy here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Level:
    """One level of an axis: the value stored for a question, how it is shown, what a
    filter may call it."""

    value: str
    label: str
    short: str = ""
    """A few characters for the queue's column (default: the value)."""
    aliases: tuple[str, ...] = ()

    def names(self) -> set[str]:
        """Every lower-cased word a filter may use for this level."""
        return {
            name.lower() for name in (self.value, self.label, self.short, *self.aliases) if name
        }


@dataclass(frozen=True)
class Axis:
    """A way of grouping a benchmark's questions.

    ``source`` names where a question's value comes from: ``column:NAME`` (a column of the
    question table, e.g. ``column:x``), ``extra:NAME`` (an attribute of the question's
    ``extra`` JSON) or ``own:NAME`` (an attribute the run itself logged for the question,
    its prediction's ``extra``); several joined by ``|`` are tried in order, the first value
    found wins; ``derive`` maps that raw value to the axis value (None: missing).
    Fixed ``levels`` are listed in display order; a ``numeric`` axis without levels takes
    the distinct numbers found (grouped into ranges when there are many) and its filter
    accepts comparisons (``bank:>=30``, ``reach:2-3``).
    """

    key: str
    """The filter word and JSON key (``task``, ``evidence``, ``reach`` …)."""
    title: str
    """What the axis measures, for titles and legends (``bank size``)."""
    source: str
    levels: tuple[Level, ...] = ()
    numeric: bool = False
    derive: Callable[[object], str | None] | None = None
    aliases: tuple[str, ...] = ()
    """Other filter words for the axis itself (``bank_size`` for ``bank``)."""
    width: int = 0
    """Columns the queue gives it (0: from its levels)."""

    def sources(self) -> list[tuple[str, str]]:
        """``source`` as ``(kind, name)`` pairs, in the order they are tried."""
        return [
            (kind, name)
            for kind, _, name in (part.partition(":") for part in self.source.split("|"))
        ]

    def level(self, value: str) -> Level | None:
        """The fixed level whose value is ``value`` (None for numeric axes or unknown values)."""
        return next((level for level in self.levels if level.value == value), None)

    def match(self, word: str) -> Level | None:
        """The fixed level a filter word names (None when none does)."""
        wanted = word.strip().lower()
        return next((level for level in self.levels if wanted in level.names()), None)

    def label(self, value: str) -> str:
        """How a value is shown (its level's label, else the value itself)."""
        found = self.level(value)
        return found.label if found else value

    def short(self, value: str) -> str:
        """How a value is shown in a narrow column."""
        found = self.level(value)
        return (found.short or found.value) if found else value

    @property
    def column_width(self) -> int:
        """Columns the queue gives this axis."""
        if self.width:
            return self.width
        widest = max((len(level.short or level.value) for level in self.levels), default=3)
        return max(3, min(10, widest))


@dataclass(frozen=True)
class MatrixView:
    """One grid the matrix can show: rows x columns, two axes of the benchmark."""

    rows: str
    columns: str


@dataclass(frozen=True)
class BenchmarkAxes:
    """Everything a benchmark's own reading of a run needs."""

    benchmark: str
    name: str
    """How the benchmark is called in text (``CUE-Mem``)."""
    axes: tuple[Axis, ...]
    views: tuple[MatrixView, ...]
    """The matrix's views, the first being the default."""
    metrics: tuple[tuple[str, str], ...]
    """``(key, title)`` of the matrix metrics that make sense here, in display order."""
    words: dict[str, str] = field(default_factory=dict)
    """How the benchmark names things in explanations: ``question`` (``probe``),
    ``placed`` (what an unplaced question lacks) …"""

    def axis(self, key: str) -> Axis | None:
        """The axis a filter word names (its key or an alias), or None."""
        wanted = key.strip().lower()
        return next(
            (axis for axis in self.axes if wanted == axis.key or wanted in axis.aliases), None
        )

    def require(self, key: str) -> Axis:
        """The axis named ``key`` (KeyError when the benchmark has none)."""
        found = self.axis(key)
        if found is None:
            raise KeyError(key)
        return found

    @property
    def queue_axes(self) -> tuple[Axis, Axis]:
        """The two axes of the default view (the queue shows them as columns)."""
        view = self.views[0]
        return self.require(view.rows), self.require(view.columns)

    def word(self, name: str, default: str) -> str:
        """The benchmark's word for ``name``."""
        return self.words.get(name, default)
