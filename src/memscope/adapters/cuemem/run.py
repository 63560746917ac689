"""Reads CUE-Mem result directories: RQ1/RQ2 ``*_results.json``, RQ3 ``p<N>_results.json``
and the human-baseline app's submissions.

Formats: docs/formats.md §3.3 (RQ1/RQ2 ``run_bench.py``: ``system_answer``,
``original_answer``, optional ranked ``retrieved_ids``), §3.4 (RQ3
``step2_run_experiment.py``: ``model_answer``, ``correct``, ranked ``retrieved_turn_ids``
with ``retrieved_scores`` and per-item ``retrieved_items``; the oracle runner's
``{"meta", "results"}`` object too) and §3.6 (the human baseline, ``human``; the summaries
``aggregate_results.py`` writes, ``aggregated``).

**Upstream's summaries.** A sibling ``<stem>_accuracy.json`` (RQ1/RQ2) is recomputed from
the stored answers (:func:`accuracy_check`); so are the groups of an
``aggregated_accuracy*.json`` in the folder or the two above it that name this folder
(``aggregated``). Together they are the run's ``metrics["upstream_check"]``, and a
disagreement a warning naming the file.

**Recognising a run.** A directory is a CUE-Mem run directory when it holds a file named
``*_results.json`` (``aggregated_*.json`` never are runs) or the human-baseline app's
``<unix_ts>_<participant>.json`` submissions. Each such file is one run (a directory of RQ3
results holds one per profile, ``p0``…``p2``): run id ``<directory name>:<file stem without
_results>`` (e.g. ``MM:p0``), path = the file. Below an RQ1/RQ2 result root
(``result_debug``, ``result_debug_trimmed``, ``result_debug_llm_as_judge``,
``result_question_only``, ``result_oracle_evidence``: ``roots``) the folders name the model
and method; the same ``<llm>/<memory>`` under two roots is two runs (their ids differ by the
root, ``identity.run_labels``), and a warning says a table would pool them.

**Finding the history file** (``history``): ``--dataset``, ``memscope_sources.json``, the
file the store joined before, then the upstream layouts. Rows join QAs by ``(point,
qa_id)``; a history file that matches fewer than half of the rows is refused as the wrong
one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.adapters.cuemem import aggregated, human, roots
from memscope.adapters.cuemem.dataset import CueDataset, read_cuemem_dataset
from memscope.adapters.cuemem.history import history_names, locate_history
from memscope.plugin import (
    CHECK_KEY,
    PERCENT_TOLERANCE,
    BulkSource,
    Comparison,
    DatasetError,
    JSONObject,
    JSONValue,
    Notice,
    ReadOptions,
    RetrievalKind,
    RunDirError,
    RunRecord,
    check_notices,
    file_digest,
    merge_checks,
    read_json_file,
    read_regular,
    recorded_sources,
    summary_check,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["extract_choice", "history_names", "is_cuemem_run", "read_cuemem_runs"]

RESULTS_SUFFIX = roots.RESULTS_SUFFIX
RQ3_VARIANTS = {
    "TT": "text_only",
    "TM": "text_index_multimodal_use",
    "MT": "multimodal_index_text_use",
    "MM": "multimodal",
}
CONTEXT_MEMORIES = ("FUMemory", "MMFUMemory")
"""RQ1/RQ2 memories that keep the (truncated) history instead of retrieving from it."""
CONTEXT_METHODS = ("oracle_evidence",)
"""Runs of a root that gives the model a fixed context (the gold sessions)."""
MAX_RANK = 2**31 - 1
"""A retrieved item's rank above this is no rank (the store keeps ranks in 32 bits)."""
MISMATCH_REFUSE_SHARE = 0.5
MAX_LISTED = 10
LETTER = re.compile(r"\b([A-D])\b")


