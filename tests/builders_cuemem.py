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


# --- the official release layout (yulinlp/CUE-MEM + the Kkryptonite/CUE-Mem download) ---

FIXTURE_DATA = Path(__file__).resolve().parents[1] / "fixtures" / "cuemem" / "data"
TURN_MEDIA = ("input_image", "input_voice_message")
QA_MEDIA = ("question_image", "question_audio", "question_voice_message")


def _map_media(data: dict[str, Any], change) -> None:
    """Apply ``change`` to every media path of a history file, in place."""
    for session in data["multi_session_dialogues"]:
        for turn in session["dialogues"]:
            for name in TURN_MEDIA:
                if isinstance(turn.get(name), list):
                    turn[name] = [change(p) for p in turn[name]]
    for entry in data["human-annotated QAs"]:
        for name in QA_MEDIA:
            if isinstance(entry.get(name), str) and entry[name]:
                entry[name] = change(entry[name])
            elif isinstance(entry.get(name), list):
                entry[name] = [change(p) for p in entry[name]]
        if isinstance(entry.get("option_images"), dict):
            entry["option_images"] = {k: change(v) for k, v in entry["option_images"].items()}


def official_download(root: Path) -> Path:
    """``root/benchmark-data``: the dataset download as published, built from the demo
    fixture: ``data/dialog/base/history_with_qa_p0.json`` with media paths relative to the
    download root (``data/event/images/…``, ``data/event/voice_mixed_…``, ``data/qa/…``)
    and the media files (real PNG / WAV) under ``data/``."""
    import shutil

    download = root / "benchmark-data"
    data = json.loads((FIXTURE_DATA / "history_dialogue" / "history_with_qa_p0.json").read_text())
    media: list[str] = []

    def relocate(path: str) -> str:
        media.append(path)
        return f"data/{path}"

    _map_media(data, relocate)
    write_json(data, download / "data" / "dialog" / "base" / "history_with_qa_p0.json")
    for path in media:
        target = download / "data" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURE_DATA / path, target)
    return download


def prepare_dataset(dataset_root: Path, output_root: Path) -> Path:
    """What the release's ``scripts/prepare_dataset.py --dataset-root D --output-root O``
    does (upstream-formats.md 3.5b): copy every dialogue/QA JSON of
    ``D/data/dialog/base/`` to ``O/data/dialog/base/`` with each media path rewritten to an
    **absolute** path inside ``D`` (media are not copied), and write
    ``O/dataset_preparation.json`` (``profiles``, ``referenced_media``, ``missing_media``,
    ``dialog_dir``). Returns ``O``'s dialog folder."""
    source = dataset_root / "data" / "dialog" / "base"
    target = output_root / "data" / "dialog" / "base"
    referenced: list[str] = []
    missing: list[str] = []
    profiles: list[str] = []
    for path in sorted(source.glob("*.json")):
        data = json.loads(path.read_text())

        def absolute(raw: str) -> str:
            resolved = (dataset_root / raw).resolve()
            referenced.append(str(resolved))
            if not resolved.is_file():
                missing.append(str(resolved))
            return str(resolved)

        _map_media(data, absolute)
        write_json(data, target / path.name)
        profiles.append(path.stem)
    write_json(
        {
            "profiles": profiles,
            "referenced_media": len(referenced),
            "missing_media": missing,
            "dialog_dir": str(target),
        },
        output_root / "dataset_preparation.json",
    )
    return target


def rq12_split(entry: dict[str, Any]) -> str:
    """The bucket ``run_bench.py`` files a QA under: ``qa_type`` explicit / implicit; entity
    Relationship / Pets explicit, Items by ``entity_explicitness`` (else unknown); else unknown."""
    qa_type = str(entry.get("qa_type") or "")
    if entry["point"] in ("entity_img", "entity_text"):
        if qa_type in ("Relationship", "Pets"):
            return "explicit"
        if qa_type == "Items":
            return str(entry.get("entity_explicitness") or "unknown")
        return "unknown"
    return qa_type if qa_type in ("explicit", "implicit") else "unknown"


