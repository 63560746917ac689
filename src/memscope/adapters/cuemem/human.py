"""CUE-Mem's human baseline: the annotation app's submissions, each read as a run.

The release's app (``scripts/human_baseline_demo/server.py``, upstream-formats.md §3.6) writes
``<output-dir>/<profile>/<variant>/<unix_ts>_<participant>.json``: ``{participant, variant,
profile, submitted_at, data_file, total, answered, correct, accuracy, answered_accuracy,
details: [{key "qa_id::point::qa_type", qa_id, point, qa_type, category, gold, answer,
answered, correct}]}`` with one detail per QA of the history file, unanswered ones included.

**One run per submission** (one person, one sitting): run id ``<variant>:<file stem>``,
``model`` none (a person answered), ``method`` ``human_<variant>`` (the table shows the app's
names, "Human (Full Multimodal)" …), ``base_method`` ``human``, modality from the variant, a
fixed context (retrieval kind ``context``: the person read the history, or the oracle clues).
A table groups runs by model and method, so its human row pools every participant of a
variant, as the paper reports humans, one row per setting; ``--per-run`` shows each one.

**Joined like the other runs**: the history file is ``data_file``'s name (else
``history_with_qa_<profile>.json``), found as for results files and also as ``data_file``
(a path relative to the app's project root) below each folder above the submission; a detail
is the QA ``(point, qa_id)``, the identity RQ1/RQ2 and RQ3 rows use, so ``compare`` pairs a
model run and a person question by question. An unanswered QA counts as wrong, as the app's
``accuracy`` does (its ``answered_accuracy`` leaves them out); correctness is the app's
``correct``. The submission's own numbers (``total``, ``answered``, ``correct``, ``accuracy``,
``answered_accuracy``) are recomputed from the stored rows (``upstream_check``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from memscope.adapters.cuemem.dataset import CueDataset, read_cuemem_dataset
from memscope.adapters.cuemem.history import locate_history
from memscope.adapters.cuemem.names import HUMAN, human_method
from memscope.plugin import (
    CHECK_KEY,
    PERCENT_TOLERANCE,
    Comparison,
    DatasetError,
    JSONObject,
    JSONValue,
    Notice,
    ReadOptions,
    RunDirError,
    RunRecord,
    check_notices,
    file_digest,
    read_json_file,
    summary_check,
)

if TYPE_CHECKING:
    import pyarrow as pa

SUBMISSION_NAME = re.compile(r"^\d+_[0-9A-Za-z._-]+\.json$")
"""``<unix_ts>_<participant>.json`` (the app keeps ``[0-9A-Za-z._-]`` of the name)."""
OTHER_SUFFIXES = ("_results.json", "_accuracy.json", "_efficiency.json")
VARIANT_MODALITY = {
    "full_multimodal": "multimodal",
    "oracle_multimodal": "multimodal",
    "full_text": "text_only",
    "oracle_text": "text_only",
}
CHOICES = "ABCD"
PROFILE = re.compile(r"^p(\d+)$", re.IGNORECASE)
SNIFF_FILES = 3
SNIFF_MAX_BYTES = 32 * 1024 * 1024
MISMATCH_REFUSE_SHARE = 0.5
MAX_LISTED = 10


def _candidates(folder: Path) -> list[Path]:
    try:
        return sorted(
            p
            for p in folder.iterdir()
            if SUBMISSION_NAME.match(p.name)
            and not p.name.endswith(OTHER_SUFFIXES)
            and not p.name.startswith("aggregated_")
            and p.is_file()
        )
    except OSError:
        return []


def is_submission(data: JSONValue) -> TypeGuard[JSONObject]:
    """Whether parsed JSON is a submission of the app."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("details"), list)
        and "participant" in data
        and "variant" in data
    )


