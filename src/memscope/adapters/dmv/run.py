"""Reads a DMV-Bench F2 run directory: ``f2_per_probe.csv``, ``f2_summary.csv`` and the logs.

Layout and fields: docs/formats.md §2. A directory is a DMV-Bench run when it
holds ``f2_per_probe.csv``. One CSV holds every architecture ("system") the run compared,
so **each system becomes its own run**: run id ``<directory name>:<system>``, path
``<directory>#<system>``. All systems of a directory share one dataset: the probes are the
questions, the probed and retrieved products are the rounds (see :mod:`memscope.adapters.dmv.dataset`).

Per system, the predictions are the CSV rows (``em`` = ``correct``, ``pred`` = the final
URL, ``extra``: the system's own bank size, whether any step's list held the target); the
retrievals are the probe's ranking, the bank entries the first recall step (``R1``, the
cue alone) retrieved, in rank order; every recall step is kept in the ``dmv_recall_steps``
detail table. ``f2_summary.csv`` is cross-checked against the rows
(:func:`summary_comparisons`) into each run's ``metrics["upstream_check"]``. Bad CSV rows and log lines are reported as
``file:line`` and skipped (refused with ``--strict``).
"""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.adapters.dmv.catalogue import locate_registry, read_product_data
from memscope.adapters.dmv.dataset import ProbeKey, build_dmv_dataset
from memscope.adapters.dmv.logs import TaskLog, parse_task_log
from memscope.plugin import (
    CHECK_KEY,
    RATE_TOLERANCE,
    Comparison,
    JSONObject,
    Notice,
    ReadOptions,
    RunDirError,
    RunRecord,
    check_notices,
    file_digest,
    open_regular,
    recorded_sources,
    summary_check,
)

if TYPE_CHECKING:
    import pyarrow as pa

PER_PROBE = "f2_per_probe.csv"
SUMMARY = "f2_summary.csv"
SUMMARY_TEXT = "f2_summary.txt"
REQUIRED_COLUMNS = (
    "system",
    "task_id",
    "probe_id",
    "at_session",
    "target_session",
    "reach",
    "correct",
    "target_url",
    "final_url",
)
OPTIONAL_COLUMNS = ("vlm_calls",)
MAX_LISTED = 10
TOP_K = 5
MAX_SESSION = 10_000
"""Sessions and reaches of a chain (upstream's chains are a handful of sessions deep)."""
MAX_COUNT = 2**31 - 1
"""Counts kept in a 32-bit column (vlm_calls)."""
"""The recall step retrieves the top 5 distinct bank entries (``_retrieve_step(k=5)``)."""

ARCHITECTURES: dict[str, JSONObject] = {
    "DualMem": {"retrieval": "HybridNorm", "visual_weight": 0.5, "inject": "img+cap"},
    "DualMem-img": {"retrieval": "HybridNorm", "visual_weight": 0.5, "inject": "img"},
    "DualMem-cap": {"retrieval": "HybridNorm", "visual_weight": 0.5, "inject": "cap"},
    "DualMem-a25": {"retrieval": "HybridNorm", "visual_weight": 0.25, "inject": "img+cap"},
    "DualMem-a75": {"retrieval": "HybridNorm", "visual_weight": 0.75, "inject": "img+cap"},
    "DualMem-vis": {"retrieval": "visual", "visual_weight": 1.0, "inject": "img+cap"},
    "DualMem-vis-img": {"retrieval": "visual", "visual_weight": 1.0, "inject": "img"},
    "DualMem-vis-cap": {"retrieval": "visual", "visual_weight": 1.0, "inject": "cap"},
    "DualMem-verb": {"retrieval": "verbal", "visual_weight": 0.0, "inject": "img+cap"},
    "DualChannel": {"retrieval": "Hybrid (1/(1+rank))", "visual_weight": 0.5},
    "DualChannel-norm": {"retrieval": "HybridNorm", "visual_weight": 0.5},
    "DualChannel-siglip": {"retrieval": "HybridNorm", "visual_weight": 0.5},
    "HYMEM": {"retrieval": "Hybrid (1/(1+rank))", "visual_weight": 0.3},
}
"""Fusion settings by system name (docs/formats.md §2.4); alpha is called ``visual_weight``."""


