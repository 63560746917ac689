"""Reads the QA run files LoCoMo's ``task_eval/evaluate_qa.py`` writes: one run per file and key.

Format (snap-research/LoCoMo, main ``3eb6f2c`` and the LLM-judge merge ``567b067``): the
``--out-file`` is a JSON list ``[{sample_id, qa: [...]}]`` whose QA items are copies of the
dataset's with, per ``<key>``, ``<key>_prediction``, ``<key>_f1`` (token F1 rounded to 3;
category 5 scored by refusal), optionally ``<key>_llm`` (an LLM judge's 0/1) and, with RAG,
``<key>_recall`` and the retrieved ids in rank order. Upstream's answerers write those under
``<key>_prediction_context`` (``gpt_utils.py``: ``prediction_key + '_context'``); a bare
``<key>_context`` is read too. ``<key>`` is ``<model>`` or ``<model>_<rag mode>_top_<k>``
(:func:`parse_key`); a file re-run with another model holds several keys.

**Recognising a run directory.** A folder holding a ``*.json`` (not ``*_stats.json``) whose
first 256 KiB is a JSON list of objects with a ``"qa"`` list and some ``"…_prediction"``
field, or ``"…_prediction_context"`` / ``"…_context"`` list of a retrieval-only run
(:func:`looks_like_run_file`); the dataset itself has neither, so it is never a run.

**Retrieval-only runs.** A key with a context but no ``<key>_prediction`` in any item (what
``memscope retrieve`` writes, ``native_run``) is a run of retrieval alone: its items with a
context are rows without an answer whose ``f1`` and ``judge`` are null (ungraded, not 0),
``retrieval_kind`` is ``ranked`` and the run's config says ``"retrieval_only": true``; items
without a context were not retrieved and are not part of the run.

**Run ids** (:func:`run_id_for`): ``<folder>:<key>`` (``rsr_0612:honcho``); when several run
files of the folder hold the same key, ``<folder>:<file stem>:<key>``. The run's ``path`` is
``<folder>#<file name>:<key>``, unique per run, whose part before ``#`` is the folder the id
starts with.

**Joining the dataset.** Items join the dataset's questions by sample and position
(``<sample_id>:q<N>``), checked on the question text; an item whose text differs is joined to
the sample's question with that text when there is exactly one, else skipped. A file of which
fewer than half of the items join is refused as made from another dataset. The dataset is
``--dataset`` (a file, or a folder holding ``locomo10.json`` or one LoCoMo dataset), else
``data/locomo10.json`` (or any LoCoMo-shaped ``data/*.json``) in the run folder or up to
:data:`ANCESTOR_LEVELS` folders above it (LoCoMo's layout: ``data/`` beside the outputs).

**What a run lacks.** Upstream's stats divide each metric's sum by every question of the
category, so a question without ``<key>_prediction`` counts as 0: it gets a prediction row
with no answer, F1 0 and (when the key has judge verdicts) judge 0, marked
``{"unanswered": true}``; an answer without its ``<key>_llm`` verdict gets judge 0, marked
``{"unjudged": true}``. Their qids are in ``config["unanswered_qids"]`` and a notice says
how many. Samples of the dataset the file does not hold are not part of the run (upstream
ignores them too); a notice says so.

The dataset (and ``--images``) may also be named by the folder's ``memscope_sources.json``
(``memscope retrieve`` writes one); a flag given on the command line wins.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.adapters.locomo.dataset import (
    BENCHMARK,
    MODE,
    LocomoDataset,
    looks_like_dataset,
    normalised,
    read_locomo_dataset,
)
from memscope.adapters.locomo.summary import stats_files, upstream_stats_check
from memscope.plugin import (
    CHECK_KEY,
    DatasetError,
    JSONObject,
    JSONValue,
    Notice,
    ReadOptions,
    RetrievalKind,
    RunDirError,
    RunRecord,
    file_digest,
    read_json_file,
    recorded_sources,
)

if TYPE_CHECKING:
    import pyarrow as pa

PREDICTION_SUFFIX = "_prediction"
CONTEXT_SUFFIXES = ("_prediction_context", "_context")
"""Where a key's retrieved ids are: upstream's answerers write ``<key>_prediction_context``."""
STATS_SUFFIX = "_stats.json"
RAG_MODES = ("dialog", "observation", "summary")
RAG_KEY = re.compile(r"^(?P<model>.+)_(?P<mode>dialog|observation|summary)_top_(?P<k>\d+)$")
NO_RAG_METHOD = "no_rag"
"""The method of a key without a RAG suffix: upstream gave the model the conversation itself
(truncated to its context window), or the system (e.g. Honcho) kept its own memory."""
KNOWN_FIELDS = ("prediction", "f1", "llm", "recall", "prediction_context", "context")
SNIFF_BYTES = 256 * 1024
ANCESTOR_LEVELS = 5
DATASET_NAME = "locomo10.json"
IMAGES_OPTION = "images"
"""``ReadOptions.extra`` key of the folder of local image copies (``--images DIR``)."""
MISMATCH_REFUSE_SHARE = 0.5
MAX_LISTED = 10
MAX_EXAMPLES = 3
LOOKS_LIKE_RUN = re.compile(rb'"[^"\\]{1,300}_prediction"\s*:|"[^"\\]{1,300}_context"\s*:\s*\[')


@dataclass(frozen=True)
class RunKey:
    """What a ``<key>`` says: ``gpt-4-turbo_dialog_top_5`` is model ``gpt-4-turbo``, RAG over
    dialog turns, top 5."""

    key: str
    model: str
    rag_mode: str | None
    top_k: int | None

    @property
    def method(self) -> str:
        """``rag_<mode>`` (``rag_dialog``, ``rag_observation``, ``rag_summary``) or ``no_rag``."""
        return f"rag_{self.rag_mode}" if self.rag_mode else NO_RAG_METHOD


def parse_key(key: str) -> RunKey:
    """Split a run key into model, RAG mode and k (``<model>`` or ``<model>_<mode>_top_<k>``)."""
    match = RAG_KEY.match(key)
    if match:
        return RunKey(key, match["model"], match["mode"], int(match["k"]))
    return RunKey(key, key, None, None)


def looks_like_run_file(path: Path) -> bool:
    """Whether ``path`` looks like a LoCoMo run file, from its first 256 KiB only.

    A ``*.json`` that is not a ``*_stats.json`` summary, starting as a JSON list of objects,
    naming a ``"qa"`` list and some ``"<key>_prediction"`` field or, in a retrieval-only run,
    some ``"<key>_prediction_context"`` (``"<key>_context"``) list.
    """
    if not path.name.endswith(".json") or path.name.endswith(STATS_SUFFIX):
        return False
    try:
        if not path.is_file():
            return False
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return (
        head[:1] == b"["
        and head[1:].lstrip()[:1] == b"{"
        and re.search(rb'"qa"\s*:\s*\[', head) is not None
        and LOOKS_LIKE_RUN.search(head) is not None
    )


def run_files(path: Path) -> list[Path]:
    """The LoCoMo run files of a directory, sorted by name."""
    try:
        candidates = sorted(p for p in path.iterdir() if p.suffix == ".json")
    except OSError:
        return []
    return [p for p in candidates if looks_like_run_file(p)]


def is_locomo_run(path: Path) -> bool:
    """Whether the directory ``path`` holds a LoCoMo run file: upstream's, or a memory
    system's own harness output (``harness``), recognised by content."""
    return bool(run_files(path)) or bool(_harness_runs(path))


