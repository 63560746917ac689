"""A harness file (``harness``) as an ordinary LoCoMo run: joined to ``locomo10.json``, scored
on LoCoMo's own F1, its own summary cross-checked.

**Joining** (every join is reported: how many items joined, which did not and why):

- ``group_text`` (mem0, Zep, MemOS): the conversation's index in the dataset, then the
  question text within it; a text asked twice (conv-48 repeats 11 questions word for word)
  takes the next unused question in file order;
- ``text`` (MIRIX): the question text over every conversation, repeats in file order (a
  text in several conversations takes the one whose gold matches, else the first unused);
- ``position`` (memU): the conversation (``qa_index`` restarts with each) and the item's
  position in its ``qa`` list: memU renamed people in two conversations, so 188 texts
  differ from the dataset's; the differing texts are counted in a notice;
- ``question_id`` (EverMemOS): ``locomo_<i>_qa<N>``, N the 0-based position.

A file of which fewer than half of the items join is refused, naming items that did not.

**What a run holds.** Only the questions its file holds: a category the harness left out
(every harness leaves category 5 out) has no row, so it is "not evaluated", and the run's
overall is over its own questions, as each harness reports it. The category is the
dataset's number; a harness's own label that differs is kept in the row's ``extra``.

**Scores.** ``judge`` is the harness's judge (mem0 ``llm_score``, Zep ``grade``, memU
``is_correct``, EverMemOS / MemOS the mean of ``llm_judgments``); ``f1`` is LoCoMo's own F1
recomputed from the answer text (``f1``), the same yardstick for every harness; the
harness's own F1 and BLEU stay as ``extra.harness_f1`` and the ``bleu_1`` column
(``table --metric harness_f1`` / ``harness_bleu``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.adapters.locomo.dataset import BENCHMARK, MODE, LocomoDataset, normalised
from memscope.adapters.locomo.f1 import locomo_f1
from memscope.adapters.locomo.harness import (
    FAMILY_TITLES,
    ZEP_RESPONSES,
    HarnessFile,
    HarnessItem,
    read_harness_file,
)
from memscope.plugin import (
    CHECK_KEY,
    RATE_TOLERANCE,
    Comparison,
    DatasetError,
    JSONObject,
    JSONValue,
    Notice,
    RunRecord,
    check_notices,
    file_digest,
    summary_check,
)

if TYPE_CHECKING:
    from memscope.plugin import RunColumns

MISMATCH_REFUSE_SHARE = 0.5
MAX_EXAMPLES = 3
SYSTEM_SUFFIX = re.compile(r"(_eval.*|_results.*|_locomo_judged|_locomo_grades)$")
RUN_NUMBER = re.compile(r"run[_-]?(\d+)$", re.IGNORECASE)
DEFAULT_SYSTEM = {"mirix": "mirix", "zep": "zep", "memu": "memu", "evermemos": "evermemos"}


def join_items(
    found: HarnessFile, dataset: LocomoDataset
) -> tuple[list[tuple[HarnessItem, str]], list[str], int]:
    """``(item, qid)`` of every item that joined, ``"where: why"`` of each that did not, and
    how many joined items have another question text than the dataset's."""
    used: set[str] = set()
    joined: list[tuple[HarnessItem, str]] = []
    failed: list[str] = []
    edited = 0
    everywhere: dict[str, list[str]] = defaultdict(list)
    if found.join == "text":
        for conversation in dataset.samples:
            for (sample, text), qids in dataset.by_text.items():
                if sample == conversation:
                    everywhere[text].extend(qids)
    for item in found.items:
        text = normalised(item.question)
        sample_id: str | None = _sample(dataset, item.group)
        if found.join != "text" and sample_id is None:
            failed.append(f"{item.where}: conversation index {item.group} is not in the dataset")
            continue
        qid: str | None = None
        if found.join in ("position", "question_id"):
            assert sample_id is not None and item.position is not None
            question = dataset.question_at(sample_id, item.position + 1)
            if question is None:
                failed.append(
                    f"{item.where}: {sample_id} has no question at position {item.position}"
                )
                continue
            qid = question.qid
            if normalised(question.question) != text:
                edited += 1
        else:
            candidates = (
                everywhere.get(text, [])
                if found.join == "text"
                else dataset.by_text.get((str(sample_id), text), [])
            )
            free = [c for c in candidates if c not in used]
            same_gold = [c for c in free if _same(dataset.questions[c].gold, item.gold)]
            qid = (same_gold or free)[0] if (same_gold or free) else None
            if qid is None:
                why = "asked more often than in" if candidates else "not a question of"
                place = "the dataset" if found.join == "text" else sample_id
                failed.append(f"{item.where}: {item.question[:60]!r} is {why} {place}")
                continue
        if qid in used:
            failed.append(f"{item.where}: {qid} is answered twice; the first is kept")
            continue
        used.add(qid)
        joined.append((item, qid))
    return joined, failed, edited