def is_dmv_run(path: Path) -> bool:
    """Whether ``path`` is a DMV-Bench F2 run directory (it holds ``f2_per_probe.csv``)."""
    return (path / PER_PROBE).is_file()


@dataclass
class ProbeRow:
    """One valid row of ``f2_per_probe.csv``."""

    line_no: int
    system: str
    task_id: str
    probe_id: str
    at_session: int
    target_session: int
    reach: int
    correct: bool
    target_url: str
    final_url: str | None
    vlm_calls: int | None


@dataclass
class SystemLogs:
    """The parsed logs of one system, by task id."""

    by_task: dict[str, TaskLog] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def read_dmv_runs(run_dir: Path, options: ReadOptions) -> list[RunRecord]:
    """Read every system of one DMV-Bench run directory, one RunRecord each.

    Raises:
        RunDirError: the CSV is missing, lacks columns or has no usable row; with
            ``options.strict`` any bad row or log line.
        DatasetError: a cue registry that was given or found is unreadable.
    """
    run_dir = run_dir.resolve()
    csv_path = run_dir / PER_PROBE
    if not csv_path.is_file():
        raise RunDirError(
            f"not a DMV-Bench run directory: it has no {PER_PROBE}",
            where=str(run_dir),
            fix="Point at the --out-dir of scripts/run_dmvbench_f2.py.",
        )
    shared_notices: list[Notice] = []
    probe_rows = read_probe_csv(csv_path, strict=options.strict, notices=shared_notices)
    systems = list(dict.fromkeys(row.system for row in probe_rows))
    sources = recorded_sources(run_dir, ("dmv_registry",))
    registry_path, tried = locate_registry(
        run_dir, options.path_option("dmv_registry"), sources.get("dmv_registry")
    )
    if registry_path is None:
        listed = ", ".join(str(path) for path in tried[:4])
        shared_notices.append(
            Notice(
                "no cue registry (cue_registry.json) found, so products have no category, style or "
                f"image; cues come from the logs (tried {listed}, …). Pass --dmv-registry PATH",
                str(run_dir),
            )
        )
    products = read_product_data(registry_path)
    log_notices: dict[str, list[Notice]] = {system: [] for system in systems}
    logs = {
        system: _read_system_logs(
            run_dir, system, strict=options.strict, notices=log_notices[system]
        )
        for system in systems
    }
    summary, surprises = _read_summary(run_dir / SUMMARY, shared_notices)
    shared_notices += [Notice(surprise, str(run_dir / SUMMARY)) for surprise in surprises]
    dataset = build_dmv_dataset(run_dir, probe_rows, logs, products, notices=shared_notices)
    # Problems of the shared files are the dataset's: shown once, when it is first stored.
    dataset.record.notices = shared_notices
    side_files = [run_dir / name for name in (SUMMARY, SUMMARY_TEXT) if (run_dir / name).is_file()]
    if registry_path is not None:
        side_files.append(registry_path)
    base_hash, stats = file_digest([csv_path, *side_files])
    records = []
    for system in systems:
        rows = [row for row in probe_rows if row.system == system]
        system_logs = logs[system]
        log_hash = file_digest(system_logs.files)[0] if system_logs.files else ""
        content_hash = hashlib.sha256(f"{base_hash}\0{log_hash}\0{system}".encode()).hexdigest()
        predictions, retrievals, steps, notices = _system_tables(
            rows, system_logs, dataset.qid_of, csv_path, memoryless=system in MEMORYLESS
        )
        settings = ARCHITECTURES.get(system, {})
        metrics: JSONObject = {"summary": summary[system]} if summary.get(system) else {}
        check = _summary_check(system, rows, summary, [], run_dir / SUMMARY)
        if check is not None:
            metrics[CHECK_KEY] = check
            notices += check_notices(check)
        records.append(
            RunRecord(
                run_id=f"{run_dir.name}:{system}",
                path=f"{run_dir}#{system}",
                content_hash=content_hash,
                file_stats=stats,
                benchmark="dmv",
                task=dataset.record.task,
                model=None,
                method=system,
                base_method=system,
                modality=None,
                mode="probe",
                top_k=TOP_K,
                retrieval_kind="ranked" if retrievals.num_rows else "none",
                config={
                    "system": system,
                    **settings,
                    "registry": str(registry_path) if registry_path else None,
                },
                metrics=metrics,
                dataset=dataset.record,
                predictions=predictions,
                retrievals=retrievals,
                notices=log_notices[system] + notices,
                detail_tables={"dmv_recall_steps": steps},
            )
        )
    return records


