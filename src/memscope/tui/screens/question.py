"""The question screen: the evidence chain of one question, live re-ranking and labelling.

A 2×2 grid: the question and answers, the timeline of the rounds that matter, the
selected round in full, and the candidate table with the re-ranking controls; below it
the suggestion, the failure codes with their keys and the label as saved. Below 110
columns the four panes stack in one scrolling column, in that order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Container
from textual.timer import Timer
from textual.widgets import Static

from memscope.engine_jobs.memory_search import EngineStep
from memscope.errors import MemscopeError
from memscope.triage.candidate_rows import Candidate
from memscope.triage.evidence_chain import QuestionDetail, TimelineEntry
from memscope.triage.label_book import Queued
from memscope.triage.notice import Notice
from memscope.triage.question_view import (
    LoadedQuestion,
    QuestionView,
    RankingView,
    ranking_view,
)
from memscope.triage.round_index import RoundDetail
from memscope.triage.session import TriageSession
from memscope.tui import bindings
from memscope.tui.keymap import KeyNames, code_bindings, describe_keys
from memscope.tui.messages import (
    AudioFinished,
    EngineProgressed,
    LabelsQueued,
    PositionMoved,
    SearchFinished,
    ShowScreen,
)
from memscope.tui.screens.base import SessionScreen
from memscope.tui.widgets.answer_panel import AnswerPanel
from memscope.tui.widgets.audio_view import AudioView
from memscope.tui.widgets.candidate_table import CandidateTable
from memscope.tui.widgets.candidates import CandidatesPanel, evidence_hits_line
from memscope.tui.widgets.footer import FittingFooter
from memscope.tui.widgets.label_bar import LabelBar
from memscope.tui.widgets.question_panel import QuestionPanelView, blocks_text
from memscope.tui.widgets.round_view import RoundView
from memscope.tui.widgets.status_bar import StatusBar, status_view_text
from memscope.tui.widgets.timeline import Timeline
from memscope.usecases.question_panels import summary_blocks

if TYPE_CHECKING:
    from memscope.media.audio import Player
    from memscope.usecases.labels.events import CurrentLabel

NARROW_BELOW = 110
STACKED_HINT = "▼ panes stacked: scroll for more · [ ] { } < > bring the re-rank up"
"""Shown below 110 columns, where the four panes stack in one scrolling column."""
ENGINE_TICK_S = 0.5
"""How often a running search's progress line is redrawn (its seconds count up)."""


