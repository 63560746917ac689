"""Benchmark figures as records: what was measured, in which unit, against which target.

Every bench script turns what it measured into :class:`Figure` records and, given
``--figures FILE``, writes them there (:func:`write_script_figures`). ``run_all.py --json
FILE`` collects every script's records into one document; ``render_table.py`` turns a
document into the markdown tables of benchmarks/README.md. The document (schema
:data:`SCHEMA`)::

    {
      "schema": "memscope-benchmark-figures/1",
      "suite": "full" | "quick" | "smoke" | null,
      "started": "2026-12-01T23:54:15Z", "finished": "…",
      "source": "measured" (or how the figures got here, e.g. transcribed),
      "scripts": [{"script": "bench_app.py", "argv": ["--repeat", "3"], "started": "…",
                   "finished": "…", "machine": {…}, "source": "measured" (optional:
                   a script re-measured into a transcribed document says so)}],
      "figures": [{"id": "app.next.first_repaint.p95", "script": "bench_app.py",
                   "group": "app", "name": "next question, key to first repaint, p95",
                   "value": 90.5, "unit": "ms", "target": {"op": "<", "value": 33.0},
                   "met": false, "statistic": "p95 of each process's presses, median of 3",
                   "baseline": null, "size": 50000, "trials": 3, "note": "",
                   "context": {…}}]
    }

``target`` is null when a figure has none (then ``met`` is null too); its value is in the
figure's unit. ``baseline`` names what a ratio is measured against, in the same run.
Standard library only, so rendering needs nothing installed.
"""

from __future__ import annotations

import json
import operator
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = "memscope-benchmark-figures/1"
OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
# Every key of a figure record, with the types its value may have.
FIGURE_FIELDS: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "script": (str,),
    "group": (str,),
    "name": (str,),
    "value": (int, float),
    "unit": (str,),
    "target": (dict, type(None)),
    "met": (bool, type(None)),
    "statistic": (str,),
    "baseline": (str, type(None)),
    "size": (int, type(None)),
    "trials": (int, type(None)),
    "note": (str,),
    "context": (dict,),
}


class FiguresError(ValueError):
    """A figures document that cannot be used, with what is wrong and where."""


@dataclass(frozen=True)
class Target:
    """A figure's target: ``value op bound``, the bound in the figure's unit."""

    op: str
    bound: float

    def __post_init__(self) -> None:
        if self.op not in OPERATORS:
            raise ValueError(f"unknown target operator {self.op!r}")

    def met(self, value: float) -> bool:
        return OPERATORS[self.op](value, self.bound)

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "value": self.bound}


def below(bound: float) -> Target:
    return Target("<", bound)


def at_most(bound: float) -> Target:
    return Target("<=", bound)


def above(bound: float) -> Target:
    return Target(">", bound)


def at_least(bound: float) -> Target:
    return Target(">=", bound)


@dataclass(frozen=True)
class Figure:
    """One measured figure of one script.

    Args:
        id: A stable dotted key (``app.next.first_repaint.p95``), unique in a document.
        group: The README section it belongs to (``ingest``, ``app``, …).
        name: What it is, in words (the table's first column).
        value: The figure, in ``unit`` (``ms``, ``s``, ``×``, ``MiB``, ``%``, ``items/s``).
        target: What it should reach, if anything.
        statistic: How ``value`` was taken ("median of 5 processes").
        baseline: For a ratio, what it is measured against in the same run.
        size: The run size (questions) or the number of items measured.
        trials: Repetitions behind the median.
        note: One short remark for the table.
        context: Further numbers (the two sides of a ratio, per-trial values, devices).
    """

    id: str
    group: str
    name: str
    value: float
    unit: str
    target: Target | None = None
    statistic: str = ""
    baseline: str | None = None
    size: int | None = None
    trials: int | None = None
    note: str = ""
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.target.met(self.value)

    def to_json(self, script: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "script": script,
            "group": self.group,
            "name": self.name,
            "value": float(self.value),
            "unit": self.unit,
            "target": None if self.target is None else self.target.to_json(),
            "met": self.met,
            "statistic": self.statistic,
            "baseline": self.baseline,
            "size": self.size,
            "trials": self.trials,
            "note": self.note,
            "context": self.context,
        }


