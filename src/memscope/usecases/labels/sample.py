"""The sampled triage queue: a stratified random sample of a run's failures to label.

:func:`failures` gives each failing question of a run with its X, Y, cell and suggested
code; :func:`plan_sample` draws the sample (``analysis.sampling``) over strata of one of
those, stores the plan and its whole queue (seed, inclusion probabilities) and returns
it; :func:`load_sample` reads it back, so the queue resumes in the same order.
:func:`sample_progress` is the status line "sample: 37 of 60 planned · stratum X4Y3 5/8".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.analysis.sampling import ALLOCATIONS, sample_order, stratum_spread
from memscope.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Collection

    from memscope.store import Store
    from memscope.usecases.labels.queue import TriageTable

STRATA = ("cell", "code")
"""Strata every run has; besides them, each axis of the run's benchmark (``Failures.strata_words``)."""
NO_STRATUM = "none"
"""The stratum of a failure without the coordinate (or suggestion) the strata are made of."""
DEFAULT_SEED = 20261201


@dataclass(frozen=True)
class Failures:
    """The failing questions of a run, one entry per question, in benchmark order."""

    run_id: str
    run_hash: str | None
    qids: list[str]
    x: list[str]
    y: list[str]
    cell: list[str]
    suggested: list[str]
    axes: dict[str, list[str]] = field(default_factory=dict)
    """Each failure's level on every axis of the run's benchmark (``""`` where it has
    none), by axis key; numeric axes grouped as the matrix groups them."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Other words for an axis (``bank_size``) -> its key."""
    twin_runs: list[str] = field(default_factory=list)
    """The twin runs the suggestions use (``usecases.suggest.twins``)."""
    notes: list[str] = field(default_factory=list)
    """What loading the suggestions had to say (a twin run not used, a change)."""

    def __len__(self) -> int:
        return len(self.qids)

    def strata_words(self) -> tuple[str, ...]:
        """What a failure can be stratified by: ``cell`` (the matrix's default cell),
        ``code`` (the suggested code) and every axis of the run's benchmark."""
        return ("cell", "code", *self.axes)

    def axis_key(self, by: str) -> str | None:
        """The axis ``by`` names (its key or an alias), or None; without axes (failures
        built by hand) the x and y coordinates still answer to ``x`` and ``y``."""
        wanted = by.strip().lower()
        if not self.axes and wanted in ("x", "y"):
            return wanted
        return wanted if wanted in self.axes else self.aliases.get(wanted)

    def stratum(self, by: str) -> list[str]:
        """Each failure's stratum under ``by`` (``cell``, ``code`` or an axis of the run's
        benchmark, e.g. ``y``, ``reach``, ``category``)."""
        if by in ("cell", "code"):
            column = self.cell if by == "cell" else self.suggested
        else:
            key = self.axis_key(by)
            if key is None:
                raise KeyError(by)
            column = self.axes.get(key, self.x if key == "x" else self.y)
        return [value or NO_STRATUM for value in column]


def _cells(table: TriageTable, rows: np.ndarray) -> list[str]:
    """Each failure's cell of the benchmark's default matrix view: on the x × y
    coordinates ``X4Y3``, else ``<row>/<column>`` (``entity_recall/implicit``)."""
    if table.cell.size and (table.cell != "").any():
        return [str(v).replace("_", "") for v in table.cell[rows].tolist()]
    row_axis, column_axis = table.axes.queue_axes
    row_labels, column_labels = table.axis_labels[row_axis.key], table.axis_labels[column_axis.key]
    return [
        f"{r}/{c}" if r and c else ""
        for r, c in zip(row_labels[rows].tolist(), column_labels[rows].tolist(), strict=True)
    ]


