"""Reads a ToyBench run directory (:func:`sniff`: it holds ``answers.toybench.csv``).

- ``answers.toybench.csv``: ``question_id,answer,correct,retrieved``: ToyBench's grade (1 or
  0) and the turn ids the memory returned, space-separated, best first;
- ``run.toybench.json`` (optional): ``{"system", "model", "top_k", "dialogue"?}`` (the
  dialogue relative to the run); else ``--dataset``, a dialogue beside, or the bundled one.

The run id is the folder's name; :class:`memscope.plugin.RunRows` builds the rows.
"""

from __future__ import annotations

import csv
from pathlib import Path

import memscope.plugin as ms

from memscope_toybench import NAME
from memscope_toybench.dataset import BUNDLED, DIALOGUE_FILE, MODE, read_dataset

ANSWERS_FILE = "answers.toybench.csv"
COLUMNS = ["question_id", "answer", "correct", "retrieved"]


def sniff(path: Path) -> bool:
    return (path / ANSWERS_FILE).is_file()


def read_all(run_dir: Path, options: ms.ReadOptions) -> list[ms.RunRecord]:
    """The one run of ``run_dir``; RunDirError where its files are bad (``--strict``: any row)."""
    run_dir, answers = run_dir.resolve(), run_dir.resolve() / ANSWERS_FILE
    meta_path = run_dir / "run.toybench.json"
    meta = ms.read_json_file(meta_path) if meta_path.is_file() else {}
    if not isinstance(meta, dict):
        raise ms.RunDirError("run.toybench.json is not a JSON object", where=str(meta_path))
    named = meta.get("dialogue") if isinstance(meta.get("dialogue"), str) else None
    beside = run_dir / DIALOGUE_FILE
    dialogue = options.dataset or (run_dir / named if named else None)
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
            files=[answers, meta_path, run_dir / "summary.toybench.json", beside],
            inputs=[dialogue],
            model=str(meta.get("model") or "") or None,
            method=str(meta.get("system") or "") or None,
            modality="text_only",
            top_k=top_k if type(top_k) is int else None,
            config={"dialogue_file": str(dialogue), **meta},
        )
    ]
