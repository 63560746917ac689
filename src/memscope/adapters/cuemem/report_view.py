"""What ``memscope report`` prints for a CUE-Mem run: overall accuracy, the accuracy per task
and evidence setting (with Memory Avg. and EI-Gap), the evidence retrieval table and notes.

The ``view`` hook of CUE-Mem's report section (``adapters.sections``): it reads the report's
JSON (the section under ``cue``) and returns text and table blocks that memscope lays out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memscope.plugin import Block, TableBlock, TableColumn, TableRow, TextBlock

TASK_NAMES = {
    "entity_recall": "Entity Recall",
    "long_pattern": "Long Pattern",
    "personalized_recommendation": "Personalized Rec.",
    "answer_refusal": "Answer Refusal",
}


def fmt(value: float | None, digits: int = 3) -> str:
    """A metric for a table: fixed digits, an en dash when undefined."""
    return "–" if value is None else f"{value:.{digits}f}"


def _accuracy(value: float | int | None, n: float | int | None) -> str:
    return "–" if value is None else f"{fmt(value)} (n={n})"


def _gap(explicit: float | None, implicit: float | None) -> str:
    return "–" if explicit is None or implicit is None else f"{explicit - implicit:+.3f}"


def _task_table(cue: Mapping[str, Any]) -> TableBlock:
    rows = []
    for key in ("entity_recall", "long_pattern", "personalized_recommendation"):
        entry = cue["by_task"][key]
        rows.append(
            TableRow(
                (
                    TASK_NAMES[key],
                    _accuracy(entry["explicit"], entry["n_explicit"]),
                    _accuracy(entry["implicit"], entry["n_implicit"]),
                    _gap(entry["explicit"], entry["implicit"]),
                )
            )
        )
    average = cue["memory_avg"]
    rows.append(
        TableRow(
            (
                "Memory Avg.",
                fmt(average["explicit"]),
                fmt(average["implicit"]),
                "–" if cue["ei_gap"] is None else f"{cue['ei_gap']:+.3f}",
            ),
            style="bold",
        )
    )
    refusal = cue["by_task"]["answer_refusal"]
    rows.append(
        TableRow(
            (
                "Answer Refusal (apart)",
                _accuracy(refusal["explicit"], refusal["n_explicit"]),
                _accuracy(refusal["implicit"], refusal["n_implicit"]),
                _gap(refusal["explicit"], refusal["implicit"]),
            ),
            style="dim",
        )
    )
    return TableBlock(
        "Accuracy per task and evidence setting",
        (
            TableColumn("task", justify="left", fold=True, min_width=14, keep=True),
            TableColumn("explicit"),
            TableColumn("implicit"),
            TableColumn("EI-Gap"),
        ),
        tuple(rows),
    )


def _evidence_table(evidence: Mapping[str, Any]) -> TableBlock:
    settings: list[tuple[str, Mapping[str, Any]]] = [
        ("all", evidence),
        *evidence["by_explicitness"].items(),
    ]
    counts = ", ".join(f"{name} {entry['n']}" for name, entry in settings)
    short = {"all": "all", "explicit": "expl", "implicit": "impl"}
    return TableBlock(
        f"Evidence retrieval vs gold clue turns (refusal_text excluded; n: {counts})",
        (
            TableColumn("k", style="bold", keep=True),
            *(TableColumn(f"R@k {short.get(name, name)}") for name, _entry in settings),
            *(TableColumn(f"P@k {short.get(name, name)}") for name, _entry in settings),
        ),
        tuple(
            TableRow(
                (
                    k,
                    *(fmt(entry["recall"][k]) for _n, entry in settings),
                    *(fmt(entry["precision"][k]) for _n, entry in settings),
                )
            )
            for k in evidence["recall"]
        ),
    )


def cue_view(report: Mapping[str, Any]) -> list[Block]:
    """The CUE-Mem report below its header: accuracy table, evidence table, notes."""
    cue = report["cue"]
    overall = report["answer"]["overall"]
    parts: list[Block] = [
        TextBlock(f"overall accuracy: {fmt(overall['em'])} (n={overall['n']})"),
        TextBlock(""),
        _task_table(cue),
    ]
    if cue["n_unknown_setting"]:
        parts.append(
            TextBlock(
                f"{cue['n_unknown_setting']} QA(s) have no explicit/implicit label and count in neither column.",
                style="dim",
            )
        )
    parts.append(TextBlock(""))
    evidence = cue["evidence"]
    if evidence["n"]:
        parts.append(_evidence_table(evidence))
        if evidence["saved_depth"] and evidence["saved_depth"] < max(
            int(k) for k in evidence["recall"]
        ):
            parts.append(
                TextBlock(
                    f"The run saved at most {evidence['saved_depth']} ranked turns per question; deeper "
                    "cut-offs count the rest as misses.",
                    style="dim",
                )
            )
    else:
        parts.append(
            TextBlock(
                "Evidence metrics: this run logged no ranked retrieval with gold clue turns.",
                style="dim",
            )
        )
    unresolved = cue["unresolved_clues"]
    if unresolved["n"]:
        examples = ", ".join(unresolved["examples"])
        parts.append(
            TextBlock(
                f"{unresolved['n']} clue id(s) resolve to no turn and are ignored (e.g. {examples}).",
                style="yellow",
            )
        )
    for note in report["notes"]:
        parts.append(TextBlock(f"Retrieval: {note}.", style="yellow"))
    return parts
