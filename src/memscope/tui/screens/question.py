"""The question screen: the evidence chain of one question, live re-ranking and labelling.

A 2×2 grid: the question and answers, the timeline of the rounds that matter, the
selected round in full, and the candidate table with the re-ranking controls; below it
the suggestion, the failure codes with their keys and the label as saved. Below 110
columns the four panes stack in one scrolling column, in that order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import Static

from memscope.errors import MemscopeError
from memscope.pipeline.benchmark_views import retention_context
from memscope.pipeline.candidate_rows import Candidate, candidates_from_rerun, logged_candidates
from memscope.pipeline.evidence_chain import (
    QuestionDetail,
    TimelineEntry,
    build_timeline,
    question_detail,
)
from memscope.pipeline.report import RETRIEVAL_NOTES
from memscope.tui.keymap import code_bindings, describe_keys
from memscope.tui.messages import RunRerunFinished
from memscope.tui.widgets.answer_panel import AnswerPanel, OtherAnswer
from memscope.tui.widgets.audio_view import AudioView
from memscope.tui.widgets.candidate_table import CandidateTable
from memscope.tui.widgets.candidates import (
    CandidatesPanel,
    evidence_hits_line,
    retention_text,
    run_metrics_line,
)
from memscope.tui.widgets.footer import FittingFooter
from memscope.tui.widgets.label_bar import LabelBar
from memscope.tui.widgets.probe_panel import ProbePanel
from memscope.tui.widgets.round_view import RoundView
from memscope.tui.widgets.status_bar import StatusBar
from memscope.tui.widgets.timeline import Timeline

if TYPE_CHECKING:
    from memscope.tui.app import MemscopeApp

NARROW_BELOW = 110
STACKED_HINT = "▼ panes stacked: scroll for more · [ ] { } < > bring the re-rank up"
"""Shown below 110 columns, where the four panes stack in one scrolling column."""


class QuestionScreen(Screen[None]):
    """One question's evidence chain."""

    SCOPE = "question"

    BINDINGS = [
        Binding("j", "step(1)", "Next", id="question.next"),
        Binding("k", "step(-1)", "Prev", id="question.previous"),
        Binding("escape", "back", "Queue", id="question.back"),
        Binding("enter", "accept", "Accept", id="question.accept"),
        Binding("l", "pick_code", "Codes…", id="question.pick_code"),
        Binding("n", "note", "Note", id="question.note"),
        Binding("u", "undo", "Undo", id="question.undo"),
        Binding("x", "clear_label", "Clear", show=False, id="question.clear"),
        Binding("c", "toggle_caption", "Caption/native", id="question.caption"),
        Binding("p", "play", "Play", id="question.audio"),
        Binding("t", "full_text", "Full text", show=False, id="question.full_text"),
        Binding("left_square_bracket", "alpha(-1)", "α−", id="question.alpha_down"),
        Binding("right_square_bracket", "alpha(1)", "α+", id="question.alpha_up"),
        Binding("left_curly_bracket", "lam(-1)", "λ−", show=False, id="question.lambda_down"),
        Binding("right_curly_bracket", "lam(1)", "λ+", show=False, id="question.lambda_up"),
        Binding("less_than_sign", "cutoff(-1)", "K−", show=False, id="question.k_down"),
        Binding("greater_than_sign", "cutoff(1)", "K+", show=False, id="question.k_up"),
        Binding(
            "equals_sign", "rerank_reset", "Reset re-rank", show=False, id="question.rerank_reset"
        ),
        Binding("g", "toggle_scope", "α/λ/K scope", show=False, id="question.rerank_scope"),
        Binding("f", "toggle_sweep", "Recency sweep figure", show=False, id="question.sweep"),
        Binding("slash", "filter", "Filter", show=False, id="question.filter"),
        Binding("s", "search", "Search memory", show=False, id="question.search"),
        Binding("i", "similar", "Similar images", show=False, id="question.similar"),
    ]

    def __init__(self, taxonomy: Any) -> None:
        super().__init__()
        self.taxonomy = taxonomy
        for binding in code_bindings(taxonomy.codes if taxonomy is not None else []):
            # Private: no public way adds a binding with an id (tests/cli/test_private_seams.py).
            self._bindings._add_binding(binding)
        self.detail: QuestionDetail | None = None
        self.candidates: list[Candidate] = []
        self.entries: list[TimelineEntry] = []
        self.rerun: Any = None
        self.selected_round: str | None = None
        self._code_keys: dict[str, str] | None = None
        self._shown_qid: str | None = None

    @property
    def memscope(self) -> MemscopeApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Container(id="question-body"):
            yield AnswerPanel(id="answer")
            yield Timeline(id="timeline")
            yield RoundView(id="round")
            yield ProbePanel(id="probe")
            yield CandidatesPanel(id="candidates")
        yield Static(STACKED_HINT, id="stack-hint", markup=False)
        yield LabelBar(id="label-bar")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(Timeline).focus(scroll_visible=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the re-ranking keys on DMV-Bench probes: a probe has no scored pool to
        re-rank (its panel shows the recall steps and the retention context instead)."""
        if action in ("alpha", "lam", "cutoff", "rerank_reset"):
            state = self.memscope.state
            if state is not None and state.session.data.benchmark == "dmv":
                return False
        return True

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW_BELOW, "-narrow")
        self.refresh_labels()

    def on_screen_resume(self) -> None:
        self.set_class(self.size.width < NARROW_BELOW, "-narrow")
        self.show_question()

    # -- showing -----------------------------------------------------------------------

    def show_question(self) -> None:
        """Rebuild every pane for the app's current question (a few milliseconds)."""
        state = self.memscope.state
        if state is None or state.qid is None:
            return
        session = state.session
        row = session.table.row_of[state.qid]
        if state.view.scope == "question" and state.qid != self._shown_qid:
            state.view.reset(self.memscope.default_view())  # each question starts unranked
        self._shown_qid = state.qid
        self.detail = detail = question_detail(session.data, row)
        self.selected_round = None
        is_probe = session.data.benchmark == "dmv"
        with self.app.batch_update():  # one repaint for all panes, not one per pane
            # A DMV-Bench probe has no dialogue round to show: its recall steps instead.
            self.query_one(RoundView).display = not is_probe
            self.query_one(ProbePanel).display = is_probe
            if is_probe:
                self.query_one(ProbePanel).show(None, "loading the probe's recall steps …")
                self.memscope.load_probe_view(session.run_id, detail.qid)
            self.query_one(AnswerPanel).show(
                detail, self._other_answer(detail), session.other_run_id
            )
            self._rerank(keep_round=False)
            self.memscope.refresh_run_rerank()
            self.refresh_labels()
            self.refresh_status()
            self.refresh_bindings()  # the re-ranking keys come and go with the benchmark
            self.query_one("#question-body").scroll_home(animate=False)

    def show_probe(self, qid: str, probe: Any, error: str | None) -> None:
        """Show a loaded probe view, if this screen still shows that question."""
        if self.detail is not None and self.detail.qid == qid:
            self.query_one(ProbePanel).show(probe, error or "")

    def _other_answer(self, detail: QuestionDetail) -> OtherAnswer | None:
        session = self.memscope.state.session
        other_row = session.other_row(detail.row)
        if other_row is None or session.other is None:
            return None
        other = question_detail(session.other, other_row)
        return OtherAnswer(
            str(session.other_run_id),
            other.pred,
            other.choice,
            other.em,
            other.judge,
            other.correct,
        )

    def _rerank(self, keep_round: bool = True) -> None:
        """Re-rank this question with the current parameters and redraw the candidates and
        timeline (called on every alpha / lambda / K key)."""
        state = self.memscope.state
        session, detail, view = state.session, self.detail, state.view
        if detail is None:
            return
        channels = session.channels.scores(detail.qid)
        panel = self.query_one(CandidatesPanel)
        self.rerun, message = None, ""
        kind = session.data.run.get("retrieval_kind")
        if not session.evidence_ready:
            message = "loading the retrieval evidence …"
            kind = "loading"
        elif kind == "ranked":
            try:
                from memscope.pipeline.rerun import rerun_question

                self.rerun = rerun_question(
                    session.data, detail.qid, alpha=view.alpha, lam=view.lam, k=view.k
                )
            except MemscopeError as error:
                message = error.message
        if self.rerun is not None:
            self.candidates = candidates_from_rerun(
                self.rerun.after.rows, self.rerun.before.rows, channels, detail.is_y3
            )
            before, after = self.rerun.before.metrics, self.rerun.after.metrics
        elif not session.evidence_ready:
            self.candidates, before, after = [], None, None
        else:
            self.candidates = logged_candidates(
                session.data, detail.row, session.rounds, view.k, channels
            )
            before = after = None
            message = message or RETRIEVAL_NOTES.get(kind or "none", "")
        keys = self.memscope.keys_for
        panel.show_params(
            view.alpha,
            view.lam,
            view.k,
            {
                "alpha": f"{keys('question.alpha_down')} {keys('question.alpha_up')}",
                "lambda": f"{keys('question.lambda_down')} {keys('question.lambda_up')}",
                "k": f"{keys('question.k_down')} {keys('question.k_up')}",
                "reset": keys("question.rerank_reset"),
                "scope": keys("question.rerank_scope"),
            },
            scope=view.scope,
            note=(getattr(self.rerun, "note", None) or "") if self.rerun is not None else message,
        )
        benchmark = session.data.benchmark
        if benchmark == "dmv":
            panel.set_mode("context")
            panel.show_context(retention_text(retention_context(session.table, detail.row)))
        elif benchmark == "cuemem":
            scored = any(c.score is not None for c in self.candidates)
            panel.set_mode("rerank-hits" if scored else "hits")
            panel.show_context(
                evidence_hits_line(self.candidates, view.k, scored)
                if self.candidates
                else Text(message or "No retrieved turns logged for this QA.", style="dim italic")
            )
        else:
            panel.set_mode("rerank")
        panel.show_candidates(self.candidates, message)
        panel.follow_sweep(session.data, view, session.evidence_ready)  # hidden: returns at once
        if self.candidates:
            panel.show_question_metrics(before, after, detail.is_y3)
        self.entries = build_timeline(detail, session.rounds, self.candidates)
        timeline = self.query_one(Timeline)
        timeline.show(self.entries, select=self.selected_round if keep_round else None)
        current = timeline.current
        # Show the round now rather than when the highlight message arrives: one repaint.
        self._show_round(
            current.round_id if current is not None and current.kind == "round" else None
        )

    def _show_round(self, round_id: str | None) -> None:
        self.selected_round = round_id
        session = self.memscope.state.session
        detail = session.rounds.get(round_id) if round_id else None
        entry = next(
            (e for e in self.entries if e.kind == "round" and e.round_id == round_id), None
        )
        self.query_one(RoundView).show(detail, entry, self.memscope.state.caption_mode)

    def refresh_labels(self) -> None:
        """Redraw the label bar from the session's committed labels."""
        if self.detail is not None:
            self.query_one(LabelBar).show(
                *self.memscope.labels.bar_lines(self.detail.qid), compact=self.has_class("-narrow")
            )

    def refresh_status(self) -> None:
        """Redraw the status line."""
        self.query_one(StatusBar).update(self.memscope.status_line(with_question=True))

    def show_run_metrics(self, text: Text | str) -> None:
        """The run-level Y3 line under the candidate table."""
        self.query_one(CandidatesPanel).show_run_metrics(text)

    @on(Timeline.RoundChosen)
    def _round_chosen(self, message: Timeline.RoundChosen) -> None:
        if message.round_id != self.selected_round:
            self._show_round(message.round_id)

    @on(CandidateTable.Highlighted)
    def _candidate_highlighted(self, message: CandidateTable.Highlighted) -> None:
        if 0 <= message.index < len(self.candidates):
            round_id = self.candidates[message.index].round_id
            if not self.query_one(Timeline).select_round(round_id):
                self._show_round(round_id)

    def show_run_rerank(self, message: RunRerunFinished) -> None:
        """The run-level Y3 line from a finished computation."""
        if message.error:
            self.show_run_metrics(Text(f"run Y3: {message.error}", style="dim"))
        else:
            self.show_run_metrics(run_metrics_line(message.result, float(message.params["alpha"])))

    # -- actions -----------------------------------------------------------------------

    def action_step(self, step: int) -> None:
        self.memscope.step_question(step)

    def action_back(self) -> None:
        self.memscope.show_queue()

    def action_filter(self) -> None:
        self.memscope.show_queue(filter_focus=True)

    def action_accept(self) -> None:
        self.memscope.labels.accept()

    def action_toggle_code(self, code: str) -> None:
        self.memscope.labels.toggle(code)

    def action_pick_code(self) -> None:
        self.memscope.pick_code()

    def action_note(self) -> None:
        self.memscope.edit_note()

    def action_undo(self) -> None:
        self.memscope.labels.undo()

    def action_clear_label(self) -> None:
        self.memscope.labels.clear()

    def action_toggle_caption(self) -> None:
        state = self.memscope.state
        state.caption_mode = not state.caption_mode
        self._show_round(self.selected_round)

    def action_full_text(self) -> None:
        """Every text field of the question and the selected round, whole (the screen cuts
        long ones with "… N more characters")."""
        from memscope.tui.screens.full_text import FullTextScreen, question_sections
        from memscope.tui.widgets.round_view import RoundView

        if self.detail is None:
            return
        selected = self.query_one(RoundView).detail if self.query(RoundView) else None
        self.app.push_screen(
            FullTextScreen(self.detail.qid, question_sections(self.detail, selected))
        )

    def action_play(self) -> None:
        views = [view for view in self.query(AudioView) if view.display and view.clip is not None]
        self.memscope.toggle_audio(views[0] if views else None)

    def action_alpha(self, direction: int) -> None:
        if self.memscope.state.nudge_alpha(direction):
            self._after_param_change()

    def action_lam(self, direction: int) -> None:
        if self.memscope.state.nudge_lambda(direction):
            self._after_param_change()

    def action_cutoff(self, direction: int) -> None:
        if self.memscope.state.nudge_k(direction):
            self._after_param_change()

    def action_rerank_reset(self) -> None:
        view = self.memscope.state.view
        view.alpha, view.lam, view.k = (
            1.0,
            self.memscope.default_view().lam,
            self.memscope.default_view().k,
        )
        self._after_param_change()

    def action_toggle_scope(self) -> None:
        view = self.memscope.state.view
        view.scope = "question" if view.scope == "carry" else "carry"
        self.notify(
            "α, λ and K now apply to this question only: the next one opens in the run's order."
            if view.scope == "question"
            else "α, λ and K now carry across questions.",
            markup=False,
        )
        self._rerank(keep_round=True)
        self.memscope.remember_position()

    def action_toggle_sweep(self) -> None:
        state = self.memscope.state
        panel = self.query_one(CandidatesPanel)
        keys = self.memscope.keys_for("question.sweep")
        if panel.toggle_sweep(state.session.data, state.view, state.session.evidence_ready, keys):
            panel.query_one("#rerank-sweep").scroll_visible(animate=False)

    def _after_param_change(self) -> None:
        self._rerank(keep_round=True)
        if self.has_class("-narrow"):
            # Stacked, the re-rank panel sits below the fold: bring its parameters and
            # metrics to the top so the change shows where it is made.
            self.query_one("#question-body").scroll_to_widget(
                self.query_one(CandidatesPanel), top=True, animate=False
            )
        self.memscope.refresh_run_rerank()
        self.memscope.remember_position()

    def action_search(self) -> None:
        self.memscope.search_memory()

    def action_similar(self) -> None:
        self.memscope.similar_images(self.selected_round)

    def code_keys(self) -> dict[str, str]:
        """Failure code -> the key that toggles it now (after the user's keymap)."""
        if self._code_keys is None:
            keys = {}
            for binding in code_bindings(self.taxonomy.codes if self.taxonomy is not None else []):
                shown = self.memscope.keys_for(binding.id or "")
                if shown:
                    keys[binding.id.rsplit(".", 1)[-1]] = shown
            self._code_keys = keys
        return self._code_keys

    def accept_keys(self) -> str:
        """The keys of ``question.accept`` as typed."""
        return describe_keys(self.memscope.keymap_keys("question.accept"))
