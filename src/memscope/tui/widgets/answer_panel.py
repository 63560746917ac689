"""The question and the answers: gold vs the model, judge score and reasoning, the
answer's latency and tokens where the run records them, MCQ
rotations with the option each one picked and the position bias, and in comparison mode
the other run's answer."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from memscope.triage.evidence_chain import QuestionDetail
from memscope.triage.question_view import OtherAnswer
from memscope.tui.text import mark, name, num, plain
from memscope.tui.widgets.text_view import TextView

__all__ = ["AnswerPanel", "OtherAnswer", "answer_text"]


def _scores(em: float | None, f1: float | None, judge: float | None) -> str:
    """The grader's scores of an answer: EM, or token F1 where the run has F1 and no EM
    (a benchmark graded by token F1), and the judge's where the run has one."""
    parts = [f"EM {num(em)}" if em is not None or f1 is None else f"F1 {num(f1)}"]
    if judge is not None:
        parts.append(f"judge {num(judge)}")
    return " · ".join(parts)


def _cost(latency_ms: float | None, tokens: float | None) -> str:
    """What answering cost where the run's files record it ("" where they record neither,
    so a run without them shows no cost line at all)."""
    parts = []
    if latency_ms is not None:
        parts.append(f"{latency_ms:,.0f} ms")
    if tokens is not None:
        parts.append(f"{tokens:,.0f} tokens")
    return " · ".join(parts)


def answer_text(
    detail: QuestionDetail, other: OtherAnswer | None = None, other_run: str | None = None
) -> Text:
    """Everything about the answers as one block of literal text."""
    text = Text()
    text.append_text(plain(detail.question, "bold"))
    text.append("\n")
    text.append("gold   ", "bold green")
    text.append_text(plain(detail.gold))
    text.append("\n")
    text.append("model  ", "bold")
    text.append_text(mark(detail.correct))
    text.append(" ")
    text.append_text(
        plain(
            detail.choice + " · " + detail.pred
            if detail.mode == "mcq" and detail.choice and detail.choice != detail.pred
            else detail.pred
        )
    )
    text.append(f"   {_scores(detail.em, detail.f1, detail.judge)}", "dim")
    cost = _cost(detail.latency_ms, detail.tokens)
    if cost:
        text.append("\ncost   ", "bold")
        text.append(cost, "dim")
    if detail.judge_reasoning:
        text.append("\njudge  ", "bold")
        text.append_text(plain(detail.judge_reasoning, "italic"))
    if detail.mode == "mcq":
        text.append_text(_mcq(detail))
    if other is not None:
        text.append("\n")
        text.append_text(name(other.run_id, "bold magenta"))
        text.append(": ", "bold magenta")
        text.append_text(mark(other.correct))
        text.append(" ")
        text.append_text(plain(other.pred))
        text.append(f"   {_scores(other.em, other.f1, other.judge)}", "dim")
    elif other_run:
        text.append("\n")
        text.append_text(
            plain(f"{other_run}: this question is not in the compared run", "dim", one_line=True)
        )
    return text


def _mcq(detail: QuestionDetail) -> Text:
    text = Text()
    if detail.options:
        text.append("\noptions", "bold")
        for letter, option in detail.options:
            text.append("\n  ")
            text.append_text(plain(f"{letter}. ", "bold", one_line=True))
            text.append_text(plain(option, "green" if option == detail.gold else "", one_line=True))
    if detail.rotations:
        text.append("\nrotations", "bold")
        for rotation in detail.rotations:
            ok = rotation.em is not None and rotation.em >= 1.0
            text.append(f"\n  {rotation.index}: gold ")
            text.append_text(plain(rotation.correct_position, "bold", one_line=True))
            text.append(" · chose ")
            text.append_text(
                plain(rotation.choice or "–", "bold green" if ok else "bold red", one_line=True)
            )
            if rotation.chosen_text:
                text.append(" ")
                text.append_text(plain(f"“{rotation.chosen_text}”", "dim", one_line=True))
    if detail.position_bias:
        counts = "  ".join(f"{letter}×{count}" for letter, count in detail.position_bias)
        text.append("\nposition bias ", "bold")
        text.append_text(plain(counts, one_line=True))
        if len(detail.position_bias) == 1 and len(detail.rotations) > 1:
            text.append("  (always the same letter)", "yellow")
    return text


class AnswerPanel(Vertical):
    """A scrollable :func:`answer_text`: one line-API view, redrawn in place on every
    question (its size never depends on the text, so nothing around it moves)."""

    def compose(self) -> ComposeResult:
        yield TextView(id="answer-text")

    def show(
        self, detail: QuestionDetail, other: OtherAnswer | None = None, other_run: str | None = None
    ) -> None:
        """Display ``detail`` (and the compared run's answer), scrolled to the top."""
        self.query_one("#answer-text", TextView).show(answer_text(detail, other, other_run))
