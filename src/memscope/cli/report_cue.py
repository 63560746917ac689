"""Renders the CUE-Mem part of ``memscope report``: accuracy per task x explicit/implicit,
Memory Avg., EI-Gap and evidence Recall@k / Precision@k.

Not a command module: ``cli/report.py`` calls :func:`render_cue_report` for a CUE-Mem run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from memscope.cli.common import fmt
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.textsafe import printable

if TYPE_CHECKING:
    from memscope.usecases.report.result import Report
    from memscope.usecases.report.sections import CueEvidence, CueSection, EvidenceSummary

TASK_NAMES = {
    "entity_recall": "Entity Recall",
    "long_pattern": "Long Pattern",
    "personalized_recommendation": "Personalized Rec.",
    "answer_refusal": "Answer Refusal",
}


def _accuracy(value: float | int | None, n: float | int | None) -> str:
    return "–" if value is None else f"{fmt(value)} (n={n})"


def _gap(explicit: float | None, implicit: float | None) -> str:
    return "–" if explicit is None or implicit is None else f"{explicit - implicit:+.3f}"


def _task_table(cue: CueSection) -> RenderableType:
    table = FittingTable(
        [
            Column("task", justify="left", fold=True, min_width=14, keep=True),
            Column("explicit"),
            Column("implicit"),
            Column("EI-Gap"),
        ],
        title="Accuracy per task and evidence setting",
        title_justify="left",
    )
    for key in ("entity_recall", "long_pattern", "personalized_recommendation"):
        entry = cue["by_task"][key]
        table.add_row(
            TASK_NAMES[key],
            _accuracy(entry["explicit"], entry["n_explicit"]),
            _accuracy(entry["implicit"], entry["n_implicit"]),
            _gap(entry["explicit"], entry["implicit"]),
        )
    average = cue["memory_avg"]
    table.add_row(
        "Memory Avg.",
        fmt(average["explicit"]),
        fmt(average["implicit"]),
        "–" if cue["ei_gap"] is None else f"{cue['ei_gap']:+.3f}",
        style="bold",
    )
    refusal = cue["by_task"]["answer_refusal"]
    table.add_row(
        "Answer Refusal (apart)",
        _accuracy(refusal["explicit"], refusal["n_explicit"]),
        _accuracy(refusal["implicit"], refusal["n_implicit"]),
        _gap(refusal["explicit"], refusal["implicit"]),
        style="dim",
    )
    return fit(table)


def _evidence_table(evidence: CueEvidence) -> RenderableType:
    settings: list[tuple[str, EvidenceSummary]] = [
        ("all", evidence),
        *evidence["by_explicitness"].items(),
    ]
    counts = ", ".join(f"{name} {entry['n']}" for name, entry in settings)
    short = {"all": "all", "explicit": "expl", "implicit": "impl"}
    table = FittingTable(
        [
            Column("k", style="bold", keep=True),
            *(Column(f"R@k {short.get(name, name)}") for name, _entry in settings),
            *(Column(f"P@k {short.get(name, name)}") for name, _entry in settings),
        ],
        title=f"Evidence retrieval vs gold clue turns (refusal_text excluded; n: {counts})",
        title_justify="left",
    )
    for k in evidence["recall"]:
        table.add_row(
            k,
            *(fmt(entry["recall"][k]) for _n, entry in settings),
            *(fmt(entry["precision"][k]) for _n, entry in settings),
        )
    return fit(table)


def render_cue_report(report: Report, cue: CueSection, header: Text) -> Group:
    """The CUE-Mem report (header, accuracy table, evidence table, notes) as Rich renderables;
    ``cue`` is the report's ``settings`` section."""
    overall = report.answer.overall
    parts: list[RenderableType] = [
        header,
        Text(""),
        Text(f"overall accuracy: {fmt(overall['em'])} (n={overall['n']})"),
        Text(""),
    ]
    parts.append(_task_table(cue))
    if cue["n_unknown_setting"]:
        parts.append(
            Text(
                f"{cue['n_unknown_setting']} QA(s) have no explicit/implicit label and count in neither column.",
                style="dim",
            )
        )
    parts.append(Text(""))
    evidence = cue["evidence"]
    if evidence["n"]:
        parts.append(_evidence_table(evidence))
        if evidence["saved_depth"] and evidence["saved_depth"] < max(
            int(k) for k in evidence["recall"]
        ):
            parts.append(
                Text(
                    f"The run saved at most {evidence['saved_depth']} ranked turns per question; deeper "
                    "cut-offs count the rest as misses.",
                    style="dim",
                )
            )
    else:
        parts.append(
            Text(
                "Evidence metrics: this run logged no ranked retrieval with gold clue turns.",
                style="dim",
            )
        )
    unresolved = cue["unresolved_clues"]
    if unresolved["n"]:
        examples = ", ".join(
            printable(example, keep_newlines=False) for example in unresolved["examples"]
        )
        parts.append(
            Text(
                f"{unresolved['n']} clue id(s) resolve to no turn and are ignored (e.g. {examples}).",
                style="yellow",
            )
        )
    for note in report.notes:
        parts.append(Text(f"Retrieval: {note}.", style="yellow"))
    return Group(*parts)
