"""The LongMemEval package on the plugin contract (issue 40): it imports memscope only
through ``memscope.plugin``, nothing outside it names LongMemEval, its streaming reader
reads a list across any chunk boundary, and its retrieval metrics follow upstream's
definitions on hand-checked cases."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest

from memscope.adapters.longmemeval import stream
from memscope.adapters.longmemeval.upstream import corpus_ids, retrieval_metrics
from memscope.errors import DatasetError

SRC = Path(__file__).resolve().parents[2] / "src" / "memscope"
PACKAGE = SRC / "adapters" / "longmemeval"


def test_imports_memscope_only_through_plugin() -> None:
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                if name.startswith("memscope") and not name.startswith(
                    ("memscope.plugin", "memscope.adapters.longmemeval")
                ):
                    pytest.fail(f"{path.name} imports {name}")


def test_nothing_outside_the_package_names_longmemeval() -> None:
    named = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if PACKAGE not in path.parents and "longmemeval" in path.read_text(encoding="utf-8").lower()
    ]
    assert named == []


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_stream_reads_a_list_across_chunk_boundaries(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "CHUNK", chunk)
    data = [1, 22, -3.5e2, "x, y]", {"a": [1, {"b": "]"}]}, [], None, True, 123456789]
    path = tmp_path / "list.json"
    path.write_text(" \n[" + ",\n ".join(json.dumps(item) for item in data) + " ]\n")
    assert list(stream.iter_json_list(path, what="dataset")) == data


@pytest.mark.parametrize("text", ["", "{}", "[1 2]", "[1,", "[1, ]", '[{"a": 1}'])
def test_stream_refuses_what_is_not_a_list(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(DatasetError, match="not a LongMemEval dataset"):
        list(stream.iter_json_list(path, what="dataset"))


def test_corpus_ids_as_run_retrieval_names_them() -> None:
    turns = [
        {"role": "user", "content": "a", "has_answer": False},
        {"role": "assistant", "content": "b", "has_answer": True},
        {"role": "user", "content": "c", "has_answer": True},
    ]
    assert corpus_ids("answer_x_1", turns, "turn") == ["noans_x_1_1", "answer_x_1_3"]
    assert corpus_ids("answer_x_1", turns, "session") == ["answer_x_1"]
    assert corpus_ids("answer_x_1", turns[:2], "session") == ["noans_x_1"]
    assert corpus_ids("ultrachat_9", turns, "turn") == ["ultrachat_9_1", "ultrachat_9_3"]


def test_retrieval_metrics_by_hand() -> None:
    # targets at ranks 2 and 4 of five; upstream's dcg leaves ranks 1 and 2 undiscounted
    ranked = ["s1", "answer_a", "s2", "answer_b", "s3"]
    found = retrieval_metrics(ranked, "session")["session"]
    assert found["recall_any@1"] == 0.0 and found["recall_all@3"] == 0.0
    assert found["recall_any@3"] == 1.0 and found["recall_all@5"] == 1.0
    ideal = 1.0 + 1.0  # ranks 1 and 2
    assert found["ndcg_any@5"] == pytest.approx((1.0 + 1.0 / math.log2(4)) / ideal)
    assert found["ndcg_any@1"] == 0.0


def test_turn_ranking_scored_at_session_level_widens_k() -> None:
    # four turns of two sessions: session k=1 needs one session, k=3 all distinct ones
    ranked = ["s1_1", "s1_3", "answer_a_1", "s2_1"]
    found = retrieval_metrics(ranked, "turn")
    assert found["turn"]["recall_any@1"] == 0.0
    assert found["session"]["recall_any@1"] == 0.0
    assert found["session"]["recall_any@3"] == 1.0  # k widened past the repeated s1
    no_target = retrieval_metrics(["s1_1", "s2_1"], "turn")["turn"]
    assert (no_target["recall_any@5"], no_target["recall_all@5"], no_target["ndcg_any@5"]) == (
        0.0,
        1.0,
        0.0,
    )


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 20])
def test_stream_hashes_the_whole_file_and_splits_no_character(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    monkeypatch.setattr(stream, "CHUNK", chunk)
    path = tmp_path / "list.json"
    path.write_text('[{"content": "día 🌍"}, "ü"]\n\n', encoding="utf-8")
    digest = hashlib.sha256()
    assert list(stream.iter_json_list(path, what="dataset", digest=digest)) == [
        {"content": "día 🌍"},
        "ü",
    ]
    assert digest.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()
    path.write_text("[1] 2")
    with pytest.raises(DatasetError, match="text after the list"):
        list(stream.iter_json_list(path, what="dataset"))
