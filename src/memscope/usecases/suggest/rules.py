"""Rule-based failure suggestions for a run: take its twin runs, apply the rules, store them.

The twin runs (the native-visual twin of a text-only run, the clue-only oracle) are
chosen and pinned by :mod:`memscope.usecases.suggest.twins`: found in the store the first time,
kept afterwards. Questions are matched to a twin by question key, never by position.
Suggestions are stored apart from labels and never change them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.analysis.answers import correctness
from memscope.analysis.arrays import float_column
from memscope.analysis.suggest import Numbers, RunFacts, apply_rules, looks_like_refusal
from memscope.json_types import JSONObject
from memscope.usecases.report.build import question_metrics
from memscope.usecases.runs.declared import (
    all_declared,
    context_kind,
    declared_flags,
    latest_label,
)
from memscope.usecases.runs.ingest import effective_k
from memscope.usecases.runs.loading import RunData, load_run
from memscope.usecases.suggest.twins import Twins, choose_twins, method_family

if TYPE_CHECKING:
    from memscope.adapters.spec import QuestionMatch
    from memscope.store import Store
    from memscope.taxonomy import Taxonomy

"""Question ``extra`` fields that may say a question is an implicit-cue one (CUE-Mem's
adapter writes ``explicitness``). USE-ASSOC takes implicit questions of a pattern task
(CUE-Mem Long Pattern) as its "implicit pattern question"."""


@dataclass(frozen=True)
class Suggestion:
    """A suggested failure code for one question, with the rule and numbers behind it.

    ``alternatives`` holds the other codes whose rules fired on the question, in
    priority order (the suggestion itself is the primary one).
    """

    qid: str
    code: str
    rule: str
    explanation: str
    numbers: Numbers
    twin_run_id: str | None
    stage: str = ""
    question_key: str | None = None
    alternatives: tuple[Suggestion, ...] = field(default=())

    @property
    def codes(self) -> list[str]:
        """The primary code followed by the alternatives."""
        return [self.code, *(item.code for item in self.alternatives)]

    def as_dict(self) -> JSONObject:
        """JSON-ready form, alternatives included."""
        return {
            "qid": self.qid,
            "code": self.code,
            "stage": self.stage,
            "rule": self.rule,
            "explanation": self.explanation,
            "numbers": self.numbers,
            "twin_run_id": self.twin_run_id,
            "alternatives": [
                {
                    key: value
                    for key, value in item.as_dict().items()
                    if key not in ("qid", "alternatives")
                }
                for item in self.alternatives
            ],
        }


def _twin_correctness(store: Store, twin_id: str | None, keys: np.ndarray) -> np.ndarray | None:
    """The twin's correctness per question of this run (NaN where the twin lacks the question)."""
    if twin_id is None:
        return None
    from memscope.store import queries

    with store.read() as con:
        table = queries.question_table(con, twin_id)
    twin_keys = table.column("question_key").to_pylist()
    correct = correctness(
        table.column("mode").to_numpy(zero_copy_only=False),
        float_column(table["em"]),
        float_column(table["judge"]),
        float_column(table["f1"]),
    )
    by_key = dict(zip(twin_keys, correct.tolist(), strict=True))
    return np.array([by_key.get(key, np.nan) for key in keys.tolist()], dtype=float)


def _benchmark_words(data: RunData) -> dict[str, Any]:
    """The explanation's words for a run whose questions are not on the x × y coordinates
    (whose rules speak of X and Y themselves, as MemEye's do): each question's place on
    the benchmark's axes (``reach 2 · bank 9``) and what its evidence is called."""
    from memscope.usecases.benchmarks import coordinate_levels
    from memscope.usecases.runs.axes import axis_columns

    spec = data.spec
    axes = spec.axes
    if any(coordinate_levels(spec)):
        return {}
    labels, _numbers, _levels = axis_columns(data, axes)
    parts = []
    for axis in axes.axes:
        column = labels[axis.key]
        if axis.numeric:
            parts.append(np.array([f"{axis.title} {v}" if v else "" for v in column], dtype=object))
        else:
            parts.append(np.array([axis.label(v) if v else "" for v in column], dtype=object))
    place = np.array(
        [" · ".join(p for p in row if p) for row in zip(*parts, strict=True)] if parts else [],
        dtype=object,
    )
    return {
        "place": place,
        "clue_word": axes.word("clue", "gold turn"),
    }