def failures(store: Store, run_id: str, *, twins: list[str] | None = None) -> Failures:
    """The run's failing questions with their coordinates and suggested primary codes.

    Suggestions are computed (and stored) first when the run has none, they are stale,
    or ``twins`` (``--twin``) asks for other twin runs than they were made with.
    """
    from memscope.usecases.labels.queue import TriageTable
    from memscope.usecases.runs.loading import load_run
    from memscope.usecases.suggest.changes import load_suggestions
    from memscope.usecases.suggest.rules import suggestion_state

    data = load_run(store, run_id, detail=False)
    notes: list[str] = []
    table = TriageTable(data, load_suggestions(store, data, notes, twins=twins))
    state = suggestion_state(store, run_id) or {}
    rows = np.flatnonzero(table.correct == 0.0)
    rows = rows[np.argsort(table.idx[rows], kind="stable")]
    return Failures(
        run_id=run_id,
        run_hash=data.run.content_hash,
        qids=[str(v) for v in table.qids[rows].tolist()],
        x=[str(v) for v in table.x[rows].tolist()],
        y=[str(v) for v in table.y[rows].tolist()],
        cell=_cells(table, rows),
        axes={
            key: [str(v) for v in values[rows].tolist()]
            for key, values in table.axis_labels.items()
        },
        aliases={alias: axis.key for axis in table.axes.axes for alias in axis.aliases},
        suggested=[str(v) for v in table.suggested[rows].tolist()],
        twin_runs=list(state.get("twin_run_ids") or []),
        notes=notes,
    )


@dataclass(frozen=True)
class SamplePlan:
    """A stored sample plan and its queue."""

    run_id: str
    run_hash: str | None
    seed: int
    strata: str
    sample_size: int
    allocation: str
    per_stratum: dict[str, dict[str, int]]
    """Per stratum: ``{"failures": N_h, "planned": n_h}``."""
    qids: list[str]
    """Every failure once, in queue order (the planned ones first)."""
    stratum_of: dict[str, str]
    inclusion_probability: dict[str, float]
    planned: set[str]
    purpose: str = "failures"
    """``failures`` (questions to label) or ``verdicts`` (answers to judge, passed or failed)."""

    def describe(self) -> str:
        """The one line said when the queue opens."""
        n_strata = len(self.per_stratum)
        if self.purpose == "verdicts":
            return (
                f"verdict sample: {len(self.planned)} answers to judge over {n_strata} "
                "level·outcome strata; v sets the verdict"
            )
        n_failures = sum(entry["failures"] for entry in self.per_stratum.values())
        return (
            f"sample: {self.sample_size} of {n_failures} failures planned over {n_strata} "
            f"{self.strata} strata, {self.allocation} allocation (seed {self.seed})"
        )


def default_sample_size(n_failures: int) -> int:
    """60 labels, or every failure when there are fewer."""
    return min(60, n_failures)


def plan_sample(
    store: Store,
    run_id: str,
    *,
    seed: int = DEFAULT_SEED,
    strata: str = "cell",
    sample_size: int | None = None,
    allocation: str = "proportional",
) -> SamplePlan:
    """Draw and store the run's sample plan (replacing an earlier one); return it.

    Raises:
        InputError: unknown strata or allocation, a sample size below 1, no failures.
    """
    from memscope.store.samples import save_plan

    if allocation not in ALLOCATIONS:
        raise InputError(
            f"unknown allocation {allocation!r}", fix=f"Use one of {', '.join(ALLOCATIONS)}."
        )
    found = failures(store, run_id)
    if strata not in ("cell", "code") and found.axis_key(strata) is None:
        raise InputError(
            f"unknown strata {strata!r}", fix=f"Use one of {', '.join(found.strata_words())}."
        )
    if not len(found):
        raise InputError(
            f"run {run_id} has no failing question to sample",
            fix="The sampled queue is over failures; open --queue all to browse.",
        )
    size = default_sample_size(len(found)) if sample_size is None else sample_size
    if size < 1:
        raise InputError(f"--sample-size must be at least 1, got {size}")
    size = min(size, len(found))
    labels = found.stratum(strata)
    spreads = {
        h: stratum_spread([s for s, g in zip(found.suggested, labels, strict=True) if g == h])
        for h in set(labels)
    }
    items, counts = sample_order(labels, size, seed=seed, method=allocation, spreads=spreads)
    sizes = {h: labels.count(h) for h in counts}
    plan = {
        "run_id": run_id,
        "run_hash": found.run_hash,
        "seed": int(seed),
        "strata": strata,
        "sample_size": int(size),
        "allocation": allocation,
        "per_stratum": {h: {"failures": sizes[h], "planned": counts[h]} for h in sorted(counts)},
    }
    rows = [
        {
            "position": item.position,
            "qid": found.qids[item.row],
            "stratum": item.stratum,
            "inclusion_probability": item.inclusion_probability,
            "planned": item.planned,
        }
        for item in items
    ]
    with store.write() as con:
        save_plan(con, plan, rows, datetime.now(UTC).replace(tzinfo=None))
    return plan_from_rows(plan, rows)


