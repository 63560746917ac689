"""The triage app's session service without a terminal: loading, the queue and cursor,
labels written to a real DuckDB store, the remembered position, the run-level re-ranking
cache and the view records the screens draw."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from builders import small_run
from memscope.adapters import ReadOptions
from memscope.errors import NotFoundError
from memscope.store import Store
from memscope.store.app_state import load_app_state
from memscope.triage.label_book import Queued
from memscope.triage.label_queue import LabelEvent, LabelSaved
from memscope.triage.loaded_run import DirRuns, LoadedRun
from memscope.triage.notice import Notice
from memscope.triage.session import StartRequest, TriageSession, compute_rerank
from memscope.usecases.runs.loading import load_run
from memscope.usecases.suggest.rules import load_suggestions


class Taxonomy:
    """The two codes these tests toggle (the real taxonomy has more; the book only lists them)."""

    codes = ("SEL-STALE", "RET-PART")


def open_session(tmp_path: Path, store_path: Path, annotator: str = "alice") -> TriageSession:
    """A session with the small run loaded and adopted, as the app does it."""
    run_dir = small_run(tmp_path)
    session = TriageSession(
        Store(store_path), ReadOptions(), annotator, taxonomy=Taxonomy(), start=StartRequest()
    )
    assert session.take_lease()
    loaded = session.load([str(run_dir)], lambda _text: None)
    assert isinstance(loaded, LoadedRun)
    session.adopt(loaded)
    return session


def write_labels(session: TriageSession) -> list[LabelEvent]:
    """Run the label writer to the end (as the app's worker does) and adopt its reports."""
    events: list[LabelEvent] = []
    session.labels.queue.linger_s = 0.01
    session.labels.write_pending(events.append)
    for event in events:
        if isinstance(event, LabelSaved):
            session.labels.saved(event)
    return events


def test_load_adopts_the_failing_queue_and_steps_through_it(
    tmp_path: Path, store_path: Path
) -> None:
    session = open_session(tmp_path, store_path)
    assert session.is_open and session.spec.kind == "failing"
    assert session.qid == "q1"
    assert session.step(1) is None and session.qid == "q2"
    assert session.step(1) is None and session.qid == "q3"
    at_end = session.step(1)
    assert isinstance(at_end, Notice) and "End of the queue" in at_end.text
    assert session.qid == "q3"
    assert session.step(-1) is None and session.qid == "q2"
    assert not session.store_lock.locked()  # the load gave the store back


def test_the_queue_opens_without_reading_the_run(tmp_path: Path, store_path: Path) -> None:
    session = open_session(tmp_path, store_path)
    run = session.run
    assert run is not None
    # Only the queue's head (its first screen) was read: the run stays in the store.
    assert run._data is None and run._table is None and run._rounds is None
    assert session.counted  # a head shorter than a screen is the whole queue
    assert [run.queue.qid_of(row) for row in session.rows] == ["q1", "q2", "q3"]
    assert session.change_queue(kind="all", sort="score", descending=True) is None
    assert session.jump_to_qid("q2") and session.qid == "q2"
    assert session.progress == (0, 4)
    assert run._data is None  # filtering, sorting and moving are SQL over the store
    # What still needs the whole run reads it on first access, the same rows.
    rows = np.searchsorted(run.table.idx, session.rows)  # the queue names questions by idx
    assert [str(run.table.qids[row]) for row in rows] == [
        run.queue.qid_of(row) for row in session.rows
    ]
    assert run._data is not None and not session.store_lock.locked()


def test_a_directory_of_runs_is_returned_not_opened(tmp_path: Path, store_path: Path) -> None:
    small_run(tmp_path / "a")
    small_run(tmp_path / "b")
    session = TriageSession(Store(store_path), ReadOptions(), "alice")
    found = session.load([str(tmp_path)], lambda _text: None)
    assert isinstance(found, DirRuns) and len(found.run_ids) == 2
    assert not session.is_open


def test_an_invalid_filter_leaves_the_queue_as_it_was(tmp_path: Path, store_path: Path) -> None:
    session = open_session(tmp_path, store_path)
    before = (session.spec, session.rows.tolist(), session.qid)
    notice = session.change_queue(text="y:Y9")
    assert isinstance(notice, Notice) and notice.severity == "error"
    assert (session.spec, session.rows.tolist(), session.qid) == before
    assert session.change_queue(text="y:Y3") is None
    assert [session.run.queue.qid_of(r) for r in session.rows] == ["q1", "q3"]  # type: ignore[union-attr]


def test_a_matrix_cell_queue_comes_back_to_the_queue_it_replaced(
    tmp_path: Path, store_path: Path
) -> None:
    session = open_session(tmp_path, store_path)
    session.change_queue(text="y:Y3")
    queue_before = session.spec
    assert session.open_cell_queue(True, cell="X4_Y1") is None
    assert session.spec.kind == "all" and session.spec.cell == "X4_Y1"
    assert session.back_to_matrix() and session.spec == queue_before
    assert not session.back_to_matrix()  # only once


def test_a_label_is_shown_saving_then_saved_and_is_in_the_store(
    tmp_path: Path, store_path: Path
) -> None:
    session = open_session(tmp_path, store_path)
    queued = session.labels.toggle("SEL-STALE")
    assert queued == Queued("q1")
    view = session.label_bar_view("q1")
    assert view.state == "saving" and view.pending == {"SEL-STALE"} and view.current == set()
    assert session.status_view(with_question=True).pending == 1  # type: ignore[union-attr]
    # Fast presses build on what was asked, not on what is saved yet.
    assert session.labels.toggle("RET-PART") == Queued("q1")
    events = write_labels(session)
    assert [type(event) for event in events] == [LabelSaved, LabelSaved]
    view = session.label_bar_view("q1")
    assert view.state == "saved" and view.current == {"SEL-STALE", "RET-PART"}
    assert view.pending is None
    from memscope.usecases.labels.events import current_labels

    stored = current_labels(Store(store_path), session.run.run_id, annotator="alice")  # type: ignore[union-attr]
    assert set(stored["q1"].codes) == {"SEL-STALE", "RET-PART"}
    labelled, _total = session.progress
    assert labelled == 1


def test_a_queue_read_asks_the_lingering_label_writer_for_the_store(
    tmp_path: Path, store_path: Path
) -> None:
    import time

    session = open_session(tmp_path, store_path)
    session.labels.queue.linger_s = 30.0  # the writer would keep the store half a minute
    session.labels.toggle("SEL-STALE")
    saved = threading.Event()
    writer = threading.Thread(
        target=session.labels.write_pending,
        args=(lambda event: saved.set() if isinstance(event, LabelSaved) else None,),
    )
    writer.start()
    assert saved.wait(10) and session.store_lock.locked()  # written, the writer lingers
    started = time.monotonic()
    assert session.run.queue.find_rows(["q3"]) == {"q3": 3}  # type: ignore[union-attr]  # its idx
    assert time.monotonic() - started < 5.0  # it gave the store back, not after 30 s
    writer.join(10)
    assert not writer.is_alive() and not session.store_lock.locked()


def test_queue_reads_go_on_beside_the_evidence_read_but_wait_for_a_writer(
    tmp_path: Path, store_path: Path
) -> None:
    session = open_session(tmp_path, store_path)
    queue = session.run.queue  # type: ignore[union-attr]
    holding, release = threading.Event(), threading.Event()

    def hold(shared: bool) -> None:
        with session.store_lock.shared() if shared else session.store_lock:
            holding.set()
            release.wait(10)

    reader = threading.Thread(target=hold, args=(True,))  # as read_evidence holds it
    reader.start()
    assert holding.wait(5) and session.store_lock.locked()
    assert queue.find_rows(["q2"]) == {"q2": 2}  # side by side with the reader (its idx)
    assert not session.store_lock.acquire(timeout=0.05)  # a writer waits for the reader
    release.set()
    reader.join(5)
    holding.clear()
    release.clear()
    writer = threading.Thread(target=hold, args=(False,))
    writer.start()
    assert holding.wait(5)
    assert not session.store_lock.acquire_shared(timeout=0.05)  # a reader waits for a writer
    release.set()
    writer.join(5)
    assert not session.store_lock.locked()
    with session.store_lock, session.store_lock.shared(), session.store_lock:  # re-entrant
        assert queue.find_rows(["q1"]) == {"q1": 1}
    assert not session.store_lock.locked()


def test_a_read_only_session_refuses_labels_and_says_why(tmp_path: Path, store_path: Path) -> None:
    labeller = open_session(tmp_path, store_path)
    second = TriageSession(Store(store_path), ReadOptions(), "bob")
    assert not second.take_lease()
    loaded = second.load([str(tmp_path / "runs" / "small")], lambda _text: None)
    assert isinstance(loaded, LoadedRun)
    second.adopt(loaded)
    refused = second.labels.toggle("SEL-STALE")
    assert isinstance(refused, Notice) and "Labelling is disabled" in refused.text
    assert second.labels.pending_total() == 0
    assert second.position_moved() is False  # a browser never writes the position
    labeller.release()


def test_the_position_is_written_once_per_change_and_restored(
    tmp_path: Path, store_path: Path
) -> None:
    session = open_session(tmp_path, store_path)
    assert session.take_position(on_question=True) is None  # nothing moved yet
    session.step(1)
    assert session.position_moved()
    payload = session.take_position(on_question=True)
    assert payload is not None and session.take_position(on_question=True) is None
    session.write_position(payload)
    store = Store(store_path)
    with store.read() as con:
        saved = load_app_state(con, session.run.run_id, "alice")  # type: ignore[union-attr]
    assert saved is not None and saved.qid == "q2" and saved.view["screen"] == "question"
    session.release()
    again = TriageSession(Store(store_path), ReadOptions(), "alice")
    loaded = again.load([str(tmp_path / "runs" / "small")], lambda _text: None)
    assert isinstance(loaded, LoadedRun)
    adopted = again.adopt(loaded)
    assert again.qid == "q2" and adopted.open_question


def test_run_level_reranking_is_computed_once_per_parameter_set(
    tmp_path: Path, store_path: Path
) -> None:
    """The run-level numbers need no evidence in memory: the worker reads the columns they
    need for one computation (the same numbers as over the whole run loaded) and drops them."""
    session = open_session(tmp_path, store_path)
    run = session.run
    assert run is not None
    plan = session.rerank_plan()
    assert plan.action == "compute" and plan.key is not None
    params = session.start_rerank(plan.key)
    assert params is not None and session.start_rerank(plan.key) is None  # once
    assert params == {"alpha": 1.0, "lambda": session.view.lam, "k": session.view.k}
    rerank = session.compute_rerank(run.run_id, params)
    whole = load_run(session.store, run.run_id)
    assert rerank.result == compute_rerank(whole, params).result
    assert session.adopt_rerank(plan.key, rerank)
    cached = session.rerank_plan()
    assert cached.action == "cached" and cached.rerank is rerank
    session.nudge_alpha(-1)
    assert session.rerank_plan().action == "compute"  # new parameters, new numbers
    session.nudge_alpha(1)
    assert session.rerank_plan().action == "cached"


def test_questions_are_read_one_at_a_time_and_prefetched(tmp_path: Path, store_path: Path) -> None:
    """The question on screen is read from the store alone (then cached); the next ones of
    the queue are prefetched into the bounded cache; a qid the run lacks is one error."""
    session = open_session(tmp_path, store_path)
    run = session.run
    assert run is not None and session.qid is not None
    first = session.read_question(session.qid)
    assert first.qid == session.qid and session.read_question(session.qid) is first
    upcoming = session.upcoming_qids()
    assert upcoming and session.qid not in upcoming
    assert session.prefetch_questions(upcoming) == len(upcoming)
    assert session.prefetch_questions(upcoming) == 0  # cached: nothing read again
    session.step(1)
    assert session.qid == upcoming[0]
    assert session.questions.get((run.opened, session.qid)) is not None
    with pytest.raises(NotFoundError, match="no question 'q404'"):
        session.read_question("q404")
    session.questions.size = 2
    for qid in ("q1", "q2", "q3", "q4"):
        session.read_question(qid)
    assert len(session.questions) == 2  # bounded whatever the run's size


def test_workers_store_access_is_serialised_by_the_lock(tmp_path: Path, store_path: Path) -> None:
    session = open_session(tmp_path, store_path)
    entered = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with session.using_store():
            entered.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    assert entered.wait(5)
    assert session.store_lock.locked()
    # An undo check cannot get the store now: it lets the undo itself find out.
    assert session.labels._undoable("q1") is True
    release.set()
    worker.join(5)
    assert not session.store_lock.locked()
    nothing = session.labels.undo()
    assert isinstance(nothing, Notice) and "Nothing to undo" in nothing.text


@pytest.mark.parametrize("direction", [1, -1])
def test_view_parameters_stay_in_bounds(tmp_path: Path, store_path: Path, direction: int) -> None:
    session = open_session(tmp_path, store_path)
    for _ in range(30):
        session.nudge_alpha(direction)
        session.nudge_k(-1)
    assert session.view.alpha == (1.0 if direction > 0 else 0.0)
    assert session.view.k == 1
    assert not session.nudge_k(-1)
    assert session.view.reset(session.default_view())
    assert session.view.as_json()["alpha"] == 1.0


def test_a_newer_search_makes_an_older_ones_reports_stale(tmp_path: Path, store_path: Path) -> None:
    import time

    from memscope.engine_jobs.memory_search import EngineStep

    session = open_session(tmp_path, store_path)
    first = session.search.begin()
    assert session.status_view(with_question=False).engine_line.startswith(  # type: ignore[union-attr]
        "starting the memory engine"
    )
    second = session.search.begin()
    loading = EngineStep("loading all-MiniLM-L6-v2", time.monotonic() - 4.2)
    assert not session.search.progressed(first, loading)  # stale: ignored
    assert session.search.progressed(second, loading)
    assert session.search.line() == "loading all-MiniLM-L6-v2 … 4 s"
    assert not session.search.end(first) and session.search.step is not None
    assert session.search.end(second)
    assert session.status_view(with_question=False).engine_line is None  # type: ignore[union-attr]


def test_a_search_answers_with_the_rounds_text_or_why_it_failed(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question screen's search worker calls this; it never raises (the worker would
    end silently): hits come back with the round's text, a failure as the answer's error.
    The engine's own search is replaced by its recorded answers here (a real one loads
    MiniLM: tests/tui/test_search_unlocked.py, marked slow)."""
    import memscope.engine_jobs.memory_search as memory_search
    from memscope.engine_jobs.search import SearchHit

    session = open_session(tmp_path, store_path)
    asked: list[tuple[object, object, bool]] = []

    def engine(
        store: Store, lock: threading.Lock, dataset_id: str, **how: object
    ) -> list[SearchHit]:
        asked.append((how["query"], how["round_id"], lock.locked()))
        return [SearchHit("D1:3", 0.5, "D1:3"), SearchHit("D9:9", 0.25, "D9:9#img")]

    monkeypatch.setattr(memory_search, "run_memory_search", engine)
    found = session.search_memory("compost bin", None, lambda _step: None)
    assert asked == [("compost bin", None, False)]  # the engine takes the lock per connection
    assert found.title == "search: compost bin" and found.error is None
    assert [(hit.round_id, hit.score) for hit in found.hits] == [("D1:3", 0.5), ("D9:9", 0.25)]
    assert found.hits[0].text == "user text of D1:3"  # the round's own words
    assert found.hits[1].text == "D9:9#img"  # not a round of this run: what matched

    def broken(*_args: object, **_how: object) -> list[SearchHit]:
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(memory_search, "run_memory_search", broken)
    similar = session.search_memory(None, "D1:3", lambda _step: None)
    assert similar.title == "rounds like D1:3" and similar.hits == []
    assert similar.error == "the search failed: RuntimeError: CUDA out of memory"


def test_a_verdict_cycles_is_saved_apart_from_the_label_and_undone(
    tmp_path: Path, store_path: Path
) -> None:
    from memscope.usecases.labels.events import current_labels
    from memscope.usecases.labels.verdicts import current_verdicts

    session = open_session(tmp_path, store_path)
    run_id = session.run.run_id  # type: ignore[union-attr]
    assert session.labels.toggle("SEL-STALE") == Queued("q1")
    # Two fast presses cycle from what was asked: correct, then wrong.
    assert session.labels.cycle_verdict() == Queued("q1")
    assert session.labels.cycle_verdict() == Queued("q1")
    view = session.label_bar_view("q1")
    assert view.state == "saving" and view.verdict is None and view.pending_verdict == "wrong"
    events = write_labels(session)
    assert [event.action for event in events if isinstance(event, LabelSaved)] == [
        "add",
        "verdict",
        "verdict",
    ]
    view = session.label_bar_view("q1")
    assert view.state == "saved" and view.verdict == "wrong" and view.pending_verdict is None
    assert view.current == {"SEL-STALE"}  # the verdict left the label as it was
    stored = current_verdicts(Store(store_path), run_id, annotator="alice")
    assert stored["q1"].verdict == "wrong"
    assert set(current_labels(Store(store_path), run_id, annotator="alice")["q1"].codes) == {
        "SEL-STALE"
    }
    # Undo reverts the latest change this session made: the verdict, then the label.
    assert session.labels.undo() == Queued("q1")
    write_labels(session)
    assert session.label_bar_view("q1").verdict == "correct"
    assert current_verdicts(Store(store_path), run_id, annotator="alice")["q1"].verdict == "correct"
    assert session.labels.undo() == Queued("q1")
    write_labels(session)
    assert session.label_bar_view("q1").verdict is None
    assert session.labels.undo() == Queued("q1")
    write_labels(session)
    assert session.label_bar_view("q1").current == set()
    assert "q1" not in current_labels(Store(store_path), run_id, annotator="alice")
    # A question with none yet starts the cycle at correct; the fourth press removes it.
    session.labels.verdicts_changed.clear()
    for _ in range(4):
        session.labels.cycle_verdict()
    write_labels(session)
    assert session.label_bar_view("q1").verdict is None
    assert "q1" not in current_verdicts(Store(store_path), run_id, annotator="alice")
    assert session.labels.verdicts_changed == {run_id: {"q1"}}


def test_a_verdict_made_before_the_app_opened_is_shown_and_cycled_from(
    tmp_path: Path, store_path: Path
) -> None:
    from memscope.usecases.labels.verdicts import record_verdict

    first = open_session(tmp_path, store_path)
    run_id = first.run.run_id  # type: ignore[union-attr]
    first.release()
    record_verdict(Store(store_path), run_id, "q1", "unsure", annotator="alice")
    session = open_session(tmp_path, store_path)
    assert session.label_bar_view("q1").verdict == "unsure"
    session.labels.cycle_verdict()
    write_labels(session)
    assert session.label_bar_view("q1").verdict is None


def test_a_questions_suggestion_comes_with_its_read_once_the_run_has_them(
    tmp_path: Path, store_path: Path
) -> None:
    """The background worker only makes sure the run's suggestions are stored (nothing is
    kept for the whole run); a question read before that has none and is read again for
    its suggestion once they are ready; one read after carries it, alternatives included."""
    session = open_session(tmp_path, store_path)
    run = session.run
    assert run is not None and session.qid is not None and not run.suggestions_ready
    before = session.read_question(session.qid)
    assert not before.read.suggestion_read
    elsewhere = session.read_question("q4")  # not the cursor's nor one of the next
    assert session.qid != "q4" and "q4" not in session.upcoming_qids()
    assert session.suggestion(session.qid) is None  # not ready: "loading …" in the bar
    assert not session.label_bar_view(session.qid).suggestions_ready
    notes: list[str] = []
    codes = session.ensure_suggestions(run, notes)
    assert run.suggestions_stored and not run.suggestions_ready  # not shown yet
    # The worker completed the cursor's question in the cache (the label bar reads none on
    # the app's thread); one read elsewhere before is completed when it is shown.
    assert session.questions.get((run.opened, session.qid)).read.suggestion_read
    assert not session.questions.get((run.opened, "q4")).read.suggestion_read
    stored = load_suggestions(session.store, run.run_id)
    assert stored and codes == sorted({s.code for s in stored.values()})
    assert not hasattr(run, "suggestions")  # no qid -> Suggestion dict for the run
    assert session.adopt_suggestions(run.run_id, codes) and run.suggested_codes == codes
    assert not session.adopt_suggestions("another-run", codes)
    for qid in ("q1", "q2", "q3", "q4"):
        assert session.suggestion(qid) == stored.get(qid), qid
    # The questions read before were completed in the cache, not read again whole.
    again = session.read_question(session.qid)
    assert again.read.suggestion_read and again.read.suggestion == stored.get(session.qid)
    assert again.view is before.view
    completed = session.read_question("q4")
    assert completed.read.suggestion_read and completed.view is elsewhere.view
    view = session.label_bar_view(session.qid)
    assert view.suggestions_ready and view.suggestion == stored.get(session.qid)
    # A question read now carries its suggestion from its own read.
    session.questions.clear()
    qid = next(iter(stored))
    fresh = session.read_question(qid)
    assert fresh.read.suggestion_read and fresh.read.suggestion == stored[qid]
    assert fresh.read.suggestion.codes == stored[qid].codes


def test_accept_uses_the_suggestion_read_with_the_question(
    tmp_path: Path, store_path: Path
) -> None:
    session = open_session(tmp_path, store_path)
    run = session.run
    assert run is not None
    waiting = session.labels.accept()
    assert isinstance(waiting, Notice) and "still loading" in waiting.text
    codes = session.ensure_suggestions(run, [])
    session.adopt_suggestions(run.run_id, codes)
    stored = load_suggestions(session.store, run.run_id)
    unsuggested = [qid for qid in ("q1", "q2", "q3") if qid not in stored]
    suggested = [qid for qid in ("q1", "q2", "q3") if qid in stored]
    assert suggested
    if unsuggested:
        assert session.jump_to_qid(unsuggested[0])
        refused = session.labels.accept()
        assert isinstance(refused, Notice) and "No suggestion for this question" in refused.text
    assert session.jump_to_qid(suggested[0])
    assert isinstance(session.labels.accept(), Queued)
    write_labels(session)
    label = session.labels.committed(suggested[0])
    assert label is not None and list(label.codes) == [stored[suggested[0]].code]


def test_the_queue_is_counted_for_the_run_and_queue_still_on_screen(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memscope.triage.session import opening

    monkeypatch.setattr(opening, "HEAD_ROWS", 2)  # a head shorter than the queue
    session = open_session(tmp_path, store_path)
    run = session.run
    assert run is not None and not session.counted and len(session.rows) == 2
    spec = session.prepare_count(run)
    assert spec == session.spec
    # A count that arrives after another run was opened, or another queue chosen, is dropped.
    stranger = session.load([str(tmp_path)], lambda _text: None)
    assert isinstance(stranger, LoadedRun) and stranger is not run
    assert not session.count_queue(stranger, spec)
    assert not session.count_queue(run, spec.with_changes(kind="all"))
    assert not session.counted
    assert session.count_queue(run, spec)
    assert session.counted and [run.queue.qid_of(row) for row in session.rows] == [
        "q1",
        "q2",
        "q3",
    ]
