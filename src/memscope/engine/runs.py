"""Writing native runs: the MemEye run layout plus the ``retrieval.jsonl`` sidecar.

A native run directory holds what a MemEye run holds (``config.json``, ``metrics.json``,
``predictions.jsonl``, field for field) and ``retrieval.jsonl``: one line per question,
``{"idx", "qid", "pool": [{"rank", "round_id", "score", "text_score", "image_score"}]}``,
the whole ranked pool with every channel's score. memscope's MemEye adapter reads it back.

Rows are appended and flushed one question at a time, and ``metrics.json`` is written
when the writer closes, also after an error: a run interrupted by a failing answer model
is a valid, shorter run (``metrics.json`` says ``"status": "partial"`` and why).
"""

from __future__ import annotations

import json
import math
from itertools import product
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from memscope.errors import EngineError
from memscope.file_kinds import not_regular, path_kind

PREDICTIONS = "predictions.jsonl"
SIDECAR = "retrieval.jsonl"
SUMMARY_METRICS = ("em", "contains_gt", "f1", "judge")
RUN_FILES = ("config.json", "metrics.json", PREDICTIONS, SIDECAR)
"""The files a native run consists of (what writing one may replace)."""


class NativeRunWriter:
    """Writes one native run directory; use as a context manager.

    Args:
        out_dir: The run directory (created; refused when it already holds a run).
        config: ``config.json`` content, written at once.
        metrics: ``metrics.json`` content without the per-run counts and summary, which
            are added on close.
        overwrite: Replace the files of an existing run in ``out_dir``.
    """

    def __init__(
        self,
        out_dir: Path,
        config: dict[str, Any],
        metrics: dict[str, Any],
        *,
        overwrite: bool = False,
    ) -> None:
        self.out_dir = out_dir
        self.metrics = dict(metrics)
        self.rows: list[dict[str, Any]] = []
        check_out_dir(out_dir, overwrite=overwrite)
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            _write_json(out_dir / "config.json", config)
            self._predictions: IO[str] = (out_dir / PREDICTIONS).open("w", encoding="utf-8")
            self._sidecar: IO[str] = (out_dir / SIDECAR).open("w", encoding="utf-8")
        except OSError as exc:
            raise EngineError(
                f"cannot write the run: {exc.strerror or exc}", where=str(out_dir)
            ) from None
        (out_dir / "metrics.json").unlink(missing_ok=True)
        self.closed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if error is None:
            self.close()
        else:
            reason = (
                "interrupted"
                if isinstance(error, KeyboardInterrupt)
                else str(error).splitlines()[0]
            )
            self.close(status="partial", error=reason)

    def add(self, row: dict[str, Any], pool: list[dict[str, Any]]) -> None:
        """Append one question's prediction row and its ranked pool (flushed at once)."""
        self._predictions.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._sidecar.write(
            json.dumps(
                {"idx": row["idx"], "qid": f"q{row['idx']}", "pool": pool}, ensure_ascii=False
            )
            + "\n"
        )
        self._predictions.flush()
        self._sidecar.flush()
        self.rows.append(row)

    def close(self, *, status: str = "complete", error: str | None = None) -> None:
        """Close the files and write ``metrics.json`` (with ``status`` and ``error``)."""
        if self.closed:
            return
        self.closed = True
        self._predictions.close()
        self._sidecar.close()
        metrics = dict(self.metrics)
        metrics["num_qas_run"] = len({row["idx"] for row in self.rows})
        metrics["summary"] = summarize(self.rows)
        if self.rows and isinstance(self.rows[-1].get("method_runtime"), dict):
            metrics["method_runtime"] = self.rows[-1]["method_runtime"]
        memscope = dict(metrics.get("memscope") or {})
        memscope["status"] = status
        if error:
            memscope["error"] = error
        metrics["memscope"] = memscope
        _write_json(self.out_dir / "metrics.json", metrics)


def check_out_dir(out_dir: Path, *, overwrite: bool) -> None:
    """Refuse an ``--out`` where writing a run would replace what is not a run's file.

    The folder must be new, empty of the run's four file names, or hold a run
    (``predictions.jsonl``; replaced only with ``overwrite``). Each of those names must
    be a regular file if present: a symlink (to the store, say) or a FIFO is refused,
    and so is a ``config.json`` or ``metrics.json`` beside no run (a project's own files).
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise EngineError(
            f"--out is {path_kind(out_dir)}, not a folder",
            where=str(out_dir),
            fix="Name a folder for the run (it is created).",
        )
    for name in RUN_FILES:
        path = out_dir / name
        if path.is_symlink() or not_regular(path) is not None:
            what = "a symbolic link" if path.is_symlink() else not_regular(path)
            raise EngineError(
                f"the output folder's {name} is {what}; a run is written as regular files only",
                where=str(path),
                fix="Choose another --out folder.",
            )
    present = [name for name in RUN_FILES if (out_dir / name).exists()]
    if PREDICTIONS in present:
        if not overwrite:
            raise EngineError(
                "the output folder already holds a run",
                where=str(out_dir),
                fix="Choose another --out folder, or pass --overwrite to replace it.",
            )
    elif present:
        raise EngineError(
            f"the output folder holds {' and '.join(present)} but no run (no {PREDICTIONS}); "
            "memscope does not write over them",
            where=str(out_dir),
            fix="Choose a new or empty --out folder.",
        )


def _write_json(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


def _mean(values: list[Any]) -> float | None:
    numbers = [
        float(value)
        for value in values
        if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value))
    ]
    return sum(numbers) / len(numbers) if numbers else None


def _means(rows: list[dict[str, Any]]) -> dict[str, float]:
    result = {}
    for name in SUMMARY_METRICS:
        value = _mean([row.get(name) for row in rows])
        if value is not None:
            result[name] = value
    return result


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """MemEye's summary shape: means over all rows, per X, per Y and per (X, Y) cell.

    A metric whose values are all null (every metric of a retrieval-only run) is omitted,
    as MemEye omits it.
    """
    by_x: dict[str, list[dict[str, Any]]] = {}
    by_y: dict[str, list[dict[str, Any]]] = {}
    by_cell: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        point = row.get("point") if isinstance(row.get("point"), list) else []
        xs = sorted(
            {str(label) for group in point[:1] if isinstance(group, list) for label in group}
        )
        ys = sorted(
            {str(label) for group in point[1:2] if isinstance(group, list) for label in group}
        )
        for x in xs:
            by_x.setdefault(x, []).append(row)
        for y in ys:
            by_y.setdefault(y, []).append(row)
        for x, y in product(xs, ys):
            by_cell.setdefault(f"{x}_{y}", []).append(row)
    return {
        "open_count": len(rows),
        "overall": _means(rows),
        "by_x": {key: _means(group) for key, group in sorted(by_x.items())},
        "by_y": {key: _means(group) for key, group in sorted(by_y.items())},
        "by_cell": {key: _means(group) for key, group in sorted(by_cell.items())},
    }