def read_probe_csv(path: Path, *, strict: bool, notices: list[Notice]) -> list[ProbeRow]:
    """The valid rows of ``f2_per_probe.csv``; bad rows become ``file:line`` notices.

    The file is read with the csv module (one run holds at most tens of thousands of
    probes); every row is checked and a bad one is explained by line.

    Raises:
        RunDirError: a missing column (naming it), no usable row, or any bad row with
            ``strict``.
    """
    try:
        handle = open(open_regular(path), newline="", encoding="utf-8")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise RunDirError(
            f"cannot read {PER_PROBE}: {exc.strerror or exc}", where=str(path)
        ) from None
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, None)
            if header is None:
                raise RunDirError(
                    f"{PER_PROBE} is empty",
                    where=str(path),
                    fix="Re-run the benchmark or restore the file.",
                )
            header = [name.strip().lstrip("\ufeff") for name in header]
            missing = [name for name in REQUIRED_COLUMNS if name not in header]
            if missing:
                raise RunDirError(
                    f"{PER_PROBE} lacks the column(s) {', '.join(missing)}; found {', '.join(header) or 'none'}",
                    where=f"{path}:1",
                    fix=f"A DMV-Bench F2 per-probe file has the columns {', '.join(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)}.",
                )
            index = {
                name: header.index(name)
                for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
                if name in header
            }
            good: list[ProbeRow] = []
            bad: list[tuple[str, str]] = []
            seen: set[tuple[str, str, str]] = set()
            duplicates: list[int] = []
            for fields in reader:
                line_no = reader.line_num
                if not any(field.strip() for field in fields):
                    continue
                parsed = _probe_row(fields, index, len(header), line_no)
                if isinstance(parsed, str):
                    bad.append((f"{path}:{line_no}", parsed))
                    continue
                key = (parsed.system, parsed.task_id, parsed.probe_id)
                if key in seen:
                    duplicates.append(line_no)
                    continue
                seen.add(key)
                good.append(parsed)
        except UnicodeDecodeError as exc:
            raise RunDirError(
                f"{PER_PROBE} is not UTF-8 text (byte {exc.start})", where=str(path)
            ) from None
        except csv.Error as exc:
            raise RunDirError(
                f"{PER_PROBE} is not a readable CSV: {exc}", where=f"{path}:{reader.line_num}"
            ) from None
    if bad and strict:
        listed = "\n    ".join(f"{where}: {why}" for where, why in bad[:MAX_LISTED])
        raise RunDirError(
            f"{len(bad)} bad row(s) in {PER_PROBE}; nothing was ingested (--strict):\n    {listed}",
            where=str(path),
            fix="Fix the rows, or drop --strict to ingest the good ones.",
        )
    if not good:
        first = f"; first problem: {bad[0][0]}: {bad[0][1]}" if bad else ""
        raise RunDirError(
            f"{PER_PROBE} has no usable row{first}",
            where=str(path),
            fix="Re-run the benchmark or restore the file.",
        )
    for where, why in bad[:MAX_LISTED]:
        notices.append(Notice(f"{why}; row skipped", where))
    if len(bad) > MAX_LISTED:
        notices.append(Notice(f"{len(bad) - MAX_LISTED} more bad row(s) skipped", str(path)))
    if duplicates:
        notices.append(
            Notice(
                f"{len(duplicates)} row(s) repeat a (system, task_id, probe_id) seen before; the first is kept",
                f"{path}:{duplicates[0]}",
            )
        )
    return good


