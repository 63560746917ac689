"""Generates a MemEye-layout benchmark and one run over it, of any size, for benchmarks.

Realistic shapes: 10-30 sessions of 10-25 rounds, a quarter of the rounds with an image
(a few real PNG files referenced over and over), half rotation-MCQ questions with four
rotations, half open questions with judge scores, and semantic-RAG retrieval provenance
(``seed_round_ids`` of top_k 10 with ``top_candidates`` scores for the first five).
Deterministic for a given seed. Written as it is generated (the dialog's questions and the
predictions stream to their files), so a run of 1,000,000 questions (about 3 GB of JSON)
needs little memory.

    python benchmarks/generate_run.py OUT_DIR --questions 50000
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import IO, Any

import numpy as np

LETTERS = "ABCD"
TOP_K = 10


def _write_images(image_dir: Path, count: int) -> list[str]:
    from PIL import Image

    image_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(count):
        name = f"scene_{i:02d}.png"
        Image.new("RGB", (32, 24), ((i * 40) % 256, (i * 90) % 256, (i * 150) % 256)).save(
            image_dir / name
        )
        names.append(name)
    return names


def generate(out: Path, n_questions: int, seed: int = 7, task: str = "Bench_Task") -> Path:
    """Write ``out/data/{dialog,image}`` and ``out/runs/<task>/srag_bench``; return the run dir."""
    rng = np.random.default_rng(seed)
    images = _write_images(out / "data" / "image" / task, 8)
    n_sessions = int(rng.integers(10, 31))
    sessions, round_ids, round_session = [], [], []
    for s in range(1, n_sessions + 1):
        dialogues = []
        for r in range(1, int(rng.integers(10, 26)) + 1):
            round_id = f"D{s}:{r}"
            turn = {
                "round": round_id,
                "user": f"Session {s}, round {r}: here is what changed today.",
                "assistant": f"Noted the update from round {r}.",
            }
            if rng.random() < 0.25:
                image = images[int(rng.integers(len(images)))]
                turn |= {
                    "input_image": [f"image/{task}/{image}"],
                    "image_caption": [f"A photo ({image})."],
                    "image_id": [image[:-4]],
                }
            dialogues.append(turn)
            round_ids.append(round_id)
            round_session.append(f"D{s}")
        sessions.append(
            {"session_id": f"D{s}", "date": f"2025-01-{(s % 28) + 1:02d}", "dialogues": dialogues}
        )
    dialog_path = out / "data" / "dialog" / f"{task}.json"
    dialog_path.parent.mkdir(parents=True, exist_ok=True)
    run_dir = out / "runs" / task.lower() / "srag_bench"
    run_dir.mkdir(parents=True, exist_ok=True)
    # Written under temporary names and renamed when complete: an interrupted generation
    # leaves no predictions.jsonl for the cache (benchmarks/common.py) to take as done.
    dialog_partial = dialog_path.with_name(dialog_path.name + ".partial")
    predictions_partial = run_dir / "predictions.jsonl.partial"
    with dialog_partial.open("w") as dialog, predictions_partial.open("w") as predictions:
        runtime_last = _write_questions(
            rng, dialog, predictions, n_questions, sessions, round_ids, round_session, images, task
        )
    dialog_partial.replace(dialog_path)
    _write_run_files(run_dir, task, n_questions, runtime_last)
    predictions_partial.replace(run_dir / "predictions.jsonl")
    return run_dir


def _write_questions(
    rng: np.random.Generator,
    dialog: IO[str],
    predictions: IO[str],
    n_questions: int,
    sessions: list[dict[str, Any]],
    round_ids: list[str],
    round_session: list[str],
    images: list[str],
    task: str,
) -> dict[str, Any]:
    """Stream the dialog file (its questions one by one) and the predictions; return the
    last row's method runtime. The dialog's bytes are what ``json.dumps`` of the whole
    document writes, so runs generated before streaming stay valid."""
    head = json.dumps({"character_profile": {"name": "bench"}, "multi_session_dialogues": sessions})
    dialog.write(head[:-1] + ', "human-annotated QAs": [')
    n_rounds = len(round_ids)
    runtime: dict[str, Any] = {}
    for idx in range(1, n_questions + 1):
        clue_positions = np.sort(rng.choice(n_rounds, size=int(rng.integers(1, 4)), replace=False))
        clues = [round_ids[p] for p in clue_positions]
        x, y = f"X{int(rng.integers(1, 5))}", f"Y{int(rng.integers(1, 4))}"
        answer = f"answer {idx}"
        qa = {
            "point": [[x], [y]],
            "question": f"Question {idx}: what was the state of item {idx % 97}?",
            "answer": answer,
            "session_id": sorted({round_session[p] for p in clue_positions}),
            "clue": clues,
        }
        mcq = idx % 2 == 0
        if mcq:
            distractors = [f"distractor {idx}-{j}" for j in range(3)]
            qa["options"] = [
                {
                    **{LETTERS[(i + rot) % 4]: opt for i, opt in enumerate([answer, *distractors])},
                    "answer": LETTERS[rot],
                }
                for rot in range(4)
            ]
        dialog.write((", " if idx > 1 else "") + json.dumps(qa))
        # Retrieval: clues land in the ranking with some probability, the rest is noise.
        candidates = list(rng.choice(n_rounds, size=TOP_K + 3, replace=False))
        ranking = [int(p) for p in clue_positions if rng.random() < 0.6] + [
            int(c) for c in candidates
        ]
        seed_ids = list(dict.fromkeys(round_ids[p] for p in ranking))[:TOP_K]
        scores = np.sort(rng.uniform(0.2, 0.9, size=TOP_K))[::-1]
        runtime = {
            "retrieval_backend": "dense_multimodal",
            "retrieval_corpus": "round_text",
            "method_modality": "multimodal",
            "top_k": TOP_K,
            "neighbor_window": 0,
            "seed_round_ids": seed_ids,
            "selected_round_ids": sorted(seed_ids, key=round_ids.index),
            "top_candidates": [
                {
                    "round_id": rid,
                    "score": round(float(s), 6),
                    "text_dense_score": round(float(s) * 0.9, 6),
                    "image_dense_score": round(float(s) * 1.1, 6),
                    "indexed_image_count": 1,
                    "best_image_path": f"/home/researcher/data/image/{task}/{images[0]}",
                }
                for rid, s in zip(seed_ids[:5], scores[:5], strict=False)
            ],
            "clue_hit_count": len(set(seed_ids) & set(clues)),
            "corpus_entry_count": n_rounds,
            "text_embedding_model": "all-MiniLM-L6-v2",
            "multimodal_embedding_model": "google/siglip2-base-patch16-224",
            "text_dense_weight": 0.5,
            "image_dense_weight": 0.5,
            "history_source": "retrieval",
            "captions_loaded": False,
            "images_loaded": True,
            "history_turns_after_truncation": 2 * len(seed_ids),
        }
        right = rng.random() < 0.55
        row = {
            "idx": idx,
            "point": qa["point"],
            "mode": "mcq" if mcq else "open",
            "question": qa["question"],
            "gt": answer,
        }
        if mcq:
            rotation_em = (rng.random(4) < (0.8 if right else 0.3)).astype(float)
            choices = [LETTERS[r] if e else LETTERS[(r + 1) % 4] for r, e in enumerate(rotation_em)]
            row |= {
                "pred": choices[-1],
                "choice": choices[-1],
                "valid_choice": True,
                "exact_match": bool(rotation_em.all()),
                "em": float(rotation_em.mean()),
                "contains_gt": bool(rotation_em[-1]),
                "f1": float(rotation_em.mean()),
                "bleu": None,
                "bleu_1": None,
                "bleu_2": None,
                "bert": None,
                "judge": None,
                "judge_reasoning": None,
            }
        else:
            judge = float(rng.choice([0.0, 0.5, 1.0], p=[0.35, 0.15, 0.5]))
            row |= {
                "pred": answer if right else "something else",
                "exact_match": right,
                "em": float(right),
                "contains_gt": right,
                "f1": float(right),
                "bleu": float(right),
                "bleu_1": float(right),
                "bleu_2": float(right),
                "bert": None,
                "judge": judge,
                "judge_reasoning": "The answer names the key fact.",
            }
        row |= {
            "latency_ms": int(rng.integers(200, 3000)),
            "method_name": "semantic_rag_multimodal",
            "effective_method_name": "semantic_rag_multimodal",
            "method_modality": "multimodal",
            "history_turns": 2 * len(seed_ids),
            "source_sessions": qa["session_id"],
            "clue_rounds": clues,
        }
        if mcq:
            row |= {
                "rotations": [
                    {
                        "rotation_idx": r,
                        "correct_position": LETTERS[r],
                        "pred": choices[r],
                        "choice": choices[r],
                        "em": float(rotation_em[r]),
                        "latency_ms": 300,
                        "usage": {
                            "prompt_tokens": 900,
                            "completion_tokens": 1,
                            "total_tokens": 901,
                        },
                    }
                    for r in range(4)
                ],
                "debiased_em": float(rotation_em.mean()),
                "position_bias": {c: choices.count(c) for c in sorted(set(choices))},
                "usage": {"prompt_tokens": 3600, "completion_tokens": 4, "total_tokens": 3604},
            }
        else:
            row["usage"] = {"prompt_tokens": 900, "completion_tokens": 6, "total_tokens": 906}
        row["method_runtime"] = runtime
        predictions.write(json.dumps(row) + "\n")
    dialog.write("]}")
    return runtime


def _write_run_files(
    run_dir: Path, task: str, n_questions: int, runtime_last: dict[str, Any]
) -> None:
    """The run's config.json and metrics.json."""
    (run_dir / "config.json").write_text(
        json.dumps(
            {
                "task": {"name": task.lower()},
                "dataset": {"dialog_json": f"/home/researcher/MemEye/data/dialog/{task}.json"},
                "model": {"name": "bench_model", "api_key": "sk-bench"},
                "method": {"name": "semantic_rag_multimodal", "top_k": TOP_K},
                "run": {"method_runtime": runtime_last},
            }
        )
    )
    (run_dir / "metrics.json").write_text(
        json.dumps(
            {
                "task_name": task.lower(),
                "model_name": "bench_model",
                "model_path": "bench",
                "method_name": "semantic_rag_multimodal",
                "base_method_name": "semantic_rag_multimodal",
                "method_modality": "multimodal",
                "mode": "open",
                "num_qas": n_questions,
                "num_qas_run": n_questions,
                "dialog_json": f"/home/researcher/MemEye/data/dialog/{task}.json",
                "image_root": "/home/researcher/MemEye/data/image",
                "run_dir": str(run_dir),
                "git_commit": "unknown",
                "summary": {},
                "method_runtime": runtime_last,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(generate(args.out, args.questions, args.seed))


if __name__ == "__main__":
    main()