def _looks_like_submission(path: Path) -> bool:
    try:
        if path.stat().st_size > SNIFF_MAX_BYTES:
            return False
        return is_submission(json.loads(path.read_text(encoding="utf-8-sig")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False


def submission_files(folder: Path) -> list[Path]:
    """The submissions of a folder: every ``<unix_ts>_<participant>.json`` of it when one of
    the first few is one (then a broken one is an error, not a file passed over)."""
    candidates = _candidates(folder)
    if any(_looks_like_submission(path) for path in candidates[:SNIFF_FILES]):
        return candidates
    return []


def _letter(value: JSONValue) -> str:
    """The app's ``normalize_answer``: the first character when it is A–D, else the first
    stand-alone A–D, else nothing."""
    text = str(value or "").strip().upper()
    if text and text[0] in CHOICES:
        return text[0]
    match = re.search(r"\b([A-D])\b", text)
    return match.group(1) if match else ""


def _history_hint(data: JSONObject) -> tuple[list[str], Path | None]:
    """The history file names to look for, and ``data_file``'s folder when it is relative."""
    names: list[str] = []
    folder: Path | None = None
    data_file = data.get("data_file")
    if isinstance(data_file, str) and data_file.strip().endswith(".json"):
        path = Path(data_file.strip().replace("\\", "/"))
        names.append(path.name)
        if not path.is_absolute() and len(path.parts) > 1:
            folder = path.parent
    profile = PROFILE.match(str(data.get("profile") or "").strip())
    if profile:
        names.append(f"history_with_qa_p{int(profile.group(1))}.json")
    return list(dict.fromkeys(names)), folder


def read_submission(path: Path, options: ReadOptions, recorded: Path | None) -> RunRecord:
    """One submission as a run.

    Raises:
        RunDirError: the file is not a submission, or names no answers.
        DatasetError: its history file cannot be found, read or matched.
    """
    data = read_json_file(path, what="human-baseline submission")
    if not is_submission(data):
        raise RunDirError(
            "not a human-baseline submission: expected an object with 'participant', "
            "'variant' and a 'details' list",
            where=str(path),
            fix="Leave only the files the human-baseline app wrote in this folder.",
        )
    details = data["details"]
    if not isinstance(details, list) or not details:
        raise RunDirError(
            "the submission has no answers ('details' is empty)",
            where=str(path),
            fix="Submit again from the app, or remove the file.",
        )
    names, below = _history_hint(data)
    if not names:
        raise DatasetError(
            "the submission names no history file (no 'data_file' or 'profile')",
            where=str(path),
            fix="Pass the history file it was answered on with --dataset PATH.",
        )
    remembered = options.remembered_history(path.name)
    history = locate_history(
        path,
        path.stem,
        options.dataset,
        recorded,
        Path(remembered) if remembered else None,
        names=names,
        below_ancestors=below,
    )
    dataset = read_cuemem_dataset(history, strict=options.strict)
    notices: list[Notice] = []
    predictions, matched, answered = _predictions(path, details, dataset, options.strict, notices)
    if matched / len(details) < MISMATCH_REFUSE_SHARE:
        raise DatasetError(
            f"the history file does not match this submission: only {matched} of "
            f"{len(details)} answers name one of its QAs",
            where=str(history),
            fix="Pass the history file the participant answered with --dataset PATH.",
        )
    profile = PROFILE.match(str(data.get("profile") or "").strip())
    if profile and not re.search(rf"_p{int(profile.group(1))}\.json$", history.name):
        notices.append(
            Notice(
                f"the submission is for profile {data['profile']!r}, the history file is "
                f"{history.name}",
                str(path),
            )
        )
    variant = str(data.get("variant") or path.parent.name)
    check = submission_check(path, data, predictions.num_rows, answered, predictions)
    notices += check_notices(check)
    content_hash, stats = file_digest([path, history])
    return RunRecord(
        run_id=f"{path.parent.name}:{path.stem}",
        path=str(path),
        content_hash=content_hash,
        file_stats=stats,
        benchmark="cuemem",
        task=dataset.record.task,
        model=None,
        method=human_method(variant),
        base_method=HUMAN,
        modality=VARIANT_MODALITY.get(variant),
        mode="mcq",
        top_k=None,
        retrieval_kind="context",
        config={
            "layout": "human_baseline",
            "results_file": path.name,
            "history_file": str(history),
            "participant": str(data.get("participant") or ""),
            "variant": variant,
            "profile": data.get("profile"),
            "submitted_at": data.get("submitted_at"),
            "data_file": data.get("data_file"),
        },
        metrics={CHECK_KEY: check},
        dataset=dataset.record,
        predictions=predictions,
        retrievals=_no_retrievals(),
        notices=notices,
    )


def _predictions(
    path: Path, details: list[JSONValue], dataset: CueDataset, strict: bool, notices: list[Notice]
) -> tuple[pa.Table, int, int]:
    """The predictions table, how many details named a QA, and how many were answered."""
    from memscope.plugin import typed_table

    questions = {q.qid: q for q in dataset.record.questions}
    columns: dict[str, list[object]] = {
        name: []
        for name in (
            "qid",
            "line_no",
            "mode",
            "question",
            "gold",
            "pred",
            "choice",
            "em",
            "exact_match",
            "extra",
        )
    }
    bad: list[tuple[str, str]] = []
    unmatched: list[str] = []
    duplicates: list[str] = []
    gold_changed: list[str] = []
    seen: set[str] = set()
    matched = answered = 0
    for number, detail in enumerate(details, start=1):
        where = f"{path} [answer {number}]"
        if not isinstance(detail, dict):
            bad.append((where, f"not a JSON object (a {type(detail).__name__})"))
            continue
        key_parts = str(detail.get("key") or "").split("::")
        qa_id = str(detail.get("qa_id") or key_parts[0]).strip()
        point = str(detail.get("point") or (key_parts[1] if len(key_parts) > 1 else "")).strip()
        if not qa_id or not point:
            bad.append((where, "names no QA (no 'qa_id' / 'point', no 'key')"))
            continue
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
        answer = _letter(detail.get("answer"))
        is_answered = (
            bool(detail["answered"]) if isinstance(detail.get("answered"), bool) else bool(answer)
        )
        written_gold = _letter(detail.get("gold")) or (gold or "")
        if gold and written_gold != gold:
            gold_changed.append(f"{point}/{qa_id}")
        correct = (
            bool(detail["correct"])
            if isinstance(detail.get("correct"), bool)
            else is_answered and answer == written_gold
        )
        answered += int(is_answered)
        extra: JSONObject = {"key": detail["key"]} if detail.get("key") else {}
        if not is_answered:
            extra["answered"] = False
        columns["qid"].append(qid)
        columns["line_no"].append(number)
        columns["mode"].append("mcq")
        columns["question"].append(questions[qid].question)
        columns["gold"].append(gold)
        columns["pred"].append(answer)
        columns["choice"].append(answer or None)
        columns["em"].append(1.0 if correct else 0.0)
        columns["exact_match"].append(correct)
        columns["extra"].append(json.dumps(extra, ensure_ascii=False) if extra else None)
    if bad and strict:
        listed = "\n    ".join(f"{where}: {why}" for where, why in bad[:MAX_LISTED])
        raise RunDirError(
            f"{len(bad)} bad answer(s) in the submission; nothing was ingested (--strict):\n    {listed}",
            where=str(path),
            fix="Fix the answers, or drop --strict to ingest the good ones.",
        )
    notices += [Notice(f"{why}; answer skipped", where) for where, why in bad[:MAX_LISTED]]
    if unmatched:
        notices.append(
            Notice(
                f"{len(unmatched)} answer(s) name no QA of the history file (point/qa_id); skipped",
                str(path),
                tuple(unmatched[:3]),
            )
        )
    if duplicates:
        notices.append(
            Notice(
                f"{len(duplicates)} answer(s) repeat a QA; the first is kept",
                str(path),
                tuple(duplicates[:3]),
            )
        )
    if gold_changed:
        notices.append(
            Notice(
                f"{len(gold_changed)} answer(s) were scored against another gold letter than the "
                "history file's (it changed since the submission); the app's scoring is kept",
                str(path),
                tuple(gold_changed[:3]),
            )
        )
    unanswered = len(columns["qid"]) - answered
    if unanswered:
        notices.append(
            Notice(
                f"{unanswered} of {len(columns['qid'])} QAs were left unanswered; they count as "
                "wrong, as the app's accuracy counts them (its answered_accuracy leaves them out)",
                str(path),
            )
        )
    return typed_table(columns), matched, answered


def submission_check(
    path: Path, data: JSONObject, total: int, answered: int, predictions: pa.Table
) -> JSONObject:
    """The submission's own numbers against the stored rows."""
    correct = int(sum(predictions.column("em").to_pylist()))
    recomputed = {
        "total": total,
        "answered": answered,
        "correct": correct,
        "accuracy": round(100.0 * correct / total, 2) if total else 0.0,
        "answered_accuracy": round(100.0 * correct / answered, 2) if answered else 0.0,
    }
    comparisons: list[Comparison] = []
    surprises: list[str] = []
    for name, mine in recomputed.items():
        value = data.get(name)
        if value is None:
            continue
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            surprises.append(f"{path.name}: {name} is not a number ({str(value)[:40]!r})")
            continue
        tolerance = PERCENT_TOLERANCE if "accuracy" in name else 0.0
        comparisons.append((name, value, mine, tolerance))
    return summary_check(str(path), comparisons, surprises=surprises)


def _no_retrievals() -> pa.Table:
    from memscope.plugin import typed_table

    return typed_table({name: [] for name in ("qid", "rank", "round_id", "score", "origin")})