def plan_from_rows(plan: dict[str, Any], rows: list[dict[str, Any]]) -> SamplePlan:
    """A :class:`SamplePlan` from the stored plan row and its items."""
    return SamplePlan(
        run_id=plan["run_id"],
        run_hash=plan["run_hash"],
        seed=plan["seed"],
        strata=plan["strata"],
        sample_size=plan["sample_size"],
        allocation=plan["allocation"],
        per_stratum=plan["per_stratum"],
        qids=[row["qid"] for row in rows],
        stratum_of={row["qid"]: row["stratum"] for row in rows},
        inclusion_probability={row["qid"]: row["inclusion_probability"] for row in rows},
        planned={row["qid"] for row in rows if row["planned"]},
    )


def load_sample(store: Store, run_id: str) -> SamplePlan | None:
    """The run's stored sample plan, or None."""
    from memscope.store.samples import load_plan

    with store.read() as con:
        found = load_plan(con, run_id)
    return plan_from_rows(*found) if found else None


def open_sample(
    store: Store,
    run_id: str,
    *,
    seed: int | None = None,
    strata: str | None = None,
    sample_size: int | None = None,
    allocation: str | None = None,
) -> tuple[SamplePlan, bool]:
    """The stored plan when nothing asked for differs from it, else a new one; and whether it is new.

    A plan drawn for an older version of the run's files is drawn again; one drawn before
    the suggestions' twin runs changed stays valid (its strata and inclusion probabilities
    are those it was drawn with).
    """
    stored = load_sample(store, run_id)
    if stored is not None:
        from memscope.store import queries

        with store.read() as con:
            run = queries.get_run(con, run_id) or {}
        same = (
            (seed is None or seed == stored.seed)
            and (strata is None or strata == stored.strata)
            and (sample_size is None or sample_size == stored.sample_size)
            and (allocation is None or allocation == stored.allocation)
            and stored.run_hash == run.get("content_hash")
        )
        if same:
            return stored, False
    plan = plan_sample(
        store,
        run_id,
        seed=seed if seed is not None else (stored.seed if stored else DEFAULT_SEED),
        strata=strata or (stored.strata if stored else "cell"),
        sample_size=sample_size
        if sample_size is not None
        else (stored.sample_size if stored else None),
        allocation=allocation or (stored.allocation if stored else "proportional"),
    )
    return plan, True


def sample_progress(plan: SamplePlan, labelled: Collection[str], current: str | None) -> str:
    """``"sample: 37 of 60 planned · stratum X4Y3 5/8"`` (the stratum of ``current``);
    ``"verdict sample: …"`` on a verdict sample, where ``labelled`` is the judged qids."""
    done = sum(1 for qid in plan.planned if qid in labelled)
    name = "verdict sample" if plan.purpose == "verdicts" else "sample"
    text = f"{name}: {done} of {len(plan.planned)} planned"
    stratum = plan.stratum_of.get(current or "")
    if stratum is not None:
        members = [qid for qid in plan.planned if plan.stratum_of[qid] == stratum]
        got = sum(1 for qid in members if qid in labelled)
        text += f" · stratum {stratum} {got}/{len(members)}"
    return text