class QuestionScreen(SessionScreen):
    """One question's evidence chain."""

    SCOPE = "question"

    BINDINGS = bindings.QUESTION

    def __init__(self, session: TriageSession, keys: KeyNames) -> None:
        super().__init__(session, keys)
        self.taxonomy = taxonomy = session.taxonomy
        for binding in code_bindings(taxonomy.codes if taxonomy is not None else []):
            # Private: no public way adds a binding with an id (tests/cli/test_private_seams.py).
            self._bindings._add_binding(binding)
        self.question: LoadedQuestion | None = None
        """The question on screen, as read from the store (``TriageSession.read_question``)."""
        self.view: QuestionView | None = None
        self.ranking: RankingView | None = None
        self.detail: QuestionDetail | None = None
        self.candidates: list[Candidate] = []
        self.entries: list[TimelineEntry] = []
        self.rerun: Any = None
        self.selected_round: str | None = None
        self._code_keys: dict[str, str] | None = None
        self._shown_qid: str | None = None
        self._bindings_key: tuple[str | None, bool, bool, bool] = (None, True, False, True)
        self.player: Player | None = None
        """The audio player, created at the first playback."""
        self._engine_ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Container(id="question-body"):
            yield AnswerPanel(id="answer")
            yield Timeline(id="timeline")
            yield RoundView(id="round")
            yield QuestionPanelView(id="question-panel")
            yield CandidatesPanel(id="candidates")
        yield Static(STACKED_HINT, id="stack-hint", markup=False)
        yield LabelBar(id="label-bar")
        yield FittingFooter()

    def on_mount(self) -> None:
        # The panes, looked up once: every key redraws several of them.
        self._answer_panel = self.query_one(AnswerPanel)
        self._timeline = self.query_one(Timeline)
        self._round_view = self.query_one(RoundView)
        self._question_panel = self.query_one(QuestionPanelView)
        self._candidates_panel = self.query_one(CandidatesPanel)
        self._label_bar = self.query_one(LabelBar)
        self._status_bar = self.query_one(StatusBar)
        self._timeline.focus(scroll_visible=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the keys that would do nothing here: the re-ranking keys where the run logged
        no ranked list (a run that logged no retrieval, or whose benchmark's own panel
        stands in for the round: a DMV-Bench probe), the caption key and play there (no
        dialogue round), and play where no round of the question has audio."""
        ranked, own_panel, audio = self._bindings_key[1:]
        if action in ("alpha", "lam", "cutoff", "rerank_reset"):
            return ranked and not own_panel
        if action == "toggle_caption":
            return not own_panel
        if action == "play":
            return audio and not own_panel
        return True

    def _key_facts(self) -> tuple[str | None, bool, bool, bool]:
        """(benchmark, ranked retrieval, the benchmark's own panel, audio in the question): what decides which
        keys the footer shows for the question on screen."""
        view, question = self.view, self.question
        if view is None or question is None:
            return (None, True, False, True)
        ranked = question.read.data.run.retrieval_kind == "ranked"
        audio = any(entry.kind == "round" and entry.has_audio for entry in self.entries)
        return (view.benchmark, ranked, view.replaces_rounds, audio)

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW_BELOW, "-narrow")
        self.refresh_labels()

    def on_screen_resume(self) -> None:
        self.set_class(self.size.width < NARROW_BELOW, "-narrow")
        self.show_question()

    # -- showing -----------------------------------------------------------------------

    def show_question(self) -> None:
        """Draw every pane for the app's current question from one view record (a few
        milliseconds; the panes keep their widgets and sizes, so little is relaid out)."""
        state = self.session
        if state.run is None or state.qid is None:
            return
        session = state.run
        try:
            # From the cache when the background prefetch read it, else one short read.
            question = state.read_question(state.qid)
        except MemscopeError as error:
            self.tell(Notice(error.message, title="Question", severity="error"))
            return
        if state.view.scope == "question" and state.qid != self._shown_qid:
            state.view.reset(state.default_view())  # each question starts unranked
        self._shown_qid = state.qid
        self.question = question
        self.view = view = question.view
        self.detail = detail = view.detail
        self.selected_round = None
        with self.app.batch_update():  # one repaint for all panes, not one per pane
            # A benchmark's own panel stands in for the dialogue round (a DMV-Bench probe
            # has none: its recall steps instead).
            own = view.question_panel
            self._round_view.display = own is None
            self._question_panel.display = own is not None
            if own is not None:
                self._question_panel.load(state, own, view.benchmark, session.run_id, detail.qid)
            self._answer_panel.show(detail, view.other, view.other_run_id)
            self._rerank(keep_round=False)
            self._candidates_panel.follow_run_rerank(state)
            self.refresh_labels()
            self.refresh_status()
            facts = self._key_facts()
            if facts != self._bindings_key:
                # The keys that do something come and go with the run and the question. Only
                # then: refreshing the bindings makes the footer recompose all its keys.
                self._bindings_key = facts
                self.refresh_bindings()
            body = self.query_one("#question-body")
            if body.scroll_offset.y:
                body.scroll_home(animate=False)
        upcoming = state.upcoming_qids()
        if state.prefetch_wanted(upcoming):  # most keys find the next ones cached already
            # After this question is painted: the read never competes with its repaint.
            self.call_after_refresh(self._prefetch, upcoming)

    @work(
        thread=True, exclusive=True, exit_on_error=False, group="prefetch", description="prefetch"
    )
    def _prefetch(self, qids: list[str]) -> None:
        """Read the next questions of the queue in the background, so ``j`` / ``k`` show
        them without a store read (a newer prefetch replaces an older one)."""
        self.session.prefetch_questions(qids)

    def _rerank(self, keep_round: bool = True) -> None:
        """Re-rank this question with the current parameters and redraw the candidates and
        timeline (called on every alpha / lambda / K key)."""
        session, question, view = self.session.run, self.question, self.session.view
        if question is None or session is None:
            return
        detail = question.view.detail
        self.ranking = ranking = ranking_view(question, alpha=view.alpha, lam=view.lam, k=view.k)
        self.rerun, self.candidates, self.entries = (
            ranking.rerun,
            ranking.candidates,
            ranking.entries,
        )
        message = ranking.message
        panel = self._candidates_panel
        keys = self.keys.keys_for
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
            note=ranking.note,
        )
        kind, own = question.view.panel, question.view.question_panel
        if own is not None and own.summary is not None:
            # The benchmark's own summary of the question in its run, instead of candidates.
            panel.set_mode("context")
            panel.show_context(blocks_text(summary_blocks(own, session.table, detail.qid)))
        elif kind == "evidence":
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
        panel.follow_sweep(self.session, view)  # hidden: returns at once
        if self.candidates:
            panel.use_words_of(self.session)
            panel.show_question_metrics(ranking.before, ranking.after, detail.asks_latest)
        timeline = self._timeline
        timeline.show(self.entries, select=self.selected_round if keep_round else None)
        current = timeline.current
        # Show the round now rather than when the highlight message arrives: one repaint.
        self._show_round(
            current.round_id if current is not None and current.kind == "round" else None
        )

    def _show_round(self, round_id: str | None) -> None:
        self.selected_round = round_id
        question = self.question
        detail = question.rounds.get(round_id) if round_id and question is not None else None
        retrieved = {c.round_id for c in self.candidates}
        if round_id and detail is None and question is not None and round_id not in retrieved:
            # Not one of this question's rounds (a search hit): read it alone. A retrieved
            # round missing here is unknown to the dataset: nothing to read.
            detail = self._round_off_timeline(round_id)
        entry = next(
            (e for e in self.entries if e.kind == "round" and e.round_id == round_id), None
        )
        self._round_view.show(detail, entry, self.session.caption_mode)

    def _round_off_timeline(self, round_id: str) -> RoundDetail | None:
        """A round this question's timeline does not hold (a search hit), read on its own."""
        try:
            return self.session.read_rounds([round_id]).get(round_id)
        except MemscopeError as error:
            self.tell(Notice(error.message, title="Round", severity="error"))
            return None

    def select_round(self, round_id: str) -> bool:
        """Select ``round_id`` on the timeline; when it is not on it, show it in the round
        view all the same and return False."""
        if self.query_one(Timeline).select_round(round_id):
            return True
        self._show_round(round_id)
        return False

    def refresh_labels(self) -> None:
        """Redraw the label bar from the session's committed labels."""
        if self.detail is not None:
            self._label_bar.show_view(
                self.session.label_bar_view(self.detail.qid),
                self.code_keys(),
                self.keys.keymap_keys("question.accept"),
                self.taxonomy,
                compact=self.has_class("-narrow"),
            )

    def refresh_status(self) -> None:
        """Redraw the status line."""
        # One line high whatever it says: a repaint, no relayout.
        self._status_bar.update(
            status_view_text(
                self.session.status_view(with_question=True),
                self._status_bar.size.width or self.app.size.width,
            ),
            layout=False,
        )

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

    # -- actions -----------------------------------------------------------------------

    def action_step(self, step: int) -> None:
        notice = self.session.step(step)
        if notice is not None:
            self.tell(notice, timeout=2)
            return
        self.show_question()
        self.post_message(PositionMoved())

    def action_back(self) -> None:
        self.post_message(ShowScreen("queue"))

    def action_filter(self) -> None:
        self.post_message(ShowScreen("queue", filter_focus=True))

    def _label(self, result: Queued | Notice) -> None:
        if isinstance(result, Queued):
            self.post_message(LabelsQueued(result.qid))
        else:
            self.tell(result)

    def action_accept(self) -> None:
        self._label(self.session.labels.accept())

    def action_toggle_code(self, code: str) -> None:
        self._label(self.session.labels.toggle(code))

    def action_pick_code(self) -> None:
        """Toggle any failure code from the full list (also codes without a key)."""
        from memscope.tui.screens.dialogs import CodePicker

        session = self.session
        if session.qid is None or self.taxonomy is None:
            return
        label: CurrentLabel | None = session.labels.committed(session.qid)
        current = set(label.codes) if label is not None else set()

        def chosen(code: str | None) -> None:
            if code:
                self._label(session.labels.toggle(code))

        self.app.push_screen(CodePicker(self.taxonomy.codes, current, self.code_keys()), chosen)

    def action_note(self) -> None:
        """Write the note of the current question's label."""
        from memscope.tui.screens.dialogs import NoteDialog

        session = self.session
        if session.qid is None:
            return
        refused = session.labels.refusal()
        if refused is not None:
            self._label(refused)
            return
        label: CurrentLabel | None = session.labels.committed(session.qid)

        def written(note: str | None) -> None:
            if note is not None:
                self._label(session.labels.set_note(note))

        note = label.note if label is not None else None
        self.app.push_screen(NoteDialog(session.qid, note or ""), written)

    def action_cycle_verdict(self) -> None:
        """The person's verdict on the answer: correct → wrong → unsure → none."""
        self._label(self.session.labels.cycle_verdict())

    def action_undo(self) -> None:
        self._label(self.session.labels.undo())

    def action_clear_label(self) -> None:
        self._label(self.session.labels.clear())

    def action_toggle_caption(self) -> None:
        state = self.session
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

    # -- audio ---------------------------------------------------------------------------

    def action_play(self) -> None:
        """Play the selected round's audio, or stop it."""
        from memscope.media import audio

        if self.player is not None and self.player.is_playing:
            self.player.stop()
            return
        views = [view for view in self.query(AudioView) if view.display and view.clip is not None]
        view = views[0] if views else None
        if view is None or view.item is None or not view.item.file:
            self.notify(
                "This round has no audio to play (in caption view, press c for the media)."
                if self.session.caption_mode
                else "This round has no audio to play: it holds text"
                " (and ▣ an image) only; ♪ in the timeline marks the rounds with audio.",
                markup=False,
            )
            return
        if self.player is None:

            def finished(outcome: str) -> None:
                # Called from the audio thread: a message is the thread-safe way back.
                self.post_message(AudioFinished(outcome))

            self.player = audio.Player(on_finished=finished)
        started, text = self.player.play(view.item.file)
        if not started:
            self.notify(text, title="Audio", severity="warning", markup=False)
            return
        view.set_playing(True)

    @on(AudioFinished)
    def _audio_finished(self, _message: AudioFinished) -> None:
        """Playback ended: every audio view shows "stopped"."""
        for view in self.query(AudioView):
            view.set_playing(False)

    def close_audio(self) -> None:
        """Release the audio device (the app is closing)."""
        if self.player is not None:
            self.player.close()

    def action_alpha(self, direction: int) -> None:
        if self.session.nudge_alpha(direction):
            self._after_param_change()

    def action_lam(self, direction: int) -> None:
        if self.session.nudge_lambda(direction):
            self._after_param_change()

    def action_cutoff(self, direction: int) -> None:
        if self.session.nudge_k(direction):
            self._after_param_change()

    def action_rerank_reset(self) -> None:
        view, defaults = self.session.view, self.session.default_view()
        view.alpha, view.lam, view.k = 1.0, defaults.lam, defaults.k
        self._after_param_change()

    def action_toggle_scope(self) -> None:
        view = self.session.view
        view.scope = "question" if view.scope == "carry" else "carry"
        self.notify(
            "α, λ and K now apply to this question only: the next one opens in the run's order."
            if view.scope == "question"
            else "α, λ and K now carry across questions.",
            markup=False,
        )
        self._rerank(keep_round=True)
        self.post_message(PositionMoved())

    def action_toggle_sweep(self) -> None:
        if self.session.run is None:
            return
        panel = self.query_one(CandidatesPanel)
        keys = self.keys.keys_for("question.sweep")
        if panel.toggle_sweep(self.session, self.session.view, keys):
            panel.query_one("#rerank-sweep").scroll_visible(animate=False)

    def _after_param_change(self) -> None:
        self._rerank(keep_round=True)
        if self.has_class("-narrow"):
            # Stacked, the re-rank panel sits below the fold: bring its parameters and
            # metrics to the top so the change shows where it is made.
            self.query_one("#question-body").scroll_to_widget(
                self.query_one(CandidatesPanel), top=True, animate=False
            )
        self._candidates_panel.follow_run_rerank(self.session)
        self.post_message(PositionMoved())

    # -- searching the memory bank (the memory engine) --------------------------------------

    def action_search(self) -> None:
        """Ask for words, then list the rounds that match them."""
        from memscope.tui.screens.search import SearchDialog

        if self._engine_missing("Searching the memory bank"):
            return
        dialog = SearchDialog("Search the memory bank", ask=True, on_query=self.start_search)
        self.app.push_screen(dialog, self._show_found_round)

    def action_similar(self) -> None:
        """List the rounds whose images look like the selected round's."""
        from memscope.tui.screens.search import SearchDialog

        round_id = self.selected_round
        if not round_id:
            self.notify("Select a round with an image on the timeline first.", markup=False)
            return
        if self._engine_missing("Finding similar images"):
            return
        dialog = SearchDialog(f"Rounds that look like {round_id}", ask=False)
        self.app.push_screen(dialog, self._show_found_round)
        self.start_search(None, round_id)

    def _engine_missing(self, what: str) -> bool:
        """Say what to install when the memory engine is not (the ``engine`` extra)."""
        from memscope.engine_available import engine_missing_message

        message = engine_missing_message(what)
        if message is not None:
            self.notify(message, title="Memory engine", severity="warning", markup=False)
        return message is not None

    def start_search(self, query: str | None, round_id: str | None = None) -> None:
        """Search in a worker; its progress line ticks in the status bar and the search
        dialog until it ends (a newer search makes an older one's answer stale)."""
        search_id = self.session.search.begin()
        if self._engine_ticker is None:
            self._engine_ticker = self.set_interval(ENGINE_TICK_S, self.show_engine_step)
        self.show_engine_step()
        self._search(search_id, query, round_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="search", description="search")
    def _search(self, search_id: int, query: str | None, round_id: str | None) -> None:
        def progressed(step: EngineStep) -> None:
            self.post_message(EngineProgressed(search_id, step))

        found = self.session.search_memory(query, round_id, progressed)
        self.post_message(SearchFinished(found.title, found.hits, found.error, search_id))

    @on(EngineProgressed)
    def _engine_progressed(self, message: EngineProgressed) -> None:
        if self.session.search.progressed(message.search_id, message.step):
            self.show_engine_step()

    @on(SearchFinished)
    def _search_finished(self, message: SearchFinished) -> None:
        """Show the hits in the search dialog; when it was closed meanwhile, say how it went."""
        from memscope.tui.screens.search import SearchDialog

        if not self.session.search.end(message.search_id):
            return  # a newer search runs: this answer is stale
        if self._engine_ticker is not None:
            self._engine_ticker.stop()
            self._engine_ticker = None
        self.show_engine_step()
        dialog = self.app.screen
        if isinstance(dialog, SearchDialog):
            dialog.show_results(message)
        elif message.error:
            self.notify(
                f"{message.title}: {message.error}",
                title="Memory engine",
                severity="warning",
                markup=False,
            )
        else:
            self.notify(
                f"{message.title}: {len(message.hits)} hit(s); search again to list them.",
                title="Memory engine",
                markup=False,
            )

    def show_engine_step(self) -> None:
        """Redraw a running search's progress line in the open search dialog and the
        status bar."""
        from memscope.tui.screens.search import SearchDialog

        line = self.session.search.line()
        dialog = self.app.screen
        if isinstance(dialog, SearchDialog):
            dialog.show_step(line)
        if self.detail is not None:
            self.refresh_status()

    def _show_found_round(self, round_id: str | None) -> None:
        if not round_id:
            return
        if not self.select_round(round_id):
            # Outside this question's timeline: the round view shows it all the same.
            self.notify(
                f"{round_id} is not on this question's timeline; the round view shows it.",
                markup=False,
            )
        self._round_view.scroll_visible(animate=False)

    def code_keys(self) -> dict[str, str]:
        """Failure code -> the key that toggles it now (after the user's keymap)."""
        if self._code_keys is None:
            keys = {}
            for binding in code_bindings(self.taxonomy.codes if self.taxonomy is not None else []):
                shown = self.keys.keys_for(binding.id or "")
                if shown:
                    keys[(binding.id or "").rsplit(".", 1)[-1]] = shown
            self._code_keys = keys
        return self._code_keys

    def accept_keys(self) -> str:
        """The keys of ``question.accept`` as typed."""
        return describe_keys(self.keys.keymap_keys("question.accept"))
