"""Where an RQ1/RQ2 results folder sits: its result root, caption variant and the names below.

Upstream's ``scripts/RQ1_RQ2/benchmark/paths.py`` writes RQ1/RQ2 results under one of five
roots of the benchmark folder (docs/formats.md §3.1):

- ``result_debug/``, ``result_debug_trimmed/``, ``result_debug_llm_as_judge/``:
  ``<root>/<caption>/<llm>/<memory>/<data>_results.json`` (``run_bench.py``; the trimmed root is
  ``aggregate_results.py``'s default);
- ``result_question_only/``: ``<root>/<caption>/<llm>[/run<N> | /<subdir>]/`` (no memory);
- ``result_oracle_evidence/``: ``<root>/<caption>/<llm>/`` (the gold sessions as context).

``<caption>`` is ``base``, ``brief``, ``medium``, ``detailed`` or ``audio_caption/<model>``.
:func:`result_place` finds the nearest root above a run folder; :func:`describe` names the
run's model and method from it; :func:`same_runs_elsewhere` finds the same ``<llm>/<memory>``
under another root (other runs that a table grouping by model and memory would pool).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CAPTION_VARIANTS = ("base", "brief", "medium", "detailed")
AUDIO_CAPTION = "audio_caption"
MEMORY_ROOTS = ("result_debug", "result_debug_trimmed", "result_debug_llm_as_judge")
"""Roots whose runs are ``<llm>/<memory>`` folders."""
QUESTION_ONLY_ROOT = "result_question_only"
ORACLE_ROOT = "result_oracle_evidence"
RESULT_ROOTS = (*MEMORY_ROOTS, QUESTION_ONLY_ROOT, ORACLE_ROOT)
ROOT_METHODS = {QUESTION_ONLY_ROOT: "question_only", ORACLE_ROOT: "oracle_evidence"}
"""The method of a run under a root that has no memory folder."""
RESULTS_SUFFIX = "_results.json"


@dataclass(frozen=True)
class ResultPlace:
    """A run folder's place below an RQ1/RQ2 result root."""

    base: Path
    """The folder holding the root (upstream's benchmark root)."""
    root: str
    caption: str | None
    """``base`` … ``detailed``, or ``audio_caption/<model>``; None when the path has none."""
    below: tuple[str, ...]
    """The folder names from under the caption down to the run folder (``<llm>/<memory>``)."""

    def config(self) -> dict[str, str]:
        """What the run's config records about it."""
        found = {"result_root": self.root}
        if self.caption:
            found["caption_variant"] = self.caption
        return found


def result_place(run_dir: Path) -> ResultPlace | None:
    """The nearest result root above ``run_dir`` (or ``run_dir`` itself), None when none."""
    parts = run_dir.parts
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] not in RESULT_ROOTS:
            continue
        rest = parts[at + 1 :]
        caption: str | None = None
        if rest and rest[0] in CAPTION_VARIANTS:
            caption, rest = rest[0], rest[1:]
        elif len(rest) >= 2 and rest[0] == AUDIO_CAPTION:
            caption, rest = f"{AUDIO_CAPTION}/{rest[1]}", rest[2:]
        return ResultPlace(Path(*parts[:at]) if at else Path(), parts[at], caption, tuple(rest))
    return None


def describe(place: ResultPlace | None, run_dir: Path) -> tuple[str, str]:
    """``(method, model)`` of an RQ1/RQ2 folder without an efficiency file.

    Under ``result_question_only/`` and ``result_oracle_evidence/`` the method is the root's
    (``question_only``, ``oracle_evidence``) and the model the first folder below the
    caption; elsewhere the folders ``<llm>/<memory>/`` name them.
    """
    if place is not None and place.root in ROOT_METHODS and place.below:
        return ROOT_METHODS[place.root], place.below[0]
    return run_dir.name, run_dir.parent.name


def has_results(folder: Path) -> bool:
    """Whether ``folder`` holds a ``*_results.json`` file."""
    try:
        return any(
            p.name.endswith(RESULTS_SUFFIX) and not p.name.startswith("aggregated_")
            for p in folder.iterdir()
        )
    except OSError:
        return False


def same_runs_elsewhere(place: ResultPlace | None, run_dir: Path) -> list[Path]:
    """The folders of the same ``<caption>/<llm>/<memory>`` under the other memory roots that
    hold results (``result_debug/…`` and ``result_debug_trimmed/…`` side by side)."""
    if place is None or place.root not in MEMORY_ROOTS:
        return []
    relative = run_dir.relative_to(place.base / place.root)
    return [
        place.base / other / relative
        for other in MEMORY_ROOTS
        if other != place.root and has_results(place.base / other / relative)
    ]
