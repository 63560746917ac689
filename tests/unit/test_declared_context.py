"""Issue 39, item 3: SEL-CTX and the oracle twin follow each run's declared context kind
(``Benchmark.context_kinds``), and "implicit" evidence a benchmark's declared
``implicit`` matches, never MemEye's family names or CUE-Mem's attribute names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memscope.adapters import ReadOptions
from memscope.store import Store
from memscope.usecases.runs.declared import context_kind
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.runs.loading import load_run
from memscope.usecases.suggest.rules import build_facts
from plugin_helpers import TOY, TOY_CLONE, install_plugins


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from install_plugins(tmp_path, monkeypatch)


def _toy(declared: str) -> str:
    return (
        TOY_CLONE
        + """
    from memscope.plugin import QuestionMatch
    from memscope_toybench import run

    class Reader(RenamedReader):
        def __init__(self):
            super().__init__("toyc")
"""
        + f"    BENCHMARK = clone('toyc', reader=Reader(), {declared})\n"
    )


def _ingest(store: Store) -> str:
    outcomes, failures = ingest_paths(store, [TOY / "runs" / "toy_bm25"], ReadOptions())
    assert not failures
    return outcomes[0].run_id


def test_a_declared_whole_history_run_gets_sel_ctx(plugins, store: Store) -> None:
    plugins({"toyc": "toyc:BENCHMARK"}, {"toyc": _toy("context_kinds={'bm25': 'whole_history'}")})
    data = load_run(store, _ingest(store))
    assert context_kind(data.run, "bm25") == "whole_history"
    facts = build_facts(store, data)
    assert facts.context_kind == "whole_history" and not facts.is_oracle
    from memscope.analysis.suggest import apply_rules

    hits = apply_rules(facts)
    assert any(hit.code == "SEL-CTX" for found in hits for hit in found)


def test_an_undeclared_family_is_its_retrieval(plugins, store: Store) -> None:
    plugins({"toyc": "toyc:BENCHMARK"}, {"toyc": _toy("")})
    data = load_run(store, _ingest(store))
    assert context_kind(data.run, "bm25") == "retrieval"
    assert context_kind(replace(data.run, retrieval_kind="none"), "bm25") == "none"
    # MemEye's family names mean nothing for another benchmark.
    assert context_kind(data.run, "full_context") == "retrieval"
    assert context_kind(data.run, "clue_only_context") == "retrieval"
    facts = build_facts(store, data)
    assert facts.context_kind == "retrieval" and not facts.is_oracle


def test_a_declared_gold_evidence_run_is_the_oracle(plugins, store: Store) -> None:
    plugins({"toyc": "toyc:BENCHMARK"}, {"toyc": _toy("context_kinds={'bm25': 'gold_evidence'}")})
    data = load_run(store, _ingest(store))
    assert build_facts(store, data).is_oracle


def test_implicit_evidence_is_what_the_benchmark_declares(plugins, store: Store) -> None:
    update = "QuestionMatch('extra:kind', ('update',))"
    plugins({"toyc": "toyc:BENCHMARK"}, {"toyc": _toy(f"implicit=({update},)")})
    data = load_run(store, _ingest(store))
    facts = build_facts(store, data)
    assert facts.implicit is not None
    assert facts.implicit.tolist() == (data.attribute("kind") == "update").tolist()


def test_memeye_and_cuemem_declare_what_the_code_assumed() -> None:
    from memscope.adapters.cuemem import BENCHMARK as CUE
    from memscope.adapters.memeye import BENCHMARK as MEMEYE

    assert MEMEYE.context_kinds == {
        "full_context": "whole_history",
        "clue_only_context": "gold_evidence",
    }
    assert MEMEYE.latest_state is not None and MEMEYE.latest_state.label == "Y3"
    import pyarrow as pa

    from memscope.usecases.runs.declared import all_declared

    extras = [
        '{"task_group": "Long Pattern", "cue_type": "implicit"}',
        '{"task_group": "Long Pattern", "setting": "explicit"}',
        '{"task_group": "Entity Recall", "explicitness": "implicit"}',
        '{"task_group": "long_pattern", "evidence_setting": "Implicit"}',
    ]
    flags = all_declared(pa.table({"extra": extras}), CUE.implicit)
    assert flags.tolist() == [True, False, False, True]
    assert not np.any(all_declared(pa.table({"extra": extras}), MEMEYE.implicit))
