"""What the app shows for a DMV-Bench probe.

- :func:`retention_context`: where a DMV-Bench probe sits in its run's TSR by reach and
  by bank size (the question screen's right-hand panel for probes).
- :func:`load_probe`: a DMV-Bench probe: the target product (its image when the catalogue
  images are on this machine, else its cue description), what memory retrieved at each
  recall step (with the target's rank there), the final page against the target URL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memscope.usecases.runs.session_io import read_probe
from memscope.usecases.runs.store_access import Store

if TYPE_CHECKING:
    import numpy as np

    from memscope.usecases.labels.queue import TriageTable


@dataclass(frozen=True)
class ProductView:
    """One catalogue product as the probe screen shows it."""

    url_hash: str
    url: str
    name: str
    description: str
    """Cue description, e.g. "incidental cue: a red wool scarf" (shown when there is no image)."""
    image_file: str | None
    caption: str | None
    in_registry: bool


@dataclass(frozen=True)
class RecallStepView:
    """One recall step: the page the agent saw, what memory returned (rank order), the action."""

    step: int
    observed_url: str | None
    retrieved: list[ProductView]
    target_rank: int | None
    """1-based rank of the target among the retrieved entries (None when absent)."""
    action: str | None
    action_url: str | None
    vlm_text: str | None


@dataclass(frozen=True)
class ProbeView:
    """A DMV-Bench recall probe of one run."""

    run_id: str
    qid: str
    probe_id: str
    task_id: str
    trunk: str | None
    question: str
    reach: int | None
    recall_session: int | None
    visit_session: int | None
    bank_size: int | None
    encoding_position: int | None
    target: ProductView
    final_url: str | None
    final: ProductView | None
    correct: bool
    vlm_calls: int | None
    steps: list[RecallStepView] = field(default_factory=list)


def _product(url_hash: str, found: dict[str, dict[str, Any]]) -> ProductView:
    entry = found.get(url_hash)
    url = f"/product/{url_hash}"
    if entry is None:
        return ProductView(url_hash, url, url, "not in this run's dataset", None, None, False)
    extra = entry["extra"]
    files = [f for f in entry["image_files"] or [] if f]
    captions = entry["image_captions"] or []
    return ProductView(
        url_hash=url_hash,
        url=url,
        name=extra.get("display_name") or entry["user_text"] or url,
        description=entry["assistant_text"] or entry["user_text"] or url,
        image_file=files[0] if files else None,
        caption=captions[0] if captions else None,
        in_registry=bool(extra.get("in_registry")),
    )


def load_probe(store: Store, run_id: str, qid: str) -> ProbeView:
    """Everything the app's probe screen needs for question ``qid`` of DMV-Bench run ``run_id``.

    Raises:
        NotFoundError: when the run has no such question.
    """
    rows = read_probe(store, run_id, qid)
    question, steps, found = rows.question, rows.steps, rows.products
    extra, target, final_hash = question["extra"], rows.target, rows.final_hash
    final_url = question["pred"]
    step_views = []
    for step in steps:
        retrieved = list(step["retrieved"] or [])
        step_views.append(
            RecallStepView(
                step=step["step"],
                observed_url=step["observed_url"],
                retrieved=[_product(slug, found) for slug in retrieved],
                target_rank=retrieved.index(target) + 1 if target in retrieved else None,
                action=step["action"],
                action_url=step["action_url"],
                vlm_text=step["vlm_text"],
            )
        )
    return ProbeView(
        run_id=run_id,
        qid=qid,
        probe_id=str(extra.get("probe_id") or qid),
        task_id=str(extra.get("task_id") or ""),
        trunk=extra.get("trunk"),
        question=question["question"] or "",
        reach=extra.get("reach"),
        recall_session=extra.get("recall_session"),
        visit_session=extra.get("visit_session"),
        bank_size=question["prediction_extra"].get("bank_size", extra.get("trajectory_bank_size")),
        encoding_position=extra.get("encoding_position"),
        target=_product(target, found),
        final_url=final_url,
        final=_product(final_hash, found) if final_hash else None,
        correct=bool(question["em"]),
        vlm_calls=question["prediction_extra"].get("vlm_calls"),
        steps=step_views,
    )


@dataclass(frozen=True)
class GroupShare:
    """One level of an axis with the share of correct questions at it."""

    level: str
    value: float | None
    n: int
    here: bool
    """Whether the question being shown sits at this level."""


@dataclass(frozen=True)
class RetentionContext:
    """Where a DMV-Bench probe sits in its run's retention curve (TSR by reach) and by bank
    size, and how its neighbours (same reach and bank size) fared."""

    reach: str
    bank: str
    position: str
    correct: bool
    by_reach: list[GroupShare]
    by_bank: list[GroupShare]
    neighbours: int
    """Probes of this run at the same reach and bank size (this one included)."""
    neighbours_failed: int


def _shares(
    labels: np.ndarray, levels: list[str], correct: np.ndarray, here: str
) -> list[GroupShare]:
    import numpy as np

    shares = []
    for level in levels:
        mask = (labels == level) & ~np.isnan(correct)
        n = int(mask.sum())
        shares.append(
            GroupShare(level, float(correct[mask].mean()) if n else None, n, level == here)
        )
    return shares


def retention_context(table: TriageTable, row: int) -> RetentionContext:
    """The retention context of the probe at ``row`` of a DMV-Bench run's
    :class:`~memscope.usecases.labels.queue.TriageTable` (the same groups as ``report``'s
    ``tsr.by_reach`` and ``tsr.by_bank_size``)."""
    import numpy as np

    labels, levels = table.axis_labels, table.axis_levels
    correct = np.asarray(table.correct, dtype=float)
    reach, bank = str(labels["reach"][row]), str(labels["bank"][row])
    same = (labels["reach"] == reach) & (labels["bank"] == bank)
    return RetentionContext(
        reach=reach,
        bank=bank,
        position=str(labels["position"][row]),
        correct=bool(correct[row] == 1.0),
        by_reach=_shares(labels["reach"], levels["reach"], correct, reach),
        by_bank=_shares(labels["bank"], levels["bank"], correct, bank),
        neighbours=int(same.sum()),
        neighbours_failed=int((same & (correct == 0.0)).sum()),
    )
