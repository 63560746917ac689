"""LoCoMo results as memory systems' own evaluation harnesses write them, recognised by content.

Few LoCoMo numbers come out of upstream's ``evaluate_qa.py``: each memory system runs its own
harness. Six shapes of five families are read here (docs/formats.md §4.3 has them field by
field), each recognised from the first 256 KiB of a ``*.json`` file, never by its name (mem0
and CUE-Mem both write ``*_results.json``):

- ``mem0``: mem0's ``evaluation/evals.py`` (mem0, Memobase, MIRIX's reruns, forks):
  ``{"<conversation index>": [{question, answer (gold), response, category, bleu_score,
  f1_score, llm_score}]}``;
- ``mirix``: MIRIX's ``evaluation_metrics_run<N>.json``: ``{detailed_results: [mem0
  items], summary_by_category, overall_summary}``;
- ``zep``: Zep's ``zep_locomo_grades.json``: ``{"locomo_experiment_user_<i>": [{question,
  answer (the system's), golden_answer, grade, category}]}``; its
  ``zep_locomo_responses.json`` (the same items with ``duration_ms``, no grade) is read
  beside it for latency and is never a run itself;
- ``memu``: memU's ``result.json``: ``{success, summary, detailed_results: [{qa_index,
  question, generated_answer, standard_answer, category, is_correct, explanation}]}``;
- ``evermemos``: EverMemOS's ``eval_results.json``: ``{total_questions, correct, accuracy,
  metadata, detailed_results: {"locomo_exp_user_<i>": [{question_id "locomo_<i>_qa<N>",
  question, golden_answer, generated_answer, llm_judgments: {judgment_1..}, category}]}}``;
- ``memos``: MemOS's ``{lib}_locomo_judged.json`` (``evaluation/scripts/locomo/
  locomo_eval.py``, checked at MemOS commit 0ce43b8): ``{"locomo_exp_user_<i>": [{question,
  answer (the system's), golden_answer, category, llm_judgments, nlp_metrics,
  response_duration_ms, search_duration_ms, total_duration_ms}]}``.

:func:`read_harness_file` turns a file into :class:`HarnessItem` rows and what the file says
about itself (its own summary, models); ``harness_run`` joins them to ``locomo10.json``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from memscope.plugin import JSONObject, JSONValue, RunDirError, read_json_file

SNIFF_BYTES = 256 * 1024

FAMILY_TITLES: dict[str, str] = {
    "mem0": "mem0 evals.py",
    "mirix": "MIRIX evaluation_metrics",
    "zep": "Zep locomo_eval grades",
    "memu": "memU result.json",
    "evermemos": "EverMemOS eval_results",
    "memos": "MemOS locomo_judged",
}
"""Each family's name as runs, reports and table captions show it."""

LOOKED_FOR = (
    'a LoCoMo harness output (mem0 evals.py {"<i>": [{question, response, llm_score}]}, '
    "MIRIX {detailed_results, summary_by_category}, Zep {locomo_experiment_user_<i>: "
    "[{golden_answer, grade}]}, memU {summary, detailed_results: [{qa_index, is_correct}]}, "
    "EverMemOS / MemOS {llm_judgments})"
)
"""What marks a harness file, for "not a run directory" messages."""

ZEP_RESPONSES = "zep_responses"
"""The family of Zep's responses file: latency beside the grades, never a run."""

_HAS = {
    name: re.compile(pattern)
    for name, pattern in {
        "llm_score": rb'"llm_score"\s*:',
        "response": rb'"response"\s*:',
        "index_key": rb'^\{\s*"\d+"\s*:\s*\[',
        "detailed_results": rb'"detailed_results"\s*:',
        "zep_user": rb'"locomo_experiment_user_\d+"\s*:\s*\[',
        "golden_answer": rb'"golden_answer"\s*:',
        "grade": rb'"grade"\s*:',
        "duration_ms": rb'"duration_ms"\s*:',
        "qa_index": rb'"qa_index"\s*:',
        "is_correct": rb'"is_correct"\s*:',
        "llm_judgments": rb'"llm_judgments"\s*:',
        "question_id": rb'"question_id"\s*:\s*"locomo_\d+_qa\d+"',
        "exp_user": rb'"locomo_exp_user_\d+"\s*:\s*\[',
    }.items()
}


def _head(path: Path) -> bytes | None:
    if not path.name.endswith(".json"):
        return None
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return None
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return head if head[:1] == b"{" else None


def sniff_family(path: Path) -> str | None:
    """The harness family of a file from its first 256 KiB (None: none of them)."""
    head = _head(path)
    if head is None:
        return None

    def has(*names: str) -> bool:
        return all(_HAS[name].search(head) for name in names)

    if has("llm_judgments", "question_id"):
        return "evermemos"
    if has("llm_judgments", "exp_user", "golden_answer"):
        return "memos"
    if has("zep_user", "golden_answer", "grade"):
        return "zep"
    if has("zep_user", "golden_answer", "duration_ms"):
        return ZEP_RESPONSES
    if has("detailed_results", "qa_index", "is_correct"):
        return "memu"
    if has("detailed_results", "llm_score", "response"):
        return "mirix"
    if has("index_key", "llm_score", "response"):
        return "mem0"
    return None


