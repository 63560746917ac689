"""MemEye's answer prompts, reproduced verbatim so native runs ask exactly what MemEye asks.

Source: MemEye (MinghoKwok/MemEye, Apache-2.0) ``benchmark/prompt/sys_prompt_mcq.txt`` and
``sys_prompt_open.txt``, the system prompts its runner loads for the run's mode, and the
final user turn and options block its OpenAI router and runner build.
"""

from __future__ import annotations

SYSTEM_PROMPT_MCQ = """You are an AI assistant being evaluated on MemEye, a vision-centric multimodal memory benchmark.
Your task is to answer multiple-choice questions about a long-horizon multimodal conversation using the provided conversation history and images.

Follow these rules:
1. Ground every answer in the conversation history and images. Do not invent facts.
2. When multiple pieces of information conflict, prefer the most recent visual evidence unless the question specifically asks about the conflict.
3. Inspect images carefully \u2014 many answers cannot be determined from text alone.
4. Reply with ONLY the option letter (e.g. A, B, C, or D). Do not explain or add any other text."""

SYSTEM_PROMPT_OPEN = """You are an AI assistant being evaluated on MemEye, a vision-centric multimodal memory benchmark.
Your task is to answer questions about a long-horizon multimodal conversation using the provided conversation history and images.

Follow these rules:
1. Ground every answer in the conversation history and images. Do not invent facts.
2. When multiple pieces of information conflict, prefer the most recent visual evidence unless the question specifically asks about the conflict.
3. Inspect images carefully \u2014 many answers cannot be determined from text alone.
4. Be precise about spatial positions, colors, textures, and other visual attributes.
5. If the required information is genuinely absent, say so explicitly rather than guessing.
6. Give ONLY the answer itself \u2014 no reasoning, no explanation, no restating of the question.
7. For counting questions, reply with just the number (e.g. "3").
8. For yes/no questions, start with "Yes" or "No", then add only the essential corrective detail if needed.
9. For descriptive questions, give a short, direct answer in one or two sentences at most."""

QUESTION_TURN = "Answer based on the conversation and images above. Be concise and factual.\nQuestion: {question}"
"""The final user turn of MemEye's OpenAI router."""

OPTIONS_INSTRUCTION = "Answer with ONLY the option letter ({letters}). Do not explain."
"""The last line of MemEye's MCQ options block."""


def system_prompt(mode: str) -> str:
    """The system prompt MemEye loads for a run's mode (``mcq`` or ``open``)."""
    return SYSTEM_PROMPT_MCQ if mode == "mcq" else SYSTEM_PROMPT_OPEN
