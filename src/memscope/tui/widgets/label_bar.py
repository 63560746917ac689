"""The label bar: the suggestion with its rule, the failure codes with their keys, and the
question's label as the store has it (saved, saving or disabled, never guessed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from memscope.triage.session.records import LabelBarView
from memscope.tui.keymap import describe_keys
from memscope.tui.text import name, plain

if TYPE_CHECKING:
    from memscope.taxonomy import FailureCode, Taxonomy
    from memscope.usecases.labels.events import CurrentLabel
    from memscope.usecases.suggest.rules import Suggestion


def suggestion_text(
    suggestion: Suggestion | None,
    accept_keys: str,
    taxonomy: Taxonomy | None,
    failing: bool | None = None,
) -> Text:
    """``suggested CODE (name) — explanation · enter accept``; without a suggestion, why
    (``failing``: whether the answer is graded wrong, None when not known)."""
    if suggestion is None:
        why = (
            "no rule of the taxonomy fits this failure: label it with the codes below"
            if failing
            else "it is answered correctly: suggestions are for failures"
            if failing is False
            else "it is answered correctly, or no rule applies"
        )
        return Text(f"no suggestion for this question ({why})", style="dim")
    code = suggestion.code
    found = taxonomy.get(code) if taxonomy is not None else None
    text = Text("suggested ", style="bold")
    text.append_text(plain(code, "bold yellow", one_line=True))
    if found is not None:
        text.append_text(plain(f" ({found.name})", "yellow", one_line=True))
    text.append(f"  {describe_keys(accept_keys)} accept", "bold cyan")
    explanation = suggestion.explanation or suggestion.rule
    if explanation:
        text.append(" — ")
        text.append_text(plain(explanation, one_line=True))
    twin = suggestion.twin_run_id
    if twin:
        text.append(" (twin run ", "dim")
        text.append_text(name(twin, "dim"))
        text.append(")", "dim")
    also = [item.code for item in suggestion.alternatives]
    if also:
        text.append_text(plain(f" · also fits: {', '.join(also)}", "dim", one_line=True))
    return text


def codes_text(
    codes: Sequence[FailureCode],
    keys: Mapping[str, str],
    current: set[str],
    primary: str | None,
    pending: set[str] | None = None,
) -> Text:
    """Each code with its key; codes in the current label are highlighted (* primary)."""
    text = Text()
    for code in codes:
        name = str(code.code)
        key = keys.get(name)
        if not key and name not in current:
            continue
        chosen = name in current
        style = "bold black on cyan" if chosen else ""
        if pending and name in pending:
            style = "bold black on yellow"
        text.append(f"{describe_keys(key)} " if key else "", "bold")
        text.append_text(plain(f"{name}{'*' if name == primary else ''}", style, one_line=True))
        text.append("  ")
    return text


VERDICT_STYLES = {"correct": "bold green", "wrong": "bold red", "unsure": "bold yellow"}
"""How the person's verdict on the answer is drawn."""


def verdict_text(verdict: str | None, pending: str | None) -> Text:
    """`` · verdict wrong``: the verdict asked for while it is saved (``pending``, ``none``
    for a removal; highlighted), else the one saved; empty when there is neither."""
    if pending is None and verdict is None:
        return Text()
    text = Text(" · verdict ", style="bold")
    if pending is not None:
        text.append(pending, "bold black on yellow")
    else:
        text.append(str(verdict), VERDICT_STYLES.get(str(verdict), "bold"))
    return text


def label_status(
    label: CurrentLabel | None,
    state: str,
    read_only_reason: str | None,
    verdict: str | None = None,
    pending_verdict: str | None = None,
) -> Text:
    """What the store holds for this question (its label, and the person's verdict on the
    answer when there is one) and whether a change is in flight."""
    if read_only_reason:
        return Text.assemble(
            ("READ-ONLY ", "bold white on red"),
            plain(f" labelling disabled: {read_only_reason}", "red", one_line=True),
        )
    codes = list(label.codes) if label is not None else []
    text = Text("label ", style="bold")
    if codes:
        text.append_text(plain(" ".join(codes), "bold cyan", one_line=True))
    else:
        text.append("none", "dim")
    note = label.note if label is not None else None
    if note:
        text.append(" · note ", "bold")
        text.append_text(plain(note, "italic", one_line=True))
    text.append_text(verdict_text(verdict, pending_verdict))
    if state == "saving":
        text.append("  saving …", "bold yellow")
    elif state == "waiting":
        text.append("  pending: store busy, will retry", "bold black on yellow")
    elif state == "failed":
        text.append("  NOT SAVED", "bold white on red")
    elif (label is not None or verdict is not None) and state == "saved":
        who = label.annotator if label is not None else None
        text.append("  saved ✓", "bold green")
        if who:
            text.append_text(plain(f" by {who}", "dim", one_line=True))
    return text


class LabelBar(Static):
    """Three lines: suggestion, codes with keys, label status."""

    _height = -1
    """Lines the bar took at the last update (-1: not measured yet)."""

    def show(self, suggestion: Text, codes: Text, status: Text, *, compact: bool = False) -> None:
        """Replace the three lines (``compact``: the suggestion cut to one line)."""
        if compact and self.size.width > 4:
            suggestion.truncate(self.size.width - 2, overflow="ellipsis")
        text = Text("\n").join([suggestion, codes, status])
        # Relayout only when the bar grows or shrinks: most keys change what it says, not
        # how many lines that takes.
        width = self.content_region.width
        height = len(text.wrap(self.app.console, width)) if width > 0 else -1
        self.update(text, layout=height < 0 or height != self._height)
        self._height = height

    def show_view(
        self,
        view: LabelBarView,
        code_keys: Mapping[str, str],
        accept_keys: str,
        taxonomy: Taxonomy | None,
        *,
        compact: bool = False,
    ) -> None:
        """Draw the session's label bar record (``code_keys``: code -> its key as typed)."""
        suggestion = (
            suggestion_text(view.suggestion, accept_keys, taxonomy, view.failing)
            if view.suggestions_ready
            else Text("loading failure suggestions …", style="dim italic")
        )
        self.show(
            suggestion,
            codes_text(view.codes, code_keys, view.current, view.primary, view.pending),
            label_status(
                view.label, view.state, view.read_only_reason, view.verdict, view.pending_verdict
            ),
            compact=compact,
        )