def harness_files(folder: Path) -> list[tuple[Path, str]]:
    """``(file, family)`` of every harness file of a folder, by name (responses files too)."""
    try:
        candidates = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return []
    found = [(path, sniff_family(path)) for path in candidates]
    return [(path, family) for path, family in found if family is not None]


@dataclass
class HarnessItem:
    """One judged answer of a harness file, as written."""

    where: str
    """Where it is in the file (``"5"[12]``, ``detailed_results[40]``)."""
    question: str
    gold: JSONValue
    answer: str | None
    category: JSONValue
    """The category as the file writes it (never trusted: the dataset's number decides)."""
    group: int | None = None
    """The conversation's 0-based index in ``locomo10.json`` where the file names it."""
    position: int | None = None
    """The 0-based position in the conversation's ``qa`` list where the file names it."""
    judge: float | None = None
    judgments: list[float] = field(default_factory=list)
    harness_f1: float | None = None
    harness_bleu: float | None = None
    latency_ms: float | None = None
    tokens: int | None = None
    reasoning: str | None = None


@dataclass
class HarnessFile:
    """A harness file read: its family, items and what it says about itself."""

    path: Path
    family: str
    items: list[HarnessItem]
    join: str
    """How its items find their question: ``group_text``, ``text``, ``position`` or
    ``question_id``."""
    raw: JSONObject
    answer_model: str | None = None
    judge_model: str | None = None
    problems: list[str] = field(default_factory=list)
    """Items that could not be read (where: why)."""

    @property
    def title(self) -> str:
        return FAMILY_TITLES[self.family]


def _score(value: JSONValue) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _text(value: JSONValue) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _group_index(key: str, pattern: str) -> int | None:
    match = re.fullmatch(pattern, key.strip())
    return int(match[1]) if match else None


def read_harness_file(path: Path, family: str) -> HarnessFile:
    """The items of a harness file of ``family`` (what :func:`sniff_family` said).

    Raises:
        RunDirError: the file is not JSON, or not the shape of its family after all.
    """
    raw = read_json_file(path, what=f"{FAMILY_TITLES.get(family, 'harness')} file")
    if not isinstance(raw, dict):
        raise RunDirError(
            f"not a {FAMILY_TITLES.get(family, family)} file: expected a JSON object",
            where=str(path),
        )
    readers = {
        "mem0": _read_mem0,
        "mirix": _read_mirix,
        "zep": _read_zep,
        ZEP_RESPONSES: _read_zep,
        "memu": _read_memu,
        "evermemos": _read_evermemos,
        "memos": _read_memos,
    }
    found = readers[family](path, raw)
    if not found.items:
        raise RunDirError(
            f"the {found.title} file holds no judged answer",
            where=str(path),
            fix="Point at a complete harness output.",
        )
    return found


def _mem0_item(where: str, entry: JSONValue, group: int | None) -> HarnessItem | str:
    if not isinstance(entry, dict) or not isinstance(entry.get("question"), str):
        return f"{where}: not an object with a 'question'"
    return HarnessItem(
        where=where,
        question=str(entry["question"]),
        gold=entry.get("answer"),
        answer=_text(entry.get("response")),
        category=entry.get("category"),
        group=group,
        judge=_score(entry.get("llm_score")),
        harness_f1=_score(entry.get("f1_score")),
        harness_bleu=_score(entry.get("bleu_score")),
    )


def _read_mem0(path: Path, raw: JSONObject) -> HarnessFile:
    found = HarnessFile(path, "mem0", [], "group_text", raw)
    # Keys are conversation indices, not in order; items follow the dataset within one.
    for key in sorted(
        raw, key=lambda k: (not k.strip().isdigit(), int(k) if k.strip().isdigit() else 0, k)
    ):
        entries = raw[key]
        group = int(key) if key.strip().isdigit() else None
        if group is None or not isinstance(entries, list):
            found.problems.append(f'"{key}": not a conversation index with a list of items')
            continue
        for number, entry in enumerate(entries):
            item = _mem0_item(f'"{key}"[{number}]', entry, group)
            if isinstance(item, str):
                found.problems.append(item)
            else:
                found.items.append(item)
    return found


def _read_mirix(path: Path, raw: JSONObject) -> HarnessFile:
    found = HarnessFile(path, "mirix", [], "text", raw)
    entries = raw.get("detailed_results")
    for number, entry in enumerate(entries if isinstance(entries, list) else []):
        item = _mem0_item(f"detailed_results[{number}]", entry, None)
        if isinstance(item, str):
            found.problems.append(item)
        else:
            found.items.append(item)
    return found


