"""``memscope table --check-upstream`` for LongMemEval: for every question of a run that
read a retrieval log, upstream's retrieval metrics as memscope computes them (from the
log's ranking and the targets memscope read from the dataset's ``has_answer`` turns,
``upstream.py``) against the ``retrieval_results.metrics`` the log itself holds. They must
agree exactly (to float rounding: 1e-12)."""

from __future__ import annotations

import json
from pathlib import Path

from memscope.adapters.longmemeval.names import parse
from memscope.adapters.longmemeval.upstream import retrieval_metrics
from memscope.plugin import JSONObject, RunColumns, recorded_sources

TOLERANCE = 1e-12


def check_table(data: RunColumns) -> list[JSONObject]:
    """One check row per question, granularity and metric the run's retrieval log holds."""
    # The reader (and pyarrow with it) only when a check runs: the spec loads at every start.
    from memscope.adapters.longmemeval.run import RETRIEVAL_OPTION, locate_log

    folder, _, file_name = str(data.run.get("path") or "").partition("#")
    name = parse(Path(folder) / file_name) if folder and file_name else None
    if name is None or name.retriever is None:
        return []
    try:
        log = locate_log(
            Path(folder),
            name,
            recorded_sources(Path(folder), (RETRIEVAL_OPTION,)).get(RETRIEVAL_OPTION),
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
