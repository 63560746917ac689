"""``table --shared``'s restriction: every part of every row keeps the question keys all
rows hold (a row is the union of its parts); rows that share nothing are refused."""

from __future__ import annotations

import pytest

from memscope.errors import InputError
from memscope.usecases.table.shared_questions import shared_questions


def test_each_part_keeps_the_keys_every_row_holds() -> None:
    # Row 1 pools two disjoint parts (two conversations); row 2 is one run over both but
    # lacks b2 and holds c1, which row 1 lacks.
    rows = [[["a1", "a2"], ["b1", "b2"]], [["a1", "b1", "a2", "c1"]]]
    found = shared_questions(rows)
    assert found.n_shared == 3
    assert [mask.tolist() for mask in found.keep[0]] == [[True, True], [True, False]]
    assert found.keep[1][0].tolist() == [True, True, True, False]
    assert found.left_out == [1, 1]
    assert found.note(["one", "two"]) == (
        "--shared: every row over the 3 questions all rows hold (left out: one 1; two 1)"
    )


def test_repeats_of_a_row_keep_their_duplicated_keys() -> None:
    found = shared_questions([[["q1", "q2"], ["q1", "q2"]], [["q2"]]])
    assert [mask.tolist() for mask in found.keep[0]] == [[False, True], [False, True]]
    assert found.note(["mirix", "zep"]).endswith("(left out: mirix 1)")


def test_rows_that_share_nothing_are_refused_with_what_to_do() -> None:
    with pytest.raises(InputError, match="hold no question in common") as refused:
        shared_questions([[["conv-a:q1"]], [["conv-b:q1"]]])
    assert "--group" in (refused.value.fix or "")
