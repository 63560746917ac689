"""MemEye's dense retrievers (``semantic_rag_*``) for the demo runs.

``srag_t`` (text-only, all-MiniLM-L6-v2) is the real retriever: a round's score is
MiniLM's cosine similarity between the question and the round text (user + assistant +
the image captions, as MemEye's ``build_round_retrieval_text`` does for ``text_only``),
computed once by ``minilm_scores.py`` with the packaged model and read from
``srag_t_minilm.json``; the ranking is theirs, with no hand placement, so ``memscope
recompute srag_t`` reproduces the logged scores.

``srag_v`` (native images, SigLIP-2, whose weights are not shipped) is simulated: a
round's similarity is bag-of-words overlap scaled into the range real MiniLM / SigLIP
cosines fall in:

- text channel: cosine of content-word counts between the question and the round text
  (user + assistant);
- image channel: cosine between the question and the words a viewer can see in each
  image (``story.IMAGES`` visual terms), best image per round;
- fused score = 0.5 * text + 0.5 * image, like ``semantic_rag_multimodal``'s weights.

A small hash-based jitter breaks ties reproducibly. For the designed failures,
``outcomes.PLACEMENTS`` then moves chosen rounds to fixed ranks or out of the top-K; the
sorted list of scores is kept and handed out again by rank, so logged scores always
decrease strictly down the ranking. A placement may also fix the fused score of a placed
round (used for the README's recency example, to give it a clear, realistic gap).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import re
from collections import Counter
from pathlib import Path

TEXT_WEIGHT = 0.5
IMAGE_WEIGHT = 0.5
LOGGED_CANDIDATES = 5  # MemEye logs scores only for the top 5 (``top_candidates``)
MINILM_SCORES = Path(__file__).resolve().parent / "srag_t_minilm.json"
"""all-MiniLM-L6-v2's similarities of every question to every round (``minilm_scores.py``)."""

# MemEye's retrieval stopwords plus question words that carry no topic.
STOPWORDS = {
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "his",
    "i",
    "in",
    "into",
    "is",
    "it",
    "its",
    "me",
    "my",
    "of",
    "on",
    "or",
    "our",
    "she",
    "that",
    "the",
    "their",
    "them",
    "they",
    "this",
    "to",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "with",
    "you",
    "your",
    "did",
    "does",
    "do",
    "how",
    "many",
    "now",
    "there",
    "here",
    "these",
    "those",
    "so",
    "just",
    "all",
    "one",
    "if",
    "s",
    "t",
    "m",
    "ll",
    "re",
    "ve",
    "d",
    "up",
    "out",
    "like",
    "look",
    "looks",
    "kind",
}


def content_tokens(text: str) -> list[str]:
    return [tok for tok in re.findall(r"[a-z0-9]+", text.lower()) if tok not in STOPWORDS]


def bow_cosine(left: list[str], right: list[str]) -> float:
    left_counts, right_counts = Counter(left), Counter(right)
    dot = sum(count * right_counts[tok] for tok, count in left_counts.items())
    if not dot:
        return 0.0
    norm = math.sqrt(sum(c * c for c in left_counts.values()))
    norm *= math.sqrt(sum(c * c for c in right_counts.values()))
    return dot / norm