def _probe_row(
    fields: list[str], index: dict[str, int], width: int, line_no: int
) -> ProbeRow | str:
    """A checked row, or why it is bad."""
    if len(fields) != width:
        return f"expected {width} fields, found {len(fields)}"
    value = {name: fields[i].strip() for name, i in index.items()}
    for name in ("system", "task_id", "probe_id", "target_url"):
        if not value[name]:
            return f"empty {name}"
    numbers: dict[str, int] = {}
    for name in ("at_session", "target_session", "reach"):
        try:
            numbers[name] = int(value[name])
        except ValueError:
            return f"{name} must be an integer, got {value[name][:40]!r}"
        # A chain's sessions are counted one by one later: a huge number would never end.
        if not 0 <= numbers[name] <= MAX_SESSION:
            return f"{name} must lie in 0..{MAX_SESSION}, got {value[name][:40]}"
    correct = {"1": True, "0": False, "true": True, "false": False}.get(value["correct"].lower())
    if correct is None:
        return f"correct must be 0 or 1, got {value['correct'][:40]!r}"
    vlm_calls: int | None = None
    if value.get("vlm_calls"):
        try:
            vlm_calls = int(value["vlm_calls"])
        except ValueError:
            return f"vlm_calls must be an integer, got {value['vlm_calls'][:40]!r}"
        if not 0 <= vlm_calls <= MAX_COUNT:
            return f"vlm_calls must lie in 0..{MAX_COUNT}, got {value['vlm_calls'][:40]}"
    if not value["target_url"].startswith("/product/"):
        return f"target_url must look like /product/<hash>, got {value['target_url'][:60]!r}"
    final = value["final_url"] or None
    return ProbeRow(
        line_no,
        value["system"],
        value["task_id"],
        value["probe_id"],
        numbers["at_session"],
        numbers["target_session"],
        numbers["reach"],
        correct,
        value["target_url"],
        None if final == "None" else final,
        vlm_calls,
    )


def _read_system_logs(
    run_dir: Path, system: str, *, strict: bool, notices: list[Notice]
) -> SystemLogs:
    """Parse ``logs/<system>/*.log`` (the file names use the system's own name)."""
    found = SystemLogs()
    folder = run_dir / "logs" / system
    if not folder.is_dir():
        notices.append(
            Notice(
                f"no logs for system {system}: bank sizes and retrieved entries are unknown",
                str(folder),
            )
        )
        return found
    bad: list[tuple[str, str]] = []
    for path in sorted(folder.glob("*.log")):
        log = parse_task_log(path)
        task_id = log.task_id or path.name.split("__", 1)[0]
        found.by_task.setdefault(task_id, log)
        found.files.append(path)
        bad += [(f"{path}:{line_no}", why) for line_no, why in log.bad_lines]
    if bad and strict:
        listed = "\n    ".join(f"{where}: {why}" for where, why in bad[:MAX_LISTED])
        raise RunDirError(
            f"{len(bad)} log line(s) do not parse; nothing was ingested (--strict):\n    {listed}",
            where=str(folder),
            fix="Fix or restore the log, or drop --strict to skip those lines.",
        )
    for where, why in bad[:MAX_LISTED]:
        notices.append(Notice(f"{why}; line skipped", where))
    if len(bad) > MAX_LISTED:
        notices.append(
            Notice(f"{len(bad) - MAX_LISTED} more log line(s) do not parse; skipped", str(folder))
        )
    return found


SUMMARY_KNOWN = ("system", "SR", "injection_placed", "n_recall_tasks")
REACH_COLUMN = re.compile(r"^recall_at_reach_(\d+)$")
MEMORYLESS = ("NoMemory",)
"""Systems that keep no bank: their bank size is 0 whether or not their log says so."""


