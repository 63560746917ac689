"""Property-based tests (hypothesis) of the metric, re-ranking and bootstrap functions and of
the MemEye adapter: random valid and invalid inputs never crash, and the invariants of
docs/metrics.md hold."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.analysis.bootstrap import percentile_interval
from memscope.analysis.evidence import EvidenceSet, retrieval_access, stale_mask, temporal_authority
from memscope.analysis.rerank import recency_order
from memscope.errors import MemscopeError
from memscope.store import Store
from memscope.usecases.runs.ingest import ingest_dir

N_ROUNDS = 30
SESSION_OF = {p: (p - 1) // 5 + 1 for p in range(1, N_ROUNDS + 1)}  # six sessions of five rounds


@st.composite
def evidence_sets(draw: st.DrawFn) -> EvidenceSet:
    n = draw(st.integers(1, 12))
    width = draw(st.integers(0, 12))
    rows_ranked, rows_gold, rows_source = [], [], []
    for _ in range(n):
        ranked = draw(st.lists(st.integers(0, N_ROUNDS), max_size=width, unique=True))
        gold = draw(st.lists(st.integers(1, N_ROUNDS), max_size=4, unique=True))
        sources = sorted(
            {SESSION_OF[g] for g in gold} | set(draw(st.lists(st.integers(1, 6), max_size=2)))
        )
        rows_ranked.append(ranked)
        rows_gold.append(sorted(gold))
        rows_source.append(sources)

    def pad(lists: list[list[int]]) -> np.ndarray:
        wide = max((len(x) for x in lists), default=0)
        return np.array([x + [-1] * (wide - len(x)) for x in lists], dtype=np.int64).reshape(
            len(lists), wide
        )

    ranked = pad(rows_ranked)
    return EvidenceSet(
        ranked_pos=ranked,
        ranked_session=np.where(
            ranked > 0, np.vectorize(lambda p: SESSION_OF.get(int(p), -1))(ranked), -1
        )
        if ranked.size
        else ranked,
        gold_pos=pad(rows_gold),
        source_sessions=pad(rows_source),
        has_ranking=np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))),
        asks_latest=np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))),
    )


def in_unit_interval(values: np.ndarray) -> bool:
    defined = values[~np.isnan(values)]
    return bool(((defined >= 0) & (defined <= 1)).all())


@given(evidence_sets(), st.integers(1, 15))
def test_metrics_stay_in_unit_interval_and_identities_hold(ev: EvidenceSet, k: int) -> None:
    access = retrieval_access(ev, k)
    temporal = temporal_authority(ev, k)
    for values in (*access.values(), *temporal.values()):
        assert in_unit_interval(values)
    defined = ~np.isnan(temporal["latest_at_k"])
    np.testing.assert_allclose(
        temporal["latest_at_k"][defined] + temporal["latest_miss"][defined], 1.0
    )
    both = ~np.isnan(temporal["rank_inversion"]) & ~np.isnan(temporal["stale_dominance"])
    assert (temporal["rank_inversion"][both] <= temporal["stale_dominance"][both]).all()
    gold = ~np.isnan(access["any_clue"])
    assert (access["full_clue"][gold] <= access["coverage"][gold] + 1e-12).all()
    assert (access["coverage"][gold] <= access["any_clue"][gold] + 1e-12).all()
    # Stale rounds are never padding and never after the latest clue.
    stale = stale_mask(ev)
    assert not (stale & (ev.ranked_pos <= 0)).any()


@given(evidence_sets(), st.integers(1, 14))
def test_a_larger_k_never_loses_a_clue(ev: EvidenceSet, k: int) -> None:
    smaller, larger = retrieval_access(ev, k), retrieval_access(ev, k + 1)
    gold = ~np.isnan(smaller["any_clue"])
    assert (larger["any_clue"][gold] >= smaller["any_clue"][gold]).all()
    assert (larger["coverage"][gold] >= smaller["coverage"][gold] - 1e-12).all()


@st.composite
def pools(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 8))
    width = draw(st.integers(1, 12))
    sims, ages, valid = [], [], []
    for _ in range(n):
        size = draw(st.integers(0, width))
        scored = draw(st.integers(0, size))
        # A logged ranking: similarities non-increasing down the ranks, unscored tail (NaN).
        values = sorted(
            draw(st.lists(st.floats(-1, 1), min_size=scored, max_size=scored)), reverse=True
        )
        sims.append(values + [np.nan] * (width - scored))
        ages.append(draw(st.lists(st.integers(0, 500), min_size=width, max_size=width)))
        valid.append([True] * size + [False] * (width - size))
    return np.array(sims, dtype=float), np.array(ages, dtype=float), np.array(valid)


@given(pools(), st.floats(0, 1), st.floats(0, 1))
def test_rerank_is_a_permutation_that_keeps_unscored_slots(pool, alpha: float, lam: float) -> None:
    sims, ages, valid = pool
    order = recency_order(sims, ages, valid, alpha, lam)
    width = sims.shape[1]
    for row in range(sims.shape[0]):
        assert sorted(order[row].tolist()) == list(range(width))
        fixed = ~(valid[row] & ~np.isnan(sims[row]))
        # Unscored candidates and padding stay exactly where they were.
        assert (order[row][fixed] == np.arange(width)[fixed]).all()


@given(pools(), st.floats(0, 1))
def test_alpha_one_reproduces_the_original_order(pool, lam: float) -> None:
    sims, ages, valid = pool
    order = recency_order(sims, ages, valid, 1.0, lam)
    assert (order == np.arange(sims.shape[1])[None, :]).all()


@given(
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, np.nan]), min_size=1, max_size=60),
    st.integers(0, 2**31),
)
def test_bootstrap_interval_is_ordered_bounded_and_reproducible(
    values: list[float], seed: int
) -> None:
    array = np.array(values)
    first = percentile_interval(array, resamples=200, seed=seed)
    assert first == percentile_interval(array, resamples=200, seed=seed)
    defined = array[~np.isnan(array)]
    if defined.size == 0:
        assert first.mean is None and first.n == 0
        return
    assert defined.min() - 1e-12 <= first.ci_low <= first.ci_high <= defined.max() + 1e-12


FIELD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**12),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
FIELDS = [
    "idx",
    "point",
    "mode",
    "question",
    "gt",
    "pred",
    "choice",
    "em",
    "judge",
    "judge_reasoning",
    "f1",
    "latency_ms",
    "clue_rounds",
    "source_sessions",
    "rotations",
    "position_bias",
    "exact_match",
    "method_runtime",
    "usage",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mutations=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from(FIELDS), FIELD_VALUES), max_size=6
    ),
    garbage=st.lists(
        st.one_of(st.text(max_size=30), st.binary(max_size=30).map(lambda b: b.decode("latin-1"))),
        max_size=3,
    ),
)
def test_random_rows_never_crash_the_ingest(mutations, garbage) -> None:
    data = dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1"]},
        [qa(f"Q{i}?", "a", [["X1"], ["Y3"]], ["D1:1", "D2:1"], ["D1", "D2"]) for i in (1, 2, 3)],
    )
    rows = [open_row(i, data, seed=["D2:1", "D1:1", "D1:2"]) for i in (1, 2, 3)]
    for row, field, value in mutations:
        rows[row][field] = value
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        lines = [json.dumps(row) for row in rows] + [line.replace("\n", " ") for line in garbage]
        run_dir = write_run(root / "runs" / "r", data, lines)
        store = Store(root / "store.duckdb", wait_s=0)
        try:
            outcome = ingest_dir(store, run_dir, ReadOptions())
        except MemscopeError:
            return  # one clear message is an allowed outcome; any other exception fails the test
        assert 0 < outcome.n_questions <= 3
