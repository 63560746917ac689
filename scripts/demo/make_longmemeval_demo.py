"""Write a small, invented LongMemEval tree in upstream's own formats (docs/formats.md §6).

No LongMemEval data can be downloaded where memscope is built and tested, so this writes
what upstream's scripts would write, with invented text: the datasets, retrieval logs,
hypothesis files and judgements, laid out as upstream's shell scripts lay them out::

    <root>/data/longmemeval_s.json, longmemeval_oracle.json
    <root>/retrieval_logs/flat-bm25/{turn,session}/longmemeval_s.json_retrievallog_<g>_flat-bm25
    <root>/generation_logs/<retriever alias>/<model>/<reading method>/<in file>_testlog_…
        (+ ``.eval-results-gpt-4o`` beside every graded one)

Every question type and the abstention variants occur; answers are sometimes numbers;
filler sessions are drawn from one pool, so most recur across questions' haystacks (as in
LongMemEval_S); a single-session-assistant question's evidence is an assistant turn, so its
evidence session is renamed ``noans_`` in the retrieval corpus, as upstream does.

The retrieval logs carry the metrics upstream's ``run_retrieval.py`` computes, written from
its definitions (docs/formats.md §6.1), never copied. ``python make_longmemeval_demo.py ROOT
[--questions-per-type N] [--sessions-per-question N] [--turn-chars N]`` scales it up
(``benchmarks/bench_longmemeval.py`` writes an M-sized dataset this way); files are written
entry by entry, never held whole.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)
ABSTENTION_TYPES = (
    "single-session-user",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)
EVIDENCE_SESSIONS = {
    "single-session-user": 1,
    "single-session-assistant": 1,
    "single-session-preference": 1,
    "multi-session": 3,
    "temporal-reasoning": 2,
    "knowledge-update": 2,
}
KS = (1, 3, 5, 10, 30, 50)
JUDGE_ALIAS = "gpt-4o"
JUDGE_MODEL = "gpt-4o-2024-08-06"
DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"
START = datetime(2023, 1, 2, 9, 0)
WORDS = [
    "garden",
    "hiking",
    "recipe",
    "bicycle",
    "guitar",
    "museum",
    "coffee",
    "novel",
    "train",
    "budget",
    "puppy",
    "laptop",
    "marathon",
    "pottery",
    "violin",
    "camera",
    "festival",
    "sourdough",
    "kayak",
    "chess",
    "lantern",
    "orchard",
]


@dataclass
class Question:
    entry: dict[str, Any]
    stale: str | None = None
    sessions: list[tuple[str, str, list[dict[str, Any]]]] = field(default_factory=list)


def _date(moment: datetime) -> str:
    return moment.strftime(DATE_FORMAT)


_SOURCE = " ".join(random.Random(0).choice(WORDS) for _ in range(20_000))


def _text(rng: random.Random, chars: int) -> str:
    """About ``chars`` characters of invented words (a slice of one long invented text)."""
    start = _SOURCE.index(" ", rng.randrange(len(_SOURCE) - chars - 20)) + 1
    end = _SOURCE.find(" ", start + chars)
    return _SOURCE[start : end if end > 0 else None]


def _filler(rng: random.Random, number: int, chars: int) -> tuple[str, list[dict[str, Any]]]:
    sid = f"sharegpt_{rng.randrange(16**6):06x}_{number}" if number % 2 else f"ultrachat_{number}"
    turns = []
    for _ in range(rng.randint(2, 4)):
        turns.append({"role": "user", "content": _text(rng, chars)})
        turns.append({"role": "assistant", "content": _text(rng, chars)})
    return sid, turns


def _evidence_session(
    rng: random.Random, fact: str, *, in_assistant: bool, marked: bool, chars: int
) -> list[dict[str, Any]]:
    """Two to four rounds, one of whose turns states ``fact`` (``has_answer`` true unless
    the question is an abstention one, whose evidence is only near the asked thing)."""
    rounds = rng.randint(2, 4)
    where = rng.randrange(rounds)
    turns: list[dict[str, Any]] = []
    for index in range(rounds):
        user = {"role": "user", "content": _text(rng, chars), "has_answer": False}
        helper = {"role": "assistant", "content": _text(rng, chars), "has_answer": False}
        if index == where:
            target = helper if in_assistant else user
            target["content"] = f"{fact}. {target['content']}"
            target["has_answer"] = marked
        turns += [user, helper]
    return turns


def _question(
    rng: random.Random, qtype: str, number: int, abstention: bool, chars: int
) -> Question:
    """One question with its evidence sessions (dates are set when its haystack is built)."""
    base = f"{rng.randrange(16**8):08x}"
    qid = f"{base}_abs" if abstention else base
    thing = rng.choice(WORDS)
    if qtype == "temporal-reasoning":
        answer: Any = rng.randint(2, 40)  # an int, as upstream's "how many days" answers are
        facts = [f"I started the {thing} project", f"I finished the {thing} project"]
        question = f"How many days passed between starting and finishing the {thing} project?"
    elif qtype == "knowledge-update":
        old, answer = rng.sample(range(2, 30), 2)
        facts = [f"I own {old} {thing} books", f"I now own {answer} {thing} books"]
        question = f"How many {thing} books do I own?"
    elif qtype == "multi-session":
        counts = [rng.randint(1, 5) for _ in range(EVIDENCE_SESSIONS[qtype])]
        answer = sum(counts)
        facts = [f"I bought {count} {thing} tickets" for count in counts]
        question = f"How many {thing} tickets did I buy in total?"
    elif qtype == "single-session-preference":
        answer = f"The user would prefer suggestions about {thing} that fit their taste."
        facts = [f"I really love anything about {thing}"]
        question = f"Can you recommend something for my weekend? ({number})"
    else:
        answer = f"the {thing} {rng.choice(WORDS)}"
        facts = [f"The one I mean is {answer}"]
        question = f"Which {thing} did we talk about? ({number})"
    if abstention:
        question = question.replace(thing, f"{thing} {rng.choice(WORDS)}", 1)
        answer = f"The information provided is not enough. You did not mention {question}"
    in_assistant = qtype == "single-session-assistant"
    sessions = [
        (
            f"answer_{base}_{index + 1}",
            fact,
            _evidence_session(
                rng, fact, in_assistant=in_assistant, marked=not abstention, chars=chars
            ),
        )
        for index, fact in enumerate(facts)
    ]
    entry = {
        "question_id": qid,
        "question_type": qtype,
        "question": question,
        "answer": answer,
    }
    stale = facts[0] if qtype == "knowledge-update" and not abstention else None
    return Question(entry, stale, sessions)


def build_questions(
    seed: int, questions_per_type: int, sessions_per_question: int, turn_chars: int
) -> Iterator[dict[str, Any]]:
    """Every question's full dataset entry, in upstream's field order, one at a time."""
    rng = random.Random(seed)
    pool_size = max(sessions_per_question * 3 // 2, 4)
    pool = [_filler(rng, number, turn_chars) for number in range(pool_size)]
    pool_dates = sorted(START + timedelta(hours=rng.randrange(24 * 300)) for _ in pool)
    plan = [(qtype, False) for qtype in TYPES for _ in range(questions_per_type)]
    plan += [(qtype, True) for qtype in ABSTENTION_TYPES]
    for number, (qtype, abstention) in enumerate(plan, start=1):
        question = _question(rng, qtype, number, abstention, turn_chars)
        chosen = sorted(rng.sample(range(pool_size), min(sessions_per_question, pool_size)))
        haystack = [(pool[i][0], pool_dates[i], pool[i][1]) for i in chosen]
        # The evidence lies at increasing moments among the filler (a knowledge update's
        # newer statement after its older one), within the pool's 300 days.
        moments = sorted(
            START + timedelta(hours=rng.randrange(24 * 300)) for _ in question.sessions
        )
        for (sid, _, turns), moment in zip(question.sessions, moments, strict=True):
            haystack.append((sid, moment, turns))
        haystack.sort(key=lambda item: (item[1], item[0]))
        question_date = max(moment for _, moment, _ in haystack) + timedelta(
            days=rng.randint(0, 20), minutes=rng.randint(1, 600)
        )
        entry = dict(question.entry)
        entry["question_date"] = _date(question_date)
        entry["haystack_session_ids"] = [sid for sid, _, _ in haystack]
        entry["haystack_dates"] = [_date(moment) for _, moment, _ in haystack]
        entry["haystack_sessions"] = [turns for _, _, turns in haystack]
        entry["answer_session_ids"] = [sid for sid, _, _ in question.sessions]
        if question.stale is not None:
            entry["_stale_fact"] = question.stale  # for the hypotheses; not written out
        yield entry


def oracle_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The ``_oracle`` twin: the same question whose haystack is its evidence sessions."""
    keep = [
        i
        for i, sid in enumerate(entry["haystack_session_ids"])
        if sid in entry["answer_session_ids"]
    ]
    twin = dict(entry)
    for name in ("haystack_session_ids", "haystack_dates", "haystack_sessions"):
        twin[name] = [entry[name][i] for i in keep]
    return twin


