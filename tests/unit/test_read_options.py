"""How a reader gets the benchmark options the user gave (``ReadOptions``, issue 29).

``extra`` holds whatever the CLI or the ingest use case put there; the two accessors are
where a reader narrows it, so a value of the wrong kind reads as "not given" instead of
failing deep inside a reader.
"""

from __future__ import annotations

from pathlib import Path

from memscope.adapters.base import ReadOptions, read_options


def test_a_path_option_is_read_as_a_path_from_a_path_or_a_string(tmp_path: Path) -> None:
    options = ReadOptions(extra={"dmv_registry": tmp_path, "images": str(tmp_path / "img")})

    assert options.path_option("dmv_registry") == tmp_path
    assert options.path_option("images") == tmp_path / "img"


def test_an_option_not_given_empty_or_of_another_kind_is_none() -> None:
    options = ReadOptions(extra={"empty": "", "number": 3, "listed": ["a"]})

    assert options.path_option("missing") is None
    assert options.path_option("empty") is None
    assert options.path_option("number") is None
    assert options.path_option("listed") is None


def test_read_options_leaves_out_options_that_were_not_given(tmp_path: Path) -> None:
    options = read_options(tmp_path, {"dmv_registry": None, "images": tmp_path})

    assert options.dataset == tmp_path
    assert dict(options.extra) == {"images": tmp_path}


def test_the_remembered_history_of_a_results_file_is_found_by_its_name() -> None:
    options = ReadOptions(remembered={"a_results.json": "/data/history_with_qa_p0.json"})

    assert options.remembered_history("a_results.json") == "/data/history_with_qa_p0.json"
    assert options.remembered_history("b_results.json") is None


def test_remembered_histories_of_the_wrong_shape_are_ignored() -> None:
    assert ReadOptions().remembered_history("a_results.json") is None
    wrong: dict = {"a_results.json": 7}
    assert ReadOptions(remembered=wrong).remembered_history("a_results.json") is None
