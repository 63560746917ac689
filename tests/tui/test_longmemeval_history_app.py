"""The question screen over a LongMemEval question's own haystack (issue 39 item 3, issue 40
item 3): in a real app (Pilot) on the invented tree in upstream's formats
(``scripts/demo/make_longmemeval_demo.py``), the timeline lists exactly that question's
sessions, each once, in order, with its date and round count; its evidence turns are the
gold clues; a retrieved turn shows its rank; each round's place and age count that history
only. The expected values are computed here from the dataset and the retrieval log files,
not from memscope's store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import ready, settle, shown_text
from typer.testing import CliRunner

from builders_longmemeval import generator, registered
from memscope.cli import app as cli_app
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.widgets.timeline import Timeline, entry_line

SIZE = (160, 48)
FULL = "full-history-session/gpt-4o-mini/con:s-top50-20250102-1000@gpt-4o"
TURN = "flat-bm25-turn/gpt-4o-mini/con:s-top10-20250102-0930@gpt-4o"
TURN_LOG = "retrieval_logs/flat-bm25/turn/longmemeval_s.json_retrievallog_turn_flat-bm25"


@pytest.fixture(autouse=True)
def _longmemeval() -> Iterator[None]:
    yield from registered()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = generator().write_demo(tmp_path / "LongMemEval")
    result = CliRunner().invoke(cli_app, ["ingest", str(root / "generation_logs")])
    assert result.exit_code == 0, result.output
    return root


def dataset(tree: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((tree / "data" / "longmemeval_s.json").read_text())
    return entries


def round_ids(sid: str, turns: list[dict[str, Any]]) -> list[str]:
    """A session's rounds as the dataset's docs define them: a user turn and the assistant
    turn after it (an assistant turn with no user turn before it starts one of its own),
    each named ``<session>_<n>``, n the 1-based place of its first turn."""
    ids: list[str] = []
    open_user = False
    for n, turn in enumerate(turns, start=1):
        if turn["role"] == "user" or not open_user:
            ids.append(f"{sid}_{n}")
        open_user = turn["role"] == "user"
    return ids


def haystack(entry: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(session id, date, round ids) of the question's own haystack, each session once, in
    date order (the generator writes dates that never tie within a haystack)."""
    seen: dict[str, tuple[str, str, list[str]]] = {}
    for sid, date, turns in zip(
        entry["haystack_session_ids"],
        entry["haystack_dates"],
        entry["haystack_sessions"],
        strict=True,
    ):
        seen.setdefault(sid, (sid, date, round_ids(sid, turns)))
    return list(seen.values())


def shared_question(entries: list[dict[str, Any]]) -> tuple[dict[str, Any], set[str]]:
    """A question whose haystack shares sessions with another's, and every session id that
    appears in some other question's haystack but not in its own."""
    for entry in entries:
        mine = set(entry["haystack_session_ids"])
        others = {s for e in entries if e is not entry for s in e["haystack_session_ids"]}
        if mine & others and others - mine:
            return entry, others - mine
    raise AssertionError("the generator shares no session between haystacks")


async def timeline_of(qid: str, run: str) -> tuple[list[Any], QuestionScreen, Any]:
    app = make_app(OpenRequest([run], annotator="tester", queue="all", question=qid))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        assert app.session.qid == qid
        timeline = screen.query_one(Timeline)
        round_text = shown_text(screen.query_one("#round-text"))
        return list(timeline.entries), screen, round_text