def _harness_runs(path: Path) -> list[tuple[Path, str]]:
    """The harness files of a folder that are runs (Zep's responses file is not one)."""
    from memscope.adapters.locomo.harness import ZEP_RESPONSES, harness_files

    return [(p, family) for p, family in harness_files(path) if family != ZEP_RESPONSES]


def run_id_for(folder: str, stem: str, key: str, *, shared_key: bool) -> str:
    """``<folder>:<key>``, or ``<folder>:<stem>:<key>`` when another run file of the folder
    holds the same key (``shared_key``)."""
    return f"{folder}:{stem}:{key}" if shared_key else f"{folder}:{key}"


def read_locomo_runs(run_dir: Path, options: ReadOptions) -> list[RunRecord]:
    """Every run of a LoCoMo run directory: one RunRecord per run file and key, files by name,
    keys sorted.

    ``options.dataset`` names the dataset (file or folder); ``options.extra["images"]`` a
    folder of local image copies; ``options.strict`` refuses a file with a bad item.

    Raises:
        RunDirError: no run file, a run file that is not a LoCoMo run list, a file with no
            usable item, or (``strict``) a bad item.
        DatasetError: the dataset cannot be found, read or matched.
    """
    from memscope.adapters.locomo.harness import LOOKED_FOR

    run_dir = run_dir.resolve()
    files = run_files(run_dir)
    harness = _harness_runs(run_dir)
    if not files and not harness:
        raise RunDirError(
            "not a LoCoMo run directory: no *.json list of {sample_id, qa} with "
            f"<key>_prediction fields (evaluate_qa.py), nor {LOOKED_FOR}",
            where=str(run_dir),
            fix="Point at the folder evaluate_qa.py's --out-file (or the harness) wrote.",
        )
    sources = recorded_sources(run_dir, (IMAGES_OPTION,))
    dataset_path = locate_dataset(run_dir, options.dataset or sources.get("dataset"))
    images = options.path_option(IMAGES_OPTION) or sources.get(IMAGES_OPTION)
    dataset = read_locomo_dataset(
        dataset_path, images=Path(images) if images else None, strict=options.strict
    )
    records: list[RunRecord] = _read_harness_runs(run_dir, harness, dataset, dataset_path)
    parsed = [(path, _read_samples(path)) for path in files]
    keys_by_file = {path: _keys(samples) for path, samples in parsed}
    key_counts = Counter(key for keys in keys_by_file.values() for key in keys)
    for path, samples in parsed:
        for key in keys_by_file[path]:
            records.append(
                _read_run(
                    path,
                    samples,
                    parse_key(key),
                    keys_by_file[path],
                    dataset,
                    dataset_path,
                    shared_key=key_counts[key] > 1,
                    strict=options.strict,
                )
            )
    return records