def now() -> str:
    """The current UTC time, as the documents write it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def machine() -> dict[str, Any]:
    """What the figures were measured on (no heavy imports: versions from package metadata)."""
    from importlib import metadata

    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    packages = ("memscope", "duckdb", "textual", "numpy", "torch")
    versions = {name: found for name in packages if (found := version(name))}
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "versions": versions,
    }


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def script_document(
    script: str, argv: list[str], started: str, figures: Iterable[Figure]
) -> dict[str, Any]:
    """One script's figures as a whole document (what ``--figures FILE`` writes)."""
    return {
        "schema": SCHEMA,
        "suite": None,
        "started": started,
        "finished": now(),
        "source": "measured",
        "scripts": [
            {
                "script": script,
                "argv": argv,
                "started": started,
                "finished": now(),
                "machine": machine(),
            }
        ],
        "figures": [figure.to_json(script) for figure in figures],
    }


STARTED = now()  # when the importing script began (scripts import this module first)


def add_figures_option(parser: Any) -> None:
    """The ``--figures FILE`` option every bench script takes."""
    parser.add_argument(
        "--figures",
        type=Path,
        metavar="FILE",
        help="also write the figures as JSON records to FILE (run_all.py --json collects them)",
    )


def write_script_figures(path: Path | None, figures: Iterable[Figure]) -> None:
    """Write this script's figures to ``path`` (atomically), if it is given."""
    if path is None:
        return
    argv = sys.argv[1:]
    if "--figures" in argv:  # the command as one would type it, without where this copy went
        at = argv.index("--figures")
        argv = argv[:at] + argv[at + 2 :]
    document = script_document(Path(sys.argv[0]).name, argv, STARTED, figures)
    check_document(document)
    atomic_write_text(path, dump(document))


def check_document(document: object) -> dict[str, Any]:
    """``document`` if it follows :data:`SCHEMA`, else a :class:`FiguresError` saying where not."""
    if not isinstance(document, dict):
        raise FiguresError("the document is not a JSON object")
    if document.get("schema") != SCHEMA:
        raise FiguresError(f"schema is {document.get('schema')!r}, expected {SCHEMA!r}")
    for key in ("scripts", "figures"):
        if not isinstance(document.get(key), list):
            raise FiguresError(f"{key!r} is missing or not a list")
    seen: set[str] = set()
    for number, record in enumerate(document["figures"]):
        where = f"figure {number}"
        if not isinstance(record, dict):
            raise FiguresError(f"{where} is not an object")
        where = f"figure {number} ({record.get('id', 'no id')})"
        if set(record) != set(FIGURE_FIELDS):
            missing = sorted(set(FIGURE_FIELDS) - set(record))
            extra = sorted(set(record) - set(FIGURE_FIELDS))
            raise FiguresError(f"{where}: missing keys {missing}, unknown keys {extra}")
        for key, types in FIGURE_FIELDS.items():
            value = record[key]
            # bool is an int to Python; only "met" may be one
            if not isinstance(value, types) or (isinstance(value, bool) and key != "met"):
                raise FiguresError(f"{where}: {key!r} is {value!r}")
        if record["id"] in seen:
            raise FiguresError(f"{where}: the id appears twice")
        seen.add(record["id"])
        target = record["target"]
        if target is None:
            if record["met"] is not None:
                raise FiguresError(f"{where}: 'met' is set but there is no target")
            continue
        if set(target) != {"op", "value"} or target["op"] not in OPERATORS:
            raise FiguresError(
                f"{where}: target {target!r} is not {{'op': <, <=, > or >=, 'value'}}"
            )
        if record["met"] != OPERATORS[target["op"]](record["value"], target["value"]):
            raise FiguresError(f"{where}: 'met' does not follow from value and target")
    return document


def read_document(path: Path) -> dict[str, Any]:
    """The figures document in ``path``, checked."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise FiguresError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise FiguresError(f"{path} is not JSON ({error.msg}, line {error.lineno})") from None
    try:
        return check_document(document)
    except FiguresError as error:
        raise FiguresError(f"{path}: {error}") from None
