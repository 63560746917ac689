"""Simulated MemEye runs: the rows of ``predictions.jsonl`` plus ``metrics.json`` and
``config.json``, laid out field for field like the real runner's output.

For every (run, question) the answer follows ``outcomes.py``: correct unless a designed
failure says otherwise. Retrieval comes from ``retrieval.py``. Answer scores (EM, F1,
BLEU, the summary block) are computed with ``textmetrics.py``, which behaves like
MemEye's evaluator. Open-ended rows carry the post-hoc judge score the way
``score_locked_llm_judge.py`` leaves them; the judge verdicts are part of the design.
Latencies and token counts are plausible, deterministic numbers (seeded per row).
"""

from __future__ import annotations

import random

import outcomes
import retrieval
import story
import textmetrics

MODEL_CONFIG = {
    "name": "demo_sim_model",
    "provider": "simulated",
    "model": "demo-sim-1",
    "api_key": "sk-demo-0000-not-a-real-key",  # a dummy; memscope must still mask it
    "base_url": "http://127.0.0.1:9/v1",
    "max_new_tokens": 128,
    "timeout": 30,
}
JUDGE_MODEL = "demo_sim_judge"
TEXT_EMBEDDER = "all-MiniLM-L6-v2"
IMAGE_EMBEDDER = "siglip2-base-patch16-384"
IMAGE_TOKEN_COST = 765  # MemEye's per-image token estimate
SYSTEM_PROMPT_TOKENS = 140

# run name -> (method config as the method yaml gives it, effective name, row modality)
RUN_METHODS = {
    "srag_v": (
        {
            "name": "semantic_rag_multimodal",
            "modality": "multimodal",
            "retrieval_backend": "dense_multimodal",
            "top_k": outcomes.TOP_K,
            "neighbor_window": 0,
            "text_embedding_model": TEXT_EMBEDDER,
            "multimodal_embedding_model": IMAGE_EMBEDDER,
            "text_dense_weight": 0.5,
            "image_dense_weight": 0.5,
        },
        "semantic_rag_multimodal",
        "multimodal",
    ),
    "srag_t": (
        {
            "name": "semantic_rag_text_only",
            "retrieval_backend": "dense_text",
            "top_k": outcomes.TOP_K,
            "neighbor_window": 0,
            "text_embedding_model": TEXT_EMBEDDER,
            "text_dense_weight": 1.0,
            "image_dense_weight": 0.0,
        },
        "semantic_rag_text_only",
        "text_only",
    ),
    "fc_v": (
        {"name": "full_context_multimodal", "context_token_limit": 128000, "reserved_tokens": 1000},
        "full_context_multimodal",
        "multimodal",
    ),
    "oracle_v": (
        {"name": "clue_only_context", "modality": "multimodal"},
        "clue_only_context__multimodal",
        "multimodal",
    ),
    "qonly": ({"name": "question_only"}, "question_only", "no_visual"),
}

# Typical wall time of one answer call per run, in ms (full context is the slowest).
LATENCY_RANGE_MS = {
    "srag_v": (900, 2400),
    "srag_t": (500, 1300),
    "fc_v": (3200, 7800),
    "oracle_v": (600, 1500),
    "qonly": (250, 700),
}


# --------------------------------------------------------------------------------------
# What each run "saw" for a question
# --------------------------------------------------------------------------------------


class Dataset:
    """The story in the shapes the simulation needs (rounds by id, QA entries)."""

    def __init__(self, dataset_dir_from_run: str) -> None:
        self.records = story.round_records()
        self.by_id = {r["round_id"]: r for r in self.records}
        self.entries = story.qa_entries()
        self.dialog_json = f"{dataset_dir_from_run}/dialog/{story.TASK_NAME}.json"
        self.image_root = f"{dataset_dir_from_run}/image"
        self.image_count = sum(len(r["image_ids"]) for r in self.records)

    def image_path_from_run(self, image_id: str) -> str:
        return f"{self.image_root}/{story.TASK_NAME}/{image_id}.png"


def history_turns(round_ids, dataset: Dataset, modality: str) -> list[dict]:
    """The chat history MemEye would build from these rounds, in dialogue order."""
    wanted = set(round_ids)
    turns = []
    for record in dataset.records:
        if record["round_id"] not in wanted:
            continue
        user_text, images = record["user"], list(record["image_ids"])
        if modality == "text_only":
            lines = []
            for image_id, caption in zip(record["image_ids"], record["captions"], strict=False):
                lines += ["image:", f"image_id: {image_id}", f"image_caption: {caption}"]
            if lines:
                user_text = f"{user_text}\n" + "\n".join(lines)
            images = []
        turns.append({"text": user_text, "images": images})
        turns.append({"text": record["assistant"], "images": []})
    return turns