def _read_harness_runs(
    run_dir: Path, harness: list[tuple[Path, str]], dataset: LocomoDataset, dataset_path: Path
) -> list[RunRecord]:
    """One run per harness file; Zep's grades take the responses file beside them (latency)."""
    from memscope.adapters.locomo.harness import ZEP_RESPONSES, harness_files
    from memscope.adapters.locomo.harness_run import read_harness_run

    if not harness:
        return []
    responses = [p for p, family in harness_files(run_dir) if family == ZEP_RESPONSES]
    return [
        read_harness_run(
            path,
            family,
            dataset,
            dataset_path,
            responses=responses[0] if family == "zep" and len(responses) == 1 else None,
        )
        for path, family in harness
    ]


def locate_dataset(run_dir: Path, given: Path | None) -> Path:
    """The dataset file of a run directory (see the module docstring for the order).

    Raises:
        DatasetError: ``given`` holds no LoCoMo dataset, or none is found; the message lists
            every place looked at and names ``--dataset``.
    """
    if given is not None:
        given = given.expanduser()
        if given.is_file():
            return given.resolve()
        found = _dataset_in(given) if given.is_dir() else None
        if found is not None:
            return found
        raise DatasetError(
            f"--dataset is neither a LoCoMo dataset file nor a folder holding {DATASET_NAME}",
            where=str(given),
            fix="Pass LoCoMo's data/locomo10.json, or the folder holding it.",
        )
    tried: list[Path] = []
    for ancestor in [run_dir, *run_dir.parents][: ANCESTOR_LEVELS + 1]:
        for folder in (ancestor / "data", ancestor):
            tried.append(folder / DATASET_NAME)
            found = _dataset_in(folder)
            if found is not None:
                return found
    listed = "\n    ".join(str(path) for path in tried)
    raise DatasetError(
        f"cannot find the LoCoMo dataset of this run ({DATASET_NAME}, or a LoCoMo-shaped "
        f"data/*.json); tried:\n    {listed}",
        where=str(run_dir),
        fix="Pass the dataset (or the folder holding it) with --dataset PATH.",
    )


