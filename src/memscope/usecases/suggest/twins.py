"""Which twin runs a run's suggestions use: found once, then pinned.

A *twin run* is another run in the store over the same questions (same task and answer
model) whose answers the encode rules compare with: the *visual twin* of a text-only run
(the same method family with native images; ENC-TEXT when it is right) and the clue-only
*oracle* (ENC-PERC when it fails too, SEL-CTX for a full-context run). Questions are
matched by question key, never by position.

The twins are chosen when a run's suggestions are first made, from the runs in the store
then, and stored with them (``suggestion_runs.twin_run_ids``). Later they are kept: a run
ingested afterwards never changes a suggestion, a label's accepted suggestion or an
estimate behind the user's back; it is only named as a twin that could be used. ``--twin
RUN`` (once per role), ``--twin none`` or ``--twin auto`` (choose again from the store as
it is now) change them, and the change is listed question by question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memscope.errors import InputError
from memscope.usecases.runs.declared import context_kind
from memscope.usecases.runs.run_info import RunInfo

if TYPE_CHECKING:
    from memscope.store import Store

MODALITY_SUFFIX = re.compile(r"_{1,2}(text_only|multimodal|no_visual)$")
VISUAL_MODALITY = "multimodal"
TEXT_MODALITY = "text_only"
NO_TWINS = "none"
"""``--twin none``: use no twin run."""
AUTO_TWINS = "auto"
"""``--twin auto``: choose the twins again from the runs in the store now."""
TWIN_MEANING = (
    "a twin run is another run of the same task and model over the same questions that the "
    "encode rules compare with, the native-visual run of a text-only run's method (ENC-TEXT "
    "where it is right) or the clue-only oracle (ENC-PERC where it fails too)"
)
"""What a twin run is, in the words ``suggest`` and its help use."""


@dataclass(frozen=True)
class Twins:
    """The twin runs one run's suggestions use (None: no such twin)."""

    visual: str | None = None
    oracle: str | None = None

    @property
    def ids(self) -> list[str]:
        """The twin run ids, visual twin first."""
        return [twin for twin in (self.visual, self.oracle) if twin]

    def same_as(self, ids: list[str] | None) -> bool:
        """Whether these are exactly the twins ``ids`` name (in any order)."""
        return ids is not None and sorted(self.ids) == sorted(ids)


def method_family(run: RunInfo) -> str:
    """The base method without its modality suffix (``full_context_text_only`` → ``full_context``)."""
    name = run.base_method or run.method or ""
    return MODALITY_SUFFIX.sub("", name)


def _same_setting(run: RunInfo, other: RunInfo) -> bool:
    if other.run_id == run.run_id or other.task != run.task:
        return False
    return not (run.model and other.model and run.model != other.model)


def twin_candidates(store: Store, run: RunInfo) -> tuple[list[str], list[str]]:
    """Every run in the store that could be ``run``'s visual twin, and its oracle; best first.

    A candidate shares at least one question key with the run; the one sharing the most
    comes first (then, for an oracle, the one of the run's own modality, then the most
    recently ingested).
    """
    from memscope.store import queries
    from memscope.store.suggestions import shared_question_counts

    family = method_family(run)
    # The oracle is a run its benchmark declares gold-evidence only (MemEye's clue-only
    # context), never one named by a family name here.
    is_oracle = context_kind(run, family) == "gold_evidence"
    with store.read() as con:
        listed = [RunInfo.from_row(row) for row in queries.list_runs(con)]
        others = [other for other in listed if _same_setting(run, other)]
        visual = [
            other
            for other in others
            if run.modality == TEXT_MODALITY
            and family
            and not is_oracle
            and method_family(other) == family
            and other.modality == VISUAL_MODALITY
        ]
        oracles = [
            other
            for other in others
            if not is_oracle and context_kind(other, method_family(other)) == "gold_evidence"
        ]
        shared = shared_question_counts(con, run.run_id, [o.run_id for o in visual + oracles])

    def ranked(candidates: list[RunInfo], prefer_modality: str | None = None) -> list[str]:
        order = sorted(
            (c for c in candidates if shared.get(c.run_id, 0) > 0),
            key=lambda c: (
                c.modality == prefer_modality,
                shared[c.run_id],
                c.ingested_at or datetime.min,
            ),
            reverse=True,
        )
        return [c.run_id for c in order]

    return ranked(visual), ranked(oracles, prefer_modality=run.modality)


def find_twins(store: Store, run: RunInfo) -> Twins:
    """The best visual twin and oracle of ``run`` among the runs in the store now."""
    visual, oracles = twin_candidates(store, run)
    return Twins(visual[0] if visual else None, oracles[0] if oracles else None)


def choose_twins(
    store: Store,
    run: RunInfo,
    *,
    requested: list[str] | None = None,
    pinned: list[str] | None = None,
) -> Twins:
    """The twins the run's suggestions are to use.

    Args:
        requested: What ``--twin`` named: run ids (one per role), ``["none"]`` or
            ``["auto"]``; None when it was not given.
        pinned: The twins the stored suggestions were made with (None: none stored yet).

    Without ``requested`` the pinned twins are kept (those still in the store and still
    twins of the run); with nothing pinned they are found in the store.

    Raises:
        InputError: a named run is not a twin of this run, or two share a role.
    """
    if requested is not None and (NO_TWINS in requested or AUTO_TWINS in requested):
        if len(requested) > 1:
            raise InputError(
                f"--twin {requested[0] if requested[0] in (NO_TWINS, AUTO_TWINS) else requested[1]} "
                "stands alone: it cannot be combined with other --twin values",
                fix="Pass --twin none, --twin auto, or one --twin RUN per twin.",
            )
        return Twins() if requested == [NO_TWINS] else find_twins(store, run)
    if requested is None and pinned is None:
        return find_twins(store, run)
    visual, oracles = twin_candidates(store, run)
    chosen: dict[str, str] = {}
    for twin in requested if requested is not None else pinned or []:
        role = "visual" if twin in visual else "oracle" if twin in oracles else None
        if role is None:
            if requested is None:
                continue  # a pinned twin that left the store: the suggestions are redone without it
            raise InputError(
                f"run {twin} cannot be a twin run of {run.run_id}: {TWIN_MEANING}",
                fix=_candidates_fix(visual, oracles),
            )
        if role in chosen:
            raise InputError(
                f"--twin names two {'visual twins' if role == 'visual' else 'oracles'} "
                f"({chosen[role]}, {twin}): a run has one of each at most",
                fix="Pass one --twin RUN per twin.",
            )
        chosen[role] = twin
    return Twins(chosen.get("visual"), chosen.get("oracle"))


def _candidates_fix(visual: list[str], oracles: list[str]) -> str:
    found = visual + oracles
    if not found:
        return "The store holds no twin run of it: pass --twin none (or leave --twin out)."
    return f"Twin runs of it in the store: {', '.join(found)} (or --twin none)."
