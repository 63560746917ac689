"""``memscope table --check-upstream`` for LongMemEval, two comparisons where upstream's
own numbers are there:

- **retrieval**: for every question of a run that read a retrieval log, upstream's
  retrieval metrics as memscope computes them (from the log's ranking and the targets
  memscope read from the dataset's ``has_answer`` turns, ``upstream.py``) against the
  ``retrieval_results.metrics`` the log itself holds. They must agree exactly (to float
  rounding: 1e-12).
- **answers**: for a graded run whose ``print_qa_metrics.py`` output was saved beside its
  eval-results file as ``<eval-results file>.metrics.txt`` (``python print_qa_metrics.py
  X ref.json > X.metrics.txt``), each printed line against memscope's value from the
  stored judge labels: per type the accuracy and the number of questions, the
  task-averaged, overall and abstention accuracy, and the number of abstention questions.
  Upstream prints accuracies rounded to 4 places, so a value agrees when memscope's,
  rounded the same way, is the printed one (NaN where upstream prints ``nan``).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from memscope.adapters.longmemeval.axes import TYPES
from memscope.adapters.longmemeval.names import RunName, parse, qa_metrics_file
from memscope.adapters.longmemeval.upstream import retrieval_metrics
from memscope.plugin import JSONObject, RunColumns, recorded_sources

TOLERANCE = 1e-12
PRINTED_TYPE = re.compile(r"^\s*(?P<type>[a-z-]+): (?P<value>\S+) \((?P<n>\d+)\)\s*$")
PRINTED_SUMMARY = re.compile(
    r"^(?P<what>Task-averaged|Overall|Abstention) Accuracy: (?P<value>\S+)(?: \((?P<n>\d+)\))?\s*$"
)
PRINTED_DIGITS = 4


def check_table(data: RunColumns) -> list[JSONObject]:
    """The run's retrieval-log checks (one row per question, granularity and metric), then
    its printed-accuracy checks (one row per line of print_qa_metrics.py's output)."""
    folder, _, file_name = str(data.run.get("path") or "").partition("#")
    name = parse(Path(folder) / file_name) if folder and file_name else None
    if name is None:
        return []
    checks = _retrieval_checks(data, name)
    if name.judge is not None:
        checks += qa_metrics_checks(data, qa_metrics_file(name.file))
    return checks


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def read_printed(path: Path) -> dict[str, tuple[float | None, int | None]]:
    """print_qa_metrics.py's lines: ``{field: (value, count)}`` for ``type <type>``,
    ``task-averaged``, ``overall`` and ``abstention`` (value None where it is no number)."""
    found: dict[str, tuple[float | None, int | None]] = {}
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        typed = PRINTED_TYPE.match(line)
        if typed and typed["type"] in TYPES:
            found[f"type {typed['type']}"] = (_number(typed["value"]), int(typed["n"]))
            continue
        summary = PRINTED_SUMMARY.match(line)
        if summary:
            count = int(summary["n"]) if summary["n"] else None
            found[summary["what"].lower()] = (_number(summary["value"]), count)
    return found


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def qa_metrics_checks(data: RunColumns, printed_file: Path) -> list[JSONObject]:
    """Each printed line of ``printed_file`` against memscope's value from the run's stored
    judge labels (nothing when the file is not there)."""
    if not printed_file.is_file():
        return []
    printed = read_printed(printed_file)
    rows = list(
        zip(
            data.column("judge").tolist(),
            data.attribute("question_type").tolist(),
            data.attribute("abstention").tolist(),
            strict=True,
        )
    )
    graded = [(float(j), t, a) for j, t, a in rows if j is not None and not math.isnan(j)]
    per_type = {qtype: [j for j, t, _a in graded if t == qtype] for qtype in TYPES}
    declined = [j for j, _t, a in graded if a == "yes"]
    mine: dict[str, tuple[float, int | None]] = {
        f"type {qtype}": (_mean(values), len(values)) for qtype, values in per_type.items()
    }
    # print_qa_metrics.py: the mean of the six type means; overall over the six types' labels
    mine["task-averaged"] = (_mean([_mean(values) for values in per_type.values()]), None)
    mine["overall"] = (_mean([j for values in per_type.values() for j in values]), None)
    mine["abstention"] = (_mean(declined), len(declined))
    run_id = str(data.run["run_id"])
    checks: list[JSONObject] = []
    for field, (value, count) in mine.items():
        if field not in printed:
            continue
        upstream, upstream_count = printed[field]
        shown = round(value, PRINTED_DIGITS)
        agrees = (
            math.isnan(shown) if upstream is None or math.isnan(upstream) else shown == upstream
        )
        checks.append(
            {
                "source": str(printed_file),
                "run": run_id,
                "field": f"accuracy {field}",
                "upstream": None if upstream is None or math.isnan(upstream) else upstream,
                "memscope": None if math.isnan(value) else value,
                "agrees": agrees,
            }
        )
        if count is not None and upstream_count is not None:
            checks.append(
                {
                    "source": str(printed_file),
                    "run": run_id,
                    "field": f"questions {field}",
                    "upstream": upstream_count,
                    "memscope": count,
                    "agrees": upstream_count == count,
                }
            )
    return checks


def _retrieval_checks(data: RunColumns, name: RunName) -> list[JSONObject]:
    """One check row per question, granularity and metric the run's retrieval log holds."""
    # The reader (and pyarrow with it) only when a check runs: the spec loads at every start.
    from memscope.adapters.longmemeval.run import RETRIEVAL_OPTION, locate_log

    folder = name.file.parent
    if name.retriever is None:
        return []
    # The log the run was read with: memscope_sources.json beside it, else the
    # --lme-retrieval-log the store remembers from its ingest, else upstream's layout.
    remembered = data.run.get("read_sources")
    given = remembered.get(RETRIEVAL_OPTION) if isinstance(remembered, dict) else None
    try:
        log = locate_log(
            folder,
            name,
            recorded_sources(folder, (RETRIEVAL_OPTION,)).get(RETRIEVAL_OPTION)
            or (Path(given) if isinstance(given, str) and given else None),
        )
    except Exception:
        log = None
    if log is None:
        return []
    targets = dict(
        zip(data.column("qid").tolist(), data.attribute("targets").tolist(), strict=True)
    )
    run_id = str(data.run["run_id"])
    checks: list[JSONObject] = []
    with log.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                qid = str(row["question_id"])
                results = row["retrieval_results"]
                ranked = [str(item["corpus_id"]) for item in results["ranked_items"]]
                written = results["metrics"]
            except (ValueError, KeyError, TypeError):
                continue
            wanted = targets.get(qid)
            if not isinstance(wanted, dict) or not isinstance(written, dict):
                continue
            mine = retrieval_metrics(
                ranked, name.granularity or "turn", wanted.get(name.granularity or "turn")
            )
            for granularity, values in mine.items():
                theirs = written.get(granularity)
                if not isinstance(theirs, dict):
                    continue
                for metric, value in values.items():
                    upstream = theirs.get(metric)
                    if not isinstance(upstream, (int, float)) or isinstance(upstream, bool):
                        continue
                    checks.append(
                        {
                            "source": str(log),
                            "run": run_id,
                            "field": f"{qid} {granularity} {metric}",
                            "upstream": float(upstream),
                            "memscope": value,
                            "agrees": abs(float(upstream) - value) <= TOLERANCE,
                        }
                    )
    return checks