def question_matches(data: RunData, match: QuestionMatch | None) -> np.ndarray:
    """Which of the run's questions ``match`` declares (all False where it declares none)."""
    return declared_flags(data.questions, match)


def _injects_text_only(store: Store, run_id: str) -> bool:
    """Retrieval over native media while the answer model was given text only."""
    from memscope.store import queries

    with store.read() as con:
        config, metrics = queries.run_config(con, run_id)
    runtime = metrics.get("method_runtime") or (config.get("run") or {}).get("method_runtime") or {}
    if not isinstance(runtime, dict):
        return False
    if str(runtime.get("injection", "")).lower() in ("text", "caption", "text_only"):
        return True
    native_retrieval = "multimodal" in str(runtime.get("retrieval_backend", ""))
    return native_retrieval and runtime.get("images_loaded") is False


def build_facts(store: Store, data: RunData, twins: Twins | None = None) -> RunFacts:
    """Everything the rules need for one run, with ``twins`` (default: those pinned with
    its stored suggestions, else the best in the store now)."""
    run = data.run
    k = effective_k(run, None)
    values = question_metrics(data, k)
    keys = data.column("question_key")
    if twins is None:
        state = suggestion_state(store, str(run.run_id))
        twins = choose_twins(store, run, pinned=state["twin_run_ids"] if state else None)
    visual_twin, oracle = twins.visual, twins.oracle
    family = method_family(run)
    kind = context_kind(run, family)
    table = data.evidence_table
    return RunFacts(
        failed=values["correct"] == 0.0,
        y=data.column("y"),
        mode=data.column("mode"),
        em=values["em"],
        judge=values["judge"],
        access={name: values[name] for name in ("any_clue", "coverage", "full_clue")},
        temporal={
            name: values[name] for name in ("latest_at_k", "rank_inversion", "stale_dominance")
        },
        evidence=data.evidence,
        k=k,
        ranked_ids=[ids or [] for ids in table.column("ranked_ids").to_pylist()],
        gold_ids=[ids or [] for ids in table.column("gold_ids").to_pylist()],
        retrieval_kind=run.retrieval_kind or "none",
        family=family,
        modality=run.modality,
        context_kind=kind,
        is_oracle=kind == "gold_evidence",
        injects_text_only=run.retrieval_kind in ("ranked", "unranked")
        and _injects_text_only(store, run.run_id),
        n_rounds=data.n_rounds,
        history_rounds=None if data.histories is None else data.history_sizes(),
        visual_twin=visual_twin,
        visual_twin_correct=_twin_correctness(store, visual_twin, keys),
        oracle=oracle,
        oracle_correct=_twin_correctness(store, oracle, keys),
        refusal=looks_like_refusal(data.column("pred")),
        refusal_task=question_matches(data, data.spec.declines),
        decline_word=data.spec.declines.label if data.spec.declines else "",
        latest=question_matches(data, data.spec.latest_state),
        latest_word=latest_label(data.spec),
        **_benchmark_words(data),
        implicit=all_declared(data.questions, data.spec.implicit),
        implicit_word=next((m.label for m in data.spec.implicit if m.label), ""),
    )