def mismatch_error(
    dataset: LocomoDataset, dataset_path: Path, joined: int, total: int
) -> DatasetError:
    """The refusal of a run file too few of whose items join the dataset: when the dataset
    itself has malformed QA items (a category that is not 1-5), that is what it names."""
    problem = dataset.malformed_sentence()
    if problem is not None:
        return DatasetError(
            f"{problem}; only {joined} of the run file's {total} QA items could be joined",
            where=str(dataset_path),
            fix="Fix the dataset's QA items (or pass LoCoMo's own data/locomo10.json with "
            "--dataset PATH).",
        )
    return DatasetError(
        f"the dataset does not match this run file: only {joined} of {total} QA items "
        "name one of its questions",
        where=str(dataset_path),
        fix="Pass the dataset this run was made from with --dataset PATH.",
    )


def _dataset_in(folder: Path) -> Path | None:
    """``folder/locomo10.json`` when it exists, else the first ``*.json`` of ``folder`` that
    looks like a LoCoMo dataset (:func:`looks_like_dataset`)."""
    named = folder / DATASET_NAME
    if named.is_file():
        return named.resolve()
    try:
        candidates = sorted(p for p in folder.glob("*.json") if p.is_file())
    except OSError:
        return None
    return next((p.resolve() for p in candidates if looks_like_dataset(p)), None)


def _read_samples(path: Path) -> list[JSONValue]:
    raw = read_json_file(path, what="LoCoMo run file")
    if not isinstance(raw, list):
        raise RunDirError(
            "not a LoCoMo run file: expected a JSON list of {sample_id, qa}",
            where=str(path),
            fix="Point at the --out-file of LoCoMo's evaluate_qa.py.",
        )
    return raw


def _keys(samples: list[JSONValue]) -> list[str]:
    """The run keys of a file, sorted: every ``<key>`` of a ``<key>_prediction`` field, and
    every ``<key>`` of a context field (``<key>_prediction_context``, ``<key>_context``)
    that has no prediction anywhere (a retrieval-only run, :func:`retrieval_only_keys`)."""
    predicted, retrieved = _field_keys(samples)
    return sorted(predicted | retrieved)


def retrieval_only_keys(samples: list[JSONValue]) -> set[str]:
    """The keys of a file that have a context but no ``<key>_prediction`` in any item."""
    predicted, retrieved = _field_keys(samples)
    return retrieved - predicted


def _field_keys(samples: list[JSONValue]) -> tuple[set[str], set[str]]:
    """``(keys with a prediction, keys with a context)`` over every item of a file."""
    predicted: set[str] = set()
    retrieved: set[str] = set()
    for sample in samples:
        qas = sample.get("qa") if isinstance(sample, dict) else None
        for item in qas if isinstance(qas, list) else []:
            if not isinstance(item, dict):
                continue
            for name in item:
                if not isinstance(name, str):
                    continue
                if name.endswith(PREDICTION_SUFFIX) and len(name) > len(PREDICTION_SUFFIX):
                    predicted.add(name[: -len(PREDICTION_SUFFIX)])
                    continue
                # "_prediction_context" first: it ends in "_context" too.
                suffix = next((s for s in CONTEXT_SUFFIXES if name.endswith(s)), None)
                if suffix is not None and len(name) > len(suffix):
                    retrieved.add(name[: -len(suffix)])
    return predicted, retrieved