def _read_summary(path: Path, notices: list[Notice]) -> tuple[dict[str, JSONObject], list[str]]:
    """``(system -> row of f2_summary.csv with numbers parsed, surprises)`` (optional file).

    A surprise names a field the reader did not expect (a column upstream added or
    renamed, a value that is not a number): the summary is then checked without it.
    """
    if not path.is_file():
        return {}, []
    try:
        with open(open_regular(path), newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            table = list(reader)
            header = [name.strip().lstrip("\ufeff") for name in reader.fieldnames or []]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        notices.append(Notice(f"cannot read {SUMMARY} ({exc}); it is ignored", str(path)))
        return {}, []
    surprises: list[str] = []
    unknown = [n for n in header if n not in SUMMARY_KNOWN and not REACH_COLUMN.match(n)]
    if unknown:
        surprises.append(
            f"{SUMMARY} has column(s) this reader does not know: {', '.join(unknown)} "
            "(upstream-formats.md 2.3); they are not cross-checked"
        )
    for name in ("system", "SR"):
        if name not in header:
            surprises.append(
                f"{SUMMARY} has no {name!r} column; found {', '.join(header) or 'none'}"
            )
    summary: dict[str, JSONObject] = {}
    odd: list[str] = []
    for row in table:
        system = (row.get("system") or "").strip()
        if not system:
            continue
        parsed: JSONObject = {}
        for key, value in row.items():
            if key is None or key == "system":
                continue
            try:
                parsed[key.strip()] = float(value)
            except (TypeError, ValueError):
                parsed[key.strip()] = value
                odd.append(f"{system}/{key}={str(value)[:20]!r}")
        summary[system] = parsed
    if odd:
        surprises.append(
            f"{SUMMARY} has value(s) that are not numbers: {', '.join(odd[:3])}; they are not cross-checked"
        )
    return summary, surprises


def summary_comparisons(rows: list[ProbeRow], upstream: JSONObject) -> list[Comparison]:
    """What ``f2_summary.csv`` says of one system against what its probe rows give.

    Upstream (``metrics_f2``): ``SR`` = mean ``correct`` (4 places), ``n_recall_tasks`` =
    the number of probes, ``recall_at_reach_r`` = mean ``correct`` at reach r, or -1 when
    the system has no probe at that reach.
    """
    comparisons: list[Comparison] = []
    n = len(rows)
    success = upstream.get("SR")
    if isinstance(success, float):
        comparisons.append(
            ("SR", success, sum(r.correct for r in rows) / n if n else 0.0, RATE_TOLERANCE)
        )
    tasks = upstream.get("n_recall_tasks")
    if isinstance(tasks, float):
        comparisons.append(("n_recall_tasks", int(tasks), n, 0.0))
    for key, value in upstream.items():
        match = REACH_COLUMN.match(key)
        if match is None or not isinstance(value, float):
            continue
        reach = int(match[1])
        at_reach = [r.correct for r in rows if r.reach == reach]
        recomputed = sum(at_reach) / len(at_reach) if at_reach else -1.0
        comparisons.append((key, value, recomputed, RATE_TOLERANCE))
    return comparisons


def _summary_check(
    system: str,
    rows: list[ProbeRow],
    summary: dict[str, JSONObject],
    surprises: list[str],
    path: Path,
) -> JSONObject | None:
    """The cross-check of one system against ``f2_summary.csv`` (None without the file)."""
    if not path.is_file():
        return None
    upstream = summary.get(system)
    if upstream is None:
        return summary_check(
            str(path),
            [("system row", "absent", f"{len(rows)} probes", 0.0)],
            surprises=surprises,
        )
    return summary_check(str(path), summary_comparisons(rows, upstream), surprises=surprises)


def _system_tables(
    rows: list[ProbeRow],
    logs: SystemLogs,
    qid_of: dict[ProbeKey, str],
    csv_path: Path,
    *,
    memoryless: bool = False,
) -> tuple[pa.Table, pa.Table, pa.Table, list[Notice]]:
    """Predictions, retrievals, recall steps (Arrow) and notices for one system's rows.

    The retrievals are the probe's ranking: the first recall step's list (``R1``, the
    bank queried with the cue alone), rank order. Later steps query with the page the
    agent is on; they stay in the recall steps, and whether the target showed up in any
    step is the prediction's ``target_seen_any_step``. The bank size is this system's
    own (its log's replay line for the recall session; 0 for a memoryless system),
    never another system's.
    """
    from memscope.plugin import typed_table

    prediction: dict[str, list[object]] = {
        name: []
        for name in (
            "qid",
            "line_no",
            "mode",
            "question",
            "gold",
            "pred",
            "em",
            "exact_match",
            "extra",
        )
    }
    retrieval: dict[str, list[object]] = {"qid": [], "rank": [], "round_id": [], "origin": []}
    step_rows: dict[str, list[object]] = {
        name: []
        for name in ("qid", "step", "observed_url", "retrieved", "action", "action_url", "vlm_text")
    }
    notices: list[Notice] = []
    without_log: list[str] = []
    disagreeing: list[str] = []
    for row in rows:
        qid = qid_of[(row.task_id, row.probe_id)]
        log = logs.by_task.get(row.task_id)
        probe_log = log.probes.get(row.probe_id) if log else None
        bank_size = log.bank_size.get(row.at_session) if log else None
        if memoryless and bank_size is None:
            bank_size = 0
        if probe_log is None and logs.files:
            without_log.append(f"{row.task_id}/{row.probe_id}")
        if (
            probe_log is not None
            and probe_log.correct is not None
            and probe_log.correct != row.correct
        ):
            disagreeing.append(f"{row.task_id}/{row.probe_id}")
        prediction["qid"].append(qid)
        prediction["line_no"].append(row.line_no)
        prediction["mode"].append("probe")
        prediction["question"].append(None)
        prediction["gold"].append(row.target_url)
        prediction["pred"].append(row.final_url)
        prediction["em"].append(1.0 if row.correct else 0.0)
        prediction["exact_match"].append(row.correct)
        target = row.target_url.removeprefix("/product/")
        seen_any = (
            int(any(target in step.retrieved for step in probe_log.steps)) if probe_log else None
        )
        extra = (
            ("vlm_calls", row.vlm_calls),
            ("bank_size", bank_size),
            ("n_steps", len(probe_log.steps) if probe_log else None),
            ("target_seen_any_step", seen_any),
        )
        # Integers only: a JSON object written directly (json.dumps per row dominates large runs).
        prediction["extra"].append(
            "{" + ", ".join(f'"{key}": {value}' for key, value in extra if value is not None) + "}"
        )
        if probe_log is None:
            continue
        seen: dict[str, int] = {}
        first = next((step for step in probe_log.steps if step.step == 1), None)
        for slug in first.retrieved if first is not None else []:
            seen.setdefault(slug, len(seen) + 1)
        for step in probe_log.steps:
            step_rows["qid"].append(qid)
            step_rows["step"].append(step.step)
            step_rows["observed_url"].append(step.observed_url)
            step_rows["retrieved"].append(step.retrieved)
            step_rows["action"].append(step.action)
            step_rows["action_url"].append(step.action_url)
            step_rows["vlm_text"].append("\n".join(step.vlm_lines) or None)
        for slug, rank in seen.items():
            retrieval["qid"].append(qid)
            retrieval["rank"].append(rank)
            retrieval["round_id"].append(slug)
            retrieval["origin"].append("logged")
    if without_log:
        notices.append(
            Notice(
                f"{len(without_log)} probe(s) have no PROBE block in the logs; their retrievals are unknown",
                str(csv_path),
                tuple(without_log[:3]),
            )
        )
    if disagreeing:
        notices.append(
            Notice(
                f"{len(disagreeing)} probe(s): the log's correct= disagrees with the CSV; the CSV is used",
                str(csv_path),
                tuple(disagreeing[:3]),
            )
        )
    predictions = typed_table(prediction)
    retrievals = typed_table(retrieval)
    steps = typed_table(step_rows)
    return predictions, retrievals, steps, notices