def _public(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if not key.startswith("_")}


# Retrieval, as run_retrieval.py builds its corpus and scores a ranking ---------------------


def corpus(entry: dict[str, Any], granularity: str) -> tuple[list[str], list[str], list[str]]:
    """Upstream's flat corpus of one question: ids, texts and timestamps (user side only)."""
    ids: list[str] = []
    texts: list[str] = []
    stamps: list[str] = []
    for sid, date, turns in zip(
        entry["haystack_session_ids"],
        entry["haystack_dates"],
        entry["haystack_sessions"],
        strict=True,
    ):
        users = [(n, turn) for n, turn in enumerate(turns, start=1) if turn["role"] == "user"]
        if granularity == "session":
            evidence = any(turn.get("has_answer") for _, turn in users)
            ids.append(sid.replace("answer", "noans") if "answer" in sid and not evidence else sid)
            texts.append(" ".join(turn["content"] for _, turn in users))
            stamps.append(date)
            continue
        for n, turn in users:
            tid = f"{sid}_{n}"
            ids.append(
                tid.replace("answer", "noans")
                if "answer" in sid and not turn["has_answer"]
                else tid
            )
            texts.append(turn["content"])
            stamps.append(date)
    return ids, texts, stamps


def _dcg(relevances: list[int]) -> float:
    # upstream's discount: the first two ranks count in full, rank r > 1 is divided by log2(r)
    return sum(
        rel / math.log2(rank) if rank > 1 else float(rel)
        for rank, rel in enumerate(relevances, start=1)
    )