def history_tokens(turns: list[dict]) -> int:
    return sum(max(1, len(t["text"]) // 4) + IMAGE_TOKEN_COST * len(t["images"]) for t in turns)


def method_runtime(
    run: str, entry: dict, ranking: dict | None, dataset: Dataset, turn_count: int
) -> dict:
    """The ``method_runtime`` dict MemEye snapshots before answering (empty for qonly)."""
    clues = entry["qa"]["clue"]
    if run in ("srag_v", "srag_t"):
        seed = ranking["order"][: outcomes.TOP_K]
        runtime = {
            "retrieval_backend": RUN_METHODS[run][0]["retrieval_backend"],
            "retrieval_corpus": "round_text",
            "method_modality": RUN_METHODS[run][2],
            "top_k": outcomes.TOP_K,
            "neighbor_window": 0,
            "seed_round_ids": list(seed),
            # With neighbor_window 0 MemEye returns the seed list unchanged (rank order).
            "selected_round_ids": list(seed),
            "top_candidates": top_candidates(run, seed, ranking, dataset),
            "clue_hit_count": sum(1 for rid in seed if rid in clues),
            "corpus_entry_count": len(dataset.records),
            "text_embedding_model": TEXT_EMBEDDER,
        }
        if run == "srag_v":
            runtime.update(
                {
                    "multimodal_embedding_model": IMAGE_EMBEDDER,
                    "text_dense_weight": 0.5,
                    "image_dense_weight": 0.5,
                    "caption_text_included": False,
                    "image_embeddings_built": True,
                    "multi_image_indexing_enabled": True,
                    "indexed_image_count": dataset.image_count,
                }
            )
        else:
            runtime.update({"caption_text_included": True, "image_embeddings_built": False})
        runtime.update(
            {
                "history_source": "retrieval",
                "captions_loaded": run == "srag_t",
                "images_loaded": run == "srag_v",
                "history_turns_after_truncation": turn_count,
            }
        )
        return runtime
    if run == "fc_v":
        return {
            "method_modality": "multimodal",
            "history_source": "full_context",
            "captions_loaded": False,
            "images_loaded": True,
            "history_turns_after_truncation": turn_count,
            "history_turns_before_truncation": turn_count,
        }
    if run == "oracle_v":
        return {
            "method_modality": "multimodal",
            "history_source": "clue_only",
            "captions_loaded": False,
            "images_loaded": True,
            "history_turns_after_truncation": turn_count,
        }
    return {}


def top_candidates(run: str, seed: list[str], ranking: dict, dataset: Dataset) -> list[dict]:
    candidates = []
    for rid in seed[: retrieval.LOGGED_CANDIDATES]:
        logged = ranking["scores"][rid]
        if run == "srag_v":
            best = logged["best_image"]
            candidates.append(
                {
                    "round_id": rid,
                    "score": logged["score"],
                    "text_dense_score": logged["text"],
                    "image_dense_score": logged["image"],
                    "indexed_image_count": len(dataset.by_id[rid]["image_ids"]),
                    "best_image_path": dataset.image_path_from_run(best) if best else "",
                }
            )
        else:
            candidates.append(
                {"round_id": rid, "score": logged["score"], "text_dense_score": logged["text"]}
            )
    return candidates


def context_round_ids(run: str, entry: dict, ranking: dict | None, dataset: Dataset):
    if run in ("srag_v", "srag_t"):
        return ranking["order"][: outcomes.TOP_K]
    if run == "fc_v":
        return [r["round_id"] for r in dataset.records]
    if run == "oracle_v":
        return list(entry["qa"]["clue"])
    return []


# --------------------------------------------------------------------------------------
# Answers
# --------------------------------------------------------------------------------------


def designed_failure(run: str, entry: dict) -> dict | None:
    if run == "qonly":
        return {
            "codes": [],
            "reason": outcomes.QUESTION_ONLY_REASON,
            "mcq": "bias_a",
            "open_pred": outcomes.QUESTION_ONLY_ANSWER,
            "derivable": True,
        }
    return outcomes.FAILURES.get((entry["key"], run))


def mcq_choices(entry: dict, fail: dict | None) -> list[str]:
    """The letter chosen in each of the four rotations."""
    options = entry["qa"]["options"]
    choices = []
    for r, option in enumerate(options):
        correct_letter = option["answer"]
        if fail is None:
            choices.append(correct_letter)
        elif fail["mcq"] == "bias_a":
            choices.append("A")
        elif fail["mcq"] == "half":
            choices.append(correct_letter if r in (0, 2) else "A")
        else:
            choices.append(next(k for k in "ABCD" if option[k] == fail["wrong"]))
    return choices


def correct_reason(run: str, entry: dict) -> str:
    return outcomes.CORRECT_NOTES.get(
        (entry["key"], run), "the evidence was available and read correctly"
    )


def open_answer(run: str, entry: dict, fail: dict | None) -> dict:
    """Prediction, judge score and reasoning, and the designed truth for an open row."""
    key, gold = entry["key"], entry["qa"]["answer"]
    override = outcomes.OPEN_OVERRIDES.get((key, run))
    if override:
        return dict(override)
    if fail is not None:
        pred = fail["open_pred"]
        if run == "qonly":
            reasoning = f"The response gives no answer; the reference answer is '{gold}'."
        else:
            reasoning = (
                f"The response answers '{pred.rstrip('.')}' but the reference answer is '{gold}'."
            )
        return {
            "pred": pred,
            "judge": 0.0,
            "judge_reasoning": reasoning,
            "codes": fail["codes"],
            "reason": fail["reason"],
            "correct": False,
        }
    if (key, run) in outcomes.OPEN_PARTIAL:
        pred, reasoning = outcomes.OPEN_PARTIAL[(key, run)]
        return {
            "pred": pred,
            "judge": 0.5,
            "judge_reasoning": reasoning,
            "codes": [],
            "reason": "incomplete but acceptable answer (judge 0.5 counts as correct)",
            "correct": True,
        }
    return {
        "pred": outcomes.OPEN_RIGHT[key],
        "judge": 1.0,
        "judge_reasoning": f"The response matches the reference answer '{gold}'.",
        "codes": [],
        "reason": correct_reason(run, entry),
        "correct": True,
    }


# --------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------


def usage(prompt_tokens: int, completion_tokens: int) -> dict:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def latency(run: str, idx: int, call: int) -> int:
    low, high = LATENCY_RANGE_MS[run]
    return random.Random(f"latency|{run}|{idx}|{call}").randint(low, high)


def build_row(run: str, entry: dict, ranking: dict | None, dataset: Dataset) -> tuple[dict, dict]:
    """One predictions.jsonl row plus the designed outcome behind it."""
    method_cfg, effective_name, modality = RUN_METHODS[run]
    qa = entry["qa"]
    turns = history_turns(
        context_round_ids(run, entry, ranking, dataset),
        dataset,
        "text_only" if run == "srag_t" else "multimodal",
    )
    runtime = method_runtime(run, entry, ranking, dataset, len(turns))
    fail = designed_failure(run, entry)
    row = {
        "idx": entry["idx"],
        "point": qa["point"],
        "mode": entry["mode"],
        "question": qa["question"],
        "gt": qa["answer"],
    }

    if entry["mode"] == "mcq":
        choices = mcq_choices(entry, fail)
        prompt = SYSTEM_PROMPT_TOKENS + history_tokens(turns) + len(qa["question"]) // 4 + 40
        rotation_rows = []
        for r, (option, choice) in enumerate(zip(qa["options"], choices, strict=False)):
            rotation_rows.append(
                {
                    "rotation_idx": r,
                    "correct_position": option["answer"],
                    "pred": choice,
                    "choice": choice,
                    "em": 1.0 if choice == option["answer"] else 0.0,
                    "latency_ms": latency(run, entry["idx"], r),
                    "usage": usage(prompt, 1),
                }
            )
        em = sum(rot["em"] for rot in rotation_rows) / len(rotation_rows)
        position_bias: dict[str, int] = {}
        for rot in rotation_rows:
            position_bias[rot["choice"]] = position_bias.get(rot["choice"], 0) + 1
        row.update(
            {
                "pred": rotation_rows[-1]["pred"],
                "choice": rotation_rows[-1]["choice"],
                "valid_choice": True,
                "exact_match": em == 1.0,
                "em": em,
                "contains_gt": rotation_rows[-1]["choice"] == qa["answer"].strip().upper(),
                "f1": em,
                "bleu": None,
                "bleu_1": None,
                "bleu_2": None,
                "bert": None,
                "judge": None,
                "judge_reasoning": None,
                "latency_ms": sum(rot["latency_ms"] for rot in rotation_rows),
            }
        )
        tail = {
            "rotations": rotation_rows,
            "debiased_em": em,
            "position_bias": position_bias,
            "usage": usage(4 * prompt, 4),
        }
        truth = {
            "correct": fail is None,
            "scored_correct": em == 1.0,
            "codes": fail["codes"] if fail else [],
            "reason": fail["reason"] if fail else correct_reason(run, entry),
        }
    else:
        answer = open_answer(run, entry, fail)
        pred = answer["pred"]
        exact, contains = textmetrics.score_open(pred, qa["answer"])
        prompt = SYSTEM_PROMPT_TOKENS + history_tokens(turns) + len(qa["question"]) // 4
        row.update(
            {
                "pred": pred,
                "exact_match": exact,
                "em": 1.0 if exact else 0.0,
                "contains_gt": contains,
                "f1": textmetrics.f1_score(pred, qa["answer"]),
                "bleu": textmetrics.bleu_score(pred, qa["answer"]),
                "bleu_1": textmetrics.bleu_score(pred, qa["answer"], weights=(1, 0, 0, 0)),
                "bleu_2": textmetrics.bleu_score(pred, qa["answer"], weights=(0.5, 0.5, 0, 0)),
                "bert": None,
                "judge": answer["judge"],
                "judge_reasoning": answer["judge_reasoning"],
                "latency_ms": latency(run, entry["idx"], 0),
            }
        )
        tail = {"usage": usage(prompt, max(1, len(pred) // 4))}
        truth = {
            "correct": answer["correct"],
            "scored_correct": answer["judge"] >= 0.5,
            "codes": answer["codes"],
            "reason": answer["reason"],
        }

    row.update(
        {
            "method_name": method_cfg["name"],
            "effective_method_name": effective_name,
            "method_modality": modality,
            "history_turns": len(turns),
            "source_sessions": qa["session_id"],
            "clue_rounds": qa["clue"],
        }
    )
    row.update(tail)
    if runtime:
        row["method_runtime"] = runtime
    truth["derivable"] = fail["derivable"] if fail else True
    return row, truth


# --------------------------------------------------------------------------------------
# Run-level files
# --------------------------------------------------------------------------------------


def dataset_paths(dataset: Dataset) -> dict:
    return {"dialog_json": dataset.dialog_json, "image_root": dataset.image_root}


def build_config(run: str, dataset: Dataset, final_runtime: dict) -> dict:
    method_cfg = RUN_METHODS[run][0]
    eval_cfg = {"mode": "open", "max_questions": 0}
    run_cfg: dict = {"output_root": "runs"}
    if final_runtime:
        run_cfg["method_runtime"] = final_runtime
    return {
        "task": {"name": story.TASK_ID, "dataset": dataset_paths(dataset), "eval": dict(eval_cfg)},
        "dataset": dataset_paths(dataset),
        "eval": dict(eval_cfg),
        "model": dict(MODEL_CONFIG),
        "method": dict(method_cfg),
        "run": run_cfg,
    }


def build_metrics(run: str, dataset: Dataset, rows: list[dict], final_runtime: dict) -> dict:
    method_cfg, effective_name, _ = RUN_METHODS[run]
    all_have_options = all(e["mode"] == "mcq" for e in dataset.entries)
    metrics = {
        "task_name": story.TASK_ID,
        "model_name": MODEL_CONFIG["name"],
        "model_path": MODEL_CONFIG["model"],
        "method_name": effective_name,
        "base_method_name": method_cfg["name"],
        "method_modality": method_cfg.get("modality", ""),
        # MemEye reports "mcq" only when every QA has options; this file mixes both.
        "mode": "mcq" if all_have_options else "open",
        "num_qas": len(dataset.entries),
        "num_qas_run": len({row["idx"] for row in rows}),
        "dialog_json": dataset.dialog_json,
        "image_root": dataset.image_root,
        "run_dir": f"runs/{run}",
        "git_commit": "unknown",
        "summary": textmetrics.summarize_results(rows),
    }
    if final_runtime:
        metrics["method_runtime"] = final_runtime
    metrics["judge"] = {
        "enabled": True,
        "model": JUDGE_MODEL,
        "scored_open_rows": sum(1 for r in rows if r["mode"] == "open" and r["judge"] is not None),
    }
    return metrics


def simulate_run(run: str, dataset: Dataset, rankings: dict) -> dict:
    """All three files of one run plus the designed truth per row."""
    rows, truths = [], []
    for entry in dataset.entries:
        row, truth = build_row(run, entry, rankings.get((run, entry["key"])), dataset)
        rows.append(row)
        truths.append(truth)
    final_runtime = rows[-1].get("method_runtime", {})
    return {
        "rows": rows,
        "truths": truths,
        "metrics": build_metrics(run, dataset, rows, final_runtime),
        "config": build_config(run, dataset, final_runtime),
    }


def simulate_rankings(dataset: Dataset) -> dict:
    """(run, question key) -> ranking for both RAG runs; twins share their MCQ's ranking."""
    rankings = {}
    for run in ("srag_v", "srag_t"):
        for key, _, question, *_ in story.MCQS:
            rankings[(run, key)] = retrieval.rank_rounds(
                question, dataset.records, run, outcomes.PLACEMENTS.get((run, key)), outcomes.TOP_K
            )
    return rankings
