"""The app's start runs without the cyclic collector and freezes what it built; a loaded run
is unfrozen only when one was frozen (``tui/heap.py``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from memscope.tui import heap


@pytest.fixture(autouse=True)
def gc_as_found() -> Iterator[None]:
    was_enabled = gc.isenabled()
    heap._frozen_runs = False  # an app run earlier in this process may have frozen a run
    yield
    gc.unfreeze()
    heap._frozen_runs = False
    if was_enabled:
        gc.enable()


def test_the_start_runs_without_collections_and_freezes_what_it_built() -> None:
    gc.unfreeze()
    gc.enable()
    with heap.starting_without_gc():
        assert not gc.isenabled()
        built = [[] for _ in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(built)


def test_the_collector_stays_off_when_it_was_off() -> None:
    gc.disable()
    with heap.starting_without_gc():
        pass
    assert not gc.isenabled()


def test_the_first_load_keeps_the_start_frozen() -> None:
    gc.unfreeze()
    with heap.starting_without_gc():
        pass
    frozen = gc.get_freeze_count()
    heap.let_gc_see_loaded_runs()  # before the first run: nothing of a run to let go
    assert gc.get_freeze_count() == frozen
    heap.keep_loaded_run_out_of_gc()
    heap.let_gc_see_loaded_runs()  # another run replaces the kept one: it can be collected
    assert gc.get_freeze_count() == 0