def _sample(dataset: LocomoDataset, group: int | None) -> str | None:
    if group is None or not 0 <= group < len(dataset.samples):
        return None
    return dataset.samples[group]


def _same(gold: JSONValue, other: JSONValue) -> bool:
    return normalised(str(gold)).lower() == normalised(str(other)).lower()


def _category(item: HarnessItem) -> int | None:
    value = item.category
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def latencies(responses: HarnessFile, dataset: LocomoDataset) -> dict[str, float]:
    """qid -> ``duration_ms`` of Zep's responses file, joined as its grades are."""
    joined, _failed, _edited = join_items(responses, dataset)
    return {qid: item.latency_ms for item, qid in joined if item.latency_ms is not None}


def system_and_repeat(path: Path, family: str, answer_model: str | None) -> tuple[str, int | None]:
    """The system a file evaluates and, for one of several run files, its run number.

    mem0's harness names its files ``<method>_results.json`` / ``<method>_eval_*.json``
    (``memobase_eval_0503_3000`` -> ``memobase``); EverMemOS's folder is
    ``<answer model>-<system>``; the other families evaluate their own system.
    """
    stem = path.stem
    repeat_match = RUN_NUMBER.search(stem)
    repeat = int(repeat_match[1]) if repeat_match else None
    if family == "mem0":
        return SYSTEM_SUFFIX.sub("", stem) or stem, repeat
    if family in ("evermemos", "memos"):
        folder = path.parent.name
        if answer_model and folder.startswith(answer_model + "-"):
            folder = folder[len(answer_model) + 1 :]
        if family == "memos" and stem.endswith("_locomo_judged"):
            folder = stem.removesuffix("_locomo_judged")
        return folder or family, repeat
    return DEFAULT_SYSTEM.get(family, family), repeat