def _owner(name: str, keys: list[str]) -> tuple[str, str] | None:
    """``(key, field suffix)`` of an item field: the longest key it starts with, so that
    ``gpt-4_dialog_top_5_f1`` belongs to ``gpt-4_dialog_top_5``, not to ``gpt-4``."""
    best = max((k for k in keys if name.startswith(k + "_")), key=len, default=None)
    return (best, name[len(best) + 1 :]) if best is not None else None


def _number(value: JSONValue) -> float | str | None:
    """A score as a float, None when absent, or ``"bad"`` when it is not a number."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return "bad"


@dataclass
class _Item:
    """One QA item of a run file joined to its question."""

    line_no: int
    sample_id: str
    qid: str
    item: JSONObject


def _join(
    path: Path,
    samples: list[JSONValue],
    dataset: LocomoDataset,
    notices: list[Notice],
    *,
    strict: bool,
) -> tuple[list[_Item], list[str], int]:
    """The file's items joined to the dataset, its sample ids in order, and the item count."""
    items: list[_Item] = []
    covered: list[str] = []
    bad: list[tuple[str, str]] = []
    unknown_samples: list[str] = []
    repeated_samples: list[str] = []
    unmatched: list[str] = []
    moved = 0
    seen: set[str] = set()
    line_no = 0
    total = 0
    for number, sample in enumerate(samples, start=1):
        where = f"{path} [sample {number}]"
        qas = sample.get("qa") if isinstance(sample, dict) else None
        if not isinstance(sample, dict) or not isinstance(qas, list):
            bad.append((where, "not an object with a 'qa' list"))
            continue
        sample_id = str(sample.get("sample_id") or "").strip()
        total += len(qas)
        if sample_id not in dataset.qa_counts:
            unknown_samples.append(sample_id or f"(sample {number} has no sample_id)")
            line_no += len(qas)
            continue
        if sample_id in covered:
            repeated_samples.append(sample_id)
            line_no += len(qas)
            continue
        covered.append(sample_id)
        for position, item in enumerate(qas, start=1):
            line_no += 1
            if not isinstance(item, dict):
                bad.append(
                    (f"{where} [qa {position}]", f"not a JSON object (a {type(item).__name__})")
                )
                continue
            text = normalised(str(item.get("question") or ""))
            question = dataset.question_at(sample_id, position)
            qid = question.qid if question is not None else None
            if question is None or normalised(question.question) != text:
                same = dataset.by_text.get((sample_id, text), [])
                qid = same[0] if len(same) == 1 else None
                if qid is not None:
                    moved += 1
            if qid is None or qid in seen:
                unmatched.append(f"{sample_id}:q{position}")
                continue
            seen.add(qid)
            items.append(_Item(line_no, sample_id, qid, item))
    if bad and strict:
        listed = "\n    ".join(f"{where}: {why}" for where, why in bad[:MAX_LISTED])
        raise RunDirError(
            f"{len(bad)} bad entr(y/ies) in the run file; nothing was ingested (--strict):\n    {listed}",
            where=str(path),
            fix="Fix the entries, or drop --strict to ingest the good ones.",
        )
    for where, why in bad[:MAX_LISTED]:
        notices.append(Notice(f"{why}; skipped", where))
    if len(bad) > MAX_LISTED:
        notices.append(Notice(f"{len(bad) - MAX_LISTED} more bad entries skipped", str(path)))
    if unknown_samples:
        notices.append(
            Notice(
                f"{len(unknown_samples)} sample(s) of the run file are not in the dataset; skipped",
                str(path),
                tuple(unknown_samples[:MAX_EXAMPLES]),
            )
        )
    if repeated_samples:
        notices.append(
            Notice(
                f"{len(repeated_samples)} sample(s) appear twice in the run file; the first is kept",
                str(path),
                tuple(repeated_samples[:MAX_EXAMPLES]),
            )
        )
    if unmatched:
        notices.append(
            Notice(
                f"{len(unmatched)} QA item(s) match no question of the dataset (by position and "
                "text); skipped",
                str(path),
                tuple(unmatched[:MAX_EXAMPLES]),
            )
        )
    if moved:
        notices.append(
            Notice(
                f"{moved} QA item(s) sit at another position than in the dataset; joined by their "
                "question text",
                str(path),
            )
        )
    return items, covered, total