def results_files(path: Path) -> list[Path]:
    """The ``*_results.json`` files of a directory that are CUE-Mem results by content,
    sorted (``aggregated_*`` left out)."""
    try:
        return sorted(
            p
            for p in path.iterdir()
            if p.name.endswith(RESULTS_SUFFIX)
            and not aggregated.is_aggregate(p.name)
            and p.is_file()
            and looks_like_results(p)
        )
    except OSError:
        return []


RESULTS_HEAD = 64 * 1024
_RESULT_FIELDS = re.compile(rb'"(qa_id|qa_uid|system_answer|model_answer)"\s*:')
_SAMPLE_QA = re.compile(rb'"qa"\s*:\s*\[')


def looks_like_results(path: Path) -> bool:
    """Whether a ``*_results.json`` is CUE-Mem's by its first 64 KiB, not by its name (mem0's
    memory-benchmark harness writes ``*_results.json`` too): a JSON list (of records naming ``qa_id`` /
    ``qa_uid`` / ``system_answer`` / ``model_answer``, or anything but another benchmark's list of
    ``{sample_id, qa}``), or the oracle runner's ``{meta, results}`` object. Anything else (a harness's object keyed by conversation)
    is left to the other readers; an unreadable file is claimed, so that its reader says
    what is wrong with it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(RESULTS_HEAD)
    except OSError:
        return True
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if head[:1] == b"[":
        # A list is CUE-Mem's unless it is another benchmark's list of {sample_id, qa: [...]}.
        return _RESULT_FIELDS.search(head) is not None or _SAMPLE_QA.search(head) is None
    if head[:1] == b"{":
        return re.search(rb'"results"\s*:\s*\[', head) is not None
    return True


def is_cuemem_run(path: Path) -> bool:
    """Whether ``path`` holds CUE-Mem result files or human-baseline submissions."""
    return bool(results_files(path)) or bool(human.submission_files(path))


def extract_choice(answer: object) -> str:
    """The option letter of an answer, as CUE-Mem's RQ1/RQ2 scorer reads it.

    The first character when it is A–D, else the first stand-alone A–D of the upper-cased
    text, else the whole upper-cased text (``run_bench._extract_choice``).
    """
    text = str(answer or "").strip()
    if not text:
        return ""
    if text[0].upper() in "ABCD":
        return text[0].upper()
    match = LETTER.search(text.upper())
    return match.group(1) if match else text.upper()


@dataclass
class _Read:
    """One results file read: its run, and what the aggregate check needs of it."""

    record: RunRecord
    dataset: CueDataset
    stem: str
    accuracy: JSONValue


def read_cuemem_runs(run_dir: Path, options: ReadOptions) -> list[RunRecord]:
    """Read every results file and submission of a CUE-Mem run directory, one RunRecord each.

    Raises:
        RunDirError: a results file that is not a CUE-Mem result list, or (``strict``) has
            a bad row.
        DatasetError: the history file cannot be found, read or matched.
    """
    run_dir = run_dir.resolve()
    files = results_files(run_dir)
    submissions = human.submission_files(run_dir)
    if not files and not submissions:
        raise RunDirError(
            "not a CUE-Mem run directory: it has no *_results.json and no human-baseline submission",
            where=str(run_dir),
            fix="Point at the folder run_bench.py or step2_run_experiment.py wrote results to, "
            "or at a variant folder of the human-baseline app's output.",
        )
    sources = recorded_sources(run_dir)
    place = roots.result_place(run_dir)
    found = aggregated.aggregates_for(run_dir) if files else aggregated.FolderAggregates()
    reads = [
        _read_results_file(path, options, sources.get("dataset"), place, found.files)
        for path in files
    ]
    _attach_aggregate_checks(found, reads)
    records = [read.record for read in reads]
    records += [
        human.read_submission(path, options, sources.get("dataset")) for path in submissions
    ]
    folder_notices = list(found.notices)
    if place is not None and reads:
        folder_notices += _pooled_roots_notice(place, run_dir)
    records[0].notices[:0] = folder_notices
    _note_repeated_participants(records)
    return records


def _pooled_roots_notice(place: roots.ResultPlace, run_dir: Path) -> list[Notice]:
    """A warning when the same ``<llm>/<memory>`` has results under another result root."""
    elsewhere = roots.same_runs_elsewhere(place, run_dir)
    if not elsewhere:
        return []
    others = ", ".join(path.relative_to(place.base).parts[0] for path in elsewhere)
    return [
        Notice(
            f"{'/'.join(place.below)} also has results under {others}: those are other runs "
            f"(their ids name the root), but a table groups runs by model and method and would "
            "pool them with these; table one root at a time, or pass --per-run",
            str(run_dir),
        )
    ]


def _attach_aggregate_checks(found: aggregated.FolderAggregates, reads: list[_Read]) -> None:
    """Each ``aggregated_accuracy*.json`` group naming this folder, checked against its runs'
    rows and merged into their ``upstream_check``; its warnings go with the group's first run."""
    if not found.groups:
        return
    runs = []
    for read in reads:
        questions = {q.qid: q.extra for q in read.dataset.record.questions}
        rows = []
        predictions = read.record.predictions
        if isinstance(predictions, BulkSource):
            continue  # never: CUE-Mem's reader builds its prediction table itself
        for qid, em in zip(
            predictions.column("qid").to_pylist(),
            predictions.column("em").to_pylist(),
            strict=True,
        ):
            extra = questions.get(qid, {})
            rows.append(
                (
                    str(extra.get("point") or "").strip().lower(),
                    str(extra.get("qa_type") or ""),
                    extra.get("entity_explicitness"),
                    extra.get("expression_type"),
                    bool(em),
                )
            )
        runs.append(aggregated.FileRun(read.stem, rows, read.accuracy))
    checks, notices = aggregated.checks_by_stem(found, runs)
    for read in reads:
        mine = checks.get(read.stem)
        if not mine:
            continue
        own = read.record.metrics.get(CHECK_KEY)
        earlier = [own] if isinstance(own, dict) and own else []
        read.record.metrics[CHECK_KEY] = merge_checks([*earlier, *mine])
        read.record.notices += notices.get(read.stem, [])