def compute_suggestions(
    store: Store, data: RunData, taxonomy: Taxonomy | None = None, twins: Twins | None = None
) -> tuple[list[Suggestion], RunFacts]:
    """Apply the rules to a loaded run with ``twins`` (see :func:`build_facts`); nothing is stored."""
    from memscope.taxonomy import load_taxonomy

    taxonomy = taxonomy or load_taxonomy()
    facts = build_facts(store, data, twins)
    qids = data.qids.tolist()
    keys = data.column("question_key").tolist()
    suggestions = []
    for row, hits in enumerate(apply_rules(facts)):
        if not hits:
            continue
        items = [
            Suggestion(
                qid=qids[row],
                code=hit.code,
                rule=hit.rule,
                explanation=hit.explanation,
                numbers=hit.numbers,
                twin_run_id=hit.twin_run_id,
                stage=_stage(taxonomy, hit.code),
                question_key=keys[row],
            )
            for hit in hits
        ]
        primary = items[0]
        suggestions.append(Suggestion(**{**primary.__dict__, "alternatives": tuple(items[1:])}))
    return suggestions, facts


def _stage(taxonomy: Taxonomy, code: str) -> str:
    found = taxonomy.get(code)
    return found.stage if found else ""


def suggest_run(store: Store, run_id: str, twins: Twins | None = None) -> list[Suggestion]:
    """Compute a run's suggestions with ``twins``, store them (the twins pinned with them),
    return them.

    ``twins`` None keeps the twins the run's stored suggestions were made with, or, the
    first time, takes the best twin runs in the store (``usecases.suggest.twins``).

    Returns one suggestion per failed question that some rule explains, primary code
    first, the other fired codes in ``alternatives``.
    """
    from memscope.store.suggestions import replace_suggestions
    from memscope.taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    data = load_run(store, run_id)
    suggestions, facts = compute_suggestions(store, data, taxonomy, twins)
    rows = []
    for suggestion in suggestions:
        for rank, item in enumerate((suggestion, *suggestion.alternatives), start=1):
            rows.append(
                {
                    "qid": suggestion.qid,
                    "question_key": suggestion.question_key,
                    "rank": rank,
                    "code": item.code,
                    "stage": item.stage,
                    "rule": item.rule,
                    "explanation": item.explanation,
                    "numbers": item.numbers,
                    "twin_run_id": item.twin_run_id,
                }
            )
    used = [twin for twin in (facts.visual_twin, facts.oracle) if twin]
    with store.write() as con:
        replace_suggestions(
            con,
            run_id,
            rows,
            run_hash=data.run.content_hash,
            taxonomy_version=taxonomy.version,
            twin_run_ids=used,
            n_failed=int(facts.failed.sum()),
            created_at=datetime.now(UTC).replace(tzinfo=None),
        )
    return suggestions


def load_suggestions(store: Store, run_id: str) -> dict[str, Suggestion]:
    """The stored suggestions of a run by qid (primary, with its alternatives); {} when none."""
    from memscope.store.suggestions import suggestion_rows

    with store.read() as con:
        stored = suggestion_rows(con, run_id)
    return suggestions_from_rows(stored)


def suggestions_from_rows(stored: list[dict[str, Any]]) -> dict[str, Suggestion]:
    """Group stored suggestion rows (ordered, rank 1 first per question) by qid."""
    grouped: dict[str, list[Suggestion]] = {}
    for row in stored:
        grouped.setdefault(row["qid"], []).append(
            Suggestion(
                qid=row["qid"],
                code=row["code"],
                rule=row["rule"],
                explanation=row["explanation"],
                numbers=row["numbers"],
                twin_run_id=row["twin_run_id"],
                stage=row["stage"] or "",
                question_key=row["question_key"],
            )
        )
    return {
        qid: Suggestion(**{**items[0].__dict__, "alternatives": tuple(items[1:])})
        for qid, items in grouped.items()
    }


def suggestion_state(store: Store, run_id: str) -> dict[str, Any] | None:
    """When the run's suggestions were computed, under which run hash, with which twins."""
    from memscope.store.suggestions import suggestion_state as stored_state

    with store.read() as con:
        return stored_state(con, run_id)
