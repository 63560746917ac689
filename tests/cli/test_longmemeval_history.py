"""Per-question history and declared diagnostics on LongMemEval (issue 39 item 3, issue 40):
on the invented tree in upstream's formats (``scripts/demo/make_longmemeval_demo.py``), a
full-history run's SEL-CTX names the question's own history size, knowledge-update failures
get SEL-STALE / RET-LATEST / USE-STATE as the retrieval log shows them, and abstention
failures get USE-CALIB, in ``memscope suggest``'s table and its JSON.

The expected values are computed here from the dataset and the retrieval log themselves,
not from memscope's store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_longmemeval import generator, registered
from memscope.cli import app

runner = CliRunner()
FULL = "full-history-session/gpt-4o-mini/con:s-top50-20250102-1000@gpt-4o"
TURN = "flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o"
TURN_K = 10
TURN_FILE = (
    "generation_logs/flat-bm25-turn/gpt-4o-mini/con/longmemeval_s.json_retrievallog_turn_"
    "flat-bm25_testlog_top10context_jsonformat_useronlyfalse_20250102-0930"
)
TURN_LOG = "retrieval_logs/flat-bm25/turn/longmemeval_s.json_retrievallog_turn_flat-bm25"


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(autouse=True)
def _longmemeval() -> Iterator[None]:
    yield from registered()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return generator().write_demo(tmp_path / "LongMemEval")


def dataset(tree: Path) -> dict[str, dict[str, Any]]:
    entries = json.loads((tree / "data" / "longmemeval_s.json").read_text())
    return {entry["question_id"]: entry for entry in entries}


def rounds_of(turns: list[dict[str, Any]]) -> int:
    """How many rounds a session has: a user turn with the assistant turn after it (an
    assistant turn with no user turn before it starts one of its own)."""
    count, open_user = 0, False
    for turn in turns:
        if turn["role"] == "user":
            count, open_user = count + 1, True
        elif open_user:
            open_user = False
        else:
            count += 1
    return count


def history_size(entry: dict[str, Any]) -> int:
    """The rounds of the question's own haystack (each session once)."""
    seen: dict[str, int] = {}
    for sid, turns in zip(entry["haystack_session_ids"], entry["haystack_sessions"], strict=True):
        seen[sid] = rounds_of(turns)
    return sum(seen.values())


def suggestions(run_id: str) -> dict[str, dict[str, Any]]:
    found = json.loads(invoke("suggest", run_id, "-f", "json"))
    return {item["qid"]: item for item in found["suggestions"]}


def codes(item: dict[str, Any]) -> set[str]:
    return {item["code"], *(alt["code"] for alt in item["alternatives"])}


def test_full_history_sel_ctx_names_the_questions_own_history(tree: Path) -> None:
    invoke("ingest", str(tree / "generation_logs"))
    entries = dataset(tree)
    whole = sum(
        rounds_of(turns)
        for sid, turns in {
            sid: turns
            for entry in entries.values()
            for sid, turns in zip(
                entry["haystack_session_ids"], entry["haystack_sessions"], strict=True
            )
        }.items()
    )
    found = suggestions(FULL)
    context = {qid: item for qid, item in found.items() if item["code"] == "SEL-CTX"}
    assert context, "no SEL-CTX in the full-history run"
    sizes = {history_size(entries[qid]) for qid in context}
    assert whole not in sizes  # every question's history is smaller than the dataset
    for qid, item in context.items():
        size = history_size(entries[qid])
        assert item["numbers"]["n_rounds"] == size
        assert f"full-context run over {size} rounds" in item["explanation"]
    table = invoke("suggest", FULL)
    assert f"over {whole} rounds" not in table
    assert f"over {history_size(entries[next(iter(context))])} rounds" in table


