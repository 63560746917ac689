"""Reads LongMemEval runs: every ``.eval-results-<judge>`` file of a folder (a graded run)
and every hypothesis file without one (an ungraded run), as upstream's scripts write them
(docs/formats.md §6).

- **Recognising a run folder** (:func:`is_longmemeval_run`): it holds a file named as
  ``run_generation.py`` names its output (``…_testlog_top<k>context_…``), with or without
  ``.eval-results-<judge>``. Nothing is read.
- **The dataset** is the file the run's name names (``longmemeval_s.json``), looked for
  in a ``data/`` folder (or beside) the run folder and up to six folders above; else
  ``--dataset`` (the file, or a folder holding it); else ``memscope_sources.json``'s
  ``dataset``.
- **The retrieval log** (runs whose input was one): ``--lme-retrieval-log``, else the
  file the name names, looked for as ``retrieval_logs/<retriever>/<granularity>/`` lays it
  out above the run folder. Without it the run says which retrieval it used but not what it
  retrieved (a notice).
- **Identity**: run id ``<retriever alias>/<model>/<reading method>:<dataset>-top<k>-<stamp>``
  (``@<judge>`` for a graded run); ``path`` is ``<folder>#<file name>``. Full-history runs
  read the whole haystack (``full_context``), on ``_oracle`` only the evidence sessions
  (``clue_only_context``): the context kinds memscope's diagnostics read.
- **Scores**: ``judge`` is ``autoeval_label.label`` as 1.0 / 0.0 (none for an ungraded
  run); the accuracy is its mean.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memscope.adapters.longmemeval.axes import NAME
from memscope.adapters.longmemeval.dataset import MODE, LmeDataset, read_dataset
from memscope.adapters.longmemeval.names import (
    HYPOTHESIS,
    JUDGED,
    RunName,
    qa_metrics_file,
    run_files,
)
from memscope.plugin import (
    SOURCES_FILE,
    DatasetError,
    JSONValue,
    Notice,
    ReadOptions,
    RunDirError,
    RunRecord,
    file_digest,
    recorded_sources,
    typed_table,
)

RETRIEVAL_OPTION = "lme_retrieval_log"
"""``ReadOptions.extra`` key of ``--lme-retrieval-log`` (declared in ``__init__.py``)."""
SEARCH_DEPTH = 6


def is_longmemeval_run(path: Path) -> bool:
    """Whether the folder ``path`` holds a hypothesis or eval-results file (by name)."""
    try:
        names = [entry.name for entry in path.iterdir()]
    except OSError:
        return False
    for name in names:
        judged = JUDGED.match(name)
        if HYPOTHESIS.match(judged["hypothesis"] if judged else name):
            return True
    return False


def read_longmemeval_runs(run_dir: Path, options: ReadOptions) -> list[RunRecord]:
    """Every run of a folder, by file name.

    Raises:
        RunDirError: no run file, a run file with no usable line, or (``--strict``) a bad
            line.
        DatasetError: a run's dataset cannot be found or read.
    """
    run_dir = run_dir.resolve()
    names = run_files(run_dir)
    if not names:
        raise RunDirError(
            "not a LongMemEval run folder: no <in file>_testlog_top<k>context_… file",
            where=str(run_dir),
            fix="Point at the folder run_generation.py wrote (generation_logs/<retriever>/<model>/<method>/).",
        )
    sources = recorded_sources(run_dir, (RETRIEVAL_OPTION,))
    datasets: dict[Path, LmeDataset] = {}
    records = []
    for name in names:
        dataset_path = locate_dataset(
            run_dir, name.dataset, options.dataset, sources.get("dataset")
        )
        if dataset_path not in datasets:
            datasets[dataset_path] = read_dataset(dataset_path, strict=options.strict)
        log = locate_log(
            run_dir, name, options.path_option(RETRIEVAL_OPTION) or sources.get(RETRIEVAL_OPTION)
        )
        records.append(_record(run_dir, name, datasets[dataset_path], log, options.strict))
    return records


def _ancestors(run_dir: Path) -> list[Path]:
    return [run_dir, *list(run_dir.parents)[:SEARCH_DEPTH]]


def locate_dataset(
    run_dir: Path, file_name: str, given: Path | None, recorded: Path | None
) -> Path:
    """Where the run's dataset is (see the module's docstring).

    Raises:
        DatasetError: nowhere; the message lists what was tried.
    """
    tried: list[Path] = []
    for folder in _ancestors(run_dir):
        for candidate in (folder / "data" / file_name, folder / file_name):
            tried.append(candidate)
            if candidate.is_file():
                return candidate.resolve()
    for source in (given, recorded):
        if source is None:
            continue
        source = source.expanduser()
        candidate = source / file_name if source.is_dir() else source
        tried.append(candidate)
        if candidate.is_file():
            return candidate.resolve()
    raise DatasetError(
        f"cannot find the run's dataset {file_name}",
        where=f"{run_dir} (tried {', '.join(str(path) for path in tried[:3])} … {len(tried)} paths)",
        fix="Put it in a data/ folder above the run, or pass it with --dataset PATH "
        "(or name it in memscope_sources.json).",
    )


def locate_log(run_dir: Path, name: RunName, given: Path | None) -> Path | None:
    """The retrieval log the run read, where it can be found (None otherwise)."""
    if name.retriever is None:
        return None
    if given is not None:
        given = given.expanduser()
        candidate = given / name.in_file if given.is_dir() else given
        return candidate.resolve() if candidate.is_file() else None
    for folder in _ancestors(run_dir):
        for candidate in (
            folder / "retrieval_logs" / name.retriever / (name.granularity or "") / name.in_file,
            folder / name.in_file,
        ):
            if candidate.is_file():
                return candidate.resolve()
    return None


def run_id_for(run_dir: Path, name: RunName) -> str:
    prefix = (
        "/".join((name.alias, name.model, name.reading))
        if name.alias and name.model and name.reading
        else run_dir.name
    )
    judged = f"@{name.judge}" if name.judge else ""
    return f"{prefix}:{name.variant}-top{name.top_k}-{name.stamp}{judged}"


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        with path.open(encoding="utf-8") as handle:
            return [(number, line) for number, line in enumerate(handle, start=1) if line.strip()]
    except UnicodeDecodeError:
        raise RunDirError("the run file is not UTF-8", where=str(path)) from None
    except OSError as error:
        raise RunDirError(
            f"cannot read the run file: {error.strerror or error}", where=str(path)
        ) from None


def _record(
    run_dir: Path, name: RunName, dataset: LmeDataset, log: Path | None, strict: bool
) -> RunRecord:
    notices: list[Notice] = []
    predictions, judges = _predictions(name, dataset, notices, strict)
    retrievals = None
    if log is not None:
        retrievals = _retrievals(log, name, dataset, notices, set(predictions["qid"]))
    elif name.retriever is not None:
        notices.append(
            Notice(
                f"the retrieval log {name.in_file} was not found: the run's retrieval is not known",
                str(name.file),
                ("pass it with --lme-retrieval-log PATH",),
            )
        )
    digest, _ = file_digest([name.file] + ([log] if log else []))
    # file_stats name the run's own files in its folder (memscope's stat check for an
    # unchanged folder wants every file there named by one of its runs)
    # (and print_qa_metrics.py's saved output, which --check-upstream reads)
    own = [name.file, name.hypothesis, run_dir / SOURCES_FILE, qa_metrics_file(name.file)]
    _, file_stats = file_digest(list(dict.fromkeys(path for path in own if path.is_file())))
    context = "clue_only_context" if name.variant.startswith("oracle") else "full_context"
    if name.retriever is not None:
        kind = "ranked" if retrievals is not None else "none"
        base = name.alias or f"flat-{name.retriever}-{name.granularity}"
    else:
        kind, base = "context", context
    return RunRecord(
        run_id=run_id_for(run_dir, name),
        path=f"{run_dir}#{name.file.name}",
        content_hash=f"{digest}:{dataset.record.content_hash}",
        file_stats=file_stats,
        benchmark=NAME,
        task=NAME,
        model=name.model,
        method=name.alias or (name.retriever or "full-history"),
        base_method=base,
        modality="text_only",
        mode=MODE,
        top_k=name.top_k,
        retrieval_kind=kind,  # type: ignore[arg-type]
        config={
            "dataset_file": dataset.record.source_path,
            "dataset": name.dataset,
            "variant": name.variant,
            "retrieval_log": str(log) if log else None,
            "retriever": name.retriever,
            "granularity": name.granularity,
            "reading_method": name.reading,
            "history_format": name.history_format,
            "useronly": name.useronly,
            "stamp": name.stamp,
            "judge": name.judge,
            "judge_models": list[JSONValue](sorted(judges)),
            "graded": name.judge is not None,
        },
        metrics={},
        dataset=dataset.record,
        predictions=typed_table(predictions),
        retrievals=retrievals,
        notices=notices,
    )


def _predictions(
    name: RunName, dataset: LmeDataset, notices: list[Notice], strict: bool
) -> tuple[dict[str, list[Any]], set[str]]:
    columns: dict[str, list[Any]] = {
        key: []
        for key in ("qid", "line_no", "mode", "question", "gold", "pred", "em", "judge", "extra")
    }
    bad: list[str] = []
    seen: set[str] = set()
    judges: set[str] = set()
    for number, line in _lines(name.file):
        where = f"{name.file.name}:{number}"
        try:
            row = json.loads(line)
        except ValueError:
            bad.append(where)
            continue
        qid = row.get("question_id") if isinstance(row, dict) else None
        question = dataset.questions.get(str(qid)) if qid is not None else None
        label = _label(row) if name.judge is not None and isinstance(row, dict) else None
        if (
            question is None
            or question.qid in seen
            or not isinstance(row.get("hypothesis"), str)
            or (name.judge is not None and label is None)
        ):
            bad.append(where)
            continue
        seen.add(question.qid)
        if label is not None:
            judges.add(str(row["autoeval_label"].get("model")))
        columns["qid"].append(question.qid)
        columns["line_no"].append(number)
        columns["mode"].append(MODE)
        columns["question"].append(question.question)
        columns["gold"].append(question.gold)
        columns["pred"].append(row["hypothesis"])
        columns["em"].append(None)
        columns["judge"].append(label)
        columns["extra"].append(None)
    if bad and strict:
        raise RunDirError(
            f"{len(bad)} bad line(s) (not JSON, an unknown or repeated question_id, no "
            "hypothesis, or no autoeval_label.label); nothing was ingested (--strict)",
            where=bad[0],
            fix="Fix the lines, or drop --strict to ingest the good ones.",
        )
    if bad:
        notices.append(
            Notice(
                f"{len(bad)} line(s) are not JSON, name no question of {name.dataset}, repeat "
                "one, or lack a hypothesis or judgement; skipped",
                str(name.file),
                tuple(bad[:3]),
            )
        )
    if not columns["qid"]:
        raise RunDirError(
            "the run file has no usable line",
            where=str(name.file),
            fix=f"Check that it was written for {name.dataset} (or pass the right dataset with --dataset).",
        )
    return columns, judges


def _label(row: dict[str, Any]) -> float | None:
    found = row.get("autoeval_label")
    label = found.get("label") if isinstance(found, dict) else None
    return float(label) if isinstance(label, bool) else None


def corpus_to_round(cid: str, renamed: dict[str, str], granularity: str) -> str:
    """The stored round (turn granularity) or session a corpus id names (``noans_`` back to
    ``answer_``, as run_generation.py reads it; a renamed session to its stored id)."""
    cid = cid.replace("noans_", "answer_")
    if granularity == "session":
        return renamed.get(cid, cid)
    session, _, n = cid.rpartition("_")
    return f"{renamed.get(session, session)}_{n}"


def _retrievals(
    log: Path, name: RunName, dataset: LmeDataset, notices: list[Notice], wanted: set[str]
) -> Any:
    """The log's rankings as retrieval rows (a session ranked at r: its rounds in order at
    ranks r, r+1 …, so that a round's rank says how much the reader was shown before it)."""
    granularity = name.granularity or "turn"
    columns: dict[str, list[Any]] = {
        key: [] for key in ("qid", "rank", "round_id", "score", "origin")
    }
    rounds_of: dict[str, list[str]] = {}
    if granularity == "session":
        for item in dataset.record.rounds:
            rounds_of.setdefault(item.session_id, []).append(item.round_id)
    unknown: list[str] = []
    for number, line in _lines(log):
        try:
            row = json.loads(line)
            qid = str(row["question_id"])
            ranked = [item["corpus_id"] for item in row["retrieval_results"]["ranked_items"]]
        except (ValueError, KeyError, TypeError):
            unknown.append(f"{log.name}:{number}")
            continue
        if qid not in wanted:
            continue
        renamed = dataset.renamed.get(qid, {})
        rank = 0
        for cid in ranked:
            target = corpus_to_round(str(cid), renamed, granularity)
            found = rounds_of.get(target, []) if granularity == "session" else [target]
            if not found or (granularity == "turn" and target not in dataset.rounds):
                unknown.append(f"{log.name}:{number} {cid}")
                continue
            for round_id in found:
                rank += 1
                columns["qid"].append(qid)
                columns["rank"].append(rank)
                columns["round_id"].append(round_id)
                columns["score"].append(None)
                columns["origin"].append("logged")
    if unknown:
        notices.append(
            Notice(
                f"{len(unknown)} line(s) or ranked item(s) of the retrieval log name nothing of the dataset; skipped",
                str(log),
                tuple(unknown[:3]),
            )
        )
    return typed_table(columns)
