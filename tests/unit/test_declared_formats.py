"""A per-question file a plugin declares in its own words is stored like MemEye's (issue 39).

The store knows no benchmark's file: MemEye declares its ``predictions.jsonl`` as a
``LinesFormat`` in its package, and a plugin may declare another. Here the same answers are
written twice, once as MemEye writes them and once under other names (``n`` for ``idx``, a
``log`` object holding the ranking, candidates scored under ``s``), and both are ingested
(one run at a time, and in a batch): the stored rows must be the same.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters.memeye.run import read_memeye_run
from memscope.errors import StoreError
from memscope.plugin import BulkSource, LinesFormat, RankedIds
from memscope.records import RunRecord
from memscope.store import Store, ingest_batch
from memscope.store.ingest import ingest_run
from memscope.store.sql import rows

OTHER = LinesFormat(
    file_name="answers.jsonl",
    described="an answers file",
    key="n",
    fields={"asked": "text", "answer": "text", "expected": "text", "correct": "unit"},
    shapes={"log": {"ranking": ["text"], "scored": [{"rid": "text", "s": "number"}]}},
    columns={"question": "asked", "pred": "answer", "gold": "expected", "em": "correct"},
    question_field="asked",
    ranked=RankedIds(ids="log.ranking", candidates="log.scored", candidate_id="rid", score=("s",)),
)
SEEDS = (["D1:1", "D2:2", "D1:2"], ["D1:2"], ["D2:1", "D1:1"])


def _dataset() -> dict[str, Any]:
    return dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]},
        [
            qa("Which mug did I buy first?", "the red one", [["X3"], ["Y3"]], ["D1:1"]),
            qa("What is on the shelf?", "books", [["X1"], ["Y1"]], ["D1:2"]),
            qa("Where is the lamp?", "left", [["X2"], ["Y2"]], ["D2:1"]),
        ],
    )


def _runs(tmp_path: Path, name: str, *, shuffled: bool = False) -> list[RunRecord]:
    """Two ranked runs read by MemEye's reader, each also written in ``OTHER``'s words
    (``shuffled``: with the candidates in reverse order, matched by id)."""
    data = _dataset()
    records = []
    for variant in range(2):
        lines = []
        for idx, seed in enumerate(SEEDS, start=1):
            scores = [round(0.9 - 0.1 * i - 0.01 * variant, 3) for i in range(len(seed))]
            lines.append(
                open_row(idx, data, em=float((idx + variant) % 2), seed=seed, scores=scores)
            )
        run_dir = write_run(
            tmp_path / name / f"run{variant}",
            data,
            lines,
            dialog_path=tmp_path / "data" / "dialog" / "task.json",
        )
        record = read_memeye_run(run_dir)
        if name == "other":
            answers = run_dir / "answers.jsonl"
            answers.write_text(
                "".join(json.dumps(_in_other_words(line, shuffled)) + "\n" for line in lines),
                encoding="utf-8",
            )
            source = record.predictions
            assert isinstance(source, BulkSource)
            record = dataclasses.replace(
                record, predictions=BulkSource(OTHER, answers, dict(source.options))
            )
        records.append(record)
    return records


def _in_other_words(line: dict[str, Any], shuffled: bool) -> dict[str, Any]:
    runtime = line["method_runtime"]
    scored = [{"rid": c["round_id"], "s": c["score"]} for c in runtime["top_candidates"]]
    return {
        "n": line["idx"],
        "asked": line["question"],
        "answer": line["pred"],
        "expected": line["gt"],
        "correct": line["em"],
        "log": {
            "ranking": runtime["seed_round_ids"],
            "scored": scored[::-1] if shuffled else scored,
        },
    }


def _stored(store: Store) -> tuple[list[Any], list[Any]]:
    with store.read() as con:
        predictions = rows(
            con,
            "SELECT regexp_replace(run_id, '.*/', ''), qid, line_no, mode, question, gold, pred, "
            "em, question_idx FROM predictions ORDER BY ALL",
        )
        retrievals = rows(
            con,
            "SELECT regexp_replace(run_id, '.*/', ''), qid, rank, round_id, score, origin "
            "FROM retrievals ORDER BY ALL",
        )
    return predictions, retrievals


@pytest.mark.parametrize("batched", [False, True])
def test_a_format_in_other_words_stores_the_same_rows(tmp_path: Path, batched: bool) -> None:
    stored = {}
    for name in ("memeye", "other"):
        store = Store(tmp_path / f"{name}-{batched}.duckdb")
        # Candidates out of order are matched by id on the per-run path (a batch leaves
        # such a run to it).
        records = _runs(tmp_path, name, shuffled=not batched)
        with store.write() as con:
            if batched:
                result = ingest_batch.ingest_batch(con, records)
                assert result.left_out == [] and len(result.outcomes) == 2
            else:
                for record in records:
                    ingest_run(con, record)
        stored[name] = _stored(store)
    predictions, retrievals = stored["memeye"]
    assert len(predictions) == 6 and len(retrievals) == 12
    # MemEye's rows carry its own columns (judge, f1 …) that OTHER never fills; the
    # columns both declare are equal.
    assert stored["other"] == (predictions, retrievals)


def test_a_format_naming_a_staging_column_is_refused(tmp_path: Path) -> None:
    record = _runs(tmp_path, "other")[0]
    bad = dataclasses.replace(OTHER, fields={**OTHER.fields, "qid": "text"})
    source = record.predictions
    assert isinstance(source, BulkSource)
    record = dataclasses.replace(record, predictions=BulkSource(bad, source.path, source.options))
    store = Store(tmp_path / "refused.duckdb")
    with store.write() as con, pytest.raises(StoreError, match="'qid' is not a usable field name"):
        ingest_run(con, record)