def accuracy_json(entries: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``<data>_accuracy.json`` as ``run_bench.py`` writes it: per category (the QA point)
    the ``overall`` bucket and each non-empty explicit / implicit / mixed / unknown bucket
    of {correct, total, accuracy (%)}, and ``__overall__``; correct = the first A–D letter of
    ``system_answer`` is the gold."""
    from memscope.adapters.cuemem.run import extract_choice

    entry_of = {(e["point"], e["qa_id"]): e for e in entries}
    result: dict[str, dict[str, dict[str, float]]] = {}

    def add(category: str, bucket: str, correct: bool) -> None:
        cell = result.setdefault(category, {}).setdefault(bucket, {"correct": 0, "total": 0})
        cell["correct"] += int(correct)
        cell["total"] += 1

    for row in rows:
        correct = extract_choice(row["system_answer"]) == row["original_answer"]
        for category in (row["category"], "__overall__"):
            add(category, "overall", correct)
        add(row["category"], rq12_split(entry_of[(row["category"], row["qa_id"])]), correct)
    for buckets in result.values():
        for cell in buckets.values():
            cell["accuracy"] = round(100.0 * cell["correct"] / cell["total"], 2)
    return result


def aggregated_group(
    model: str,
    memory: str,
    *,
    explicit: tuple[int, int],
    implicit: tuple[int, int],
    overall: tuple[int, int],
    category: str | None = None,
    n_characters: int = 1,
) -> dict[str, Any]:
    """One group of ``aggregate_results.py --mode overall``'s ``aggregated_accuracy.json``
    (the counts as the test works them out from upstream's rules)."""
    splits = {"explicit": explicit, "implicit": implicit, "mixed": (0, 0), "unknown": (0, 0)}
    splits["overall"] = overall
    return {
        "model": model,
        "memory": memory,
        "category_filter": category,
        **{name: {"correct": c, "total": t} for name, (c, t) in splits.items()},
        "n_characters": n_characters,
        "per_category": {},
        "combined": {},
    }


def human_submission(
    entries: list[dict[str, Any]],
    answers: dict[tuple[str, str], str],
    *,
    participant: str,
    variant: str = "full_multimodal",
    profile: str = "p0",
    data_file: str = "benchmark/data/dialog/base/history_with_qa_p0.json",
) -> dict[str, Any]:
    """What the human-baseline app (``scripts/human_baseline_demo/server.py``) writes for one
    submission: a detail per QA of the history (``answers`` by ``(point, qa_id)``; the rest
    unanswered), correct = the answered letter is the gold, accuracy over every QA and over
    the answered ones (percent, 2 decimals)."""
    details = []
    for entry in entries:
        answer = answers.get((entry["point"], entry["qa_id"]), "")
        answered = answer in ("A", "B", "C", "D")
        details.append(
            {
                "key": f"{entry['qa_id']}::{entry['point']}::{entry.get('qa_type', '')}",
                "qa_id": entry["qa_id"],
                "point": entry["point"],
                "qa_type": entry.get("qa_type", ""),
                "category": entry.get("category", ""),
                "gold": entry["answer"],
                "answer": answer,
                "answered": answered,
                "correct": answered and answer == entry["answer"],
            }
        )
    total = len(details)
    answered_n = sum(d["answered"] for d in details)
    correct = sum(d["correct"] for d in details)
    return {
        "participant": participant,
        "variant": variant,
        "profile": profile,
        "submitted_at": "2026-12-02 10:00:00",
        "data_file": data_file,
        "total": total,
        "answered": answered_n,
        "correct": correct,
        "accuracy": round(correct / total * 100, 2) if total else 0.0,
        "answered_accuracy": round(correct / answered_n * 100, 2) if answered_n else 0.0,
        "details": details,
    }


def write_submission(output_dir: Path, submission: dict[str, Any], unix_ts: int) -> Path:
    """``<output-dir>/<profile>/<variant>/<unix_ts>_<participant>.json``, as the app saves it."""
    path = (
        output_dir
        / submission["profile"]
        / submission["variant"]
        / f"{unix_ts}_{submission['participant']}.json"
    )
    return write_json(submission, path)


OFFICIAL_LLMS = ("qwen3.6-35b-a3b", "gpt-5.4-mini")
OFFICIAL_RQ3_MODELS = ("omni_qwen3-omni-30b", "gemini_gemini-2.5-flash")


def official_layout(root: Path) -> dict[str, Any]:
    """The official release on disk, as its README has a user make it: the download in
    ``root/benchmark-data``, ``root/workdir/benchmark`` prepared from it, RQ1/RQ2 results
    of two LLMs with the same memory (``result_debug/base/<llm>/MMMemory/``, each with its
    ``_accuracy.json``) and RQ3 results of two models with the same variant
    (``workdir/RQ3/results/<provider>_<model>/MM/p0_results.json``).

    Returns ``{"download", "workdir", "dialog_dir", "entries", "rq12": {llm: run dir},
    "rq3": {model: run dir}}``; every answer is A, so the accuracies are known.
    """
    download = official_download(root)
    workdir = root / "workdir"
    dialog_dir = prepare_dataset(download, workdir / "benchmark")
    entries = json.loads((dialog_dir / "history_with_qa_p0.json").read_text())[
        "human-annotated QAs"
    ]
    profile = json.loads((dialog_dir / "history_with_qa_p0.json").read_text())["character_profile"][
        "name"
    ]
    rq12 = {}
    for llm in OFFICIAL_LLMS:
        run_dir = workdir / "benchmark" / "result_debug" / "base" / llm / "MMMemory"
        rows = [rq12_row(e, "A", [e["clue"][0]] if e["clue"] else []) for e in entries]
        for row in rows:
            row["sample_id"] = profile
        write_json(rows, run_dir / "history_with_qa_p0_results.json")
        write_json(accuracy_json(entries, rows), run_dir / "history_with_qa_p0_accuracy.json")
        rq12[llm] = run_dir
    rq3 = {}
    for model in OFFICIAL_RQ3_MODELS:
        run_dir = workdir / "RQ3" / "results" / model / "MM"
        write_json([rq3_row(e, "A", e["clue"][:1]) for e in entries], run_dir / "p0_results.json")
        rq3[model] = run_dir
    return {
        "download": download,
        "workdir": workdir,
        "dialog_dir": dialog_dir,
        "entries": entries,
        "rq12": rq12,
        "rq3": rq3,
    }


def efficiency_json(
    qa_completed: int,
    qa_time_seconds: float,
    *,
    memory_name: str = "LTMemory",
    llm_name: str = "gpt-5.4-mini",
    max_workers: int = 1,
) -> dict[str, Any]:
    """run_bench.py's ``<stem>_efficiency.json`` (``--save_efficiency``): the run's timing."""
    return {
        "sample_id": "Tess",
        "llm_name": llm_name,
        "memory_name": memory_name,
        "is_multimodal": False,
        "conversation_turns": 4,
        "qa_count": qa_completed,
        "qa_completed": qa_completed,
        "max_workers": max_workers,
        "memory_time_seconds": 12.5,
        "qa_time_seconds": qa_time_seconds,
        "total_time_seconds": 12.5 + qa_time_seconds,
        "recorded_at": "2025-01-01 00:00:00",
    }