def _read_run(
    path: Path,
    samples: list[JSONValue],
    run_key: RunKey,
    file_keys: list[str],
    dataset: LocomoDataset,
    dataset_path: Path,
    *,
    shared_key: bool,
    strict: bool,
) -> RunRecord:
    notices: list[Notice] = []  # the dataset's own notices travel with it
    items, covered, total = _join(path, samples, dataset, notices, strict=strict)
    if total and len(items) / total < MISMATCH_REFUSE_SHARE:
        raise mismatch_error(dataset, dataset_path, len(items), total)
    retrieval_only = run_key.key in retrieval_only_keys(samples)
    predictions, retrievals, unanswered = _tables(
        path,
        items,
        run_key,
        file_keys,
        dataset,
        notices,
        strict=strict,
        retrieval_only=retrieval_only,
    )
    if not predictions.num_rows:
        raise RunDirError(
            f"the run file has no usable {'retrieval' if retrieval_only else 'answer'} for key "
            f"{run_key.key!r}",
            where=str(path),
            fix="See the warnings above; the file may be from another benchmark.",
        )
    if retrieval_only:
        not_retrieved, unanswered = unanswered, []
        notices.append(
            Notice(
                f"{run_key.key} is a retrieval-only run (a context, no prediction): no answer "
                "is graded; the retrieval metrics read its context",
                str(path),
            )
        )
        if not_retrieved:
            notices.append(
                Notice(
                    f"{len(not_retrieved)} question(s) of the file's conversations have no "
                    f"{run_key.key} context: not retrieved, so not part of this run",
                    str(path),
                    tuple(not_retrieved[:MAX_EXAMPLES]),
                )
            )
    if unanswered:
        notices.append(
            Notice(
                f"{len(unanswered)} question(s) of the file's conversations have no "
                f"{run_key.key}_prediction; counted as 0 (wrong) in their category, as "
                "upstream's stats count them",
                str(path),
                tuple(unanswered[:MAX_EXAMPLES]),
            )
        )
    listed = {joined.qid for joined in items}
    not_listed = [
        q.qid
        for q in dataset.record.questions
        if q.extra.get("sample_id") in covered and q.qid not in listed
    ]
    if not_listed:
        notices.append(
            Notice(
                f"{len(not_listed)} question(s) of the file's conversations are not in the run "
                "file at all; upstream's stats do not count them either",
                str(path),
                tuple(not_listed[:MAX_EXAMPLES]),
            )
        )
    absent = [s for s in dataset.samples if s not in covered]
    if absent:
        left_out = sum(dataset.qa_counts[s] for s in absent)
        notices.append(
            Notice(
                f"the run file holds {len(covered)} of the dataset's {len(dataset.samples)} "
                f"conversations; the other {left_out} question(s) are not part of this run",
                str(path),
                tuple(absent[:MAX_EXAMPLES]),
            )
        )
    metrics: JSONObject = {}
    # The unanswered questions are rows already (scored 0), as upstream's stats count them.
    check, check_notices, stats = upstream_stats_check(path, run_key.key, predictions, dataset, ())
    if stats:
        metrics["upstream_stats"] = stats
    if check is not None:
        metrics[CHECK_KEY] = check
        notices += check_notices
    side = [p for p, _metric in stats_files(path)]
    digest, file_stats = file_digest([path, *side, dataset_path])
    folder = path.parent.name
    # Without RAG the file says nothing about what the memory used: upstream's own models
    # read the whole conversation, a memory system (Honcho) its own store.
    # A retrieval-only key is a retrieval whatever its name says.
    ranked = bool(run_key.rag_mode) or retrieval_only
    retrieval_kind: RetrievalKind = "ranked" if ranked else "none"
    config: JSONObject = {
        "results_file": path.name,
        "key": run_key.key,
        "model": run_key.model,
        "rag_mode": run_key.rag_mode,
        "top_k": run_key.top_k,
        "dataset_file": str(dataset_path),
        "samples": [*covered],
        "unanswered_qids": [*unanswered],
    }
    if retrieval_only:
        config["retrieval_only"] = True
    return RunRecord(
        run_id=run_id_for(folder, path.stem, run_key.key, shared_key=shared_key),
        path=f"{path.parent}#{path.name}:{run_key.key}",
        content_hash=hashlib.sha256(f"{digest}\0{run_key.key}".encode()).hexdigest(),
        file_stats=file_stats,
        benchmark=BENCHMARK,
        task=dataset.record.task,
        model=run_key.model,
        method=run_key.method,
        base_method=run_key.method,
        modality="text_only",
        mode=MODE,
        top_k=run_key.top_k,
        retrieval_kind=retrieval_kind,
        config=config,
        metrics=metrics,
        dataset=dataset.record,
        predictions=predictions,
        retrievals=retrievals if ranked else None,
        notices=notices,
    )


