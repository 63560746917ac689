"""The memory engine over LongMemEval: ``memscope retrieve longmemeval_s.json`` ranks each
question within its own haystack with the real packaged MiniLM and writes the retrieval
logs upstream's ``src/retrieval/run_retrieval.py`` writes (turn and session granularity,
``retrieval_logs/<retriever>/<granularity>/``), whose metrics are upstream's
``evaluate_retrieval`` / ``evaluate_retrieval_turn2session``, re-implemented here from
upstream's code (commit 9e0b455) as the oracle; memscope's own LongMemEval reader then reads
a log back with the run that answered over it. Invented data
(``scripts/demo/make_longmemeval_demo.py``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from builders_longmemeval import generator, registered
from memscope.cli import app

runner = CliRunner()
RETRIEVER = "memscope-all-MiniLM-L6-v2"
KS = (1, 3, 5, 10, 30, 50)


@pytest.fixture(autouse=True)
def _longmemeval() -> Iterator[None]:
    yield from registered()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return generator().write_demo(tmp_path / "LongMemEval")


def invoke(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def log_file(root: Path, granularity: str) -> Path:
    return (
        root
        / "retrieval_logs"
        / RETRIEVER
        / granularity
        / f"longmemeval_s.json_retrievallog_{granularity}_{RETRIEVER}"
    )


# --- upstream's code, re-implemented (src/retrieval/run_retrieval.py, eval_utils.py) ---------


def process_item_flat_index(data: list[dict[str, Any]], granularity: str, sess_id: str, ts: str):
    corpus: list[str] = []
    if granularity == "session":
        corpus.append(" ".join(t["content"] for t in data if t["role"] == "user"))
        ids = [sess_id]
        if "answer" in sess_id and all(
            not turn.get("has_answer") for turn in [x for x in data if x["role"] == "user"]
        ):
            ids = [sess_id.replace("answer", "noans")]
    else:
        ids = []
        for i_turn, turn in enumerate(data):
            if turn["role"] == "user":
                corpus.append(turn["content"])
                tid = sess_id + "_" + str(i_turn + 1)
                if "answer" in sess_id and not turn.get("has_answer"):
                    tid = tid.replace("answer", "noans")
                ids.append(tid)
    return corpus, ids, [ts for _ in corpus]


def dcg(relevances: list[int], k: int) -> float:
    values = np.asarray(relevances, dtype=float)[:k]
    if values.size:
        return float(values[0] + np.sum(values[1:] / np.log2(np.arange(2, values.size + 1))))
    return 0.0


def ndcg(rankings: list[int], correct: list[str], corpus_ids: list[str], k: int) -> float:
    relevances = [1 if doc in correct else 0 for doc in corpus_ids]
    ideal = dcg(sorted(relevances, reverse=True), k)
    actual = dcg([relevances[i] for i in rankings[:k]], k)
    return 0.0 if ideal == 0 else actual / ideal


def evaluate_retrieval(rankings, correct, corpus_ids, k):
    recalled = {corpus_ids[i] for i in rankings[:k]}
    return (
        float(any(d in recalled for d in correct)),
        float(all(d in recalled for d in correct)),
        ndcg(rankings, correct, corpus_ids, k),
    )


def evaluate_retrieval_turn2session(rankings, correct, corpus_ids, k):
    def strip(doc: str) -> str:
        return "_".join(doc.split("_")[:-1])

    correct = list({strip(x) for x in correct})
    corpus_ids = [strip(x) for x in corpus_ids]
    effective = k
    unique = {corpus_ids[i] for i in rankings[:effective]}
    while effective <= len(corpus_ids) and len(unique) < k:
        effective += 1
        unique = {corpus_ids[i] for i in rankings[:effective]}
    return evaluate_retrieval(rankings, correct, corpus_ids, effective)


def upstream_metrics(entry: dict[str, Any], granularity: str, ranked: list[str]):
    """The corpus run_retrieval.py builds for ``entry``, and its metrics for the ranking
    ``ranked`` (corpus ids, best first) of that corpus."""
    corpus, ids, stamps = [], [], []
    for sid, session, ts in zip(
        entry["haystack_session_ids"],
        entry["haystack_sessions"],
        entry["haystack_dates"],
        strict=True,
    ):
        items, item_ids, item_ts = process_item_flat_index(session, granularity, sid, ts)
        corpus += items
        ids += item_ids
        stamps += item_ts
    correct = list({d for d in ids if "answer" in d})
    rankings = [ids.index(cid) for cid in ranked]
    metrics: dict[str, dict[str, float]] = {"session": {}, "turn": {}}
    for k in KS:
        values = evaluate_retrieval(rankings, correct, ids, k)
        metrics[granularity].update(
            {
                f"{m}@{k}": v
                for m, v in zip(("recall_any", "recall_all", "ndcg_any"), values, strict=True)
            }
        )
        if granularity == "turn":
            values = evaluate_retrieval_turn2session(rankings, correct, ids, k)
            metrics["session"].update(
                {
                    f"{m}@{k}": v
                    for m, v in zip(("recall_any", "recall_all", "ndcg_any"), values, strict=True)
                }
            )
    return list(zip(ids, corpus, stamps, strict=True)), metrics


# --- the tests ---------------------------------------------------------------------------------


def test_retrieve_writes_upstreams_retrieval_logs_with_upstreams_metrics(
    tree: Path, tmp_path: Path, minilm
) -> None:
    dataset = tree / "data" / "longmemeval_s.json"
    entries = {e["question_id"]: e for e in json.loads(dataset.read_text(encoding="utf-8"))}
    out = tmp_path / "out"
    result = invoke("retrieve", str(dataset), "--method", "srag_t", "--out", str(out))
    assert "run_generation.py" in result.stderr  # what to do with logs that are no run
    for granularity in ("turn", "session"):
        lines = read_jsonl(log_file(out, granularity))
        assert [line["question_id"] for line in lines] == list(entries)
        for line in lines:
            entry = entries[line["question_id"]]
            assert list(line)[:-1] == [
                "question_id", "question_type", "question", "answer", "question_date",
                "haystack_dates", "haystack_sessions", "haystack_session_ids",
                "answer_session_ids",
            ]  # fmt: skip
            assert {k: v for k, v in line.items() if k != "retrieval_results"} == {
                k: entry[k] for k in list(line)[:-1]
            }
            results = line["retrieval_results"]
            assert list(results) == ["query", "ranked_items", "metrics"]
            assert results["query"] == entry["question"]
            ranked = [item["corpus_id"] for item in results["ranked_items"]]
            corpus, metrics = upstream_metrics(entry, granularity, ranked)
            # the whole of the question's own corpus, each item once, as upstream names it
            assert sorted(ranked) == sorted(cid for cid, _text, _ts in corpus)
            assert len(set(ranked)) == len(ranked)
            by_id = {cid: (text, ts) for cid, text, ts in corpus}
            for item in results["ranked_items"]:
                assert list(item) == ["corpus_id", "text", "timestamp"]
                assert (item["text"], item["timestamp"]) == by_id[item["corpus_id"]]
            written = results["metrics"]
            assert set(written) == {"session", "turn"}
            assert written["turn"] == ({} if granularity == "session" else written["turn"])
            for level, values in metrics.items():
                assert set(written[level]) == set(values), (granularity, level)
                for name, value in values.items():
                    assert written[level][name] == pytest.approx(value, abs=1e-12), name


def test_each_question_is_ranked_by_minilm_within_its_own_haystack(
    tree: Path, tmp_path: Path, minilm
) -> None:
    from memscope.adapters.longmemeval.dataset import read_dataset
    from memscope.engine.corpus import CorpusRound, round_corpus_text

    dataset = tree / "data" / "longmemeval_s.json"
    out = tmp_path / "out"
    invoke("retrieve", str(dataset), "--method", "srag_t", "--out", str(out), "--limit", "3")
    lines = read_jsonl(log_file(out, "turn"))
    assert len(lines) == 3
    record = read_dataset(dataset)
    rounds = {r.round_id: r for r in record.record.rounds}
    for line in lines:
        question = record.questions[line["question_id"]]
        haystack = set(question.extra["haystack"])
        own = [r for r in rounds.values() if r.session_id in haystack and r.user_text]
        texts = [
            round_corpus_text(CorpusRound(r.round_id, r.position, r.user_text, r.assistant_text), "text_only")
            for r in own
        ]  # fmt: skip
        vectors = minilm.encode(texts)
        query = minilm.encode([line["question"]])[0]
        scores = vectors @ query
        score_of = {r.round_id: float(score) for r, score in zip(own, scores, strict=True)}
        ranked = [
            item["corpus_id"].replace("noans", "answer")
            for item in line["retrieval_results"]["ranked_items"]
        ]
        # the log's turns are this question's rounds (and no other's) in MiniLM's order
        # (the invented filler repeats texts: equal scores may come in any order)
        assert set(ranked) == set(score_of)
        along = [score_of[cid] for cid in ranked]
        assert all(a >= b - 1e-6 for a, b in pairwise(along)), along
        assert along[0] == pytest.approx(max(score_of.values()), abs=1e-6)
        assert len(ranked) == len(own)


def test_a_log_is_read_back_with_the_run_that_answered_over_it(tree: Path, minilm) -> None:
    dataset = tree / "data" / "longmemeval_s.json"
    invoke("retrieve", str(dataset), "--method", "srag_t", "--out", str(tree))
    log = log_file(tree, "turn")
    folder = tree / "generation_logs" / f"{RETRIEVER}-turn" / "gpt-4o-mini" / "con"
    folder.mkdir(parents=True)
    hypothesis = folder / f"{log.name}_testlog_top10context_jsonformat_useronlytrue_20250104-1200"
    hypothesis.write_text(
        "".join(
            json.dumps({"question_id": line["question_id"], "hypothesis": "I do not know"}) + "\n"
            for line in read_jsonl(log)
        ),
        encoding="utf-8",
    )
    invoke("ingest", str(folder))
    run_id = f"{RETRIEVER}-turn/gpt-4o-mini/con:s-top10-20250104-1200"
    runs = json.loads(invoke("runs", "--format", "json").stdout)
    (run,) = [row for row in runs if row["run_id"] == run_id]
    assert run["retrieval_kind"] == "ranked"
    result = invoke("table", run_id, "--check-upstream")
    questions = len(read_jsonl(log))
    assert f"all {questions * 2 * 18} values of 1 run(s) agree" in result.output


def test_retrieve_refuses_ingest_and_an_existing_log(tree: Path, tmp_path: Path, minilm) -> None:
    dataset = tree / "data" / "longmemeval_s.json"
    out = tmp_path / "out"
    refused = runner.invoke(
        app, ["retrieve", str(dataset), "--method", "srag_t", "--out", str(out), "--ingest"]
    )
    assert refused.exit_code != 0
    assert "--ingest" in refused.output and "Traceback" not in refused.output
    assert not out.exists()
    invoke("retrieve", str(dataset), "--method", "srag_t", "--out", str(out), "--limit", "2")
    again = runner.invoke(app, ["retrieve", str(dataset), "--method", "srag_t", "--out", str(out)])
    assert again.exit_code != 0 and "already holds" in again.output
    assert len(read_jsonl(log_file(out, "session"))) == 2
    invoke("retrieve", str(dataset), "--method", "srag_t", "--out", str(out), "--overwrite")
    assert len(read_jsonl(log_file(out, "session"))) == len(json.loads(dataset.read_text()))
    assert not list(out.rglob("*.tmp"))
    shutil.rmtree(out)


def test_histories_rank_each_question_within_its_own_sessions_only() -> None:
    """``retrieve_in_histories``: sessions shared by several histories, each question's pool
    is exactly its own sessions' rounds, scored as a retriever over them alone would."""
    from memscope.engine.retrieve import Bank, MethodSettings, retrieve, retrieve_in_histories

    rng = np.random.default_rng(7)
    sessions = np.array(["a", "a", "b", "b", "b", "c", "d", "d"], dtype=object)
    round_ids = np.array([f"{s}_{i}" for i, s in enumerate(sessions)], dtype=object)
    vectors = rng.normal(size=(len(sessions), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = rng.normal(size=(4, 8)).astype(np.float32)
    histories: list[tuple[str, ...] | None] = [("a", "b"), ("b", "c", "d"), ("a", "b"), None]
    settings = MethodSettings("srag_t")
    pools = retrieve_in_histories(
        Bank(round_ids, vectors), sessions, histories, settings, queries, None, 100
    )
    for row, history in enumerate(histories):
        keep = np.arange(len(sessions)) if history is None else np.flatnonzero(
            np.isin(sessions, list(history))
        )  # fmt: skip
        alone = retrieve(
            Bank(round_ids, vectors).subset(keep), settings, queries[row : row + 1], None, 100
        )
        assert pools.pool(row) == alone.pool(0)
        assert int(pools.sizes[row]) == len(keep)


def test_a_failed_retrieval_leaves_no_log_behind(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm
) -> None:
    from memscope.adapters.longmemeval import retrieval_log
    from memscope.errors import EngineError

    written = retrieval_log.RetrievalLogSink.add
    calls = []

    def add_then_fail(self: Any, question: Any) -> None:
        calls.append(question.qid)
        if len(calls) == 2:
            raise EngineError("the answer model went away")
        written(self, question)

    monkeypatch.setattr(retrieval_log.RetrievalLogSink, "add", add_then_fail)
    out = tmp_path / "out"
    dataset = tree / "data" / "longmemeval_s.json"
    failed = runner.invoke(app, ["retrieve", str(dataset), "--method", "srag_t", "--out", str(out)])
    assert failed.exit_code != 0 and "went away" in failed.output
    assert [path for path in out.rglob("*") if path.is_file()] == []
