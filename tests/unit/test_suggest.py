"""Every suggestion rule of docs/taxonomy.md §5 on a question built to trigger it, the twin
runs the rules use, the priority order, and suggestions kept apart from human labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from builders import dialog, open_row, qa, rag_runtime, write_run
from memscope.adapters import ReadOptions
from memscope.analysis.evidence import EvidenceSet, retrieval_access, temporal_authority
from memscope.analysis.suggest import RunFacts, apply_rules, looks_like_refusal
from memscope.store.sql import scalar
from memscope.usecases.labels.events import current_labels, label_history, record_label
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.run_info import RunInfo
from memscope.usecases.suggest.rules import (
    load_suggestions,
    method_family,
    suggest_run,
    suggestion_state,
)

SESSIONS = {s: [f"{s}:{i}" for i in range(1, 5)] for s in ("S1", "S2", "S3")}  # N = 12

# (question, point, clues, sessions, seed ranking) - one question per rule.
QUESTIONS = [
    ("Which mug did I buy?", "X1", "Y1", ["S2:3"], ["S2"], ["S1:1", "S1:2", "S3:1"]),  # q1 RET-MISS
    (
        "Which two shelves match?",
        "X2",
        "Y2",
        ["S1:2", "S3:2"],
        ["S1", "S3"],
        ["S1:2", "S2:1", "S2:2"],
    ),  # q2 RET-PART
    (
        "Where is the lamp now?",
        "X3",
        "Y3",
        ["S1:3", "S3:3"],
        ["S1", "S3"],
        ["S1:3", "S2:1", "S2:2", "S1:1", "S1:2", "S2:3", "S2:4", "S1:4", "S3:3"],
    ),  # q3 RET-LATEST (L at 9 > K=8)
    (
        "What colour is the wall now?",
        "X2",
        "Y3",
        ["S1:1", "S3:4"],
        ["S1", "S3"],
        ["S1:1", "S3:4", "S2:1"],
    ),  # q4 SEL-STALE
    (
        "How many plants are left?",
        "X1",
        "Y3",
        ["S1:4", "S3:1"],
        ["S1", "S3"],
        ["S3:1", "S1:4", "S2:4"],
    ),  # q5 USE-STATE
    (
        "What is on the fridge?",
        "X3",
        "Y1",
        ["S2:2"],
        ["S2"],
        ["S2:2", "S1:1", "S1:2"],
    ),  # q6 USE-EVID
    (
        "Which cups share a pattern?",
        "X1",
        "Y2",
        ["S1:1", "S2:1"],
        ["S1", "S2"],
        ["S1:1", "S2:1", "S3:1"],
    ),  # q7 USE-ASSOC
    (
        "What brand is the kettle?",
        "X4",
        "Y1",
        ["S3:2"],
        ["S3"],
        ["S1:1", "S1:2", "S1:3", "S1:4", "S2:1", "S3:2"],
    ),  # q8 SEL-NOISE
    ("What did the note say?", "X1", "Y1", ["S2:4"], ["S2"], ["S2:4"]),  # q9 USE-CALIB
    ("What is the rug made of?", "X2", "Y1", ["S1:1"], ["S1"], ["S1:1"]),  # q10 EVAL-JUDGE
    ("What is on the table?", "X1", "Y1", ["S1:2"], ["S1"], ["S1:2"]),  # q11 answered correctly
    ("What number is on the tile?", "X4", "Y1", ["S3:3"], ["S3"], ["S3:3"]),  # q12 ENC-TEXT
    ("What does the label read?", "X4", "Y1", ["S2:1"], ["S2"], ["S2:1"]),  # q13 ENC-PERC
]


def dataset() -> dict:
    return dialog(
        SESSIONS,
        [
            qa(text, "gold", [[x], [y]], clues, sessions)
            for text, x, y, clues, sessions, _ in QUESTIONS
        ],
    )


def rows_for(data: dict, right: set[int], *, ranked: bool = False) -> list[dict]:
    rows = []
    for idx, (*_, seed) in enumerate(QUESTIONS, start=1):
        correct = idx in right
        row = open_row(
            idx,
            data,
            em=1.0 if correct else 0.0,
            judge=1.0 if correct else 0.0,
            seed=seed if ranked else None,
            scores=[0.9 - 0.01 * i for i in range(min(5, len(seed)))] if ranked else None,
        )
        rows.append(row)
    return rows


@pytest.fixture
def runs(tmp_path: Path, store) -> dict[str, str]:
    data = dataset()
    root = tmp_path / "runs"
    text_rows = rows_for(data, {11}, ranked=True)
    text_rows[8]["pred"] = "The conversation does not mention it."  # q9
    text_rows[9].update(em=1.0, exact_match=True, judge=0.25)  # q10: exact match, judge says wrong
    built = {
        "srag_t": write_run(root / "srag_t", data, text_rows, top_k=8),
        "srag_v": write_run(
            root / "srag_v",
            data,
            rows_for(data, {11, 12}, ranked=True),
            top_k=8,
            method="semantic_rag_multimodal",
            modality="multimodal",
        ),
        "oracle": write_run(
            root / "oracle",
            data,
            rows_for(data, set(range(1, 13))),
            method="clue_only_context__text_only",
        ),
        "fc_t": write_run(
            root / "fc_t", data, rows_for(data, set(range(2, 13))), method="full_context_text_only"
        ),
        "qonly": write_run(root / "qonly", data, rows_for(data, set()), method="question_only"),
        # Retrieval over images, answer model given text only; holds q6 alone, so it is
        # never the visual twin of srag_t (fewer shared questions than srag_v).
        "srag_inj": write_run(
            root / "srag_inj",
            data,
            [rows_for(data, set(), ranked=True)[5]],
            top_k=8,
            method="semantic_rag_multimodal",
            modality="multimodal",
            runtime={
                **rag_runtime([], top_k=8),
                "retrieval_backend": "dense_multimodal",
                "images_loaded": False,
            },
        ),
    }
    return {name: ingest_dir(store, path, ReadOptions()).run_id for name, path in built.items()}


def summary(suggestions: list) -> dict[str, list[str]]:
    return {item.qid: item.codes for item in suggestions}


def test_every_rule_on_the_text_only_run(store, runs: dict[str, str]) -> None:
    suggestions = suggest_run(store, runs["srag_t"])
    assert summary(suggestions) == {
        "q1": ["RET-MISS"],
        "q2": ["RET-PART"],
        "q3": ["RET-LATEST", "RET-PART"],
        "q4": ["SEL-STALE"],
        "q5": ["USE-STATE"],
        "q6": ["USE-EVID"],
        "q7": ["USE-EVID", "USE-ASSOC"],
        "q8": ["SEL-NOISE", "USE-EVID"],
        "q9": ["USE-CALIB", "USE-EVID"],
        "q10": ["EVAL-JUDGE", "USE-EVID"],
        "q12": ["ENC-TEXT", "USE-EVID"],
        "q13": ["ENC-PERC", "USE-EVID"],
    }
    by_qid = {item.qid: item for item in suggestions}
    assert by_qid["q1"].explanation == "none of the 1 gold clue(s) (S2:3) in the top 8 → RET-MISS"
    assert by_qid["q2"].explanation == "1 of 2 gold clues in the top 8 (missing S3:2) → RET-PART"
    assert by_qid["q3"].explanation == "Y3, latest clue S3:3 at rank 9, below K=8 → RET-LATEST"
    assert (
        by_qid["q4"].explanation
        == "Y3, latest clue S3:4 at rank 2, stale S1:1 at rank 1 → SEL-STALE"
    )
    assert by_qid["q4"].numbers == {
        "latest": "S3:4",
        "latest_rank": 2,
        "stale": "S1:1",
        "stale_rank": 1,
    }
    assert (
        by_qid["q5"].explanation
        == "Y3, latest clue S3:1 at rank 1, no stale round above it, answer wrong → USE-STATE"
    )
    assert (
        by_qid["q7"].alternatives[0].explanation
        == "Y2 question, 2 gold clues in the top 8, answer wrong → USE-ASSOC"
    )
    assert (
        by_qid["q8"].explanation
        == "first gold clue S3:2 at rank 6, under 5 non-gold rounds → SEL-NOISE"
    )
    assert by_qid["q9"].rule == "refusal-with-evidence"
    assert by_qid["q10"].explanation == "open answer, exact match = 1 but judge = 0.25 → EVAL-JUDGE"
    assert (
        by_qid["q12"].twin_run_id == runs["srag_v"] and runs["srag_v"] in by_qid["q12"].explanation
    )
    assert by_qid["q13"].twin_run_id == runs["oracle"] and by_qid["q13"].rule == "oracle-also-fails"
    assert by_qid["q6"].twin_run_id is None and by_qid["q6"].stage == "use"
    state = suggestion_state(store, runs["srag_t"])
    assert state["n_failed"] == 12 and state["n_suggested"] == 12
    assert set(state["twin_run_ids"]) == {runs["srag_v"], runs["oracle"]}


def test_context_oracle_and_memoryless_runs(store, runs: dict[str, str]) -> None:
    full = {item.qid: item for item in suggest_run(store, runs["fc_t"])}
    # q1: the oracle is right -> context interference; q13: the oracle fails too -> perception.
    assert full["q1"].codes == ["SEL-CTX"] and full["q1"].twin_run_id == runs["oracle"]
    assert full["q1"].explanation.startswith(
        "full-context run over 12 rounds, evidence in context, answer wrong"
    )
    assert full["q13"].codes == ["ENC-PERC"]
    oracle = suggest_run(store, runs["oracle"])
    assert summary(oracle) == {"q13": ["ENC-PERC"]} and oracle[0].rule == "oracle-run-fails"
    # No retrieval provenance, no memory: no retrieval code and no perception code.
    assert suggest_run(store, runs["qonly"]) == []
    injected = suggest_run(store, runs["srag_inj"])
    assert summary(injected) == {"q6": ["INJ-LOSS", "USE-EVID"]}
    assert "received text only" in injected[0].explanation


def test_suggestions_never_touch_labels(store, runs: dict[str, str]) -> None:
    run_id = runs["srag_t"]
    record_label(store, run_id, "q1", codes=["EVAL-GOLD"], annotator="alice")
    suggest_run(store, run_id)
    suggest_run(store, run_id)  # recomputing replaces suggestions, never labels
    assert current_labels(store, run_id)["q1"].codes == ("EVAL-GOLD",)
    assert len(label_history(store, run_id)) == 1
    stored = load_suggestions(store, run_id)
    assert stored["q1"].code == "RET-MISS" and stored["q3"].alternatives[0].code == "RET-PART"
    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM suggestions WHERE run_id = ?", [run_id]) == 19
        assert scalar(con, "SELECT count(*) FROM label_events WHERE source = 'rule'") == 0


def test_method_family_strips_the_modality() -> None:
    def run(**fields: str) -> RunInfo:
        return RunInfo(run_id="r", benchmark="memeye", dataset_id="d", path="p", **fields)

    assert method_family(run(base_method="full_context_text_only")) == "full_context"
    assert (
        method_family(run(base_method="clue_only_context", method="clue_only_context__multimodal"))
        == "clue_only_context"
    )
    assert method_family(run(method="semantic_rag_multimodal")) == "semantic_rag"
    assert method_family(run(method="simplemem__no_visual")) == "simplemem"


# --- rules on hand-made arrays ----------------------------------------------------------


def facts(rows: list[dict], **extra) -> RunFacts:
    """RunFacts from rows {ranked, gold, sources, y} (positions; session = (p - 1) // 3 + 1)."""

    def pad(lists: list[list[int]]) -> np.ndarray:
        width = max((len(item) for item in lists), default=0)
        return np.array(
            [item + [-1] * (width - len(item)) for item in lists], dtype=np.int64
        ).reshape(len(lists), width)

    ranked = pad([row["ranked"] for row in rows])
    ev = EvidenceSet(
        ranked_pos=ranked,
        ranked_session=np.where(ranked > 0, (ranked - 1) // 3 + 1, -1),
        gold_pos=pad([sorted(row["gold"]) for row in rows]),
        source_sessions=pad([row["sources"] for row in rows]),
        has_ranking=np.array([extra.get("retrieval_kind", "ranked") == "ranked"] * len(rows)),
        asks_latest=np.array([row["y"] == "Y3" for row in rows]),
    )
    k = extra.pop("k", 3)
    values = retrieval_access(ev, k) | temporal_authority(ev, k)
    n = len(rows)
    return RunFacts(
        failed=np.ones(n, dtype=bool),
        y=np.array([row["y"] for row in rows], dtype=object),
        mode=np.array(["open"] * n),
        em=np.zeros(n),
        judge=np.zeros(n),
        access={name: values[name] for name in ("any_clue", "coverage", "full_clue")},
        temporal={
            name: values[name] for name in ("latest_at_k", "rank_inversion", "stale_dominance")
        },
        evidence=ev,
        k=k,
        ranked_ids=[[f"r{p}" for p in row["ranked"]] for row in rows],
        gold_ids=[[f"r{p}" for p in sorted(row["gold"])] for row in rows],
        # MemEye's declarations: Y3 asks for the latest state, Y2 joins several clues.
        latest_word="Y3",
        **(
            {}
            if "implicit" in extra
            else {"implicit": np.array([row["y"] == "Y2" for row in rows]), "implicit_word": "Y2"}
        ),
        **{"retrieval_kind": "ranked", **extra},
    )


def codes(hits: list[list]) -> list[list[str]]:
    return [[hit.code for hit in row] for row in hits]


def test_refusal_task_and_implicit_patterns() -> None:
    rows = [
        {"ranked": [1, 4], "gold": [1], "sources": [1], "y": "Y1"},
        {"ranked": [1, 4], "gold": [1, 4], "sources": [1, 2], "y": "Y1"},
    ]
    hits = apply_rules(
        facts(rows, refusal_task=np.array([True, False]), implicit=np.array([False, True]))
    )
    assert codes(hits) == [["USE-CALIB", "USE-EVID"], ["USE-EVID", "USE-ASSOC"]]
    assert hits[0][0].rule == "refusal-task-wrong"


def test_only_failed_questions_get_suggestions() -> None:
    made = facts([{"ranked": [2], "gold": [1], "sources": [1], "y": "Y1"}])
    made.failed = np.array([False])
    assert apply_rules(made) == [[]]


def test_unranked_sets_use_the_whole_set() -> None:
    rows = [
        {"ranked": [2, 5], "gold": [7], "sources": [3], "y": "Y1"},  # nothing retrieved
        {"ranked": [4, 8], "gold": [8], "sources": [3], "y": "Y3"},  # L in the set, no stale round
    ]
    hits = apply_rules(facts(rows, retrieval_kind="unranked"))
    assert codes(hits) == [["RET-MISS"], ["USE-STATE"]]
    assert (
        hits[0][0].explanation == "none of the 1 gold clue(s) (r7) in the retrieved set → RET-MISS"
    )
    assert hits[1][0].explanation.startswith("Y3, latest clue r8 in the retrieved set")


def test_no_provenance_no_retrieval_codes() -> None:
    made = facts([{"ranked": [2], "gold": [1], "sources": [1], "y": "Y1"}], retrieval_kind="none")
    nothing = {name: np.full(1, np.nan) for name in ("any_clue", "coverage", "full_clue")}
    made.access = nothing
    made.temporal = {
        name: np.full(1, np.nan) for name in ("latest_at_k", "rank_inversion", "stale_dominance")
    }
    assert apply_rules(made) == [[]]


def test_refusal_phrases() -> None:
    answers = np.array(
        ["It is not mentioned.", "I don't know", "The red one", None, "cannot be determined"],
        dtype=object,
    )
    assert looks_like_refusal(answers).tolist() == [True, True, False, False, True]
