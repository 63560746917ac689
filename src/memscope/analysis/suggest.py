"""The deterministic failure-suggestion rules of docs/taxonomy.md §5, over one run's arrays.

Only failed questions get suggestions. Each rule is a vectorised test over the run's
per-question facts plus a sentence giving the numbers behind it ("Y3, latest clue D7:3
at rank 4, stale D3:2 at rank 1 → SEL-STALE"). Where several rules fire, all are kept in
order: evaluation first (a judge error means the failure itself is in doubt), then the
pipeline stages encode → retrieve → select → inject → use. Within a stage the rule
with the more direct evidence comes first: a refusal (observable in the answer) before
"all clues present but wrong", which comes before the cross-session association guess
(USE-ASSOC needs only several clues present). The first is the primary suggestion.

Rules from the retrieval metrics fire only for runs with retrieval provenance (their
metrics are NaN otherwise); twin-run rules fire only where the caller matched a twin.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from memscope.analysis.arrays import PAD, row_member
from memscope.analysis.evidence import EvidenceSet, latest_clue, stale_mask, within_k
from memscope.json_types import JSONValue

Numbers: TypeAlias = dict[str, JSONValue]
"""The numbers behind a suggestion, by name, as ``memscope suggest --format json`` shows them."""

NOISE_MIN_RANK = 6
"""SEL-NOISE: the first gold clue in R@K sits at this rank or lower, under >= 5 non-gold rounds."""
NO_MEMORY_FAMILY = "question_only"
"""The baseline that answers without any history."""
ASSOC_MIN_CLUES = 2
"""USE-ASSOC: "several clues retrieved" means at least this many gold clues in R@K."""
REFUSAL = re.compile(
    r"not (?:available|mentioned|specified|provided|stated|recorded|given)|"
    r"(?:doesn't|does not|did not|didn't) (?:say|mention|specify)|"
    r"(?:cannot|can't|can not|unable to) (?:determine|tell|be determined|answer|know)|"
    r"no (?:information|record|mention)|not enough information|insufficient information|"
    r"i (?:don't|do not) know",
    re.IGNORECASE,
)
"""An answer that declines to answer (USE-CALIB)."""


def _plural(word: str, ending: str = "s") -> str:
    """``word`` with ``ending`` on its noun, not after a closing note a benchmark added:
    ``evidence turn (has_answer)`` -> ``evidence turns (has_answer)``."""
    head, space, note = word.partition(" (")
    if space and word.endswith(")"):
        return f"{head}{ending} ({note}"
    return f"{word}{ending}"


def looks_like_refusal(answers: np.ndarray) -> np.ndarray:
    """Whether each answer text declines to answer."""
    return np.array(
        [bool(text) and REFUSAL.search(str(text)) is not None for text in answers], dtype=bool
    )


@dataclass
class RunFacts:
    """What the rules look at for one run, one row per question.

    Attributes:
        failed: the question failed (``analysis.answers.correctness == 0``).
        y: Y level per question (None when unplaced).
        mode, em, judge: answer mode and scores (NaN when absent).
        access: Any-Clue@K, Coverage@K, Full-Clue@K (NaN without provenance).
        temporal: Latest@K, Rank-Inversion, Stale-Dominance (NaN unless a declared
            latest-state question with provenance).
        evidence: the run's evidence arrays, ``k`` its cut-off.
        ranked_ids / gold_ids: round ids per question, rank order / dialogue order.
        retrieval_kind: ``ranked``, ``unranked``, ``context`` or ``none``.
        family: the base method without its modality (``semantic_rag``, ``full_context``, ...).
        modality: ``text_only``, ``multimodal``, ...
        is_oracle: the run itself is a gold-evidence oracle (its declared context kind).
        injects_text_only: retrieval over native media but the answer model got text only.
        n_rounds: dialogue length N (the dataset's); ``history_rounds`` each question's own.
        visual_twin / oracle: id of the matched twin run (None when there is none) and its
            correctness per question (NaN where the question is not in the twin).
        refusal / refusal_task / implicit: answer declines; the question should be declined
            (the benchmark's declared ``declines``); the question is an implicit-cue
            pattern question (CUE-Mem).
        place / clue_word: the explanation's words for where a question sits and for its
            evidence, per benchmark.
    """

    failed: np.ndarray
    y: np.ndarray
    mode: np.ndarray
    em: np.ndarray
    judge: np.ndarray
    access: dict[str, np.ndarray]
    temporal: dict[str, np.ndarray]
    evidence: EvidenceSet
    k: int
    ranked_ids: list[list[str]]
    gold_ids: list[list[str]]
    retrieval_kind: str
    family: str = ""
    modality: str | None = None
    context_kind: str = ""
    """What the answer model was given (``retrieval``, ``whole_history``, ``gold_evidence``,
    ``none``: the benchmark's ``context_kinds``); SEL-CTX applies to ``whole_history``."""
    is_oracle: bool = False
    injects_text_only: bool = False
    n_rounds: int = 0
    history_rounds: np.ndarray | None = None
    """``(n,)`` each question's own history size where its benchmark declares one
    (``Benchmark.history``); None: every question's history is the ``n_rounds`` of the dataset."""
    visual_twin: str | None = None
    visual_twin_correct: np.ndarray | None = None
    oracle: str | None = None
    oracle_correct: np.ndarray | None = None
    refusal: np.ndarray | None = None
    refusal_task: np.ndarray | None = None
    implicit: np.ndarray | None = None
    latest: np.ndarray | None = None
    """Whether each question asks for the latest state of something that changed (what the
    benchmark declares, ``Benchmark.latest_state``); None: the evidence's own flag."""
    place: np.ndarray | None = None
    """Where each question sits on its benchmark's axes, in the benchmark's words
    (``reach 2 · bank 9``, ``Entity Recall · implicit · image``); MemEye uses ``y``."""
    clue_word: str = "gold clue"
    decline_word: str = ""
    """What the benchmark calls the questions to be declined (``Benchmark.declines``'s
    label); empty: CUE-Mem's "Answer Refusal" wording."""
    latest_word: str = "latest-state"
    implicit_word: str = ""
    """What the benchmark calls its implicit-evidence questions where it names them (MemEye's
    ``Y2``); empty: ``<place>: implicit-cue``."""
    """What the benchmark calls its latest-state questions (MemEye's ``Y3``,
    ``knowledge-update``): the explanations' first word."""
    """What the benchmark calls the evidence (``target`` for DMV-Bench, ``gold turn`` for
    CUE-Mem): only the explanation text changes, never the rules."""
    derived: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of questions."""
        return len(self.failed)

    @property
    def latest_state(self) -> np.ndarray:
        """The latest-state questions: temporal authority and the stale/latest rules apply
        to these only."""
        return self.latest if self.latest is not None else self.evidence.asks_latest

    def flag(self, name: str) -> np.ndarray:
        """An optional boolean array, all False when the caller did not provide it."""
        value = getattr(self, name)
        return np.zeros(self.n, dtype=bool) if value is None else value.astype(bool)

    def twin(self, name: str) -> np.ndarray:
        """A twin's correctness per question, NaN when there is no twin."""
        value = getattr(self, name)
        return np.full(self.n, np.nan) if value is None else value


@dataclass(frozen=True)
class RuleHit:
    """One rule firing on one question."""

    row: int
    code: str
    rule: str
    explanation: str
    numbers: Numbers
    twin_run_id: str | None = None


@dataclass(frozen=True)
class Rule:
    """A suggestion rule: which code, when it fires, and how to say why."""

    name: str
    code: str
    fires: Callable[[RunFacts], np.ndarray]
    explain: Callable[[RunFacts, int], tuple[Numbers, str]]
    twin: str | None = None


def derive(facts: RunFacts) -> dict[str, np.ndarray]:
    """Per-question ranks the rules quote: first gold clue in R@K, latest clue, first stale above it."""
    ev, k = facts.evidence, facts.k
    in_k = within_k(ev, k)
    is_gold = row_member(ev.ranked_pos, ev.gold_pos)
    gold_in_k = is_gold & in_k
    width = ev.ranked_pos.shape[1]
    columns = np.arange(width)[None, :]
    latest = latest_clue(ev)
    is_latest = (ev.ranked_pos == latest[:, None]) & (latest[:, None] != PAD)
    has_latest = is_latest.any(axis=1)
    latest_col = np.where(has_latest, is_latest.argmax(axis=1) if width else 0, width)
    stale_above = stale_mask(ev) & (columns < latest_col[:, None]) & in_k

    def first(
        mask: np.ndarray,
    ) -> np.ndarray:  # 1-based column of the first hit per row, 0 when none
        return np.where(mask.any(axis=1), mask.argmax(axis=1) + 1 if width else 0, 0)

    return {
        "gold_in_k": gold_in_k.sum(axis=1),
        "first_gold_rank": first(gold_in_k),
        "latest_rank": np.where(has_latest, latest_col + 1, 0),
        "stale_rank": first(stale_above),
    }


def _eq(values: np.ndarray, target: float) -> np.ndarray:
    return ~np.isnan(values) & (values == target)


def _fmt(value: float) -> str:
    return f"{value:g}"


def _latest_id(facts: RunFacts, i: int) -> str:
    ids = facts.gold_ids[i]
    return ids[-1] if ids else "?"


def _place(facts: RunFacts, i: int) -> str:
    """Where question ``i`` sits: its Y level (MemEye), else its place on the benchmark's axes."""
    if facts.y[i]:
        return str(facts.y[i])
    if facts.place is not None and facts.place[i]:
        return str(facts.place[i])
    return "unplaced"


def _lead(facts: RunFacts, i: int) -> str:
    """``"reach 2 · bank 9: "`` before an explanation on a non-MemEye benchmark, else ``""``."""
    if facts.place is not None and facts.place[i] and not facts.y[i]:
        return f"{facts.place[i]}: "
    return ""


def _where(facts: RunFacts) -> str:
    return f"the top {facts.k}" if facts.retrieval_kind == "ranked" else "the retrieved set"


# evaluation -----------------------------------------------------------------------------


def _judge_fires(f: RunFacts) -> np.ndarray:
    return (f.mode == "open") & _eq(f.em, 1.0) & ~np.isnan(f.judge) & (f.judge < 0.5)


def _judge_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    numbers: Numbers = {"em": float(f.em[i]), "judge": float(f.judge[i])}
    return numbers, f"open answer, exact match = 1 but judge = {_fmt(f.judge[i])} → EVAL-JUDGE"


# encode ---------------------------------------------------------------------------------


def _visual_twin_fires(f: RunFacts) -> np.ndarray:
    return np.full(f.n, f.modality == "text_only") & _eq(f.twin("visual_twin_correct"), 1.0)


def _visual_twin_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    numbers: Numbers = {"twin_run": f.visual_twin, "twin_correct": True}
    return (
        numbers,
        f"text-only run wrong, its native-visual twin {f.visual_twin} right on the same question → ENC-TEXT",
    )


def _oracle_fires(f: RunFacts) -> np.ndarray:
    # A run without memory (question only) fails for want of evidence, not perception.
    has_memory = not f.is_oracle and f.family != NO_MEMORY_FAMILY
    return np.full(f.n, has_memory) & _eq(f.twin("oracle_correct"), 0.0)


def _oracle_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    numbers: Numbers = {"oracle_run": f.oracle, "oracle_correct": False}
    return numbers, f"the clue-only oracle {f.oracle} also fails this question → ENC-PERC"


def _oracle_self_fires(f: RunFacts) -> np.ndarray:
    return np.full(f.n, f.is_oracle)


def _oracle_self_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    clues = ", ".join(f.gold_ids[i]) or "none"
    numbers: Numbers = {"clue_rounds": [*f.gold_ids[i]]}
    return (
        numbers,
        f"clue-only oracle: the gold clues ({clues}) were in context, answer wrong → ENC-PERC",
    )


# retrieve -------------------------------------------------------------------------------


def _miss_fires(f: RunFacts) -> np.ndarray:
    return _eq(f.access["any_clue"], 0.0)


def _miss_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    golds = f.gold_ids[i]
    numbers: Numbers = {"k": f.k, "gold": [*golds], "any_clue": 0.0}
    return (
        numbers,
        (
            f"{_lead(f, i)}the {f.clue_word} ({golds[0]}) not in {_where(f)} → RET-MISS"
            if len(golds) == 1 and f.clue_word == "target"
            else f"{_lead(f, i)}none of the {len(golds)} {_plural(f.clue_word, '(s)')} ({', '.join(golds)}) in {_where(f)} → RET-MISS"
        ),
    )


def _latest_fires(f: RunFacts) -> np.ndarray:
    return f.latest_state & _eq(f.temporal["latest_at_k"], 0.0)


def _latest_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    latest = _latest_id(f, i)
    rank = int(f.derived["latest_rank"][i])
    numbers: Numbers = {"k": f.k, "latest": latest, "latest_rank": rank or None}
    place = f"at rank {rank}, below K={f.k}" if rank else "not in the candidate pool"
    return numbers, f"{f.latest_word}, latest clue {latest} {place} → RET-LATEST"


def _partial_fires(f: RunFacts) -> np.ndarray:
    coverage = f.access["coverage"]
    return ~np.isnan(coverage) & (coverage > 0) & (coverage < 1)


def _partial_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    golds = f.gold_ids[i]
    found = int(f.derived["gold_in_k"][i])
    top = set(f.ranked_ids[i][: f.k]) if f.retrieval_kind == "ranked" else set(f.ranked_ids[i])
    missing = [g for g in golds if g not in top]
    numbers: Numbers = {"k": f.k, "coverage": float(f.access["coverage"][i]), "missing": [*missing]}
    return (
        numbers,
        f"{_lead(f, i)}{found} of {len(golds)} {_plural(f.clue_word)} in {_where(f)} (missing {', '.join(missing)}) → RET-PART",
    )


# select ---------------------------------------------------------------------------------


def _stale_fires(f: RunFacts) -> np.ndarray:
    return f.latest_state & _eq(f.temporal["rank_inversion"], 1.0)


def _stale_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    latest = _latest_id(f, i)
    latest_rank = int(f.derived["latest_rank"][i])
    stale_rank = int(f.derived["stale_rank"][i])
    stale = f.ranked_ids[i][stale_rank - 1] if stale_rank else "?"
    numbers: Numbers = {
        "latest": latest,
        "latest_rank": latest_rank,
        "stale": stale,
        "stale_rank": stale_rank,
    }
    return (
        numbers,
        f"{f.latest_word}, latest clue {latest} at rank {latest_rank}, stale {stale} at rank {stale_rank} → SEL-STALE",
    )


def _noise_fires(f: RunFacts) -> np.ndarray:
    return np.full(f.n, f.retrieval_kind == "ranked") & (
        f.derived["first_gold_rank"] >= NOISE_MIN_RANK
    )


def _noise_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    rank = int(f.derived["first_gold_rank"][i])
    clue = f.ranked_ids[i][rank - 1]
    numbers: Numbers = {"first_clue": clue, "first_clue_rank": rank, "non_gold_above": rank - 1}
    return (
        numbers,
        f"first gold clue {clue} at rank {rank}, under {rank - 1} non-gold rounds → SEL-NOISE",
    )


def _context_fires(f: RunFacts) -> np.ndarray:
    return np.full(f.n, f.context_kind == "whole_history") & ~_eq(f.twin("oracle_correct"), 0.0)


def _context_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    oracle = f.twin("oracle_correct")[i]
    # The question's own history where the benchmark declares one (its own haystack),
    # else the whole dataset's dialogue.
    rounds = f.n_rounds if f.history_rounds is None else int(f.history_rounds[i])
    numbers: Numbers = {
        "n_rounds": rounds,
        "oracle_run": f.oracle if not np.isnan(oracle) else None,
    }
    if np.isnan(oracle):
        tail = "no oracle run to confirm"
    else:
        numbers["oracle_correct"] = True
        tail = f"the clue-only oracle {f.oracle} is right"
    return (
        numbers,
        f"full-context run over {rounds} rounds, evidence in context, answer wrong ({tail}) → SEL-CTX",
    )


# inject ---------------------------------------------------------------------------------


def _inject_fires(f: RunFacts) -> np.ndarray:
    return np.full(f.n, f.injects_text_only) & _eq(f.access["any_clue"], 1.0)


def _inject_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    rank = int(f.derived["first_gold_rank"][i])
    clue = f.ranked_ids[i][rank - 1] if rank else "a gold clue"
    numbers: Numbers = {"first_clue": clue, "first_clue_rank": rank or None}
    place = f" at rank {rank}" if rank else ""
    return (
        numbers,
        f"gold clue {clue} retrieved{place}, the answer model received text only (check its caption) → INJ-LOSS",
    )


# use ------------------------------------------------------------------------------------


def _evidence_present(f: RunFacts) -> np.ndarray:
    if f.retrieval_kind in ("ranked", "unranked"):
        return _eq(f.access["any_clue"], 1.0)
    return np.full(f.n, f.retrieval_kind == "context")


def _refusal_task_fires(f: RunFacts) -> np.ndarray:
    return f.flag("refusal_task")


def _refusal_task_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    if f.decline_word:  # the benchmark's own word for its declines (an abstention question)
        return (
            {"task": f.decline_word},
            f"{f.decline_word} question, to be declined, answered wrongly → USE-CALIB",
        )
    return {"task": "answer refusal"}, "Answer Refusal question answered wrongly → USE-CALIB"


def _refusal_fires(f: RunFacts) -> np.ndarray:
    return f.flag("refusal") & _evidence_present(f) & ~f.flag("refusal_task")


def _refusal_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    if f.retrieval_kind in ("ranked", "unranked"):
        found = int(f.derived["gold_in_k"][i])
        return (
            {
                "gold_in_k": found,
                "k": f.k,
            },
            f"{_lead(f, i)}answer declines although {found} {_plural(f.clue_word, '(s)')} are in {_where(f)} → USE-CALIB",
        )
    return {"context": f.family}, "answer declines although the evidence was in context → USE-CALIB"


def _state_fires(f: RunFacts) -> np.ndarray:
    return (
        f.latest_state
        & _eq(f.temporal["latest_at_k"], 1.0)
        & _eq(f.temporal["stale_dominance"], 0.0)
    )


def _state_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    latest = _latest_id(f, i)
    rank = int(f.derived["latest_rank"][i])
    numbers: Numbers = {"latest": latest, "latest_rank": rank, "rank_inversion": 0.0}
    place = f"at rank {rank}" if f.retrieval_kind == "ranked" else "in the retrieved set"
    return (
        numbers,
        f"{f.latest_word}, latest clue {latest} {place}, no stale round above it, answer wrong → USE-STATE",
    )


def _assoc_fires(f: RunFacts) -> np.ndarray:
    pattern = f.flag("implicit")
    return pattern & (f.derived["gold_in_k"] >= ASSOC_MIN_CLUES)


def _assoc_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    found = int(f.derived["gold_in_k"][i])
    kind = f.implicit_word or f"{_place(f, i)}: implicit-cue"
    return {
        "gold_in_k": found,
        "k": f.k,
    }, f"{kind} question, {found} {_plural(f.clue_word)} in {_where(f)}, answer wrong → USE-ASSOC"


def _use_fires(f: RunFacts) -> np.ndarray:
    return ~f.latest_state & _eq(f.access["full_clue"], 1.0)


def _use_explain(f: RunFacts, i: int) -> tuple[Numbers, str]:
    golds = f.gold_ids[i]
    numbers: Numbers = {"k": f.k, "gold": [*golds], "full_clue": 1.0}
    level = _place(f, i)
    return (
        numbers,
        (
            f"{level}, the {f.clue_word} ({golds[0]}) in {_where(f)}, wrong product chosen → USE-EVID"
            if len(golds) == 1 and f.clue_word == "target"
            else f"{level}, all {len(golds)} {_plural(f.clue_word, '(s)')} ({', '.join(golds)}) in {_where(f)}, answer wrong → USE-EVID"
        ),
    )


RULES: tuple[Rule, ...] = (
    Rule("judge-disagrees-with-em", "EVAL-JUDGE", _judge_fires, _judge_explain),
    Rule(
        "visual-twin-right",
        "ENC-TEXT",
        _visual_twin_fires,
        _visual_twin_explain,
        twin="visual_twin",
    ),
    Rule("oracle-also-fails", "ENC-PERC", _oracle_fires, _oracle_explain, twin="oracle"),
    Rule("oracle-run-fails", "ENC-PERC", _oracle_self_fires, _oracle_self_explain),
    Rule("no-clue-in-top-k", "RET-MISS", _miss_fires, _miss_explain),
    Rule("latest-not-in-top-k", "RET-LATEST", _latest_fires, _latest_explain),
    Rule("partial-coverage", "RET-PART", _partial_fires, _partial_explain),
    Rule("rank-inversion", "SEL-STALE", _stale_fires, _stale_explain),
    Rule("clue-under-distractors", "SEL-NOISE", _noise_fires, _noise_explain),
    Rule("full-context-wrong", "SEL-CTX", _context_fires, _context_explain, twin="oracle"),
    Rule("text-only-injection", "INJ-LOSS", _inject_fires, _inject_explain),
    Rule("refusal-task-wrong", "USE-CALIB", _refusal_task_fires, _refusal_task_explain),
    Rule("refusal-with-evidence", "USE-CALIB", _refusal_fires, _refusal_explain),
    Rule("latest-present-wrong", "USE-STATE", _state_fires, _state_explain),
    Rule("full-clue-wrong", "USE-EVID", _use_fires, _use_explain),
    Rule("clues-not-linked", "USE-ASSOC", _assoc_fires, _assoc_explain),
)
"""Every rule, in priority order (the first that fires on a question is its primary)."""


def apply_rules(facts: RunFacts) -> list[list[RuleHit]]:
    """The rule hits per question (failed questions only), primary first; one code at most once."""
    facts.derived = derive(facts)
    fired = [(rule, rule.fires(facts) & facts.failed) for rule in RULES]
    hits: list[list[RuleHit]] = [[] for _ in range(facts.n)]
    for rule, mask in fired:
        for row in np.flatnonzero(mask).tolist():
            if any(hit.code == rule.code for hit in hits[row]):
                continue
            numbers, text = rule.explain(facts, row)
            twin = getattr(facts, rule.twin) if rule.twin else None
            if rule.code == "SEL-CTX" and numbers.get("oracle_run") is None:
                twin = None
            hits[row].append(RuleHit(row, rule.code, rule.name, text, numbers, twin))
    return hits
