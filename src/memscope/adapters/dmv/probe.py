"""A DMV-Bench probe as the app's question screen shows it (``BENCHMARK.question_panel``).

- :func:`load_probe`: what the probe asked for (the target product: its image when the
  catalogue images are here, else its incidental cue), where the agent ended up, and what
  memory returned at each recall step (``dmv_recall_steps``) with the target's rank there;
- :func:`probe_blocks`: that, as the blocks the app draws in place of the round view;
- :func:`retention_blocks`: where the probe sits in its run's TSR by reach and by bank
  size, and how its neighbours fared (the right-hand panel, from the run's axes only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memscope.plugin import ImageBlock, PanelBlock, TextBlock, TextLine

if TYPE_CHECKING:
    import numpy as np

    from memscope.plugin import PanelQuestion, QuestionInRun

RECALL_STEPS = "dmv_recall_steps"
SHOWN_PER_STEP = 5
"""Retrieved products shown per recall step (the rest counted)."""


@dataclass(frozen=True)
class ProductView:
    """One catalogue product as the probe panel shows it."""

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


def load_probe(question: PanelQuestion) -> ProbeView:
    """Everything the probe panel shows for one probe of a stored DMV-Bench run.

    Raises:
        NotFoundError: when the run has no such question.
    """
    record = question.record()
    steps = sorted(question.detail_rows(RECALL_STEPS), key=lambda row: row["step"])
    extra = record["extra"]
    target = str(extra.get("target_hash") or "")
    final_url = record["pred"]
    final_hash = (
        final_url.rsplit("/", 1)[-1] if final_url and final_url.startswith("/product/") else None
    )
    found = question.rounds(
        [
            target,
            *([final_hash] if final_hash else []),
            *(slug for step in steps for slug in step["retrieved"] or []),
        ]
    )
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
    own = record["prediction_extra"]
    return ProbeView(
        run_id=question.run_id,
        qid=question.qid,
        probe_id=str(extra.get("probe_id") or question.qid),
        task_id=str(extra.get("task_id") or ""),
        trunk=extra.get("trunk"),
        question=record["question"] or "",
        reach=extra.get("reach"),
        recall_session=extra.get("recall_session"),
        visit_session=extra.get("visit_session"),
        bank_size=own.get("bank_size", extra.get("trajectory_bank_size")),
        encoding_position=extra.get("encoding_position"),
        target=_product(target, found),
        final_url=final_url,
        final=_product(final_hash, found) if final_hash else None,
        correct=bool(record["em"]),
        vlm_calls=own.get("vlm_calls"),
        steps=step_views,
    )


def _run(text: object, style: str | None = None) -> TextBlock:
    return TextBlock(str(text), style)


def _step_lines(step: RecallStepView, target: ProductView) -> list[TextLine]:
    head = [_run(f" R{step.step}", "bold")]
    if step.observed_url:
        head.append(_run(f" on {step.observed_url}", "dim"))
    ranks = [_run("   ")]
    for rank, product in enumerate(step.retrieved[:SHOWN_PER_STEP], start=1):
        is_target = product.url_hash == target.url_hash
        ranks.append(
            _run(
                f"{rank}.{'★' if is_target else ''}{product.url_hash} ",
                "bold green" if is_target else None,
            )
        )
    if len(step.retrieved) > SHOWN_PER_STEP:
        ranks.append(_run(f"(+{len(step.retrieved) - SHOWN_PER_STEP})", "dim"))
    if step.target_rank is None:
        ranks.append(_run(" target not retrieved", "yellow"))
    lines = [TextLine(tuple(head)), TextLine(tuple(ranks))]
    if step.action:
        lines.append(TextLine((_run(f"   → {step.action} {step.action_url or ''}", "dim"),)))
    return lines


def probe_blocks(probe: ProbeView) -> list[PanelBlock]:
    """The probe's target, outcome and recall steps, and the target's image when it is here."""
    trunk = f"  ·  trunk {probe.trunk}" if probe.trunk else ""
    facts = []
    if probe.reach is not None:
        facts.append(
            f"reach {probe.reach}: seen in session {probe.visit_session}, recalled in session {probe.recall_session}"
        )
    if probe.bank_size is not None:
        facts.append(f"bank {probe.bank_size} entries")
    if probe.encoding_position is not None:
        facts.append(f"encoding position {probe.encoding_position}")
    target = probe.target
    if probe.final_url:
        final_name = f"  {probe.final.name}" if probe.final is not None else ""
        final = _run(f"{probe.final_url}{final_name}  ")
    else:
        final = _run("no product page reached  ")
    blocks: list[PanelBlock] = [
        TextLine(
            (
                _run(f"probe {probe.probe_id}", "bold"),
                _run(f"  ·  task {probe.task_id}{trunk}", "dim"),
            )
        ),
        TextLine((_run(" · ".join(facts)),)),
        TextLine(()),
        TextLine((_run("target  ", "bold green"), _run(f"{target.url}  {target.name}"))),
        TextLine((_run(f"        {target.description}", "dim"),)),
        TextLine(
            (
                _run("final   ", "bold"),
                final,
                _run("✓ the target", "green") if probe.correct else _run("✗ not the target", "red"),
            )
        ),
        TextLine(()),
        TextLine((_run("recall steps — what memory returned, rank order (★ the target)", "bold"),)),
    ]
    if not probe.steps:
        blocks.append(
            TextLine((_run("  the run's logs hold no recall steps for this probe", "dim"),))
        )
    for step in probe.steps:
        blocks += _step_lines(step, target)
    blocks.append(TextLine(()))  # the text ends with a line break, as it always has
    if target.image_file:
        blocks.append(ImageBlock(target.image_file, target.caption or "", target.url_hash))
    return blocks


def probe_panel(question: PanelQuestion) -> list[PanelBlock]:
    """The question panel's ``build`` hook: the probe's view as blocks."""
    return probe_blocks(load_probe(question))


@dataclass(frozen=True)
class GroupShare:
    """One level of an axis with the share of correct probes at it."""

    level: str
    value: float | None
    n: int
    here: bool
    """Whether the probe being shown sits at this level."""


@dataclass(frozen=True)
class RetentionContext:
    """Where a probe sits in its run's retention curve (TSR by reach) and by bank size, and
    how its neighbours (same reach and bank size) fared."""

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


def retention_context(question: QuestionInRun) -> RetentionContext:
    """The retention context of a probe among its run's probes (the same groups as
    ``report``'s ``tsr.by_reach`` and ``tsr.by_bank_size``)."""
    import numpy as np

    labels, levels, row = question.axis_labels, question.axis_levels, question.row
    correct = np.asarray(question.correct, dtype=float)
    reach, bank = str(labels["reach"][row]), str(labels["bank"][row])
    same = (labels["reach"] == reach) & (labels["bank"] == bank)
    return RetentionContext(
        reach=reach,
        bank=bank,
        position=str(labels["position"][row]),
        correct=bool(correct[row] == 1.0),
        by_reach=_shares(labels["reach"], list(levels["reach"]), correct, reach),
        by_bank=_shares(labels["bank"], list(levels["bank"]), correct, bank),
        neighbours=int(same.sum()),
        neighbours_failed=int((same & (correct == 0.0)).sum()),
    )


