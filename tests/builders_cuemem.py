"""Builds CUE-Mem history files and result files in the upstream formats, for tests.

History: ``character_profile``, ``multi_session_dialogues`` (turns with images / voice
messages), ``"human-annotated QAs"`` (options inlined in the question). Results: the RQ3
``p<N>_results.json`` records of ``step2_run_experiment.py`` and the RQ1/RQ2
``<data>_results.json`` records of ``run_bench.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

INSTRUCTION = "Please answer with the letter only."


def text_turn(round_id: str, user: str = "hello") -> dict[str, Any]:
    return {"round": round_id, "user": f"{user} ({round_id})", "assistant": "ok"}


def image_turn(round_id: str, image_id: str, path: str, caption: str = "a room") -> dict[str, Any]:
    return {
        "round": round_id,
        "user": "look",
        "assistant": "nice",
        "input_image": [path],
        "image_caption": [caption],
        "image_id": [image_id],
    }


def voice_turn(
    round_id: str,
    voice_id: str,
    path: str,
    transcript: str = "a voice message",
    background: str = "rain",
) -> dict[str, Any]:
    return {
        "round": round_id,
        "user": "",
        "assistant": "heard you",
        "user_voice_message_caption": transcript,
        "input_voice_message": [path],
        "voice_caption": [transcript],
        "voice_id": [voice_id],
        "background_audio": background,
    }


def qa(
    qa_id: str,
    point: str,
    qa_type: str,
    answer: str,
    clue: list[str],
    question: str = "Which one?",
    **extra: Any,
) -> dict[str, Any]:
    options = "\n".join(f"{letter}. option {letter}" for letter in "ABCD")
    return {
        "qa_id": qa_id,
        "question": f"{question}\n{options}\n{INSTRUCTION}",
        "answer": answer,
        "point": point,
        "qa_type": qa_type,
        "session_id": "D00",
        "clue": clue,
        "p_id": 0,
        "category": "Misc",
        **extra,
    }


def history(
    sessions: dict[str, list[dict[str, Any]]], qas: list[dict[str, Any]], name: str = "Tess"
) -> dict[str, Any]:
    return {
        "character_profile": {"name": name, "description": "a test profile", "p_id": 0},
        "multi_session_dialogues": [
            {"session_id": session_id, "date": f"01/{i + 1:02d}/2025", "dialogues": turns}
            for i, (session_id, turns) in enumerate(sessions.items())
        ],
        "human-annotated QAs": qas,
    }


def rq3_row(
    entry: dict[str, Any],
    model_answer: str,
    retrieved: list[str],
    scores: list[float] | None = None,
    items: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "qa_uid": f"p0::{entry['point']}::{entry['qa_id']}",
        "qa_id": entry["qa_id"],
        "question": entry["question"],
        "answer": entry["answer"],
        "point": entry["point"],
        "qa_type": entry["qa_type"],
        "category": entry["category"],
        "model_answer": model_answer,
        "raw_response": model_answer,
        "correct": model_answer == entry["answer"],
        "retrieved_turn_ids": retrieved,
        "retrieved_scores": scores
        if scores is not None
        else [round(0.9 - 0.1 * i, 2) for i in range(len(retrieved))],
        "retrieved_items": items or [],
        "clue": entry["clue"],
    }


def rq12_row(
    entry: dict[str, Any], system_answer: str, retrieved: list[str] | None = None
) -> dict[str, Any]:
    row = {
        "qa_id": entry["qa_id"],
        "sample_id": "Tess",
        "session_id": entry["session_id"],
        "speaker_a": "user (Tess)",
        "speaker_b": "assistant",
        "question": entry["question"],
        "system_answer": system_answer,
        "original_answer": entry["answer"],
        "category": entry["point"],
        "qa_type": entry["qa_type"],
        "entity_explicitness": entry.get("entity_explicitness", ""),
        "entity_source_refs": [],
        "entity_name": "",
        "entity_anchor_lookup_name": "",
        "timestamp": "2025-01-01 00:00:00",
    }
    if retrieved is not None:
        row["retrieved_ids"] = retrieved
        row["clue"] = entry["clue"]
    return row


def write_json(payload: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2))
    return path


def rq3_layout(
    root: Path,
    data: dict[str, Any],
    rows: list[Any],
    *,
    variant: str = "MM",
    model: str = "prov_model",
) -> Path:
    """``root/RQ3/data/history_dialogue/history_with_qa_p0.json`` and
    ``root/RQ3/results/<model>/<variant>/p0_results.json``; returns the run directory."""
    write_json(data, root / "RQ3" / "data" / "history_dialogue" / "history_with_qa_p0.json")
    run_dir = root / "RQ3" / "results" / model / variant
    write_json(rows, run_dir / "p0_results.json")
    return run_dir