def _note_repeated_participants(records: list[RunRecord]) -> None:
    """A participant who submitted several times for one variant: each submission is a run,
    and a table's human row pools them all."""
    by_person: dict[str, list[RunRecord]] = {}
    for record in records:
        if record.config.get("layout") == "human_baseline":
            by_person.setdefault(str(record.config.get("participant")), []).append(record)
    for participant, submitted in by_person.items():
        if len(submitted) > 1:
            submitted[-1].notices.append(
                Notice(
                    f"participant {participant!r} submitted {len(submitted)} times for this "
                    "variant; each submission is a run, and a table's human row pools them "
                    "(pass --per-run, or move the earlier files away)",
                    submitted[-1].path,
                )
            )


def _read_results_file(
    path: Path,
    options: ReadOptions,
    recorded: Path | None,
    place: roots.ResultPlace | None,
    aggregates: list[Path],
) -> _Read:
    raw = read_json_file(path, what="CUE-Mem results file")
    meta: JSONObject = {}
    rows: list[JSONValue]
    results = raw.get("results") if isinstance(raw, dict) else None
    if isinstance(raw, dict) and isinstance(results, list):
        found_meta = raw.get("meta")
        meta = found_meta if isinstance(found_meta, dict) else {}
        rows, layout = results, "rq3_oracle"
    elif isinstance(raw, list):
        rows = raw
        layout = (
            "rq3"
            if any(isinstance(r, dict) and ("model_answer" in r or "qa_uid" in r) for r in rows)
            else "rq1_rq2"
        )
    else:
        raise RunDirError(
            "not a CUE-Mem results file: expected a JSON list of per-question records",
            where=str(path),
            fix="Point at the output of run_bench.py (RQ1/RQ2) or step2_run_experiment.py (RQ3).",
        )
    if not rows:
        raise RunDirError(
            "the results file has no records",
            where=str(path),
            fix="Re-run the benchmark or restore the file.",
        )
    stem = path.name[: -len(RESULTS_SUFFIX)]
    remembered = options.remembered_history(path.name)
    history = locate_history(
        path, stem, options.dataset, recorded, Path(remembered) if remembered else None
    )
    dataset = read_cuemem_dataset(history, strict=options.strict)
    notices: list[
        Notice
    ] = []  # the dataset's own notices travel with it (shown when it is first stored)
    efficiency = _efficiency(path.parent, stem) if layout == "rq1_rq2" else {}
    predictions, retrievals, items, matched = _tables(
        path,
        rows,
        layout,
        dataset,
        strict=options.strict,
        notices=notices,
        latency_ms=answer_latency_ms(efficiency),
    )
    compared = sum(1 for row in rows if isinstance(row, dict))
    if compared and matched / compared < MISMATCH_REFUSE_SHARE:
        raise DatasetError(
            f"the history file does not match this run: only {matched} of {compared} records name one of its QAs",
            where=str(history),
            fix="Pass the history file this run was made from with --dataset PATH.",
        )
    sample_ids = {
        str(r.get("sample_id")) for r in rows if isinstance(r, dict) and r.get("sample_id")
    }
    if dataset.profile_name and sample_ids and dataset.profile_name not in sample_ids:
        notices.append(
            Notice(
                f"the results name profile {min(sample_ids)!r}, the history file "
                f"{dataset.profile_name!r}",
                str(path),
            )
        )
    run_dir = path.parent
    method, model, modality = _describe(run_dir, layout, meta, efficiency, place)
    retrieval_kind: RetrievalKind = "ranked" if retrievals.num_rows else "none"
    if layout == "rq3_oracle" or (method or "") in (*CONTEXT_MEMORIES, *CONTEXT_METHODS):
        retrieval_kind = "context"
    depth = max(
        (
            len(_list(r, "retrieved_turn_ids") or _list(r, "retrieved_ids"))
            for r in rows
            if isinstance(r, dict)
        ),
        default=0,
    )
    accuracy_path = run_dir / f"{stem}_accuracy.json"
    accuracy = (
        read_json_file(accuracy_path, what="accuracy file") if accuracy_path.is_file() else None
    )
    metrics: JSONObject = {"accuracy": accuracy} if isinstance(accuracy, dict) else {}
    timing = {k: v for k, v in efficiency.items() if k in EFFICIENCY_NUMBERS and _is_number(v)}
    if timing:
        metrics["efficiency"] = timing  # the run's own timing, as its file wrote it
    if accuracy is not None:
        check = accuracy_check(accuracy_path, accuracy, predictions, dataset)
        metrics[CHECK_KEY] = check
        notices += check_notices(check)
    side = [p for p in (accuracy_path, run_dir / f"{stem}_efficiency.json") if p.is_file()]
    content_hash, stats = file_digest([path, *side, *aggregates, history])
    record = RunRecord(
        run_id=f"{run_dir.name}:{stem}",
        path=str(path),
        content_hash=content_hash,
        file_stats=stats,
        benchmark="cuemem",
        task=dataset.record.task,
        model=model,
        method=method,
        base_method=method,
        modality=modality,
        mode="mcq",
        top_k=depth if retrieval_kind == "ranked" and depth else None,
        retrieval_kind=retrieval_kind,
        config={
            "layout": layout,
            "results_file": path.name,
            "history_file": str(history),
            "meta": meta,
            **(place.config() if place is not None and layout == "rq1_rq2" else {}),
        },
        metrics=metrics,
        dataset=dataset.record,
        predictions=predictions,
        retrievals=retrievals,
        notices=notices,
        detail_tables={"cue_retrieved_items": items} if layout == "rq3" else {},
    )
    return _Read(record, dataset, stem, accuracy)


