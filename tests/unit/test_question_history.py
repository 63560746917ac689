"""Each question's own history (``Benchmark.history``, ``analysis.history``): ages per
history agree with ``N - position`` where the history is the whole dataset, and count only
the question's own later rounds where it is not; a bad declaration is refused by name."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from memscope.analysis.history import Histories
from memscope.analysis.rerank import candidate_ages
from memscope.errors import PluginError
from memscope.plugin import Benchmark
from memscope.usecases.runs import history


def test_whole_dataset_history_gives_the_dataset_ages() -> None:
    rng = np.random.default_rng(3)
    n_rounds = 40
    ranked = rng.integers(-1, n_rounds + 1, size=(6, 9))
    whole = Histories.of(
        [str(i) for i in range(6)], {str(i): range(1, n_rounds + 1) for i in range(6)}
    )
    np.testing.assert_array_equal(
        candidate_ages(ranked, n_rounds, whole), candidate_ages(ranked, n_rounds)
    )
    assert whole.sizes.tolist() == [n_rounds] * 6


def test_own_history_ages_count_only_the_questions_later_rounds() -> None:
    rng = np.random.default_rng(5)
    found = {
        str(i): sorted(rng.choice(np.arange(1, 200), size=int(rng.integers(3, 30)), replace=False))
        for i in range(8)
    }
    qids = [*found, "none"]
    histories = Histories.of(qids, found)
    ranked = np.stack(
        [rng.choice(positions, size=4) for positions in found.values()] + [[7, 0, -1, 3]]
    )
    ranked[0, 1] = 0  # padding
    ages = candidate_ages(ranked, 999, histories)
    for row, qid in enumerate(qids):
        own = found.get(qid, [])
        for col, position in enumerate(ranked[row]):
            if position <= 0:
                assert np.isnan(ages[row, col])
            else:
                assert ages[row, col] == sum(1 for p in own if p > position)
    assert histories.sizes.tolist() == [len(found[q]) for q in found] + [0]
    assert histories.rows(slice(2, 4)).sizes.tolist() == histories.sizes[2:4].tolist()


def test_a_bad_history_declaration_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from memscope.adapters.memeye import BENCHMARK

    bad: Benchmark = replace(BENCHMARK, history="column:y")
    monkeypatch.setattr(history, "spec_of", lambda name: bad)
    with pytest.raises(PluginError, match="declares history 'column:y'"):
        history.history_key("memeye")
    monkeypatch.setattr(history, "spec_of", lambda name: replace(BENCHMARK, history="extra:hay"))
    assert history.history_key("memeye") == "hay"
    monkeypatch.setattr(history, "spec_of", lambda name: BENCHMARK)
    assert history.history_key("memeye") is None


def test_locomo_questions_have_their_own_conversation_as_history(
    tmp_path, store_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LoCoMo declares ``same:sample_id``: a question's history is its own conversation's
    turns, not the two conversations of the dataset joined."""
    from typer.testing import CliRunner

    from builders_locomo import layout, run_output, small_dataset
    from memscope.cli import app
    from memscope.store import Store
    from memscope.usecases.runs.loading import load_run

    dataset = small_dataset()
    answers = {
        item["sample_id"]: {
            f"q{n}": {"m_prediction": "x", "m_f1": 0.0} for n in range(1, len(item["qa"]) + 1)
        }
        for item in dataset
    }
    folder = layout(tmp_path / "locomo", dataset, run_output(dataset, answers))
    result = CliRunner().invoke(app, ["ingest", str(folder)])
    assert result.exit_code == 0, result.output
    turns = {
        item["sample_id"]: sum(
            len(value)
            for key, value in item["conversation"].items()
            if key.startswith("session_") and isinstance(value, list)
        )
        for item in dataset
    }
    store = Store(store_path)
    run_id = CliRunner().invoke(app, ["runs", "-f", "json"]).stdout
    import json

    (row,) = json.loads(run_id)
    data = load_run(store, row["run_id"])
    samples = [extra.get("sample_id") for extra in map(json.loads, data.column("extra"))]
    assert data.histories is not None
    assert data.history_sizes().tolist() == [turns[s] for s in samples]
    assert sum(turns.values()) == data.n_rounds != max(turns.values())