def read_harness_run(
    path: Path,
    family: str,
    dataset: LocomoDataset,
    dataset_path: Path,
    responses: Path | None = None,
) -> RunRecord:
    """One harness file as a LoCoMo run (see the module docstring).

    Raises:
        RunDirError: the file is not of its family after all, or holds no judged answer.
        DatasetError: fewer than half of its items join the dataset.
    """
    from memscope.adapters.locomo.run import mismatch_error
    from memscope.plugin import typed_table

    found = read_harness_file(path, family)
    notices: list[Notice] = []
    joined, failed, edited = join_items(found, dataset)
    total = len(found.items) + len(found.problems)
    if total and len(joined) / total < MISMATCH_REFUSE_SHARE:
        error = mismatch_error(dataset, dataset_path, len(joined), total)
        listed = "; ".join((failed + found.problems)[:MAX_EXAMPLES])
        raise DatasetError(
            f"{found.title} file: {error.message} (e.g. {listed})",
            where=str(path),
            fix=error.fix,
        )
    notices.append(
        Notice(
            f"{found.title}: {len(joined)} of {total} item(s) joined locomo10.json "
            f"({_join_words(found.join)})",
            str(path),
        )
    )
    if failed or found.problems:
        notices.append(
            Notice(
                f"{len(failed) + len(found.problems)} item(s) of the {found.title} file did not "
                "join the dataset; left out",
                str(path),
                tuple((found.problems + failed)[:MAX_EXAMPLES]),
            )
        )
    if edited:
        notices.append(
            Notice(
                f"{edited} joined item(s) have another question text than the dataset's (the "
                "harness edited it, e.g. renamed a person); joined by position",
                str(path),
            )
        )
    latency: dict[str, float] = {}
    side: list[Path] = []
    if responses is not None:
        latency = latencies(read_harness_file(responses, ZEP_RESPONSES), dataset)
        side.append(responses)
    predictions, relabelled = _predictions(joined, dataset, latency)
    if relabelled:
        notices.append(
            Notice(
                f"{len(relabelled)} item(s) carry another category than the dataset's; the "
                "dataset's number decides (the file's is kept as category_as_written)",
                str(path),
                tuple(relabelled[:MAX_EXAMPLES]),
            )
        )
    missing = sorted(
        {
            int(q.extra["category"])  # type: ignore[arg-type]
            for q in dataset.record.questions
        }
        - {int(dataset.questions[qid].extra["category"]) for _item, qid in joined}  # type: ignore[arg-type]
    )
    if missing:
        notices.append(
            Notice(
                f"the harness did not evaluate categor{'y' if len(missing) == 1 else 'ies'} "
                f"{', '.join(map(str, missing))}: not evaluated (not 0), and the run's overall "
                "is over the questions its file holds, as the harness reports it",
                str(path),
            )
        )
    system, repeat = system_and_repeat(path, family, found.answer_model)
    metrics: JSONObject = {}
    check = harness_check(found, joined, dataset)
    if check is not None:
        metrics[CHECK_KEY] = check
        notices += check_notices(check)
    digest, file_stats = file_digest([path, *side, dataset_path])
    config: JSONObject = {
        "harness": family,
        "harness_title": found.title,
        "results_file": path.name,
        "dataset_file": str(dataset_path),
        "system": system,
        "join": found.join,
        "joined": len(joined),
        "not_joined": len(failed) + len(found.problems),
        "not_evaluated_categories": list[JSONValue](missing),
    }
    if repeat is not None:
        config["repeat"] = repeat
    if found.answer_model:
        config["answer_model"] = found.answer_model
    if found.judge_model:
        config["judge_model"] = found.judge_model
    if responses is not None:
        config["responses_file"] = responses.name
    judge_runs = max((len(item.judgments) for item, _qid in joined), default=0)
    if judge_runs:
        config["judge_runs"] = judge_runs
    meta = found.raw.get("metadata")
    if isinstance(meta, dict):
        for name in ("total_prompt_tokens", "total_completion_tokens", "mean_prompt_tokens"):
            if isinstance(meta.get(name), (int, float)):
                config[name] = meta[name]
    folder = path.parent.name
    return RunRecord(
        run_id=f"{folder}:{path.stem}",
        path=f"{path.parent}#{path.name}",
        content_hash=hashlib.sha256(f"{digest}\0{family}".encode()).hexdigest(),
        file_stats=file_stats,
        benchmark=BENCHMARK,
        task=dataset.record.task,
        model=found.answer_model,
        method=system,
        base_method=system,
        modality="text_only",
        mode=MODE,
        top_k=None,
        retrieval_kind="none",
        config=config,
        metrics=metrics,
        dataset=dataset.record,
        predictions=typed_table(predictions),
        notices=notices,
    )


def _join_words(join: str) -> str:
    return {
        "group_text": "by conversation index and question text",
        "text": "by question text over all conversations",
        "position": "by conversation and position",
        "question_id": "by question_id (conversation and position)",
    }[join]


def _predictions(
    joined: list[tuple[HarnessItem, str]], dataset: LocomoDataset, latency: dict[str, float]
) -> tuple[dict[str, list[object]], list[str]]:
    columns: dict[str, list[object]] = {
        name: []
        for name in (
            "qid",
            "line_no",
            "mode",
            "question",
            "gold",
            "pred",
            "f1",
            "judge",
            "bleu_1",
            "latency_ms",
            "total_tokens",
            "judge_reasoning",
            "extra",
        )
    }
    relabelled: list[str] = []
    for line_no, (item, qid) in enumerate(joined, start=1):
        question = dataset.questions[qid]
        category = int(question.extra["category"])  # type: ignore[arg-type]
        extra: JSONObject = {"where": item.where}
        written = _category(item)
        if written != category:
            extra["category_as_written"] = item.category
            relabelled.append(f"{qid} ({item.category!r})")
        if item.harness_f1 is not None:
            extra["harness_f1"] = item.harness_f1
        if item.harness_bleu is not None:
            extra["harness_bleu"] = item.harness_bleu
        if item.judgments:
            extra["judgments"] = list[JSONValue](item.judgments)
            extra["majority"] = float(sum(item.judgments) * 2 > len(item.judgments))
            # Each judge run on its own, for ``table --metric judge_run_N`` (spec metrics
            # name plain keys, so the list is kept flat as well).
            for number, judgment in enumerate(item.judgments, start=1):
                extra[f"judge_run_{number}"] = judgment
        if normalised(item.question) != normalised(question.question):
            extra["question_as_written"] = item.question
        if not _same(item.gold, question.gold):
            extra["gold_as_written"] = item.gold
        ms = latency.get(qid, item.latency_ms)
        columns["qid"].append(qid)
        columns["line_no"].append(line_no)
        columns["mode"].append(MODE)
        columns["question"].append(question.question)
        columns["gold"].append(question.gold)
        columns["pred"].append(item.answer)
        # LoCoMo's F1 against the dataset's gold, whatever gold the harness wrote.
        columns["f1"].append(locomo_f1(item.answer or "", question.gold, category))
        columns["judge"].append(item.judge)
        columns["bleu_1"].append(item.harness_bleu)
        columns["latency_ms"].append(None if ms is None else round(ms))
        columns["total_tokens"].append(item.tokens)
        columns["judge_reasoning"].append(item.reasoning)
        columns["extra"].append(json.dumps(extra, ensure_ascii=False))
    return columns, relabelled