OVERALL_KEY = "__overall__"
BUCKET_FIELDS = ("correct", "total", "accuracy")


def accuracy_check(
    path: Path, accuracy: JSONValue, predictions: pa.Table, dataset: CueDataset
) -> JSONObject:
    """``run_bench.py``'s ``<data>_accuracy.json`` against the stored answers.

    Upstream writes ``{<category>: {"overall": {correct, total, accuracy (%)}, explicit:
    …}, "__overall__": {"overall": {...}}}``, a category being the QA's ``point``. The
    ``overall`` bucket of each category and ``__overall__`` are recomputed (correct and
    total exactly, accuracy to :data:`PERCENT_TOLERANCE` points); the explicit / implicit
    buckets are not, because RQ1/RQ2 label those by its own rule (upstream-formats.md 3.2).
    """
    surprises: list[str] = []
    comparisons: list[Comparison] = []
    if not isinstance(accuracy, dict):
        surprises.append(
            f"{path.name} is not a JSON object of categories (a {type(accuracy).__name__}); not cross-checked"
        )
        return summary_check(str(path), comparisons, surprises=surprises)
    point_of = {q.qid: str(q.extra.get("point") or "") for q in dataset.record.questions}
    tallies: dict[str, list[int]] = {}
    for qid, em in zip(
        predictions.column("qid").to_pylist(), predictions.column("em").to_pylist(), strict=True
    ):
        for key in (point_of.get(qid, ""), OVERALL_KEY):
            tally = tallies.setdefault(key, [0, 0])
            tally[0] += int(bool(em))
            tally[1] += 1
    for category, buckets in accuracy.items():
        bucket = buckets.get("overall") if isinstance(buckets, dict) else None
        if not isinstance(bucket, dict):
            surprises.append(
                f"{path.name}: category {str(category)[:40]!r} has no 'overall' bucket; not cross-checked"
            )
            continue
        missing = [name for name in BUCKET_FIELDS if not _is_number(bucket.get(name))]
        if missing:
            surprises.append(
                f"{path.name}: {str(category)[:40]}.overall lacks the number(s) {', '.join(missing)}"
            )
        correct, total = tallies.get(str(category), [0, 0])
        recomputed = {
            "correct": correct,
            "total": total,
            "accuracy": 100.0 * correct / total if total else 0.0,
        }
        for name in BUCKET_FIELDS:
            if name in missing:
                continue
            tolerance = PERCENT_TOLERANCE if name == "accuracy" else 0.0
            comparisons.append((f"{category}.{name}", bucket[name], recomputed[name], tolerance))
    for category in sorted(set(tallies) - set(map(str, accuracy)) - {OVERALL_KEY}):
        comparisons.append((f"{category}.total", None, tallies[category][1], 0.0))
    return summary_check(str(path), comparisons, surprises=surprises)


