"""Assembles the evidence of many runs in one pass (``evidence.assemble_evidence`` once).

Each run's evidence is its own questions joined to its own retrievals and its dataset's
rounds and sessions. To assemble every run of a sweep at once, each key is made unique to
its run or dataset with a fixed-width tag (``000012\\x1f`` + the id): question ids by run,
round and session ids by dataset, in the tables and in the questions' clue and source
lists alike. One call of ``assemble_evidence`` then joins exactly what the run-by-run calls
would, and the tags are taken off the ids it hands back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memscope.store.evidence import assemble_evidence

TAG_WIDTH = 7
"""Characters of a tag: six digits and a unit separator."""
UNTAGGED_ID_COLUMNS = ("ranked_ids", "gold_ids")
"""List columns of the result that carry tagged round ids."""


def _tags(numbers: np.ndarray) -> pa.Array:
    return pa.array([f"{number:06d}\x1f" for number in numbers.tolist()], pa.string())


def _tagged(values: pa.Array, tag_numbers: np.ndarray) -> pa.Array:
    """``values`` (strings), each with the tag of its number (a null stays null)."""
    if len(values) == 0:
        return values.cast(pa.string())
    unique, inverse = np.unique(tag_numbers, return_inverse=True)
    tags = _tags(unique).take(pa.array(inverse))
    return pc.binary_join_element_wise(tags, values.cast(pa.string()), "")


def _tagged_lists(lists: pa.ChunkedArray | pa.Array, row_numbers: np.ndarray) -> pa.ListArray:
    """A list column whose items carry the tag of their row's number."""
    array = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    offsets = array.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    items = array.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    parents = np.repeat(np.arange(len(array)), np.diff(offsets))
    return pa.ListArray.from_arrays(
        pa.array((offsets - offsets[0]).astype(np.int32)),
        _tagged(items, row_numbers[parents]),
        mask=pc.is_null(array),
    )


def _untagged_lists(lists: pa.Array) -> pa.ListArray:
    """A list column of tagged ids with the tags taken off."""
    offsets = lists.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    items = lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    return pa.ListArray.from_arrays(
        pa.array((offsets - offsets[0]).astype(np.int32)),
        pc.utf8_slice_codeunits(items, TAG_WIDTH),
        mask=pc.is_null(lists),
    )


def _numbers_of(column: pa.ChunkedArray, names: Sequence[str]) -> np.ndarray:
    """Each row's position of its value in ``names``."""
    return pc.index_in(column, value_set=pa.array(list(names), pa.string())).to_numpy(
        zero_copy_only=False
    )


def assemble_runs_evidence(
    questions: pa.Table,
    rounds: pa.Table,
    sessions: pa.Table,
    retrievals: pa.Table,
    dataset_of: dict[str, str],
) -> dict[str, pa.Table]:
    """The evidence table of every run, equal to ``assemble_evidence`` of each run alone.

    Args:
        questions: ``run_id``, qid, y, clue_rounds, source_sessions; a run's rows together,
            in its idx order.
        rounds: ``dataset_id``, round_id, position, session_order, session_id.
        sessions: ``dataset_id``, session_id, session_order.
        retrievals: ``run_id``, qid, rank, round_id, score, origin; a run's rows in store order.
        dataset_of: Each run's dataset (every run of ``questions`` is in it).
    """
    every_run = list(dataset_of)
    dataset_ids = list(dict.fromkeys(dataset_of.values()))
    run_number = _numbers_of(questions.column("run_id"), every_run)
    run_dataset = np.array([dataset_ids.index(dataset_of[run]) for run in every_run])
    question_dataset = run_dataset[run_number] if len(run_number) else run_number
    tagged_questions = pa.table(
        {
            "qid": _tagged(questions.column("qid").combine_chunks(), run_number),
            "y": questions.column("y"),
            "extra": questions.column("extra"),
            "clue_rounds": _tagged_lists(questions.column("clue_rounds"), question_dataset),
            "source_sessions": _tagged_lists(questions.column("source_sessions"), question_dataset),
        }
    )
    rounds_dataset = _numbers_of(rounds.column("dataset_id"), dataset_ids)
    tagged_rounds = rounds.drop_columns(["dataset_id"]).set_column(
        0, "round_id", _tagged(rounds.column("round_id").combine_chunks(), rounds_dataset)
    )
    sessions_dataset = _numbers_of(sessions.column("dataset_id"), dataset_ids)
    tagged_sessions = sessions.drop_columns(["dataset_id"]).set_column(
        0, "session_id", _tagged(sessions.column("session_id").combine_chunks(), sessions_dataset)
    )
    retrieval_run = _numbers_of(retrievals.column("run_id"), every_run)
    retrieval_dataset = run_dataset[retrieval_run] if len(retrieval_run) else retrieval_run
    tagged_retrievals = (
        retrievals.drop_columns(["run_id"])
        .set_column(0, "qid", _tagged(retrievals.column("qid").combine_chunks(), retrieval_run))
        .set_column(
            2,
            "round_id",
            _tagged(retrievals.column("round_id").combine_chunks(), retrieval_dataset),
        )
    )
    evidence = assemble_evidence(
        tagged_questions, tagged_rounds, tagged_sessions, tagged_retrievals
    )
    evidence = evidence.set_column(0, "qid", questions.column("qid"))
    for name in UNTAGGED_ID_COLUMNS:
        at = evidence.schema.get_field_index(name)
        evidence = evidence.set_column(
            at, name, _untagged_lists(evidence.column(name).combine_chunks())
        )
    starts = np.flatnonzero(np.diff(run_number, prepend=-1)) if len(run_number) else run_number
    stops = np.append(starts[1:], len(run_number)).astype(np.int64)
    spans = {
        every_run[run_number[start]]: (int(start), int(stop - start))
        for start, stop in zip(starts.tolist(), stops.tolist(), strict=True)
    }
    return {run: evidence.slice(*spans.get(run, (0, 0))) for run in every_run}
