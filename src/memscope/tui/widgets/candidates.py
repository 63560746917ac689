"""The candidate table with the live recency re-ranking controls and metrics above it.

The header line shows the re-ranking parameters (alpha, lambda, K) and their keys; then
this question's Latest@K, Rank-Inversion and Stale-Dominance before → after and the
run-level temporal numbers computed in the background; on demand (``f``) the run's recency
sweep, the figure of ``memscope plot recency`` with the current alpha marked (computed in
a worker, once per run, lambda and K); then the table: the retrieved pool in the current
order with its scores, age, recency term, markers and channel scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from memscope.errors import MemscopeError
from memscope.triage.candidate_rows import Candidate
from memscope.triage.session import TriageSession
from memscope.triage.session.rerank import RerankKey, RunRerank
from memscope.triage.session.view_params import ViewParams
from memscope.tui.text import fit, num, plain
from memscope.tui.widgets.candidate_table import CandidateTable
from memscope.tui.widgets.figure import FigureView, sweep_spec
from memscope.usecases.benchmarks import spec_of
from memscope.usecases.figures import data as figure_data
from memscope.usecases.report.metric_names import SHORT_NAMES
from memscope.usecases.runs.declared import latest_label_of

QUESTION_METRICS = tuple(
    (key, SHORT_NAMES[key]) for key in ("latest_at_k", "rank_inversion", "stale_dominance")
)
RUN_METRICS = tuple(
    (key, SHORT_NAMES[key])
    for key in ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance")
)


NOTE_CHARS = 150
"""About two lines of the panel."""


def short_note(note: str) -> str:
    """The re-ranking note without advice in parentheses, cut to about two lines."""
    parts = [part.split(" (")[0].strip() for part in note.split(";") if part.strip()]
    text = "; ".join(parts)
    if len(text) <= NOTE_CHARS:
        return text
    # A hint (a `command` to run) is the useful part: drop the other remarks before it,
    # keeping the first, so the hint is never cut before its useful half.
    hints = [part for part in parts if "`" in part]
    others = [part for part in parts if "`" not in part]
    while len(others) > 1 and len("; ".join(others + hints)) > NOTE_CHARS:
        others.pop()
    text = "; ".join(others + hints)
    return text if len(text) <= NOTE_CHARS else fit(text, NOTE_CHARS)


def _change(before: float | None, after: float | None) -> Text:
    if before is None and after is None:
        return Text("–", style="dim")
    if before == after:
        return Text(num(after, 0 if after in (0.0, 1.0) else 2))
    return Text(f"{num(before, 0)}→{num(after, 0)}", style="bold yellow")


RERANK_AFTER_S = 0.15
"""Pause after an alpha / lambda / K key before the run-level numbers are recomputed."""

SweepKey = tuple[str, float, int]
"""What a sweep depends on: the run, lambda and K (not alpha: the sweep spans every alpha)."""


@dataclass
class RunRerankComputed(Message):
    """The run-level temporal numbers for one parameter set, cached by ``key`` (run, parameters)."""

    key: RerankKey
    rerank: RunRerank


@dataclass
class SweepComputed(Message):
    """The recency sweep for ``key`` is ready (``sweep``), or why not (``error``)."""

    key: SweepKey
    sweep: figure_data.RecencySweep | None
    error: str = ""


class CandidatesPanel(Vertical):
    latest_word = "latest-state"
    """What the run's benchmark calls its latest-state questions (MemEye's ``Y3``): the
    temporal lines name them so, never MemEye's label for another benchmark."""

    def use_words_of(self, session: TriageSession) -> None:
        """Take the temporal words from the benchmark of ``session``'s run."""
        run = session.run_info()
        self.latest_word = latest_label_of(run.benchmark if run is not None else None)

    """Re-ranking parameters, candidate table and before/after metrics."""

    DEFAULT_CSS = """
    CandidatesPanel > #rerank-sweep {
        height: 1fr;
        min-height: 14;
    }
    QuestionScreen.-narrow CandidatesPanel > #rerank-sweep {
        height: 16;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sweeps: dict[SweepKey, figure_data.RecencySweep] = {}
        """Computed sweeps (run-level: moving between questions never recomputes one)."""
        self._sweep_wanted: tuple[SweepKey, float] | None = None
        """The sweep and alpha to show now; ``_sweep_drawn``: the ones drawn."""
        self._sweep_drawn: tuple[SweepKey, float] | None = None
        self._sweeps_running: set[SweepKey] = set()
        self._rerank_session: TriageSession | None = None
        """The session whose run-level numbers this panel shows (set at the first request)."""
        self._rerank_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="panel-context", classes="rerank-metrics")
        yield Static(id="rerank-params", classes="rerank-params")
        yield Static(id="rerank-question", classes="rerank-metrics")
        yield Static(id="rerank-run", classes="rerank-metrics")
        sweep = FigureView(id="rerank-sweep")
        sweep.display = False
        yield sweep
        yield CandidateTable(id="candidate-table")

    # -- the recency sweep (on demand) -----------------------------------------------------

    @property
    def sweep_shown(self) -> bool:
        """Whether the recency sweep is showing."""
        return bool(self.query_one("#rerank-sweep", FigureView).display)

    def toggle_sweep(self, session: TriageSession, view: ViewParams, key_name: str) -> bool:
        """Show or hide the run's recency sweep; True when it is now shown."""
        figure = self.query_one("#rerank-sweep", FigureView)
        figure.hint = key_name
        figure.display = not figure.display
        self._sweep_drawn = None
        if figure.display:
            self.follow_sweep(session, view)
        return bool(figure.display)

    def follow_sweep(self, session: TriageSession, view: ViewParams) -> None:
        """Keep the sweep in step with the run and ``view``'s lambda, K and alpha: redrawn
        from the cache, computed in a worker only for a new run, lambda or K. Returns at
        once while the sweep is hidden (this runs on every question)."""
        if not self.sweep_shown:
            return
        figure = self.query_one("#rerank-sweep", FigureView)
        run = session.run_info()
        if run is None:
            return
        self.use_words_of(session)
        if run.retrieval_kind != "ranked" or spec_of(run.benchmark).panel != "rerank":
            self._sweep_wanted = self._sweep_drawn = None
            figure.show_message(
                f"The recency sweep re-ranks {self.latest_word} questions by their retrieval scores: "
                "this run has no ranked, scored retrieval list to sweep."
            )
            return
        key: SweepKey = (run.run_id, round(float(view.lam), 6), int(view.k))
        self._sweep_wanted = (key, float(view.alpha))
        if key in self.sweeps:
            self._draw_sweep()
            return
        self._sweep_drawn = None
        figure.show_message(f"recency sweep (λ={view.lam:.3f}, K={view.k}): computing …")
        if key not in self._sweeps_running:
            self._sweeps_running.add(key)
            self._compute_sweep(key, session)

    def _draw_sweep(self) -> None:
        wanted = self._sweep_wanted
        if wanted is None or wanted[0] not in self.sweeps or self._sweep_drawn == wanted:
            return
        self._sweep_drawn = wanted
        key, alpha = wanted
        self.query_one("#rerank-sweep", FigureView).show(
            sweep_spec(self.sweeps[key], alpha, self.latest_word)
        )

    @work(thread=True, exit_on_error=False, group="rerank-sweep", description="sweep")
    def _compute_sweep(self, key: SweepKey, session: TriageSession) -> None:
        """One sweep in the background (one worker per key, never repeated), from the
        columns it needs, read for it and dropped after."""
        try:
            data = session.rerank_data(key[0])
            sweep = figure_data.recency_sweep(data, lam=key[1], k=key[2])
        except MemscopeError as error:
            self.post_message(SweepComputed(key, None, error.message))
            return
        self.post_message(SweepComputed(key, sweep))

    @on(SweepComputed)
    def _sweep_computed(self, message: SweepComputed) -> None:
        message.stop()
        self._sweeps_running.discard(message.key)
        wanted = self._sweep_wanted is not None and self._sweep_wanted[0] == message.key
        if message.sweep is None:
            if self.sweep_shown and wanted:
                self.query_one("#rerank-sweep", FigureView).show_message(
                    f"No recency sweep: {message.error}"
                )
            return
        self.sweeps[message.key] = message.sweep
        if self.sweep_shown and wanted:
            self._draw_sweep()

    def set_mode(self, mode: str) -> None:
        """``rerank`` (scored candidates: the re-ranking controls and metrics), ``hits``
        (CUE-Mem RQ1/RQ2: one line, then the retrieved turns with the gold ones marked),
        ``rerank-hits`` (CUE-Mem RQ3: the re-ranking controls, then the evidence hits instead
        of the temporal metrics on latest-state questions) or
        ``context`` (the benchmark's own question panel's summary only: DMV-Bench's
        retention context)."""
        self.mode = mode
        self.query_one("#panel-context", Static).display = mode != "rerank"
        self.query_one("#rerank-params", Static).display = mode in ("rerank", "rerank-hits")
        for name in ("#rerank-question", "#rerank-run"):
            self.query_one(name, Static).display = mode == "rerank"
        if mode == "context":
            self.query_one(CandidateTable).display = False

    def show_context(self, text: Text) -> None:
        """The text above the table in ``hits`` / ``context`` mode."""
        self.query_one("#panel-context", Static).update(text)

    def show_params(
        self,
        alpha: float,
        lam: float,
        k: int,
        keys: Mapping[str, str],
        note: str = "",
        scope: str = "carry",
    ) -> None:
        """The parameter line: values, the keys that change them, and whether they carry
        across questions or apply to this one only (``scope``)."""
        line = Text.assemble(
            ("re-rank ", "bold"),
            (f"α={alpha:.1f}", "bold cyan"),
            f" {keys.get('alpha', '[ ]')}  ",
            (f"λ={lam:.3f}", "bold cyan"),
            f" {keys.get('lambda', '{ }')}  ",
            (f"K={k}", "bold cyan"),
            f" {keys.get('k', '< >')}  ",
            (f"{keys.get('reset', '=')} reset  ", "dim"),
            (
                "· carries over" if scope == "carry" else "· this question only",
                "bold yellow" if scope == "question" else "",
            ),
            (f" {keys.get('scope', 'g')}", "dim"),
        )
        if note:
            line.append("\n")
            line.append_text(plain(short_note(note), "dim italic"))
        self.query_one("#rerank-params", Static).update(line)

    def show_candidates(self, candidates: list[Candidate], message: str = "") -> None:
        """Fill the table (``message`` explains an empty pool)."""
        table = self.query_one(CandidateTable)
        table.show(candidates)
        table.display = bool(candidates) and getattr(self, "mode", "rerank") != "context"
        if not candidates:
            self.query_one("#rerank-question", Static).update(
                Text(message or "No retrieved candidates.", style="dim italic")
            )

    def show_question_metrics(
        self, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, asks_latest: bool
    ) -> None:
        """This question's temporal metrics before → after re-ranking."""
        widget = self.query_one("#rerank-question", Static)
        if not asks_latest:
            widget.update(
                Text(f"Temporal metrics apply to {self.latest_word} questions only.", style="dim")
            )
            return
        line = Text("this question: ", style="bold")
        for key, label in QUESTION_METRICS:
            line.append(f"{label} ")
            line.append_text(_change(_value(before, key), _value(after, key)))
            line.append("  ")
        widget.update(line)

    def show_run_metrics(self, text: Text | str) -> None:
        """The run-level temporal line (or a status such as "computing …")."""
        self.query_one("#rerank-run", Static).update(
            text if isinstance(text, Text) else Text(text, style="dim")
        )

    # -- the run-level temporal numbers (computed in the background) ----------------------------

    def follow_run_rerank(self, session: TriageSession) -> None:
        """Show the run-level temporal numbers for the session's current parameters: from its
        cache, or computed in a worker after a short pause (keys pressed in a row compute
        once; the numbers do not depend on the question, so stepping never recomputes)."""
        self._rerank_session = session
        self.use_words_of(session)
        plan = session.rerank_plan()
        if plan.action == "none":
            self.show_run_metrics("")
        elif plan.action == "waiting":
            self.show_run_metrics(
                Text(f"run {self.latest_word}: waiting for the retrieval evidence …", style="dim")
            )
        elif plan.action == "cached" and plan.rerank is not None:
            self.show_run_rerank(plan.rerank)
        else:
            self.show_run_metrics(Text(f"run {self.latest_word}: computing …", style="dim"))
            if self._rerank_timer is not None:
                self._rerank_timer.stop()
            self._rerank_timer = self.set_timer(RERANK_AFTER_S, self._start_run_rerank)

    def _start_run_rerank(self) -> None:
        session = self._rerank_session
        key = session.rerank_key() if session is not None else None
        if session is None or key is None:
            return
        params = session.start_rerank(key)
        if params is not None:
            self._compute_run_rerank(session, key, params)

    @work(thread=True, exit_on_error=False, group="run-rerank", description="run rerank")
    def _compute_run_rerank(
        self, session: TriageSession, key: RerankKey, params: dict[str, Any]
    ) -> None:
        """One parameter set in the background (claimed once: never repeated); the columns
        it needs are read for it and dropped after."""
        self.post_message(RunRerankComputed(key, session.compute_rerank(key[0], params)))

    @on(RunRerankComputed)
    def _run_rerank_computed(self, message: RunRerankComputed) -> None:
        message.stop()
        session = self._rerank_session
        if session is not None and session.adopt_rerank(message.key, message.rerank):
            self.show_run_rerank(message.rerank)

    def show_run_rerank(self, rerank: RunRerank) -> None:
        """The run-level temporal line from a finished computation."""
        if rerank.error:
            self.show_run_metrics(Text(f"run {self.latest_word}: {rerank.error}", style="dim"))
        else:
            self.show_run_metrics(
                run_metrics_line(rerank.result, float(rerank.params["alpha"]), self.latest_word)
            )


