"""Answering with retrieved memory: an OpenAI-compatible chat client and MemEye's answer protocol.

The request is the one MemEye's OpenAI router sends: the system prompt for the run's mode,
one user / assistant message per retrieved round in dialogue order (captions appended to
the user text for the text-only modality, images as data URLs for the multimodal one, at
most 30 images with the oldest dropped first), then "Answer based on the conversation
and images above..." with the question. MCQ items with a list of options are asked once
per rotation (MemEye's debiasing); the choice is extracted and scored like MemEye's
evaluator. Open answers get exact match only: MemEye's F1 and BLEU need NLTK, and the
LLM judge is a separate model, so those stay null.

The client uses urllib alone. An HTTP error, an unreachable endpoint, a timeout or a reply
of the wrong shape raises one :class:`~memscope.errors.EngineError`.
"""

from __future__ import annotations

import base64
import io
import json
import mimetypes
import re
import string
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from memscope.engine.corpus import CorpusRound, Modality, clean_captions
from memscope.engine.prompts import OPTIONS_INSTRUCTION, QUESTION_TURN
from memscope.errors import EngineError
from memscope.json_types import JSONValue

MAX_IMAGES_PER_REQUEST = 30
IMAGE_LONG_EDGE = 768
RETRY_STATUSES = (429, 502, 503, 504)
MAX_RETRY_WAIT_S = 8.0
COMPLETION_TOKEN_MODELS = ("gpt-5", "o3", "o4")
"""Models that take ``max_completion_tokens`` instead of ``max_tokens`` (as in MemEye)."""
ARTICLES = re.compile(r"\b(a|an|the)\s+(?=\w)")
ERROR_FIX = (
    "Check --answer-endpoint and --answer-model. The questions answered so far are kept in the run."
)


@dataclass(frozen=True)
class AnswerSettings:
    """Where and how to ask the answer model."""

    endpoint: str
    """Base URL of an OpenAI-compatible API (``.../v1``) or its ``/chat/completions`` URL."""
    model: str
    api_key: str | None = None
    timeout_s: float = 90.0
    max_tokens: int = 128
    max_images: int = MAX_IMAGES_PER_REQUEST
    retries: int = 2
    """Extra attempts after a 429 / 502 / 503 / 504 reply."""

    @property
    def url(self) -> str:
        """The chat-completions URL."""
        base = self.endpoint.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


@dataclass
class HistoryTurn:
    """One message of the retrieved history."""

    role: str
    text: str
    images: list[str] = field(default_factory=list)


Message = dict[str, object]
"""One chat message (or one part of a message's content), as the endpoint's JSON takes it."""


class Rotation(TypedDict):
    """One asking of a rotation MCQ (MemEye's ``rotations`` entries)."""

    rotation_idx: int
    correct_position: JSONValue
    pred: str
    choice: str
    em: float
    latency_ms: int
    usage: dict[str, int]


class AnswerClient:
    """Calls an OpenAI-compatible ``/chat/completions`` endpoint with urllib."""

    def __init__(self, settings: AnswerSettings) -> None:
        self.settings = settings

    def chat(self, messages: list[Message]) -> tuple[str, dict[str, int]]:
        """Send one chat request.

        Returns:
            The reply text (stripped) and the token usage.

        Raises:
            EngineError: HTTP error, unreachable endpoint, timeout or malformed reply.
        """
        settings = self.settings
        token_key = (
            "max_completion_tokens"
            if settings.model.startswith(COMPLETION_TOKEN_MODELS)
            else "max_tokens"
        )
        body = json.dumps(
            {
                "model": settings.model,
                "messages": messages,
                token_key: settings.max_tokens,
                "temperature": 0,
            }
        ).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        for attempt in range(settings.retries + 1):
            request = urllib.request.Request(
                settings.url, data=body, headers=headers, method="POST"
            )
            try:
                with urllib.request.urlopen(request, timeout=settings.timeout_s) as response:
                    raw = response.read()
                break
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", errors="replace")[:300]
                if exc.code in RETRY_STATUSES and attempt < settings.retries:
                    time.sleep(_retry_wait(exc, attempt))
                    continue
                raise EngineError(
                    f"the answer endpoint replied HTTP {exc.code}: {detail.strip() or exc.reason}",
                    where=settings.url,
                    fix=ERROR_FIX,
                ) from None
            except TimeoutError:
                raise EngineError(
                    f"the answer endpoint did not reply within {settings.timeout_s:g} s",
                    where=settings.url,
                    fix=ERROR_FIX + " Raise --answer-timeout for slow models.",
                ) from None
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, TimeoutError):
                    raise EngineError(
                        f"the answer endpoint did not reply within {settings.timeout_s:g} s",
                        where=settings.url,
                        fix=ERROR_FIX,
                    ) from None
                raise EngineError(
                    f"cannot reach the answer endpoint: {exc.reason}",
                    where=settings.url,
                    fix=ERROR_FIX,
                ) from None
        return _reply_text(raw, settings.url)


