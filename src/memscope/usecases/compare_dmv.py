"""DMV-Bench's significance test for ``memscope compare``: the trunk-level sign-flip test.

Probes of one chain trunk share their encoding sessions, so a comparison of two
architectures on the same probes cannot treat probes as independent; the paired test flips
the sign of whole trunks (docs/metrics.md §7). Registered in
``usecases.compare.SIGNIFICANCE_TESTS["dmv"]``; its result is the comparison's
``"significance"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.analysis.answers import correctness
from memscope.analysis.arrays import float_column
from memscope.analysis.dmv import DEFAULT_PERMUTATIONS, sign_flip_test
from memscope.usecases.question_extras import extra_columns

if TYPE_CHECKING:
    import pyarrow as pa


def trunk_sign_flip(
    run_a: dict[str, Any],
    run_b: dict[str, Any],
    questions_a: pa.Table,
    questions_b: pa.Table,
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    seed: int,
    *,
    permutations: int = DEFAULT_PERMUTATIONS,
) -> dict[str, Any]:
    """Two-sided trunk-level sign-flip permutation test of TSR_B - TSR_A on the matched probes.

    Args:
        run_a: Run A's stored description (unused beyond identity; kept for the registry's
            call shape).
        run_b: Run B's.
        questions_a: Run A's question table (``store.queries.question_table``).
        questions_b: Run B's.
        rows_a: Row indices of A's matched probes.
        rows_b: The same probes' rows in B.
        seed: Seed of the permutation draws (unused when every sign pattern is enumerated).
        permutations: Sign patterns to draw (1,000 by default).

    Returns:
        ``{"test": "trunk sign-flip permutation (two-sided)", "n", "n_trunks", "tsr_a",
        "tsr_b", "difference" (B - A), "p_value", "permutations", "exact"}``.
    """

    def success(table: pa.Table, rows: np.ndarray) -> np.ndarray:
        mode = table.column("mode").to_numpy(zero_copy_only=False)[rows]
        return correctness(
            mode, float_column(table["em"])[rows], float_column(table["judge"])[rows]
        )

    trunks = extra_columns(questions_a, ("trunk",))["trunk"][rows_a]
    qids = questions_a.column("qid").to_numpy(zero_copy_only=False)[rows_a]
    labels = np.array(
        [str(t) if t else f"#{q}" for t, q in zip(trunks, qids, strict=True)], dtype=object
    )
    result = sign_flip_test(
        success(questions_b, rows_b),
        success(questions_a, rows_a),
        labels,
        permutations=permutations,
        seed=seed,
    )
    values = result.as_dict()
    values["tsr_a"], values["tsr_b"] = values.pop("tsr_b"), values.pop("tsr_a")
    return {"test": "trunk sign-flip permutation (two-sided)", **values}