def _value(metrics: Mapping[str, Any] | None, key: str) -> float | None:
    if not metrics:
        return None
    value = metrics.get(key)
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def run_metrics_line(
    result: Mapping[str, Any] | None, alpha: float, word: str = "latest-state"
) -> Text:
    """The run-level temporal numbers at alpha = 1 and at ``alpha`` (from ``rerun_run``);
    ``word``: what the benchmark calls its latest-state questions (MemEye's ``Y3``)."""
    if not result:
        return Text(f"run {word}: –", style="dim")
    if not result.get("n"):
        return Text(f"run {word}: this run has no {word} question with a gold clue", style="dim")
    rows = result.get("results") or []
    baseline = next((r for r in rows if abs(float(r.get("alpha", -1)) - 1.0) < 1e-9), None)
    current = (
        next((r for r in rows if abs(float(r.get("alpha", -1)) - alpha) < 1e-9), None) or baseline
    )
    line = Text(f"run {word} (n={result.get('n', '?')}): ", style="bold")
    for key, label in RUN_METRICS:
        before, after = _value(baseline, key), _value(current, key)
        line.append(f"{label} ")
        if before is not None and after is not None and abs(before - after) > 1e-12:
            line.append(f"{before:.2f}→{after:.2f}", "bold yellow")
        else:
            line.append(num(after))
        line.append("  ")
    return line


def evidence_hits_line(candidates: list[Candidate], k: int, scored: bool = False) -> Text:
    """CUE-Mem in one line: how many retrieved turns are gold, and (RQ1/RQ2, ``scored``
    False) why nothing can be re-ranked."""
    top = [c for c in candidates if c.in_top_k] or candidates[:k]
    hits = sum(c.is_gold for c in top)
    line = Text("evidence hits ", style="bold")
    line.append(
        f"{hits} of {len(top)} retrieved turns are gold (●)", "bold cyan" if hits else "bold red"
    )
    if not scored:
        line.append(
            " · no retrieval scores logged (RQ1/RQ2), so there is nothing to re-rank", "dim"
        )
    return line
