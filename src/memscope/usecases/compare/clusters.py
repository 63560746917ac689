"""The cluster-level sign-flip test of ``memscope compare`` (docs/metrics.md §7).

Questions of one cluster are not independent (DMV-Bench probes of one chain trunk share
their encoding sessions), so a comparison of two systems on the same questions flips the
sign of whole clusters. A benchmark asks for it by naming its cluster attribute
(``Benchmark.cluster``); the result is the comparison's ``"significance"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from memscope.analysis.answers import correctness
from memscope.analysis.arrays import float_column
from memscope.analysis.cluster_rates import DEFAULT_PERMUTATIONS, sign_flip_test
from memscope.usecases.runs.question_extras import extra_columns

if TYPE_CHECKING:
    import pyarrow as pa


ClusterTest: TypeAlias = dict[str, str | float | int | bool | None]
"""A cluster-level test's name (``test``) and numbers, as ``compare`` prints them."""


def cluster_labels(questions: pa.Table, rows: np.ndarray, cluster: str) -> np.ndarray:
    """The cluster of each of ``rows`` (a question without one is its own cluster)."""
    trunks = extra_columns(questions, (cluster,))[cluster][rows]
    qids = questions.column("qid").to_numpy(zero_copy_only=False)[rows]
    return np.array(
        [str(t) if t else f"#{q}" for t, q in zip(trunks, qids, strict=True)], dtype=object
    )


def cluster_sign_flip(
    questions_a: pa.Table,
    questions_b: pa.Table,
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    seed: int,
    cluster: str,
    *,
    permutations: int = DEFAULT_PERMUTATIONS,
) -> ClusterTest:
    """Two-sided cluster-level sign-flip permutation test of success_B − success_A on the
    matched questions (DMV-Bench: TSR over probes clustered by chain trunk).

    Args:
        questions_a: Run A's question table (``store.queries.question_table``).
        questions_b: Run B's.
        rows_a: Row indices of A's matched probes.
        rows_b: The same probes' rows in B.
        seed: Seed of the permutation draws (unused when every sign pattern is enumerated).
        cluster: The question attribute naming each question's cluster (``trunk``).
        permutations: Sign patterns to draw (1,000 by default).

    Returns:
        ``{"test": "<cluster> sign-flip permutation (two-sided)", "n", "n_trunks" (clusters),
        "tsr_a", "tsr_b" (success rates), "difference" (B - A), "p_value", "permutations",
        "exact"}``.
    """

    def success(table: pa.Table, rows: np.ndarray) -> np.ndarray:
        mode = table.column("mode").to_numpy(zero_copy_only=False)[rows]
        return correctness(
            mode,
            float_column(table["em"])[rows],
            float_column(table["judge"])[rows],
            float_column(table["f1"])[rows],
        )

    labels = cluster_labels(questions_a, rows_a, cluster)
    result = sign_flip_test(
        success(questions_b, rows_b),
        success(questions_a, rows_a),
        labels,
        permutations=permutations,
        seed=seed,
    )
    values = result.as_dict()
    values["tsr_a"], values["tsr_b"] = values.pop("tsr_b"), values.pop("tsr_a")
    return {"test": f"{cluster} sign-flip permutation (two-sided)", **values}