def harness_check(
    found: HarnessFile, joined: list[tuple[HarnessItem, str]], dataset: LocomoDataset
) -> JSONObject | None:
    """The file's own summary (MIRIX, memU, EverMemOS) against the joined rows' values, by
    the dataset's category numbers; None for a file without one (mem0, Zep, MemOS)."""
    by_category: dict[str, list[HarnessItem]] = defaultdict(list)
    for item, qid in joined:
        by_category[str(dataset.questions[qid].extra["category"])].append(item)
    items = [item for item, _qid in joined]
    comparisons = harness_comparisons(found, by_category, items)
    if comparisons is None:
        return None
    surprises: list[str] = []
    if found.family == "memu":
        summary = found.raw.get("summary")
        total = summary.get("total_questions") if isinstance(summary, dict) else None
        if isinstance(total, int) and total != len(found.items):
            surprises.append(
                f"memU's summary says total_questions {total} but scores {len(found.items)} "
                "(the category-5 questions it skips are counted there): not compared"
            )
    return summary_check(str(found.path), comparisons, surprises=surprises)


def harness_comparisons(
    found: HarnessFile,
    by_category: dict[str, list[HarnessItem]],
    items: list[HarnessItem],
    *,
    stored: bool = False,
) -> list[Comparison] | None:
    """``(field, the file's value, recomputed, tolerance)`` for every value of the file's own
    summary (None: the family writes none). ``stored``: the items come from the store,
    which keeps the judge and BLEU per question but not the harness's F1 or each judge
    run's verdict, so those fields are left out."""
    comparisons: list[Comparison] = []
    raw = found.raw

    def mean(values: list[float | None]) -> float | None:
        defined = [v for v in values if v is not None]
        return sum(defined) / len(defined) if defined else None

    if found.family == "mirix":
        fields = (("llm", "judge"), ("f1", "harness_f1"), ("bleu", "harness_bleu"))
        summary = raw.get("summary_by_category")
        for category, values in (summary if isinstance(summary, dict) else {}).items():
            group = by_category.get(str(category), [])
            if not isinstance(values, dict):
                continue
            comparisons.append(
                (f"{category}.num_questions", values.get("num_questions"), len(group), 0)
            )
            for short, attribute in fields:
                comparisons.append(
                    (
                        f"{category}.avg_{short}_score",
                        values.get(f"avg_{short}_score"),
                        mean([getattr(i, attribute) for i in group]),
                        RATE_TOLERANCE,
                    )
                )
        overall = raw.get("overall_summary")
        if isinstance(overall, dict):
            comparisons.append(
                ("overall.total_questions", overall.get("total_questions"), len(items), 0)
            )
            for short, attribute in fields:
                comparisons.append(
                    (
                        f"overall.overall_avg_{short}_score",
                        overall.get(f"overall_avg_{short}_score"),
                        mean([getattr(i, attribute) for i in items]),
                        RATE_TOLERANCE,
                    )
                )
    elif found.family == "memu":
        summary = raw.get("summary")
        summary = summary if isinstance(summary, dict) else {}
        stats = summary.get("category_stats")
        for category, values in (stats if isinstance(stats, dict) else {}).items():
            group = by_category.get(str(category), [])
            if isinstance(values, dict):
                comparisons.append(
                    (f"category_stats.{category}.total", values.get("total"), len(group), 0)
                )
                correct = sum(1 for i in group if i.judge == 1.0)
                comparisons.append(
                    (f"category_stats.{category}.correct", values.get("correct"), correct, 0)
                )
        accuracies = summary.get("category_accuracies")
        for category, value in (accuracies if isinstance(accuracies, dict) else {}).items():
            group = by_category.get(str(category), [])
            comparisons.append(
                (
                    f"category_accuracies.{category}",
                    value,
                    mean([i.judge for i in group]),
                    RATE_TOLERANCE,
                )
            )
        comparisons.append(
            (
                "total_correct",
                summary.get("total_correct"),
                sum(1 for i in items if i.judge == 1.0),
                0,
            )
        )
        comparisons.append(
            (
                "overall_accuracy",
                summary.get("overall_accuracy"),
                mean([i.judge for i in items]),
                RATE_TOLERANCE,
            )
        )
    elif found.family == "evermemos":
        meta = raw.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        comparisons.append(("total_questions", raw.get("total_questions"), len(items), 0))
        comparisons.append(
            ("accuracy", raw.get("accuracy"), mean([i.judge for i in items]), RATE_TOLERANCE)
        )
        runs = meta.get("run_scores")
        for number, value in enumerate(runs if isinstance(runs, list) else []):
            comparisons.append(
                (f"metadata.run_scores[{number}]", value, _run_mean(items, number), RATE_TOLERANCE)
            )
        majority = [
            float(sum(i.judgments) * 2 > len(i.judgments)) if i.judgments else None for i in items
        ]
        if "majority_vote_accuracy" in meta:
            comparisons.append(
                (
                    "metadata.majority_vote_accuracy",
                    meta.get("majority_vote_accuracy"),
                    mean(majority),
                    RATE_TOLERANCE,
                )
            )
        categories = meta.get("category_accuracies")
        for category, values in (categories if isinstance(categories, dict) else {}).items():
            group = by_category.get(str(category), [])
            if not isinstance(values, dict):
                continue
            comparisons.append(
                (f"category_accuracies.{category}.total", values.get("total"), len(group), 0)
            )
            comparisons.append(
                (
                    f"category_accuracies.{category}.mean",
                    values.get("mean"),
                    mean([i.judge for i in group]),
                    RATE_TOLERANCE,
                )
            )
            runs = values.get("individual_runs")
            for number, value in enumerate(runs if isinstance(runs, list) else []):
                comparisons.append(
                    (
                        f"category_accuracies.{category}.individual_runs[{number}]",
                        value,
                        _run_mean(group, number),
                        RATE_TOLERANCE,
                    )
                )
    else:
        return None
    if stored:
        unstored = ("f1_score", "run_scores", "individual_runs", "majority_vote")
        comparisons = [c for c in comparisons if not any(u in c[0] for u in unstored)]
    return comparisons