def _read_zep(path: Path, raw: JSONObject) -> HarnessFile:
    family = (
        "zep"
        if any(
            isinstance(e, dict) and "grade" in e
            for entries in raw.values()
            if isinstance(entries, list)
            for e in entries
        )
        else ZEP_RESPONSES
    )
    found = HarnessFile(path, family, [], "group_text", raw)
    for key, entries in raw.items():
        group = _group_index(key, r"locomo_experiment_user_(\d+)")
        if group is None or not isinstance(entries, list):
            found.problems.append(f'"{key}": not locomo_experiment_user_<i> with a list of items')
            continue
        for number, entry in enumerate(entries):
            where = f'"{key}"[{number}]'
            if not isinstance(entry, dict) or not isinstance(entry.get("question"), str):
                found.problems.append(f"{where}: not an object with a 'question'")
                continue
            found.items.append(
                HarnessItem(
                    where=where,
                    question=str(entry["question"]),
                    gold=entry.get("golden_answer"),
                    # Zep's `answer` is the system's answer, not the gold.
                    answer=_text(entry.get("answer")),
                    category=entry.get("category"),
                    group=group,
                    judge=_score(entry.get("grade")),
                    latency_ms=_score(entry.get("duration_ms")),
                )
            )
    return found


def _read_memu(path: Path, raw: JSONObject) -> HarnessFile:
    found = HarnessFile(path, "memu", [], "position", raw)
    entries = raw.get("detailed_results")
    group, last = 0, None
    for number, entry in enumerate(entries if isinstance(entries, list) else []):
        where = f"detailed_results[{number}]"
        index = entry.get("qa_index") if isinstance(entry, dict) else None
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("question"), str)
            or isinstance(index, bool)
            or not isinstance(index, int)
        ):
            found.problems.append(f"{where}: not an object with a 'question' and a qa_index")
            continue
        # qa_index restarts with each conversation; items are in the dataset's order.
        if last is not None and index <= last:
            group += 1
        last = index
        found.items.append(
            HarnessItem(
                where=where,
                question=str(entry["question"]),
                gold=entry.get("standard_answer"),
                answer=_text(entry.get("generated_answer")),
                category=entry.get("category"),
                group=group,
                position=index,
                judge=_score(entry.get("is_correct")),
                reasoning=_text(entry.get("explanation")),
            )
        )
    return found


def _judged_item(where: str, entry: JSONValue, group: int) -> HarnessItem | str:
    if not isinstance(entry, dict) or not isinstance(entry.get("question"), str):
        return f"{where}: not an object with a 'question'"
    raw_judgments = entry.get("llm_judgments")
    judgments: list[float] = []
    if isinstance(raw_judgments, dict):
        for name in sorted(raw_judgments, key=lambda n: (len(n), n)):
            value = _score(raw_judgments[name])
            if value is not None:
                judgments.append(value)
    item = HarnessItem(
        where=where,
        question=str(entry["question"]),
        gold=entry.get("golden_answer"),
        answer=_text(entry.get("generated_answer", entry.get("answer"))),
        category=entry.get("category"),
        group=group,
        judgments=judgments,
        judge=sum(judgments) / len(judgments) if judgments else None,
    )
    metrics = entry.get("nlp_metrics")
    lexical = metrics.get("lexical") if isinstance(metrics, dict) else None
    if isinstance(lexical, dict):
        item.harness_f1 = _score(lexical.get("f1"))
        item.harness_bleu = _score(lexical.get("bleu1"))
    tokens = metrics.get("context_tokens") if isinstance(metrics, dict) else None
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        item.tokens = tokens
    item.latency_ms = _score(entry.get("total_duration_ms"))
    return item


def _read_evermemos(path: Path, raw: JSONObject) -> HarnessFile:
    meta = raw.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    found = HarnessFile(
        path,
        "evermemos",
        [],
        "question_id",
        raw,
        answer_model=_text(meta.get("answer_model")),
        judge_model=_text(meta.get("judge_model")),
    )
    groups = raw.get("detailed_results")
    for key, entries in (groups if isinstance(groups, dict) else {}).items():
        group = _group_index(key, r"locomo_exp_user_(\d+)")
        if group is None or not isinstance(entries, list):
            found.problems.append(f'"{key}": not locomo_exp_user_<i> with a list of items')
            continue
        for number, entry in enumerate(entries):
            item = _judged_item(f'"{key}"[{number}]', entry, group)
            if isinstance(item, str):
                found.problems.append(item)
                continue
            assert isinstance(entry, dict)
            match = re.fullmatch(r"locomo_(\d+)_qa(\d+)", str(entry.get("question_id", "")))
            if match is None or int(match[1]) != group:
                found.problems.append(f"{item.where}: question_id is not locomo_{group}_qa<N>")
                continue
            item.position = int(match[2])
            found.items.append(item)
    return found


def _read_memos(path: Path, raw: JSONObject) -> HarnessFile:
    found = HarnessFile(path, "memos", [], "group_text", raw)
    for key, entries in raw.items():
        group = _group_index(key, r"locomo_exp_user_(\d+)")
        if group is None or not isinstance(entries, list):
            found.problems.append(f'"{key}": not locomo_exp_user_<i> with a list of items')
            continue
        for number, entry in enumerate(entries):
            item = _judged_item(f'"{key}"[{number}]', entry, group)
            if isinstance(item, str):
                found.problems.append(item)
            else:
                found.items.append(item)
    return found
