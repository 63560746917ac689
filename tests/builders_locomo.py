"""Builds small LoCoMo-shaped datasets and run files (invented conversations), for tests.

Dataset: a list of samples ``{sample_id, conversation: {speaker_a, speaker_b, session_<N>,
session_<N>_date_time}, qa: [...]}`` as in LoCoMo's ``data/locomo10.json``. Runs: the
``--out-file`` of ``task_eval/evaluate_qa.py``, the dataset's QA items with
``<key>_prediction`` / ``_f1`` / ``_llm`` / ``_recall`` / ``_prediction_context`` added.
Also where the real LoCoMo sample data is (CC BY-NC: read there, never copied here).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLES_ENV = "MEMSCOPE_LOCOMO_SAMPLES"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def shared_locomo() -> Path:
    """The folder of the real LoCoMo data (``$MEMSCOPE_LOCOMO_SAMPLES``, else
    ``shared/upstream-samples/locomo`` beside the checkout or a folder above it); skips the
    test when it is not on this machine."""
    candidates = [Path(os.environ[SAMPLES_ENV])] if os.environ.get(SAMPLES_ENV) else []
    candidates += [folder / "shared" / "upstream-samples" / "locomo" for folder in REPO.parents]
    for candidate in candidates:
        if (candidate / "data" / "locomo10.json").is_file():
            return candidate
    pytest.skip("the LoCoMo sample data (shared/upstream-samples/locomo) is not on this machine")


def turn(speaker: str, dia_id: str, text: str, **media: Any) -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": dia_id, "text": text, **media}


def photo(speaker: str, dia_id: str, text: str, url: str, caption: str) -> dict[str, Any]:
    return turn(speaker, dia_id, text, img_url=[url], blip_caption=caption, query="a query")


def qa(question: str, answer: Any, evidence: Any, category: int, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"question": question, "evidence": evidence, "category": category}
    if category == 5:
        item["adversarial_answer"] = answer
    else:
        item["answer"] = answer
    item.update(extra)
    return item


def sample(
    sample_id: str,
    sessions: dict[int, list[dict[str, Any]]],
    qas: list[Any],
    speakers: tuple[str, str] = ("Ines", "Tomas"),
    dates_only: tuple[int, ...] = (),
) -> dict[str, Any]:
    conversation: dict[str, Any] = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    for number, turns in sessions.items():
        conversation[f"session_{number}_date_time"] = f"10:0{number} am on {number} March, 2024"
        conversation[f"session_{number}"] = turns
    for number in dates_only:  # upstream lists dates of sessions it never wrote
        conversation[f"session_{number}_date_time"] = f"9:00 am on {number} April, 2024"
    return {"qa": qas, "conversation": conversation, "sample_id": sample_id}


def small_dataset() -> list[dict[str, Any]]:
    """Two invented conversations: 3 + 2 sessions (written out of order), a shared photo,
    a caption without URL, and QAs of every category with tricky evidence."""
    first = sample(
        "conv-a",
        {
            2: [
                turn("Ines", "D2:1", "I started pottery classes on Monday."),
                photo(
                    "Tomas",
                    "D2:2",
                    "Look at my new bike!",
                    "https://img.example/x/bike.jpg",
                    "a red bike",
                ),
            ],
            1: [
                turn("Ines", "D1:1", "Hi Tomas, long time!"),
                turn("Tomas", "D1:2", "Hey Ines, I moved to Porto last week."),
                turn("Ines", "D1:3", "Porto is lovely.", blip_caption="a photo of a bridge"),
            ],
            3: [turn("Tomas", "D3:1", "The bike got a flat tyre."), turn("Ines", "D3:2", "Oh no.")],
        },
        [
            qa("Where did Tomas move?", "Porto", ["D1:2"], 4),
            qa("What does Ines do on Mondays?", "pottery", ["D2:1"], 2),
            qa("What happened to the bike?", "a flat tyre", ["D2:2; D3:1"], 1),
            qa("What bridge did Ines see?", "unknown", ["(D1:3)"], 3),
            qa("What did Tomas buy in Lisbon?", "a boat", ["D2:2"], 5),
            qa("Who likes pottery?", 2024, ["D9:9", "D", "D03:02"], 4),
            qa("Where did Tomas move?", "Porto again", ["D1:2"], 4),
        ],
        dates_only=(4, 5),
    )
    second = sample(
        "conv-b",
        {
            1: [turn("Ana", "D1:1", "My cat is called Miso."), turn("Rui", "D1:2", "Cute!")],
            2: [turn("Ana", "D2:1", "Miso is ill."), turn("Rui", "D2:2", "Get well, Miso.")],
        },
        [
            qa("What is the cat called?", "Miso", ["D1:1"], 4),
            qa("Where did Tomas move?", "nowhere", [], 4),
        ],
        speakers=("Ana", "Rui"),
    )
    return [first, second]


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def run_output(
    dataset: list[dict[str, Any]], answers: dict[str, dict[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """A run file over ``dataset``: ``answers[sample_id]["q<N>"]`` holds the fields added to
    the N-th QA item (``{"<key>_prediction": …, "<key>_f1": …}``); samples not in
    ``answers`` are left out, as a run over part of the dataset leaves them out."""
    output = []
    for item in dataset:
        if item["sample_id"] not in answers:
            continue
        qas = copy.deepcopy(item["qa"])
        for position, entry in enumerate(qas, start=1):
            entry.update(answers[item["sample_id"]].get(f"q{position}", {}))
        output.append({"sample_id": item["sample_id"], "qa": qas})
    return output


def layout(
    root: Path, dataset: list[dict[str, Any]], run: list[dict[str, Any]], name: str = "out.json"
) -> Path:
    """LoCoMo's repository layout: ``root/data/locomo10.json`` and the run file in
    ``root/outputs/<model>/``; returns the run folder."""
    write_json(root / "data" / "locomo10.json", dataset)
    folder = root / "outputs" / "model"
    write_json(folder / name, run)
    return folder