def score(ranked: list[str], targets: set[str], k: int, everything: list[str]) -> dict[str, float]:
    top = ranked[:k]
    ideal = _dcg(sorted((1 if cid in targets else 0 for cid in everything), reverse=True)[:k])
    actual = _dcg([1 if cid in targets else 0 for cid in top])
    return {
        f"recall_any@{k}": float(any(t in top for t in targets)),
        f"recall_all@{k}": float(all(t in top for t in targets)),
        f"ndcg_any@{k}": actual / ideal if ideal else 0.0,
    }


def _session_of(cid: str) -> str:
    return cid.rsplit("_", 1)[0]


def metrics(ranked: list[str], granularity: str) -> dict[str, dict[str, float]]:
    """``retrieval_results.metrics`` of one ranking (the corpus is the ranking's ids)."""
    targets = {cid for cid in ranked if "answer" in cid}
    found: dict[str, dict[str, float]] = {"session": {}, "turn": {}}
    for k in KS:
        found[granularity].update(score(ranked, targets, k, ranked))
        if granularity == "turn":
            sessions = [_session_of(cid) for cid in ranked]
            wanted = {_session_of(cid) for cid in targets}
            reach = k
            while reach <= len(sessions) and len(set(sessions[:reach])) < k:
                reach += 1
            found["session"].update(
                {
                    name.replace(f"@{reach}", f"@{k}"): value
                    for name, value in score(sessions, wanted, reach, sessions).items()
                }
            )
    return found


def ranking(rng: random.Random, ids: list[str], skill: float) -> list[str]:
    """An invented ranking: targets move ahead with probability ``skill``."""
    order = ids[:]
    rng.shuffle(order)
    ahead = [cid for cid in order if "answer" in cid and rng.random() < skill]
    return ahead + [cid for cid in order if cid not in ahead]


# Hypotheses and judgements ------------------------------------------------------------------


def hypothesis(rng: random.Random, entry: dict[str, Any], right: bool) -> str:
    if "_abs" in entry["question_id"]:
        return "I don't have that information in our conversations." if right else "It was 7."
    if right:
        return f"Based on our chats: {entry['answer']}"
    stale = entry.get("_stale_fact")
    return f"Earlier you said: {stale}." if stale else f"I believe it is {rng.randint(50, 99)}."


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def write_dataset(path: Path, entries: Iterator[dict[str, Any]]) -> None:
    """A JSON list written one entry at a time (never held whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("[")
        for index, entry in enumerate(entries):
            handle.write(("," if index else "") + "\n" + json.dumps(_public(entry)))
        handle.write("\n]\n")


GENERATIONS = (
    # retriever alias, model, reading method, in file, k, format, useronly, stamp, skill, judged
    ("flat-bm25-turn", "gpt-4o-mini", "con", "longmemeval_s.json_retrievallog_turn_flat-bm25", 10, "json", "false", "20250102-0930", 0.6, True),
    ("full-history-session", "gpt-4o-mini", "con", "longmemeval_s.json", 50, "json", "false", "20250102-1000", 0.45, True),
    ("full-history-session", "gpt-4o-mini", "con", "longmemeval_oracle.json", 50, "json", "false", "20250102-1015", 0.8, True),
    ("flat-bm25-session", "llama-3.1-8b-instruct", "direct", "longmemeval_s.json_retrievallog_session_flat-bm25", 5, "nl", "true", "20250103-1100", 0.5, False),
)  # fmt: skip


def hypothesis_name(in_file: str, k: int, fmt: str, useronly: str, stamp: str) -> str:
    """run_generation.py's output file name."""
    return f"{in_file}_testlog_top{k}context_{fmt}format_useronly{useronly}_{stamp}"