def _num(value: float | None) -> str:
    """Two digits, an en dash when missing (as the app prints numbers)."""
    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def retention_blocks(context: RetentionContext, tsr_name: str = "TSR") -> list[PanelBlock]:
    """TSR by reach and by bank size in this run with this probe's level marked, and how
    its neighbours fared."""
    width = 10
    blocks: list[PanelBlock] = []
    for title, shares, unit in (
        (f"retention: {tsr_name} by reach in this run", context.by_reach, "reach"),
        (f"{tsr_name} by bank size", context.by_bank, "bank"),
    ):
        blocks.append(TextBlock(title, "bold"))
        for share in shares:
            filled = round((share.value or 0.0) * width)
            blocks.append(
                TextLine(
                    (
                        _run("▶ " if share.here else "  ", "bold yellow"),
                        _run(f"{unit} {share.level:<3} ", "bold" if share.here else None),
                        _run("█" * filled, "green3" if share.here else "grey50"),
                        _run("░" * (width - filled), "grey23"),
                        _run(
                            f"  {_num(share.value)}  n={share.n}", "bold" if share.here else "dim"
                        ),
                    )
                )
            )
    outcome = _run("✓ found", "green") if context.correct else _run("✗ not found", "bold red")
    blocks.append(
        TextLine(
            (
                _run("this probe  ", "bold"),
                _run(
                    f"reach {context.reach or '?'} · bank {context.bank or '?'} · position {context.position or '?'}  "
                ),
                outcome,
            )
        )
    )
    blocks.append(
        TextBlock(
            f"{context.neighbours_failed} of {context.neighbours} probes at this reach and bank size failed",
            "dim",
        )
    )
    return blocks


def retention_panel(question: QuestionInRun) -> list[PanelBlock]:
    """The question panel's ``summary`` hook: the probe's retention context."""
    return retention_blocks(retention_context(question))
