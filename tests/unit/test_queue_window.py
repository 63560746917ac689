"""The queue as SQL over the store (usecases/labels/queue_window.py, store/queue_rows.py):
every queue kind, filter and sort gives exactly the questions the in-memory TriageTable
gives on the same run, labels and sample (the store's queue names a question by its idx,
the table by its row); the rows drawn are read page by page; a queue's head, read alone,
is the whole queue's beginning."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from builders import small_run
from memscope.adapters import ReadOptions
from memscope.errors import InputError
from memscope.store import Store
from memscope.usecases.labels import queue_window
from memscope.usecases.labels.queue import SORT_KEYS, QueueSpec, TriageTable
from memscope.usecases.labels.queue_window import StoreQueue
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.loading import load_run
from memscope.usecases.runs.run_info import RunInfo

RUNS = Path(__file__).resolve().parents[2] / "runs"


def run_info(store: Store, run_id: str) -> RunInfo:
    from memscope.store import queries

    with store.read() as con:
        row = queries.get_run(con, run_id)
    assert row is not None
    return RunInfo.from_row(row)


def both(store: Store, run_id: str, other: str | None = None) -> tuple[TriageTable, StoreQueue]:
    data = load_run(store, run_id)
    table = TriageTable(data, other=load_run(store, other) if other else None)
    return table, StoreQueue(store, run_info(store, run_id), other)


def same(table: TriageTable, queue: StoreQueue, spec: QueueSpec) -> None:
    expected = table.idx[table.select(spec)].tolist()
    assert queue.select(spec).tolist() == expected, spec


def test_every_kind_and_sort_matches_the_triage_table(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    with store.reading():  # one connection for the many reads: the rows are checked here
        table, queue = both(store, run_id)
        for codes, qid in ((["RET-MISS"], "q2"), (["SEL-STALE", "RET-PART"], "q4")):
            table.set_label(qid, codes)
            queue.set_label(qid, codes)
        for kind, sort, descending in itertools.product(
            ("failing", "all", "unlabelled", "sample"), SORT_KEYS, (False, True)
        ):
            same(table, queue, QueueSpec(kind=kind, sort=sort, descending=descending))
        for text in (
            "y:Y3",
            "y:Y3 watering",
            "cell:X2Y3",
            "label:RET-MISS",
            "label:ret-part",
            "labelled:yes",
            "labelled:no",
            "correct:yes",
            "correct:no",
            "mode:open",
            "bin",
            "Q1",
        ):
            same(table, queue, QueueSpec(kind="all", text=text))
        same(table, queue, QueueSpec(kind="all", cell="X2_Y3"))
        rows = queue.select(QueueSpec())
        assert queue.progress(rows) == table.progress(table.select(QueueSpec()))
        with pytest.raises(InputError, match="needs a second run"):
            queue.select(QueueSpec(text="other:yes"))


def test_the_sample_order_and_verdict_sample(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    table, queue = both(store, run_id)
    for with_passes in (False, True):
        table.set_sample_order(["q3", "q4", "q1"], with_passes=with_passes)
        queue.set_sample_order(["q3", "q4", "q1"], with_passes=with_passes)
        for descending in (False, True):
            same(table, queue, QueueSpec(kind="sample", descending=descending))
            same(table, queue, QueueSpec(kind="sample", sort="score"))


@pytest.fixture
def demo(store: Store, ingested_store) -> Store:
    if not (RUNS / "srag_v").is_dir():
        pytest.skip("the demo runs are not in this checkout")
    ingested_store(*(RUNS / name for name in ("srag_v", "fc_v", "cue_text", "dmv_f2_demo")))
    return store


def test_demo_runs_match_with_axes_and_compare(demo: Store) -> None:
    with demo.reading():  # one connection for the many reads: the rows are checked here
        from memscope.usecases.suggest.rules import load_suggestions, suggest_run, suggestion_state

        if suggestion_state(demo, "srag_v") is None:
            suggest_run(demo, "srag_v")
        suggestions = load_suggestions(demo, "srag_v")
        assert suggestions
        table, queue = both(demo, "srag_v", "fc_v")
        table.set_suggestions(suggestions)
        code = next(iter(suggestions.values())).code
        same(table, queue, QueueSpec(text=f"code:{code.lower()}"))
        assert len(queue.select(QueueSpec(text=f"code:{code}"))) > 0
        for kind, sort in itertools.product(("failing", "all"), SORT_KEYS):
            same(table, queue, QueueSpec(kind=kind, sort=sort))
            same(table, queue, QueueSpec(kind=kind, sort=sort, descending=True))
        for text in ("other:yes", "other:no y:Y3", "x:X4", "task:nonsense", "the"):
            same(table, queue, QueueSpec(kind="all", text=text))
        cue, cue_queue = both(demo, "cue_text:history_with_qa_p0")
        for text in ("task:rec evidence:implicit", "evidence:explicit", "modality:text"):
            same(cue, cue_queue, QueueSpec(kind="all", text=text))
        dmv, dmv_queue = both(demo, "dmv_f2_demo:TextOnly")
        for text in ("reach:2", "bank:>=9", "reach:1 bank:<30"):
            same(dmv, dmv_queue, QueueSpec(kind="all", text=text))
        with pytest.raises(InputError, match="not an axis"):
            queue.select(QueueSpec(text="reach:2"))


def test_the_page_holds_what_the_table_draws(demo: Store) -> None:
    table, queue = both(demo, "srag_v", "fc_v")
    queue.set_label("q37", ["SEL-STALE", "RET-PART"])
    table.set_label("q37", ["SEL-STALE", "RET-PART"])
    rows = queue.select(QueueSpec(kind="all", sort="score"))
    drawn = queue.window(rows, 0, 10)
    assert list(drawn) == rows[:10].tolist()
    every = queue.read_rows(rows)
    assert len(every) == len(table)
    row_of_idx = {int(idx): row for row, idx in enumerate(table.idx.tolist())}
    for idx, item in every.items():
        row = row_of_idx[idx]
        assert item.qid == table.qids[row] and item.question == table.question[row]
        assert item.label == table.label[row] and item.rotations == table.rotations[row]
        assert item.mode == table.mode[row] and (item.x, item.y) == (table.x[row], table.y[row])
        np.testing.assert_equal(
            [item.correct, item.score, item.other_correct],
            [table.correct[row], table.score[row], table.other_correct[row]],  # type: ignore[index]
        )
    assert table.idx[table.row_of["q37"]] == queue.row_of("q37")
    assert queue.qid_of(rows[0]) == table.qids[row_of_idx[int(rows[0])]]
    dmv, dmv_queue = both(demo, "dmv_f2_demo:TextOnly")
    shown = dmv_queue.read_rows(dmv_queue.select(QueueSpec(kind="all")))
    dmv_row = {int(idx): row for row, idx in enumerate(dmv.idx.tolist())}
    for key in dmv_queue.axis_columns():
        assert [item.axes[key] for item in shown.values()] == [
            dmv.axis_labels[key][dmv_row[idx]] for idx in shown
        ]


def test_a_queues_head_is_the_whole_queues_beginning(
    demo: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    with demo.reading():  # one connection for the many reads: the rows are checked here
        from memscope.store import queue_rows

        _table, queue = both(demo, "srag_v")
        queue.set_label("q37", ["SEL-STALE"])
        specs = [
            QueueSpec(kind=kind, text=text, descending=descending)
            for kind, text, descending in itertools.product(
                ("failing", "all", "unlabelled"), ("", "y:Y3", "the", "labelled:yes"), (False, True)
            )
        ]
        for spec in specs:
            whole = queue.select(spec).tolist()
            for count in (1, 3, 10, len(whole), 1000):
                head = queue.head(spec, count)
                assert head is not None and head.tolist() == whole[:count], (spec, count)
                # Fewer rows than asked: the head is the whole queue, nothing left to count.
                assert (queue.head_read(spec) is None) == (len(whole) < count), (spec, count)
                assert all(queue.cached(int(row)) is not None for row in head)
        # Only the run's own order has a head; a sparse filter gives up after a few ranges.
        assert queue.head(QueueSpec(sort="score"), 5) is None
        queue.set_sample_order(["q40", "q3"])
        assert queue.head(QueueSpec(kind="sample"), 5) is None
        monkeypatch.setattr(queue_rows, "HEAD_STEPS", 1)
        assert queue.head(QueueSpec(kind="all", text="watering"), 2) is None  # 1 in the first 8
        _, compared = both(demo, "srag_v", "fc_v")
        assert compared.head(QueueSpec(), 5) is None


def test_a_head_around_a_question_is_the_whole_queue_around_it(
    demo: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    with demo.reading():  # one connection for the many reads: the rows are checked here
        monkeypatch.setattr(queue_window, "HEAD_BEFORE", 3)
        _table, queue = both(demo, "srag_v")
        for spec in (QueueSpec(kind="all"), QueueSpec(descending=True), QueueSpec(text="y:Y3")):
            whole = queue.select(spec).tolist()
            for place in (0, 1, 3, 4, len(whole) // 2, len(whole) - 1):
                qid = queue.qid_of(whole[place])
                head = queue.head(spec, 5, around=qid)
                assert head is not None, (spec, qid)
                first = max(0, place - 3)
                assert head.tolist() == whole[first : place + 5], (spec, qid)
                # Its place in the whole queue is known where every row before it was read.
                assert (queue.head_offset == 0) == (place < 3), (spec, qid)
        failing = queue.select(QueueSpec())
        passing = set(queue.select(QueueSpec(kind="all")).tolist()) - set(failing.tolist())
        assert queue.head(QueueSpec(), 5, around=queue.qid_of(passing.pop())) is None
        assert queue.head(QueueSpec(), 5, around="no-such-question") is None