def write_demo(
    root: Path,
    *,
    seed: int = 40,
    questions_per_type: int = 4,
    sessions_per_question: int = 10,
    turn_chars: int = 60,
    generations: bool = True,
) -> Path:
    """The whole tree under ``root``; returns ``root``."""
    entries = list(build_questions(seed, questions_per_type, sessions_per_question, turn_chars))
    write_dataset(root / "data" / "longmemeval_s.json", iter(entries))
    write_dataset(root / "data" / "longmemeval_oracle.json", (oracle_entry(e) for e in entries))
    rng = random.Random(seed + 1)
    for granularity in ("turn", "session"):
        rows = []
        for entry in entries:
            ids, texts, stamps = corpus(entry, granularity)
            text_of = dict(zip(ids, zip(texts, stamps, strict=True), strict=True))
            ranked = ranking(rng, ids, 0.6)
            rows.append(
                {
                    **_public(entry),
                    "retrieval_results": {
                        "query": entry["question"],
                        "ranked_items": [
                            {
                                "corpus_id": cid,
                                "text": text_of[cid][0],
                                "timestamp": text_of[cid][1],
                            }
                            for cid in ranked
                        ],
                        "metrics": metrics(ranked, granularity),
                    },
                }
            )
        _jsonl(
            root / "retrieval_logs" / "flat-bm25" / granularity
            / f"longmemeval_s.json_retrievallog_{granularity}_flat-bm25",
            rows,
        )  # fmt: skip
    if not generations:
        return root
    for alias, model, method, in_file, k, fmt, useronly, stamp, skill, judged in GENERATIONS:
        folder = root / "generation_logs" / alias / model / method
        name = hypothesis_name(in_file, k, fmt, useronly, stamp)
        hyps, judgements = [], []
        for entry in entries:
            right = rng.random() < skill
            line = {
                "question_id": entry["question_id"],
                "hypothesis": hypothesis(rng, entry, right),
            }
            hyps.append(line)
            judgements.append({**line, "autoeval_label": {"model": JUDGE_MODEL, "label": right}})
        _jsonl(folder / name, hyps)
        if judged:
            _jsonl(folder / f"{name}.eval-results-{JUDGE_ALIAS}", judgements)
    return root


def write_m_sized(
    root: Path,
    *,
    seed: int = 40,
    questions_per_type: int = 82,
    sessions_per_question: int = 500,
    turn_chars: int = 600,
) -> Path:
    """An M-sized tree for ``benchmarks/bench_longmemeval.py``: ``data/longmemeval_m.json``
    (6 x ``questions_per_type`` + 4 questions, each over ``sessions_per_question`` filler
    sessions plus its evidence) and one judged full-history run over it; returns the run's
    folder. The dataset is written one question at a time."""
    entries = build_questions(seed, questions_per_type, sessions_per_question, turn_chars)
    rng = random.Random(seed + 1)
    folder = root / "generation_logs" / "full-history-session" / "gpt-4o-mini" / "con"
    name = hypothesis_name("longmemeval_m.json", 500, "json", "false", "20250104-0900")
    judgements: list[dict[str, Any]] = []

    def judged(entries: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for entry in entries:
            right = rng.random() < 0.5
            line = {
                "question_id": entry["question_id"],
                "hypothesis": hypothesis(rng, entry, right),
            }
            judgements.append({**line, "autoeval_label": {"model": JUDGE_MODEL, "label": right}})
            yield entry

    write_dataset(root / "data" / "longmemeval_m.json", judged(entries))
    _jsonl(folder / f"{name}.eval-results-{JUDGE_ALIAS}", judgements)
    _jsonl(
        folder / name, [{k: row[k] for k in ("question_id", "hypothesis")} for row in judgements]
    )
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--questions-per-type", type=int, default=4)
    parser.add_argument("--sessions-per-question", type=int, default=10)
    parser.add_argument("--turn-chars", type=int, default=60)
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args()
    write_demo(
        args.root,
        seed=args.seed,
        questions_per_type=args.questions_per_type,
        sessions_per_question=args.sessions_per_question,
        turn_chars=args.turn_chars,
    )
    print(f"wrote a LongMemEval tree under {args.root}")


if __name__ == "__main__":
    main()
