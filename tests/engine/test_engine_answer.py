"""Answering through an OpenAI-compatible endpoint: a stub server on 127.0.0.1.

The stub records each request, so the tests check what MemEye's protocol sends (system
prompt, retrieved history, the question turn, MCQ rotations), and what happens when the
endpoint fails or is too slow: one clear error, and the questions answered so far kept as
a valid run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.engine_helpers import KITCHEN, KITCHEN_OPEN, completion, read_jsonl, stub_endpoint
from memscope.cli import app
from memscope.engine import answer as answering
from memscope.engine.corpus import CorpusRound
from memscope.engine.prompts import SYSTEM_PROMPT_MCQ, SYSTEM_PROMPT_OPEN
from memscope.errors import EngineError

runner = CliRunner()


def retrieve(endpoint: str, dataset: Path, out: Path, *extra: str) -> object:
    return runner.invoke(
        app,
        [
            "retrieve",
            str(dataset),
            "--method",
            "srag_t",
            "--k",
            "3",
            "--out",
            str(out),
            "--answer-endpoint",
            endpoint,
            "--answer-model",
            "stub-model",
            *extra,
        ],
    )


def correct_letter(payload: dict, number: int) -> tuple[int, dict]:
    """Answer every MCQ rotation with the option whose text is 'right' (see the dataset)."""
    return 200, completion("A")


def test_mcq_questions_are_asked_once_per_rotation_with_memeye_prompts(
    tmp_path: Path, seeded_store, minilm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = tmp_path / "answered"
    with stub_endpoint(correct_letter) as (endpoint, chat):
        result = retrieve(endpoint, KITCHEN, out)
    assert result.exit_code == 0, result.output
    rows = read_jsonl(out / "predictions.jsonl")
    data = json.loads(KITCHEN.read_text())
    rotations = sum(len(qa["options"]) for qa in data["human-annotated QAs"])
    assert len(chat.requests) == rotations
    first = chat.requests[0]
    assert (
        first["model"] == "stub-model" and first["temperature"] == 0 and first["max_tokens"] == 128
    )
    assert first["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT_MCQ}
    question_turn = first["messages"][-1]["content"][0]["text"]
    assert question_turn.startswith(
        "Answer based on the conversation and images above. Be concise and factual.\nQuestion: "
    )
    assert "A. " in question_turn and question_turn.endswith(
        "Answer with ONLY the option letter (A, B, C, D). Do not explain."
    )
    assert chat.headers[0].get("Authorization") == "Bearer sk-test"
    history_text = " ".join(part["text"] for m in first["messages"][1:-1] for part in m["content"])
    assert "image_caption:" in history_text  # text-only history carries the captions
    for row in rows:
        assert len(row["rotations"]) == 4 and row["choice"] == "A"
        assert row["em"] == pytest.approx(
            sum(r["correct_position"] == "A" for r in row["rotations"]) / 4
        )
        assert row["position_bias"] == {"A": 4} and row["usage"]["total_tokens"] == 44
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["model_name"] == "stub-model" and metrics["memscope"]["status"] == "complete"
    assert metrics["summary"]["overall"]["em"] == pytest.approx(
        sum(r["em"] for r in rows) / len(rows)
    )


def test_open_questions_are_scored_by_exact_match(tmp_path: Path, seeded_store, minilm) -> None:
    golds = [qa["answer"] for qa in json.loads(KITCHEN_OPEN.read_text())["human-annotated QAs"]]

    def echo_gold_for_first(payload: dict, number: int) -> tuple[int, dict]:
        return 200, completion(golds[0] + "." if number == 1 else "I do not know")

    out = tmp_path / "open"
    with stub_endpoint(echo_gold_for_first) as (endpoint, chat):
        result = retrieve(endpoint, KITCHEN_OPEN, out)
    assert result.exit_code == 0, result.output
    assert chat.requests[0]["messages"][0]["content"] == SYSTEM_PROMPT_OPEN
    assert "Authorization" not in chat.headers[0] or chat.headers[0]["Authorization"].startswith(
        "Bearer "
    )
    rows = read_jsonl(out / "predictions.jsonl")
    assert [row["em"] for row in rows] == [1.0] + [0.0] * (len(rows) - 1)
    assert rows[0]["exact_match"] is True and rows[0]["judge"] is None
    ingest = runner.invoke(app, ["ingest", str(out)])
    assert ingest.exit_code == 0, ingest.output


def test_a_failing_endpoint_stops_with_one_error_and_keeps_the_answered_rows(
    tmp_path: Path, seeded_store, minilm
) -> None:
    def fail_on_third(payload: dict, number: int) -> tuple[int, dict]:
        return (
            (500, {"error": {"message": "model crashed"}})
            if number == 3
            else (200, completion("no idea"))
        )

    out = tmp_path / "partial"
    with stub_endpoint(fail_on_third) as (endpoint, _chat):
        result = retrieve(endpoint, KITCHEN_OPEN, out)
    assert result.exit_code == 1
    assert (
        "HTTP 500" in result.output
        and "model crashed" in result.output
        and "Traceback" not in result.output
    )
    assert "answered so far are kept" in result.output
    rows = read_jsonl(out / "predictions.jsonl")
    assert [row["idx"] for row in rows] == [1, 2] and len(read_jsonl(out / "retrieval.jsonl")) == 2
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["memscope"]["status"] == "partial" and "HTTP 500" in metrics["memscope"]["error"]
    assert metrics["num_qas_run"] == 2
    ingest = runner.invoke(app, ["ingest", str(out)])
    assert ingest.exit_code == 0, ingest.output
    assert "2 questions" in ingest.output


def test_a_slow_endpoint_times_out_with_one_error(tmp_path: Path, seeded_store, minilm) -> None:
    def slow_second(payload: dict, number: int) -> tuple[int, dict]:
        if number == 2:
            time.sleep(2.0)
        return 200, completion("no idea")

    out = tmp_path / "slow"
    with stub_endpoint(slow_second) as (endpoint, _chat):
        result = retrieve(endpoint, KITCHEN_OPEN, out, "--answer-timeout", "0.5")
    assert result.exit_code == 1
    assert "did not reply within 0.5 s" in result.output and "Traceback" not in result.output
    assert len(read_jsonl(out / "predictions.jsonl")) == 1
    assert json.loads((out / "metrics.json").read_text())["memscope"]["status"] == "partial"


def test_an_unreachable_endpoint_is_one_error(tmp_path: Path, seeded_store, minilm) -> None:
    result = retrieve("http://127.0.0.1:9/v1", KITCHEN_OPEN, tmp_path / "none")
    assert result.exit_code == 1 and "cannot reach the answer endpoint" in result.output


def test_a_reply_that_is_not_a_completion_is_one_error() -> None:
    with stub_endpoint(lambda payload, number: (200, {"unexpected": True})) as (endpoint, _chat):
        client = answering.AnswerClient(answering.AnswerSettings(endpoint, "m"))
        with pytest.raises(EngineError, match="not a chat completion"):
            client.chat([{"role": "user", "content": "hi"}])


def test_a_rotation_that_is_not_an_object_is_one_error_before_any_request() -> None:
    with stub_endpoint(lambda payload, number: (200, completion("A"))) as (endpoint, chat):
        client = answering.AnswerClient(answering.AnswerSettings(endpoint, "m"))
        with pytest.raises(EngineError, match="option rotation 1 of the question is not an object"):
            answering.answer_question(
                client, "system", [], "Which?", "A", [{"A": "x", "B": "y", "answer": "A"}, "B"]
            )
    assert len(chat.requests) == 1  # the first rotation was asked, the broken one never


def test_busy_replies_are_retried() -> None:
    def busy_then_fine(payload: dict, number: int) -> tuple[int, dict]:
        return (503, {"error": "busy"}) if number == 1 else (200, completion("fine"))

    with stub_endpoint(busy_then_fine) as (endpoint, chat):
        settings = answering.AnswerSettings(endpoint + "/chat/completions", "gpt-5-mini", retries=1)
        text, usage = answering.AnswerClient(settings).chat([{"role": "user", "content": "hi"}])
    assert text == "fine" and usage["total_tokens"] == 11 and len(chat.requests) == 2
    assert "max_completion_tokens" in chat.requests[0]  # as MemEye sends it to gpt-5 models


def test_answer_options_without_endpoint_are_refused(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "retrieve",
            str(KITCHEN),
            "--method",
            "srag_t",
            "--out",
            str(tmp_path / "x"),
            "--answer-model",
            "m",
        ],
    )
    assert result.exit_code == 1 and "go together" in result.output


@pytest.mark.parametrize(
    ("reply", "choice"),
    [
        ("B", "B"),
        ("c. the sage one", "C"),
        ("The answer is D", "D"),
        ("I think (A) fits", "A"),
        ("none", "INVALID"),
    ],
)
def test_choices_are_extracted_like_memeye(reply: str, choice: str) -> None:
    assert answering.extract_choice(reply, {"A", "B", "C", "D"}) == choice


def test_answers_are_normalised_like_memeye() -> None:
    assert answering.normalize_answer("The  Sage-Green, 3.5 m!") == "sage green 3.5 m"
    assert answering.normalize_answer("an_id") == "an_id"


def test_text_only_history_appends_memeye_caption_lines() -> None:
    round_ = CorpusRound(
        "K1:1", 1, "Look at this.", "Nice.", ["A green swatch. "], ["/x.png"], ["swatch"]
    )
    history = answering.round_history([round_], "text_only")
    assert (
        history[0].text == "Look at this.\nimage:\nimage_id: swatch\nimage_caption: A green swatch."
    )
    assert history[0].images == [] and history[1].role == "assistant"
    multimodal = answering.round_history([round_], "multimodal")
    assert multimodal[0].text == "Look at this." and multimodal[0].images == ["/x.png"]


def test_the_oldest_history_images_are_dropped_beyond_the_limit(tmp_path: Path) -> None:
    from PIL import Image

    paths = []
    for number in range(3):
        path = tmp_path / f"{number}.png"
        Image.new("RGB", (4, 4)).save(path)
        paths.append(str(path))
    history = [
        answering.HistoryTurn("user", "first", paths[:2]),
        answering.HistoryTurn("user", "second", paths[2:]),
    ]
    messages = answering.chat_messages("sys", history, "q?", [paths[0]], max_images=2)
    images = [[part for part in m["content"] if part["type"] == "image_url"] for m in messages[1:]]
    assert [len(found) for found in images] == [
        0,
        1,
        1,
    ]  # two history images dropped, the question's kept


def test_large_images_are_downscaled_to_jpeg(tmp_path: Path) -> None:
    from PIL import Image

    path = tmp_path / "big.png"
    Image.new("RGB", (2000, 1000)).save(path)
    assert answering.image_data_url(str(path)).startswith("data:image/jpeg;base64,")
    small = tmp_path / "small.png"
    Image.new("RGB", (10, 10)).save(small)
    assert answering.image_data_url(str(small)).startswith("data:image/png;base64,")
