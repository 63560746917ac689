"""Searches off the store lock (engine_jobs.memory_search, store.locked), without a terminal:
each connection takes the lock and gives it back, the model load runs with it free while
another thread writes a label, and each step is reported for the progress line.

The model load's slowness is staged (the real device resolution, held on an Event, then
failing as a broken model would): no model library is imported. The label written during
it is real (DuckDB store, usecases.labels).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import memscope.engine.text as engine_text
import memscope.engine_jobs.engine as pipeline_engine
from memscope.engine_jobs.memory_search import EngineStep, StepReporter, run_memory_search
from memscope.errors import EngineError
from memscope.store import Store
from memscope.store.locked import LockedStore
from memscope.usecases.labels.events import current_labels, record_label

SRAG_V = Path(__file__).parents[2] / "runs" / "srag_v"


def test_a_locked_store_holds_the_lock_only_while_a_connection_is_open(store: Store) -> None:
    lock = threading.Lock()
    shared = LockedStore(store, lock)
    with shared.write() as con:
        assert lock.locked()
        con.execute("CREATE TABLE IF NOT EXISTS scratch (x INTEGER)")
    assert not lock.locked()
    with shared.reading():  # nested scopes on one thread do not take the lock twice
        with shared.read() as con:
            assert lock.locked() and con.execute("SELECT 1").fetchone() == (1,)
        assert lock.locked()
    assert not lock.locked()
    with lock:  # another holder: a connection waits for it
        opened = threading.Event()

        def read() -> None:
            with shared.read():
                opened.set()

        reader = threading.Thread(target=read)
        reader.start()
        assert not opened.wait(0.3)
    reader.join(5)
    assert opened.is_set()


def test_step_lines_count_seconds_and_items() -> None:
    assert EngineStep("loading all-MiniLM-L6-v2", 100.0).line(now=104.4) == (
        "loading all-MiniLM-L6-v2 … 4 s"
    )
    counted = EngineStep("embedding round_texts", 0.0, 340, 12_345)
    assert counted.line(now=2.0) == "embedding round_texts 340/12,345 … 2 s"
    heard: list[EngineStep] = []
    reporter = StepReporter(heard.append)
    reporter.step("searching 12 rounds")
    with reporter.progress("embedding round_texts", 5) as advance:
        advance(2)
        advance(3)
    assert [(s.what, s.done) for s in heard] == [
        ("searching 12 rounds", None),
        ("embedding round_texts", 0),
        ("embedding round_texts", 2),
        ("embedding round_texts", 5),
        ("searching 12 rounds", None),  # back to the step the embedding interrupted
    ]


def test_a_label_is_written_while_the_search_loads_its_model(
    store: Store, monkeypatch: pytest.MonkeyPatch, ingested_store
) -> None:
    if not SRAG_V.is_dir():
        pytest.skip("the demo runs are not in this checkout")
    run_id = ingested_store(SRAG_V)[0]
    with store.read() as con:
        dataset_id = con.execute(
            "SELECT dataset_id FROM runs WHERE run_id = ?", [run_id]
        ).fetchone()[0]
    lock = threading.Lock()
    entered, release = threading.Event(), threading.Event()

    def held_device(*args: Any) -> Any:
        entered.set()
        release.wait(30)
        raise EngineError("cannot load text model: broken")

    monkeypatch.setattr(engine_text, "_loaded", {})
    monkeypatch.setattr(pipeline_engine, "resolve_device", held_device)
    steps: list[str] = []
    outcome: list[BaseException] = []

    def search() -> None:
        try:
            run_memory_search(
                store, lock, dataset_id, query="compost", on_step=lambda s: steps.append(s.what)
            )
        except EngineError as error:
            outcome.append(error)

    worker = threading.Thread(target=search)
    worker.start()
    try:
        assert entered.wait(30)
        assert steps == ["loading all-MiniLM-L6-v2"] and not lock.locked()
        with lock:  # what the app's label writer does
            record_label(store, run_id, "q37", codes=["RET-MISS"], annotator="alice")
    finally:
        release.set()
        worker.join(30)
    assert [str(e) for e in outcome] and "broken" in str(outcome[0])
    assert current_labels(store, run_id, annotator="alice")["q37"].codes == ("RET-MISS",)
