"""Builds small files of each LoCoMo harness family over an invented dataset
(``builders_locomo.small_dataset``), shaped as the real ones in
``shared/upstream-samples/locomo-harnesses`` (read there, never copied here).

Every builder leaves category 5 out, as every real harness does. ``answers[qid]`` is the
system's answer and ``judged[qid]`` its judge verdict (default: the answer is the gold and
judged right).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from builders_locomo import REPO

HARNESS_ENV = "MEMSCOPE_LOCOMO_HARNESSES"


def shared_harnesses() -> Path:
    """``shared/upstream-samples/locomo-harnesses`` beside the checkout or above it
    (``$MEMSCOPE_LOCOMO_HARNESSES``); skips the test when it is not on this machine."""
    candidates = [Path(os.environ[HARNESS_ENV])] if os.environ.get(HARNESS_ENV) else []
    candidates += [
        folder / "shared" / "upstream-samples" / "locomo-harnesses" for folder in REPO.parents
    ]
    for candidate in candidates:
        if (candidate / "README.md").is_file():
            return candidate
    pytest.skip("the LoCoMo harness samples (shared/upstream-samples/locomo-harnesses) are absent")


def _items(
    dataset: list[dict[str, Any]],
    answers: dict[str, str] | None = None,
    judged: dict[str, bool] | None = None,
) -> list[tuple[int, int, dict[str, Any], str, bool]]:
    """``(conversation index, 0-based position, qa item, answer, verdict)`` of every
    question but category 5's, in the dataset's order."""
    found = []
    for index, sample in enumerate(dataset):
        for position, item in enumerate(sample["qa"]):
            if item["category"] == 5:
                continue
            qid = f"{sample['sample_id']}:q{position + 1}"
            answer = (answers or {}).get(qid, str(item["answer"]))
            found.append((index, position, item, answer, (judged or {}).get(qid, True)))
    return found


def mem0_file(dataset: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """mem0 ``evals.py``: ``{"<i>": [{question, answer, response, category, …}]}``, the
    conversation keys written out of order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for index, _position, item, answer, verdict in _items(dataset, **kw):
        out.setdefault(str(index), []).append(
            {
                "question": item["question"],
                "answer": item["answer"],
                "response": answer,
                "category": str(item["category"]),
                "bleu_score": 0.5,
                "f1_score": 0.25,
                "llm_score": int(verdict),
            }
        )
    return dict(reversed(list(out.items())))