def _retry_wait(error: urllib.error.HTTPError, attempt: int) -> float:
    header = error.headers.get("Retry-After") if error.headers else None
    try:
        wait = float(header) if header else 2.0**attempt
    except ValueError:
        wait = 2.0**attempt
    return min(max(wait, 0.0), MAX_RETRY_WAIT_S)


def _reply_text(raw: bytes, url: str) -> tuple[str, dict[str, int]]:
    try:
        payload = json.loads(raw.decode("utf-8"))
        content = payload["choices"][0]["message"]["content"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
        raise EngineError(
            f"the answer endpoint sent a reply that is not a chat completion ({type(exc).__name__})",
            where=url,
            fix=ERROR_FIX,
        ) from None
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    counts = {
        name: int(usage.get(name) or 0)
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    return str(content or "").strip(), counts


def caption_block(round_: CorpusRound) -> str:
    """MemEye's caption lines of a round (``image:`` / ``image_id:`` / ``image_caption:``)."""
    captions = clean_captions(round_.image_captions)
    lines: list[str] = []
    for number, caption in enumerate(captions):
        image_id = round_.image_ids[number] if number < len(round_.image_ids) else ""
        lines += ["image:", f"image_id: {image_id}", f"image_caption: {caption}"]
    return "\n".join(lines).strip()


def round_history(rounds: list[CorpusRound], modality: Modality) -> list[HistoryTurn]:
    """The history messages of retrieved rounds, given in dialogue order (MemEye's ``history_from_round_ids``)."""
    history: list[HistoryTurn] = []
    for round_ in rounds:
        user_text = round_.user_text
        images = [path for path in round_.image_files if path] if modality == "multimodal" else []
        if modality == "text_only":
            captions = caption_block(round_)
            if captions:
                user_text = f"{user_text}\n{captions}".strip() if user_text else captions
        if user_text or images:
            history.append(HistoryTurn("user", user_text, images))
        if round_.assistant_text:
            history.append(HistoryTurn("assistant", round_.assistant_text))
    return history


def image_data_url(path: str, max_long_edge: int = IMAGE_LONG_EDGE) -> str:
    """An image as a data URL, downscaled to JPEG when its long edge exceeds ``max_long_edge``."""
    from PIL import Image, UnidentifiedImageError

    raw = Path(path).read_bytes()
    mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
    try:
        with Image.open(io.BytesIO(raw)) as image:
            if max(image.size) > max_long_edge:
                scale = max_long_edge / max(image.size)
                resized = image.convert("RGB").resize(
                    (int(image.width * scale), int(image.height * scale)), Image.LANCZOS
                )
                buffer = io.BytesIO()
                resized.save(buffer, format="JPEG", quality=80)
                raw, mime = buffer.getvalue(), "image/jpeg"
    except (OSError, ValueError, UnidentifiedImageError, Image.DecompressionBombError):
        pass  # MemEye sends the original bytes when it cannot resize them
    return f"data:{mime};base64,{base64.b64encode(raw).decode('ascii')}"


def chat_messages(
    system_prompt: str,
    history: list[HistoryTurn],
    question: str,
    question_images: list[str] | None = None,
    max_images: int = MAX_IMAGES_PER_REQUEST,
) -> list[Message]:
    """The messages MemEye's OpenAI router sends for one question."""
    question_images = question_images or []
    budget = max(0, max_images - len(question_images))
    excess = max(0, sum(len(turn.images) for turn in history) - budget)
    messages: list[Message] = [{"role": "system", "content": system_prompt}]
    for turn in history:
        images = turn.images
        if excess and images:  # the oldest history images go first
            dropped = min(len(images), excess)
            images, excess = images[dropped:], excess - dropped
        content: list[Message] = []
        if turn.text.strip():
            content.append({"type": "text", "text": turn.text.strip()})
        content += [
            {"type": "image_url", "image_url": {"url": image_data_url(p), "detail": "high"}}
            for p in images
        ]
        if content:
            messages.append({"role": turn.role, "content": content})
    final: list[Message] = [{"type": "text", "text": QUESTION_TURN.format(question=question)}]
    final += [
        {"type": "image_url", "image_url": {"url": image_data_url(p), "detail": "high"}}
        for p in question_images
    ]
    messages.append({"role": "user", "content": final})
    return messages


def options_block(question: str, options: Mapping[str, object]) -> str:
    """The question with its lettered options and MemEye's answer-format line."""
    letters = [key for key in sorted(options) if key != "answer"]
    lines = [question, ""] + [f"{key}. {options[key]}" for key in letters]
    lines += ["", OPTIONS_INSTRUCTION.format(letters=", ".join(letters))]
    return "\n".join(lines)


def extract_choice(text: str, valid_keys: set[str]) -> str:
    """The option letter in a reply, by MemEye's priority; ``INVALID`` when there is none."""
    reply = (text or "").strip().upper()
    if reply in valid_keys:
        return reply
    keys = "|".join(re.escape(key) for key in sorted(valid_keys))
    if not keys:
        return "INVALID"
    for pattern in (
        rf"^({keys})[\.\)\:\s,]",
        rf"(?:ANSWER|CHOICE)\s*(?:IS|:)\s*({keys})\b",
        rf"\b({keys})\b",
    ):
        found = re.search(pattern, reply)
        if found:
            return found.group(1)
    return "INVALID"


def normalize_answer(text: str) -> str:
    """MemEye's (Mem-Gallery's) answer normalisation for exact match."""
    value = str(text).lower()
    value = re.sub(r"(?<=\d)\.(?=\d)", "DOTPLACEHOLDER", value)
    value = value.replace("_", "UNDERSCOREPLACEHOLDER")
    value = ARTICLES.sub(" ", value)
    value = "".join(" " if char in string.punctuation else char for char in value)
    value = value.replace("DOTPLACEHOLDER", ".").replace("UNDERSCOREPLACEHOLDER", "_")
    return " ".join(value.split())


def _sum_usage(usages: list[dict[str, int]]) -> dict[str, int]:
    return {
        name: sum(u.get(name, 0) for u in usages)
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
    }


def answer_question(
    client: AnswerClient,
    system_prompt: str,
    history: list[HistoryTurn],
    question: str,
    gold: str | None,
    options: JSONValue,
    question_images: list[str] | None = None,
) -> dict[str, object]:
    """Ask one question the way MemEye's runner does and score the reply.

    Returns:
        The answer fields of a ``predictions.jsonl`` row: ``pred``, ``choice``,
        ``valid_choice``, ``exact_match``, ``em``, ``contains_gt``, ``latency_ms``,
        ``usage`` and, for rotation MCQ, ``rotations``, ``debiased_em``, ``position_bias``.
    """
    gold_text = gold or ""

    def ask(text: str) -> tuple[str, int, dict[str, int]]:
        started = time.monotonic()
        reply, usage = client.chat(
            chat_messages(system_prompt, history, text, question_images, client.settings.max_images)
        )
        return reply, int((time.monotonic() - started) * 1000), usage

    if isinstance(options, list) and options:
        rotations: list[Rotation] = []
        for number, rotation in enumerate(options):
            if not isinstance(rotation, dict):
                shown = repr(rotation)[:80]
                raise EngineError(
                    f"option rotation {number} of the question is not an object: {shown}",
                    fix="Re-index the dataset; its MCQ options are malformed.",
                )
            letters = {key: value for key, value in rotation.items() if key != "answer"}
            reply, latency, usage = ask(options_block(question, letters))
            choice = extract_choice(reply, set(letters))
            correct = str(rotation.get("answer", "")).strip().upper()
            rotations.append(
                {
                    "rotation_idx": number,
                    "correct_position": rotation.get("answer"),
                    "pred": reply,
                    "choice": choice,
                    "em": 1.0 if choice == correct else 0.0,
                    "latency_ms": latency,
                    "usage": usage,
                }
            )
        em = sum(r["em"] for r in rotations) / len(rotations)
        bias: dict[str, int] = {}
        for asked in rotations:
            if asked["choice"] != "INVALID":
                bias[asked["choice"]] = bias.get(asked["choice"], 0) + 1
        return {
            "pred": rotations[-1]["pred"],
            "choice": rotations[-1]["choice"],
            "valid_choice": all(r["choice"] != "INVALID" for r in rotations),
            "exact_match": em == 1.0,
            "em": em,
            "contains_gt": rotations[-1]["choice"] == gold_text.strip().upper(),
            "f1": em,
            "latency_ms": sum(r["latency_ms"] for r in rotations),
            "rotations": rotations,
            "debiased_em": em,
            "position_bias": bias,
            "usage": _sum_usage([r["usage"] for r in rotations]),
        }
    if isinstance(options, dict) and options:
        reply, latency, usage = ask(options_block(question, options))
        choice = extract_choice(reply, set(options))
        em = 1.0 if choice == gold_text.strip().upper() else 0.0
        return {
            "pred": reply,
            "choice": choice,
            "valid_choice": choice != "INVALID",
            "exact_match": em == 1.0,
            "em": em,
            "contains_gt": choice == gold_text.strip().upper(),
            "f1": em,
            "latency_ms": latency,
            "usage": usage,
        }
    reply, latency, usage = ask(question)
    predicted, expected = normalize_answer(reply), normalize_answer(gold_text)
    exact = predicted == expected and predicted != ""
    return {
        "pred": reply,
        "exact_match": exact,
        "em": 1.0 if exact else 0.0,
        "contains_gt": expected in predicted if expected else False,
        "latency_ms": latency,
        "usage": usage,
    }