def table_check(data: RunColumns) -> list[JSONObject]:
    """``memscope table --check-upstream`` of a harness run: the stored rows against the
    file's own summary (``[]`` for a family that writes none, or a file now gone)."""
    import math

    from memscope.adapters.locomo.harness import sniff_family
    from memscope.plugin import MemscopeError

    folder, _, name = str(data.run.get("path") or "").partition("#")
    path = Path(folder) / name
    family = sniff_family(path) if folder and name and ":" not in name else None
    if family is None or family not in ("mirix", "memu", "evermemos"):
        return []
    try:
        found = read_harness_file(path, family)
    except MemscopeError:
        return []
    by_category: dict[str, list[HarnessItem]] = defaultdict(list)
    items: list[HarnessItem] = []
    judges, bleus = data.column("judge").tolist(), data.column("bleu_1").astype(float).tolist()
    for category, judge, bleu in zip(
        data.attribute("category").tolist(), judges, bleus, strict=True
    ):
        item = HarnessItem(
            where="",
            question="",
            gold=None,
            answer=None,
            category=category,
            judge=None if judge is None or math.isnan(judge) else float(judge),
            harness_bleu=None if bleu is None or math.isnan(bleu) else float(bleu),
        )
        items.append(item)
        by_category[str(category)].append(item)
    comparisons = harness_comparisons(found, by_category, items, stored=True) or []
    run_id = str(data.run["run_id"])
    return [
        {
            "source": str(path),
            "run": run_id,
            "field": field,
            "upstream": upstream,
            "memscope": mine,
            "agrees": summary_check("", [(field, upstream, mine, tolerance)])["agrees"] is True,
        }
        for field, upstream, mine, tolerance in comparisons
    ]


def _run_mean(items: list[HarnessItem], number: int) -> float | None:
    values = [i.judgments[number] for i in items if len(i.judgments) > number]
    return sum(values) / len(values) if values else None


def family_title(family: str) -> str:
    """How a family is named in runs, reports and captions."""
    return FAMILY_TITLES.get(family, family)