def jitter(*parts: str, scale: float) -> float:
    """A reproducible pseudo-random value in [0, scale) derived from the given strings."""
    digest = hashlib.sha256("|".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 * scale


def round_text(record: dict, with_captions: bool) -> str:
    parts = [record["user"].strip(), record["assistant"].strip()]
    if with_captions and record["captions"]:
        parts.append(" ".join(record["captions"]))
    return " ".join(part for part in parts if part)


@functools.cache
def minilm_table() -> dict:
    """The stored MiniLM similarities (read once)."""
    return json.loads(MINILM_SCORES.read_text(encoding="utf-8"))


def minilm_scores(question: str, records: list[dict]) -> dict[str, dict]:
    """all-MiniLM-L6-v2's real similarity of every round to the question (text = fused)."""
    table = minilm_table()
    column = {rid: i for i, rid in enumerate(table["rounds"])}
    row = table["similarities"][question.strip()]
    if [r["round_id"] for r in records] != table["rounds"]:
        raise ValueError(f"{MINILM_SCORES.name} is for other rounds: run minilm_scores.py again")
    return {
        r["round_id"]: {
            "text": row[column[r["round_id"]]],
            "image": 0.0,
            "fused": row[column[r["round_id"]]],
            "best_image": "",
        }
        for r in records
    }


def natural_scores(question: str, records: list[dict], run: str) -> dict[str, dict]:
    """The (text, image, fused) similarity of every round to the question: real MiniLM
    for ``srag_t``, simulated for ``srag_v``."""
    if run == "srag_t":
        return minilm_scores(question, records)
    visual = run == "srag_v"
    query = content_tokens(question)
    scores = {}
    for record in records:
        rid = record["round_id"]
        text_cos = bow_cosine(query, content_tokens(round_text(record, not visual)))
        text_score = 0.12 + 0.66 * text_cos + jitter(run, question, rid, "text", scale=0.05)
        image_score, best_image = 0.0, ""
        if visual:
            for image_id, terms in zip(record["image_ids"], record["visual_terms"], strict=False):
                image_cos = bow_cosine(query, content_tokens(terms))
                score = 0.06 + 0.42 * image_cos + jitter(run, question, image_id, scale=0.04)
                # MemEye keeps the last image on ties (``>=``), so do the same.
                if score >= image_score:
                    image_score, best_image = score, image_id
            fused = TEXT_WEIGHT * text_score + IMAGE_WEIGHT * image_score
        else:
            fused = text_score
        scores[rid] = {
            "text": text_score,
            "image": image_score,
            "fused": fused,
            "best_image": best_image,
        }
    return scores


def apply_placements(natural_order: list[str], placement: dict | None, top_k: int) -> list[str]:
    """Move hand-placed rounds to their ranks and push excluded rounds below the top-K."""
    if not placement:
        return list(natural_order)
    ranks = placement.get("ranks", {})
    excluded = placement.get("exclude", [])
    order = [rid for rid in natural_order if rid not in ranks and rid not in excluded]
    for rid, rank in sorted(ranks.items(), key=lambda item: item[1]):
        order.insert(rank - 1, rid)
    # Excluded rounds land just below the cut-off, as near misses.
    for offset, rid in enumerate(excluded):
        order.insert(top_k + 1 + offset, rid)
    return order


def rank_rounds(
    question: str, records: list[dict], run: str, placement: dict | None, top_k: int
) -> dict:
    """The ranking of all rounds for one question and run (MiniLM's for ``srag_t``).

    Returns ``order`` (every round id, rank 1 first) and ``scores`` (round id -> logged
    components for the top candidates: fused score, text score and, for the
    native-visual run, image score and best image id).
    """
    natural = natural_scores(question, records, run)
    natural_order = sorted(natural, key=lambda rid: (-natural[rid]["fused"], rid))
    if run == "srag_t" and placement:
        raise ValueError(f"srag_t is ranked by MiniLM alone: no placement for {question!r}")
    order = apply_placements(natural_order, placement, top_k)
    score_by_rank = sorted((natural[rid]["fused"] for rid in natural), reverse=True)
    for rid, fixed_score in (placement or {}).get("scores", {}).items():
        score_by_rank[order.index(rid)] = fixed_score
    images_in = {r["round_id"]: len(r["image_ids"]) for r in records}

    logged = {}
    for rank, rid in enumerate(order[:LOGGED_CANDIDATES], start=1):
        fused = score_by_rank[rank - 1]
        if run != "srag_v":
            value = round(fused, 6)
            logged[rid] = {"score": value, "text": value}
            continue
        # Split the fused score back into channels, keeping the round's own text score
        # where possible; a round without images has an image score of exactly 0.
        if images_in[rid]:
            text = min(max(natural[rid]["text"], 2 * fused - 0.6), 2 * fused, 0.95)
        else:
            text = 2 * fused
        if not 0.0 <= text <= 0.95:
            raise ValueError(f"implausible text score {text:.3f} for {rid} ({question!r})")
        text6 = round(text, 6)
        image6 = round(2 * fused - text6, 6) if images_in[rid] else 0.0
        logged[rid] = {
            "score": round(TEXT_WEIGHT * text6 + IMAGE_WEIGHT * image6, 6),
            "text": text6,
            "image": image6,
            "best_image": natural[rid]["best_image"],
        }
    values = [logged[rid]["score"] for rid in order[:LOGGED_CANDIDATES]]
    if any(a <= b for a, b in itertools.pairwise(values)):
        raise ValueError(f"logged scores do not decrease strictly for {question!r}: {values}")
    return {"order": order, "scores": logged}