async def test_the_timeline_is_the_questions_own_haystack(tree: Path) -> None:
    entries = dataset(tree)
    entry, foreign = shared_question(entries)
    own = haystack(entry)
    size = sum(len(ids) for _, _, ids in own)
    timeline, _screen, round_text = await timeline_of(entry["question_id"], FULL)

    summary = timeline[0]
    assert summary.kind == "history"
    assert (summary.sessions, summary.rounds) == (len(own), size)
    assert entry_line(summary).plain.startswith(f"own history: {len(own)} sessions · {size} rounds")
    headers = [e for e in timeline if e.kind == "session"]
    # Every session of its haystack, each once, in order, with its date and round count …
    assert [(e.session_id, e.date, e.rounds) for e in headers] == [
        (sid, date, len(ids)) for sid, date, ids in own
    ]
    # … and none of the sessions only other questions' haystacks hold.
    assert not {e.session_id for e in timeline} & foreign

    # Its evidence turns are the gold clues, each placed within its own history.
    place = {rid: i for i, rid in enumerate((r for _, _, ids in own for r in ids), start=1)}
    evidence = {
        f"{sid}_{n}"
        for sid, turns in zip(
            entry["haystack_session_ids"], entry["haystack_sessions"], strict=True
        )
        for n, turn in enumerate(turns, start=1)
        if turn.get("has_answer") and turn["role"] == "user"
    }
    rounds = [e for e in timeline if e.kind == "round"]
    gold = {e.round_id for e in rounds if e.is_gold}
    assert evidence and evidence <= gold
    for e in rounds:
        assert (e.place, e.history_size) == (place[e.round_id], size)
        assert e.session_id in {sid for sid, _, _ in own}
    # Gaps count the rounds of that session skipped between two shown ones.
    for e in (e for e in timeline if e.kind == "gap"):
        assert 0 < e.skipped < len(dict((s, ids) for s, _, ids in own)[e.session_id])
    shown = next(e for e in rounds if e.round_id == min(gold, key=place.__getitem__))
    assert f"round {place[shown.round_id]} of {size} of the question's own history" in round_text
    assert f"age {size - place[shown.round_id]}" in round_text


async def test_retrieved_turns_show_their_rank_and_own_history_age(tree: Path) -> None:
    entries = {entry["question_id"]: entry for entry in dataset(tree)}
    log = [json.loads(line) for line in (tree / TURN_LOG).read_text().splitlines()]
    row = next(r for r in log if not r["question_id"].endswith("_abs"))
    entry = entries[row["question_id"]]
    own = haystack(entry)
    size = sum(len(ids) for _, _, ids in own)
    # A turn of an evidence session that is not itself evidence is ``noans_…`` in the log;
    # run_generation.py reads it back as the ``answer_…`` turn it is.
    ranked = [
        item["corpus_id"].replace("noans_", "answer_")
        for item in row["retrieval_results"]["ranked_items"]
    ]
    timeline, screen, _ = await timeline_of(entry["question_id"], TURN)

    rank_of = {e.round_id: e.rank for e in timeline if e.kind == "round" and e.rank}
    assert rank_of == {cid: rank for rank, cid in enumerate(ranked, start=1)}
    lines = {e.round_id: entry_line(e).plain for e in timeline if e.kind == "round"}
    first = ranked[0]
    assert lines[first][:3] in (" ▲ ", " ● ", " ★ ", " ◆ ") and "#1 " in lines[first]
    place = {rid: i for i, rid in enumerate((r for _, _, ids in own for r in ids), start=1)}
    # The candidates table's ages are the timeline's: rounds of its own history after it.
    for candidate in screen.candidates:
        assert candidate.age == size - place[candidate.round_id]
    assert [e.session_id for e in timeline if e.kind == "session"] == [s for s, _, _ in own]


def test_histories_from_the_haystack_equal_the_declared_read(tree: Path) -> None:
    """The question read derives each history from its haystack's sessions, looked up in
    the dataset's session index (no join per question): the same positions as reading the
    history as the spec declares it."""
    import os

    import numpy as np

    from memscope.store import Store
    from memscope.usecases.runs.history import histories_of, read_histories, read_session_index
    from memscope.usecases.runs.question_read import stored_run_info

    store = Store(Path(os.environ["MEMSCOPE_DB"]))
    entries = dataset(tree)
    qids = [entry["question_id"] for entry in entries]
    with store.read() as con:
        run = stored_run_info(con, store, FULL)
        index = read_session_index(con, run)
        assert index is not None
        extras = dict(
            con.execute(
                "SELECT qid, extra FROM questions WHERE dataset_id = ?", [run.dataset_id]
            ).fetchall()
        )
        declared = read_histories(con, run, qids, only=True)
    haystacks = {qid: index.haystack(extras[qid]) for qid in qids}
    for entry in entries:
        assert [s.session_id for s in haystacks[entry["question_id"]]] == [
            sid for sid, _, _ in haystack(entry)
        ]
    derived = histories_of(qids, haystacks)
    assert derived is not None and declared is not None
    assert np.array_equal(derived.positions, declared.positions)
    assert np.array_equal(derived.sizes, declared.sizes)