def mirix_file(dataset: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """MIRIX ``evaluation_metrics_run<N>.json`` with its own (correct) summaries."""
    rows = [row for rows in mem0_file(dataset, **kw).values() for row in rows]
    by: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault(row["category"], []).append(row)

    def means(group: list[dict[str, Any]], prefix: str) -> dict[str, float]:
        return {
            f"{prefix}{name}_score": sum(r[f"{name}_score"] for r in group) / len(group)
            for name in ("bleu", "f1", "llm")
        }

    return {
        "detailed_results": rows,
        "summary_by_category": {
            c: {"num_questions": len(g), **means(g, "avg_")} for c, g in by.items()
        },
        "overall_summary": {"total_questions": len(rows), **means(rows, "overall_avg_")},
    }


def zep_files(dataset: list[dict[str, Any]], **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Zep's grades and responses (``answer`` is the system's; latency in the responses)."""
    grades: dict[str, list[dict[str, Any]]] = {}
    responses: dict[str, list[dict[str, Any]]] = {}
    for index, position, item, answer, verdict in _items(dataset, **kw):
        key = f"locomo_experiment_user_{index}"
        common = {"question": item["question"], "answer": answer, "golden_answer": item["answer"]}
        grades.setdefault(key, []).append(
            {**common, "grade": verdict, "category": item["category"]}
        )
        responses.setdefault(key, []).append({**common, "duration_ms": 1000.0 + 10 * position})
    return grades, responses


def memu_file(
    dataset: list[dict[str, Any]], rename: tuple[str, str] | None = None, **kw: Any
) -> dict[str, Any]:
    """memU ``result.json``: items by ``qa_index`` (restarting per conversation), question
    texts with ``rename`` applied (memU renamed people), and its summary."""
    rows = []
    stats: dict[str, dict[str, int]] = {}
    for _index, position, item, answer, verdict in _items(dataset, **kw):
        text = item["question"].replace(*rename) if rename else item["question"]
        rows.append(
            {
                "qa_index": position,
                "question": text,
                "generated_answer": answer,
                "standard_answer": item["answer"],
                "category": item["category"],
                "is_correct": verdict,
                "explanation": "matches" if verdict else "does not match",
            }
        )
        entry = stats.setdefault(str(item["category"]), {"total": 0, "correct": 0})
        entry["total"] += 1
        entry["correct"] += int(verdict)
    correct = sum(e["correct"] for e in stats.values())
    return {
        "success": True,
        "summary": {
            "total_questions": sum(len(s["qa"]) for s in dataset),
            "total_correct": correct,
            "overall_accuracy": correct / len(rows),
            "category_stats": stats,
            "category_accuracies": {c: e["correct"] / e["total"] for c, e in stats.items()},
        },
        "detailed_results": rows,
    }


def evermemos_file(
    dataset: list[dict[str, Any]],
    third_wrong: set[str] = frozenset(),
    **kw: Any,  # type: ignore[assignment]
) -> dict[str, Any]:
    """EverMemOS ``eval_results.json``: three judgements per answer (the third one False
    for the qids in ``third_wrong``) and its summary (mean over the judge runs)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    runs: list[list[bool]] = [[], [], []]
    by: dict[str, list[list[bool]]] = {}
    for index, position, item, answer, verdict in _items(dataset, **kw):
        qid = f"{dataset[index]['sample_id']}:q{position + 1}"
        judgments = [verdict, verdict, verdict and qid not in third_wrong]
        groups.setdefault(f"locomo_exp_user_{index}", []).append(
            {
                "question_id": f"locomo_{index}_qa{position}",
                "question": item["question"],
                "golden_answer": item["answer"],
                "generated_answer": answer,
                "llm_judgments": {f"judgment_{n + 1}": j for n, j in enumerate(judgments)},
                "category": str(item["category"]),
            }
        )
        for n, j in enumerate(judgments):
            runs[n].append(j)
        by.setdefault(str(item["category"]), []).append(judgments)
    scores = [sum(r) / len(r) for r in runs]
    categories = {}
    for category, rows in by.items():
        individual = [sum(row[n] for row in rows) / len(rows) for n in range(3)]
        categories[category] = {
            "mean": sum(individual) / 3,
            "std": 0.0,
            "individual_runs": individual,
            "total": len(rows),
        }
    return {
        "total_questions": len(runs[0]),
        "correct": sum(runs[0]),
        "accuracy": sum(scores) / 3,
        "metadata": {
            "answer_model": "gpt-4o-mini",
            "judge_model": "gpt-4o-mini",
            "num_runs": 3,
            "run_scores": scores,
            "category_accuracies": categories,
            "total_prompt_tokens": 1234,
        },
        "detailed_results": groups,
    }


def memos_file(dataset: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """MemOS ``<lib>_locomo_judged.json`` (``locomo_eval.py``): judgements, NLP metrics and
    durations, no question id."""
    out: dict[str, list[dict[str, Any]]] = {}
    for index, _position, item, answer, verdict in _items(dataset, **kw):
        out.setdefault(f"locomo_exp_user_{index}", []).append(
            {
                "question": item["question"],
                "answer": answer,
                "golden_answer": item["answer"],
                "category": item["category"],
                "llm_judgments": {"judgment_1": verdict, "judgment_2": verdict},
                "nlp_metrics": {"context_tokens": 321, "lexical": {"f1": 0.5, "bleu1": 0.4}},
                "response_duration_ms": 100.0,
                "search_duration_ms": 50.0,
                "total_duration_ms": 150.0,
            }
        )
    return out