def _is_number(value: JSONValue) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


EFFICIENCY_NUMBERS = (
    "conversation_turns",
    "qa_count",
    "qa_completed",
    "max_workers",
    "memory_time_seconds",
    "qa_time_seconds",
    "total_time_seconds",
)
"""The numbers of ``<stem>_efficiency.json`` (run_bench.py ``--save_efficiency``)."""


def _efficiency(run_dir: Path, stem: str) -> JSONObject:
    """The sibling ``<stem>_efficiency.json`` of an RQ1/RQ2 results file ({} where there is
    none or it is unreadable: it only names the run and times it, so nothing depends on it)."""
    efficiency_path = run_dir / f"{stem}_efficiency.json"
    if not efficiency_path.is_file():
        return {}
    try:
        loaded = json.loads(read_regular(efficiency_path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def answer_latency_ms(efficiency: JSONObject) -> int | None:
    """What one answer cost in time, from the run's efficiency file: the QA phase's
    wall-clock time over the answers it completed, in ms (None without both numbers).

    The file times the whole QA phase, not each answer, so every answer of the run carries
    this mean; with ``max_workers`` answering in parallel it is the wall-clock share of an
    answer (docs/metrics.md §12, cost).
    """
    seconds = efficiency.get("qa_time_seconds")
    completed = efficiency.get("qa_completed")
    if not _is_number(completed) or not completed:
        completed = efficiency.get("qa_count")
    if not (_is_number(seconds) and _is_number(completed)):
        return None
    if seconds <= 0 or completed <= 0:  # type: ignore[operator]
        return None  # no answer takes no time: a zero is a file written without timing
    return round(float(seconds) * 1000 / float(completed))  # type: ignore[arg-type]


def _describe(
    run_dir: Path,
    layout: str,
    meta: JSONObject,
    efficiency: JSONObject,
    place: roots.ResultPlace | None = None,
) -> tuple[str | None, str | None, str | None]:
    """``(method, model, modality)`` of a results file.

    RQ3: the variant folder (TT/TM/MT/MM) is the method and its parent the model
    (``<provider>_<model>``); the oracle's ``meta`` names both. RQ1/RQ2: the sibling
    ``<stem>_efficiency.json`` names ``memory_name``, ``llm_name`` and ``is_multimodal``;
    without it the folders ``<llm_name>/<memory_name>/`` do, or below
    ``result_question_only`` / ``result_oracle_evidence`` the root and ``<llm_name>/``
    (``roots.describe``).
    """
    if layout == "rq3_oracle":
        mode = meta.get("oracle_input_mode") or run_dir.parent.parent.name
        model = meta.get("llm_name") or run_dir.name
        return (
            f"oracle_evidence_{mode}",
            str(model),
            "multimodal" if mode == "multimodal" else "text_only",
        )
    if layout == "rq3":
        if run_dir.name in RQ3_VARIANTS:
            return run_dir.name, run_dir.parent.name, RQ3_VARIANTS[run_dir.name]
        return run_dir.name, None, None
    multimodal = efficiency.get("is_multimodal")
    modality = (
        ("multimodal" if multimodal else "text_only") if isinstance(multimodal, bool) else None
    )
    folder_method, folder_model = roots.describe(place, run_dir)
    method = str(efficiency.get("memory_name") or folder_method)
    model = str(efficiency.get("llm_name") or folder_model)
    return method, model, modality


def _tables(
    path: Path,
    rows: list[JSONValue],
    layout: str,
    dataset: CueDataset,
    *,
    strict: bool,
    notices: list[Notice],
    latency_ms: int | None = None,
) -> tuple[pa.Table, pa.Table, pa.Table, int]:
    """Predictions, retrievals and retrieved items (Arrow) and how many rows matched a QA;
    ``latency_ms`` is every answer's (the run's efficiency file times only the whole run)."""
    from memscope.plugin import typed_table

    questions = {q.qid: q for q in dataset.record.questions}
    prediction: dict[str, list[object]] = {
        n: []
        for n in (
            "qid",
            "line_no",
            "mode",
            "question",
            "gold",
            "pred",
            "choice",
            "em",
            "exact_match",
            "latency_ms",
            "extra",
        )
    }
    retrieval: dict[str, list[object]] = {
        n: [] for n in ("qid", "rank", "round_id", "score", "origin")
    }
    item_rows: dict[str, list[object]] = {
        n: []
        for n in (
            "qid",
            "turn_id",
            "turn_rank",
            "item_id",
            "modality",
            "path",
            "fallback",
            "score",
            "item_rank",
            "query_source",
            "query_letter",
            "composition_method",
        )
    }
    bad: list[tuple[str, str]] = []
    unmatched: list[str] = []
    duplicates: list[str] = []
    errors = 0
    seen: set[str] = set()
    matched = 0
    for number, row in enumerate(rows, start=1):
        where = f"{path} [record {number}]"
        if not isinstance(row, dict):
            bad.append((where, f"not a JSON object (a {type(row).__name__})"))
            continue
        problem = _row_problem(row, layout)
        if problem:
            bad.append((where, problem))
            continue
        uid_parts = str(row.get("qa_uid") or "").split("::")
        point = str(
            row.get("point")
            or (row.get("category") if layout == "rq1_rq2" else None)
            or (uid_parts[1] if len(uid_parts) == 3 else "")
        ).strip()
        qa_id = str(row.get("qa_id") or str(row.get("qa_uid")).split(":")[-1]).strip()
        qid = dataset.qid_by_key.get((point, qa_id))
        if qid is None:
            unmatched.append(f"{point}/{qa_id}")
            continue
        matched += 1
        if qid in seen:
            duplicates.append(f"{point}/{qa_id}")
            continue
        seen.add(qid)
        gold = questions[qid].gold
        if layout == "rq1_rq2":
            answer = str(row.get("system_answer") or "")
            choice = extract_choice(answer)
            gold_choice = extract_choice(row.get("original_answer") or gold)
            correct = bool(choice) and choice == gold_choice
            ranked = [str(i) for i in _list(row, "retrieved_ids") if i is not None]
            scores: list[float | None] = [None] * len(ranked)
        else:
            answer = str(row.get("raw_response") or row.get("model_answer") or "")
            choice = str(row.get("model_answer") or "").strip() or extract_choice(answer)
            correct = (
                bool(row["correct"])
                if isinstance(row.get("correct"), bool)
                else choice == str(row.get("answer") or gold or "").strip()
            )
            ranked = [str(i) for i in _list(row, "retrieved_turn_ids") if i is not None]
            raw_scores = _list(row, "retrieved_scores")
            scores = [
                s if isinstance(s, (int, float)) and not isinstance(s, bool) else None
                for s in raw_scores
            ]
            scores += [None] * (len(ranked) - len(scores))
            if row.get("error"):
                errors += 1
        extra: JSONObject = {
            key: row[key]
            for key in ("qa_uid", "reasoning", "reasoning_sessions", "error", "timestamp")
            if row.get(key)
        }
        prediction["qid"].append(qid)
        prediction["line_no"].append(number)
        prediction["mode"].append("mcq")
        prediction["question"].append(str(row.get("question") or ""))
        prediction["gold"].append(gold)
        prediction["pred"].append(answer)
        prediction["choice"].append(choice or None)
        prediction["em"].append(1.0 if correct else 0.0)
        prediction["exact_match"].append(correct)
        prediction["latency_ms"].append(latency_ms)
        prediction["extra"].append(json.dumps(extra, ensure_ascii=False) if extra else None)
        turn_rank: dict[str, int] = {}
        for retrieved, score in zip(ranked, scores, strict=False):  # extra scores are ignored
            turn, _problem = dataset.clues.resolve(retrieved)
            round_id = turn or retrieved
            if round_id in turn_rank:
                continue
            turn_rank[round_id] = len(turn_rank) + 1
            retrieval["qid"].append(qid)
            retrieval["rank"].append(turn_rank[round_id])
            retrieval["round_id"].append(round_id)
            retrieval["score"].append(float(score) if score is not None else None)
            retrieval["origin"].append("logged")
        if layout == "rq3":
            _collect_items(row.get("retrieved_items"), qid, turn_rank, item_rows)
    if bad and strict:
        listed = "\n    ".join(f"{where}: {why}" for where, why in bad[:MAX_LISTED])
        raise RunDirError(
            f"{len(bad)} bad record(s) in the results file; nothing was ingested (--strict):\n    {listed}",
            where=str(path),
            fix="Fix the records, or drop --strict to ingest the good ones.",
        )
    for where, why in bad[:MAX_LISTED]:
        notices.append(Notice(f"{why}; record skipped", where))
    if len(bad) > MAX_LISTED:
        notices.append(Notice(f"{len(bad) - MAX_LISTED} more bad record(s) skipped", str(path)))
    if unmatched:
        notices.append(
            Notice(
                f"{len(unmatched)} record(s) name no QA of the history file (point/qa_id); skipped",
                str(path),
                tuple(unmatched[:3]),
            )
        )
    if duplicates:
        notices.append(
            Notice(
                f"{len(duplicates)} record(s) repeat a QA; the first is kept",
                str(path),
                tuple(duplicates[:3]),
            )
        )
    if errors:
        notices.append(
            Notice(
                f"{errors} record(s) carry an 'error' (the worker failed); they count as wrong",
                str(path),
            )
        )
    if not prediction["qid"] and not unmatched:
        raise RunDirError(
            "the results file has no usable record",
            where=str(path),
            fix="See the warnings above; the file may be from another benchmark.",
        )
    predictions = typed_table(prediction)
    retrievals = typed_table(retrieval)
    items = typed_table(item_rows)
    return predictions, retrievals, items, matched


def _list(row: JSONObject, name: str) -> list[JSONValue]:
    """A list field of a record (``_row_problem`` refused any other value); empty when unset."""
    value = row.get(name)
    return value if isinstance(value, list) else []


def _row_problem(row: JSONObject, layout: str) -> str | None:
    """Why a record cannot be used, or None."""
    if row.get("qa_id") in (None, "") and not row.get("qa_uid"):
        return "missing required field 'qa_id'"
    if not (row.get("point") or row.get("category") or row.get("qa_uid")):
        return "missing 'point' / 'category' (the QA's task type)"
    answer_fields = (
        ("system_answer", "original_answer")
        if layout == "rq1_rq2"
        else ("model_answer", "answer", "raw_response")
    )
    for name in answer_fields:
        if row.get(name) is not None and not isinstance(row[name], str):
            return f"field {name!r} must be a string, got {type(row[name]).__name__}"
    for name in (
        "retrieved_ids",
        "retrieved_turn_ids",
        "retrieved_scores",
        "retrieved_items",
        "clue",
    ):
        if row.get(name) is not None and not isinstance(row[name], list):
            return f"field {name!r} must be a list, got {type(row[name]).__name__}"
    if layout == "rq3" and row.get("correct") is not None and not isinstance(row["correct"], bool):
        return f"field 'correct' must be true or false, got {row['correct']!r}"[:120]
    return None


def _collect_items(
    value: JSONValue, qid: str, turn_rank: dict[str, int], out: dict[str, list[object]]
) -> None:
    """Flatten RQ3 ``retrieved_items`` ([{turn_id, items: [...]}]) into detail rows."""
    if not isinstance(value, list):
        return
    for group in value:
        items = group.get("items") if isinstance(group, dict) else None
        if not isinstance(group, dict) or not isinstance(items, list):
            continue
        turn_id = str(group.get("turn_id") or "")
        for item in items:
            if not isinstance(item, dict):
                continue
            metadata = item.get("query_metadata")
            query: JSONObject = metadata if isinstance(metadata, dict) else {}
            score = item.get("score")
            rank = item.get("rank")
            out["qid"].append(qid)
            out["turn_id"].append(turn_id)
            out["turn_rank"].append(turn_rank.get(turn_id))
            out["item_id"].append(str(item["item_id"]) if item.get("item_id") is not None else None)
            out["modality"].append(str(item["modality"]) if item.get("modality") else None)
            out["path"].append(str(item["path"]) if item.get("path") else None)
            out["fallback"].append(
                bool(item["fallback"]) if isinstance(item.get("fallback"), bool) else None
            )
            out["score"].append(
                float(score)
                if isinstance(score, (int, float)) and not isinstance(score, bool)
                else None
            )
            # A rank is a position in a list: one beyond 32 bits is no rank (and no column holds it).
            out["item_rank"].append(
                int(rank)
                if isinstance(rank, int) and not isinstance(rank, bool) and 0 <= rank <= MAX_RANK
                else None
            )
            out["query_source"].append(str(query["source"]) if query.get("source") else None)
            out["query_letter"].append(str(query["letter"]) if query.get("letter") else None)
            out["composition_method"].append(
                str(query["composition_method"]) if query.get("composition_method") else None
            )