def _tables(
    path: Path,
    items: list[_Item],
    run_key: RunKey,
    file_keys: list[str],
    dataset: LocomoDataset,
    notices: list[Notice],
    *,
    strict: bool,
    retrieval_only: bool = False,
) -> tuple[pa.Table, pa.Table, list[str]]:
    """The predictions and retrievals (Arrow) of one key, and the qids without an answer (of a
    retrieval-only key: without a context, which are not rows)."""
    from memscope.plugin import typed_table

    key = run_key.key
    prediction: dict[str, list[object]] = {
        n: []
        for n in ("qid", "line_no", "mode", "question", "gold", "pred", "f1", "judge", "extra")
    }
    retrieval: dict[str, list[object]] = {
        n: [] for n in ("qid", "rank", "round_id", "score", "origin")
    }
    unanswered: list[str] = []
    bad: list[str] = []
    unresolved: list[str] = []
    unjudged: list[str] = []
    # Upstream's stats divide each metric's sum by every question of the category, so a
    # question without the key (or without its judge verdict) counts as 0: so it does here.
    judged = any(f"{key}_llm" in joined.item for joined in items)
    for joined in items:
        item = joined.item
        if retrieval_only and not any(key + suffix in item for suffix in CONTEXT_SUFFIXES):
            unanswered.append(joined.qid)  # not retrieved: not part of the run
            continue
        if not retrieval_only and key + PREDICTION_SUFFIX not in item:
            unanswered.append(joined.qid)
            question = dataset.questions[joined.qid]
            prediction["qid"].append(joined.qid)
            prediction["line_no"].append(joined.line_no)
            prediction["mode"].append(MODE)
            prediction["question"].append(question.question)
            prediction["gold"].append(question.gold)
            prediction["pred"].append(None)
            prediction["f1"].append(0.0)
            prediction["judge"].append(0.0 if judged else None)
            prediction["extra"].append(json.dumps({"unanswered": True}))
            continue
        fields: JSONObject = {}
        for name, value in item.items():
            owner = _owner(str(name), file_keys)
            if owner is not None and owner[0] == key:
                fields[owner[1]] = value
        f1 = _number(fields.get("f1"))
        judge = _number(fields.get("llm"))
        recall = _number(fields.get("recall"))
        problems = [
            name
            for name, value in (("f1", f1), ("llm", judge), ("recall", recall))
            if value == "bad"
        ]
        context = fields.get("prediction_context", fields.get("context"))
        if context is not None and not isinstance(context, list):
            problems.append("context")
        if problems:
            bad.append(f"{joined.qid} ({', '.join(f'{key}_{p}' for p in problems)})")
        question = dataset.questions[joined.qid]
        extra: JSONObject = {}
        if judged and judge is None:
            judge = 0.0
            extra["unjudged"] = True
            unjudged.append(joined.qid)
        if recall is not None and recall != "bad":
            extra["recall"] = recall
        for suffix, value in fields.items():
            if suffix not in KNOWN_FIELDS:
                extra[suffix] = value
        if item.get("category_name") is not None:
            extra["category_name_as_written"] = item["category_name"]
        pred = fields.get("prediction")
        prediction["qid"].append(joined.qid)
        prediction["line_no"].append(joined.line_no)
        prediction["mode"].append(MODE)
        prediction["question"].append(question.question)
        prediction["gold"].append(question.gold)
        prediction["pred"].append(None if pred is None else str(pred))
        prediction["f1"].append(f1 if isinstance(f1, float) else None)
        prediction["judge"].append(judge if isinstance(judge, float) else None)
        prediction["extra"].append(json.dumps(extra, ensure_ascii=False) if extra else None)
        if (run_key.rag_mode or retrieval_only) and isinstance(context, list):
            _add_retrievals(joined, context, run_key, dataset, retrieval, unresolved)
    if bad and strict:
        raise RunDirError(
            f"{len(bad)} QA item(s) have a malformed {key} field; nothing was ingested (--strict)",
            where=str(path),
            fix=f"Fix the items (e.g. {bad[0]}), or drop --strict to read them without it.",
        )
    if bad:
        notices.append(
            Notice(
                f"{len(bad)} QA item(s) have a {key} score that is not a number or a context that "
                "is not a list; read as missing",
                str(path),
                tuple(bad[:MAX_EXAMPLES]),
            )
        )
    if unresolved:
        notices.append(
            Notice(
                f"{len(unresolved)} retrieved id(s) of {key} name no turn of the conversation; "
                "kept as written, they match no evidence",
                str(path),
                tuple(unresolved[:MAX_EXAMPLES]),
            )
        )
    if unjudged:
        notices.append(
            Notice(
                f"{len(unjudged)} answer(s) have no {key}_llm verdict; counted as 0 (wrong), "
                "as upstream's stats count them",
                str(path),
                tuple(unjudged[:MAX_EXAMPLES]),
            )
        )
    if run_key.rag_mode == "summary" and retrieval["qid"]:
        notices.append(
            Notice(
                f"{key} retrieved session summaries: its ranks name sessions (<sample>:S<N>), "
                "not turns, so turn-level evidence metrics do not apply",
                str(path),
            )
        )
    return typed_table(prediction), typed_table(retrieval), unanswered


def _add_retrievals(
    joined: _Item,
    context: list[JSONValue],
    run_key: RunKey,
    dataset: LocomoDataset,
    out: dict[str, list[object]],
    unresolved: list[str],
) -> None:
    """Rank rows of one item's retrieved ids: dia ids (dialog, observation modes) become
    round ids, ``S<N>`` (summary mode) session ids; an id that resolves to neither is kept as
    written. A repeated id keeps its first rank (observations citing one turn twice)."""
    ranked: list[str] = []
    for entry in context:
        for part in str(entry).split(","):  # upstream joins an observation's turns by ","
            raw = part.strip()
            if not raw:
                continue
            resolved = (
                dataset.resolve_session(joined.sample_id, raw)
                if run_key.rag_mode == "summary"
                else dataset.resolve_turn(joined.sample_id, raw)
            )
            if resolved is None:
                unresolved.append(f"{joined.qid}:{raw}")
            target = resolved or raw
            if target not in ranked:
                ranked.append(target)
    for rank, target in enumerate(ranked, start=1):
        out["qid"].append(joined.qid)
        out["rank"].append(rank)
        out["round_id"].append(target)
        out["score"].append(None)
        out["origin"].append("logged")