def _fail(tree: Path, wanted: set[str]) -> None:
    """Make the turn-level run answer every question of ``wanted`` wrongly (not declining),
    in its hypothesis file and its judgements alike."""
    for path in (tree / TURN_FILE, tree / f"{TURN_FILE}.eval-results-gpt-4o"):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for line in lines:
            if line["question_id"] in wanted:
                line["hypothesis"] = "You own 17 of them."
                if "autoeval_label" in line:
                    line["autoeval_label"]["label"] = False
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def expected_temporal(entry: dict[str, Any], ranked: list[str], k: int) -> str:
    """RET-LATEST, SEL-STALE or USE-STATE for a knowledge-update question, from its
    evidence turns (user turns with ``has_answer``: upstream's turn corpus ids) and the
    log's ranking: the latest is the evidence of the last evidence session in time."""
    dated = dict(zip(entry["haystack_session_ids"], entry["haystack_dates"], strict=True))
    evidence: list[tuple[str, str]] = []  # (date, corpus id)
    for sid, turns in zip(entry["haystack_session_ids"], entry["haystack_sessions"], strict=True):
        for n, turn in enumerate(turns, start=1):
            if turn.get("has_answer") and turn["role"] == "user":
                evidence.append((dated[sid], f"{sid}_{n}"))
    evidence.sort()
    latest, stale = evidence[-1][1], [cid for _, cid in evidence[:-1]]
    top = ranked[:k]
    if latest not in top:
        return "RET-LATEST"
    if any(cid in top[: top.index(latest)] for cid in stale):
        return "SEL-STALE"
    return "USE-STATE"


def test_knowledge_update_and_abstention_failures_get_the_declared_rules(tree: Path) -> None:
    entries = dataset(tree)
    updates = {
        qid
        for qid, entry in entries.items()
        if entry["question_type"] == "knowledge-update" and not qid.endswith("_abs")
    }
    declined = {qid for qid in entries if qid.endswith("_abs")}
    _fail(tree, updates | declined)
    invoke("ingest", str(tree / "generation_logs"))
    log = {
        row["question_id"]: [item["corpus_id"] for item in row["retrieval_results"]["ranked_items"]]
        for row in map(json.loads, (tree / TURN_LOG).read_text().splitlines())
    }
    found = suggestions(TURN)
    expected = {qid: expected_temporal(entries[qid], log[qid], TURN_K) for qid in updates}
    assert len(set(expected.values())) >= 2  # the data shows more than one of the three
    for qid, code in expected.items():
        assert code in codes(found[qid]), (qid, code, found[qid])
        assert "Y3" not in found[qid]["explanation"]
    for qid in declined:
        assert "USE-CALIB" in codes(found[qid]), (qid, found[qid])
        calib = next(
            alt for alt in [found[qid], *found[qid]["alternatives"]] if alt["code"] == "USE-CALIB"
        )
        assert calib["explanation"].startswith("abstention question")
        assert "Answer Refusal" not in calib["explanation"]
    table = invoke("suggest", TURN)
    assert "USE-CALIB" in table
    assert {"RET-LATEST", "SEL-STALE", "USE-STATE"} & set(table.split())


def test_question_screen_ages_count_the_questions_own_history(tree: Path, store_path: Path) -> None:
    """The question screen's logged candidates (the app) give each retrieved round its age
    within the question's own haystack: how many of its own rounds come after it."""
    from memscope.store import Store
    from memscope.triage.candidate_rows import logged_candidates
    from memscope.triage.question_view import load_question
    from memscope.usecases.runs.question_read import read_question, read_run_context

    invoke("ingest", str(tree / "generation_logs"))
    entries = dataset(tree)
    store = Store(store_path)
    context = read_run_context(store, TURN)
    qid = next(q for q, e in entries.items() if e["question_type"] == "multi-session")
    entry = entries[qid]
    loaded = load_question(read_question(store, context, qid), None)
    candidates = logged_candidates(loaded.read.data, 0, loaded.rounds, TURN_K, {})
    assert candidates
    # the rounds of the question's own haystack in time order: (session, its round number)
    order: list[str] = []
    for sid, turns in zip(entry["haystack_session_ids"], entry["haystack_sessions"], strict=True):
        order += [f"{sid}_{n}" for n, turn in enumerate(turns, start=1) if turn["role"] == "user"]
    size = history_size(entry)
    assert size == len(order)
    for candidate in candidates:
        assert candidate.age == size - 1 - order.index(candidate.round_id), candidate
    assert max(c.age for c in candidates if c.age is not None) < size
