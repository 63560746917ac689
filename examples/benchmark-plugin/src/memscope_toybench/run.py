"""Reads a ToyBench run directory, named by its folder (:func:`sniff`: it holds the answers).

- ``answers.toybench.csv``: ``question_id,answer,correct,retrieved``: ToyBench's grade (1 or
  0) and the turn ids the memory returned, space-separated, best first;
- ``run.toybench.json`` (optional): ``{"system", "model", "top_k", "dialogue"?}`` (the
  dialogue relative to the run); else ``--dataset``, a dialogue beside, or the bundled one;
- ``summary.toybench.json`` (optional): ``{"n", "correct", "by_kind": {kind: {"n",
  "correct"}}}``, checked against the stored rows at ingest (:func:`check_stored`) and by
  ``table --check-upstream`` (:func:`check_table`).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import memscope.plugin as ms

from memscope_toybench.dataset import BUNDLED, DIALOGUE_FILE, MODE, NAME, read_dataset

ANSWERS_FILE = "answers.toybench.csv"
COLUMNS = ["question_id", "answer", "correct", "retrieved"]
SUMMARY_FILE = "summary.toybench.json"


def sniff(path: Path) -> bool:
    return (path / ANSWERS_FILE).is_file()


def read_all(run_dir: Path, options: ms.ReadOptions) -> list[ms.RunRecord]:
    """The one run of ``run_dir``; RunDirError where its files are bad (``--strict``: any row)."""
    run_dir, answers = run_dir.resolve(), run_dir.resolve() / ANSWERS_FILE
    meta_path = run_dir / "run.toybench.json"
    meta = ms.read_json_file(meta_path) if meta_path.is_file() else {}
    if not isinstance(meta, dict):
        raise ms.RunDirError("run.toybench.json is not a JSON object", where=str(meta_path))
    named = meta.get("dialogue")
    beside = run_dir / DIALOGUE_FILE
    dialogue = options.dataset or (run_dir / named if isinstance(named, str) and named else None)
    dialogue = (dialogue or (beside if beside.is_file() else BUNDLED)).expanduser().resolve()
    toy = read_dataset(dialogue, options.path_option("toybench_photos"))
    rows = ms.RunRows(toy.record, strict=options.strict, source=str(answers), mode=MODE)
    try:
        with answers.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames != COLUMNS:
                raise ms.RunDirError(f"not a ToyBench answers file: header not {COLUMNS}")
            for row in reader:
                qid = toy.qid_of.get(row["question_id"] or "", row["question_id"] or "?")
                correct, line_no = (row["correct"] or "").strip(), reader.line_num
                if correct not in ("0", "1"):
                    rows.skip(f"{answers}:{line_no}", "correct is not 0 or 1")
                elif rows.prediction(qid, pred=row["answer"], em=float(correct), line_no=line_no):
                    for rank, turn in enumerate((row["retrieved"] or "").split(), start=1):
                        rows.retrieval(qid, rank, turn)
    except (UnicodeDecodeError, csv.Error, OSError) as error:
        raise ms.RunDirError(f"cannot read the answers file: {error}", where=str(answers)) from None
    top_k = meta.get("top_k")
    return [
        ms.run_record(
            run_dir,
            benchmark=NAME,
            dataset=toy.record,
            rows=rows,
            files=[answers, meta_path, run_dir / SUMMARY_FILE, beside],
            inputs=[dialogue],
            model=str(meta.get("model") or "") or None,
            method=str(meta.get("system") or "") or None,
            modality="text_only",
            top_k=top_k if type(top_k) is int else None,
            config={"dialogue_file": str(dialogue), **meta},
        )
    ]


def _summary(run_dir: Path) -> dict[str, Any]:
    try:
        found = ms.read_json_file(run_dir / SUMMARY_FILE)
    except ms.MemscopeError:  # none, or not JSON: nothing to check
        return {}
    return found if isinstance(found, dict) else {}


def check_stored(
    record: ms.RunRecord, stored: ms.StoredMeans
) -> tuple[dict[str, Any] | None, list[ms.Notice]]:
    """The summary's ``n`` and ``correct / n`` against the stored count and mean EM."""
    summary, means = _summary(Path(record.path)), stored(["em"])
    if not summary:
        return None, []
    n, correct = summary.get("n"), summary.get("correct")
    accuracy = correct / n if isinstance(correct, int) and isinstance(n, int) and n else None
    fields: list[ms.Comparison] = [
        ("n", n, means.get("n"), 0.0),
        ("accuracy", accuracy, means.get("em"), 1e-9),
    ]
    check = ms.summary_check(str(Path(record.path) / SUMMARY_FILE), fields)
    return check, ms.check_notices(check)


def check_table(data: ms.RunColumns) -> list[ms.JSONObject]:
    """Per kind, the summary's ``n`` and ``correct`` against the run's stored rows."""
    by_kind = _summary(data.run_dir).get("by_kind")
    graded = list(zip(data.attribute("kind").tolist(), data.column("em").tolist(), strict=True))
    checks: list[ms.JSONObject] = []
    for kind, written in by_kind.items() if isinstance(by_kind, dict) else ():
        mine = [em for k, em in graded if k == kind]
        ours = {"n": len(mine), "correct": sum(1 for em in mine if em >= 1.0)}  # NaN: not
        for field, theirs in written.items() if isinstance(written, dict) else ():
            if field in ours and type(theirs) in (int, float):
                source, run = data.run_dir / SUMMARY_FILE, str(data.run["run_id"])
                found = ms.csv_comparison(source, run, f"{kind} {field}", str(theirs), ours[field])
                checks += [found] if found else []
    return checks
