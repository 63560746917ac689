"""Every catalogued screen's and widget's key bindings, as data.

The binding catalogue (help, the palette, checking the config's keymap before the app
starts) needs every screen's bindings; keeping them here lets it read them without
importing the screens, so the app imports a screen only when it is first shown. Each
screen and widget takes its ``BINDINGS`` from here.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

QUEUE_TABLE: list[BindingType] = [
    Binding("j,down", "cursor(1)", "Next", show=False, id="queue.next"),
    Binding("k,up", "cursor(-1)", "Previous", show=False, id="queue.previous"),
    Binding("pagedown", "page(1)", "Page down", show=False, id="queue.page_down"),
    Binding("pageup", "page(-1)", "Page up", show=False, id="queue.page_up"),
    Binding("home", "jump(0)", "First", show=False, id="queue.first"),
    Binding("end", "jump(-1)", "Last", show=False, id="queue.last"),
    Binding("enter", "select", "Open", id="queue.open"),
]
"""QueueTable's."""

QUEUE: list[BindingType] = [
    Binding("slash", "filter", "Filter", id="queue.filter"),
    Binding("f", "cycle_kind", "Failing/all/unlabelled", id="queue.kind"),
    Binding("s", "cycle_sort", "Sort", id="queue.sort"),
    Binding("o", "reverse", "Order", show=False, id="queue.reverse"),
    Binding("c", "clear_filter", "Clear filter", show=False, id="queue.clear_filter"),
    Binding("escape", "escape", "Clear / cancel", show=False, id="queue.escape"),
]
"""QueueScreen's."""

QUESTION: list[BindingType] = [
    Binding("j", "step(1)", "Next", id="question.next"),
    Binding("k", "step(-1)", "Prev", id="question.previous"),
    Binding("escape", "back", "Queue", id="question.back"),
    Binding("enter", "accept", "Accept", id="question.accept"),
    Binding("l", "pick_code", "Codes…", id="question.pick_code"),
    Binding("n", "note", "Note", id="question.note"),
    Binding("u", "undo", "Undo", id="question.undo"),
    Binding(
        "v",
        "cycle_verdict",
        "Verdict on the answer: correct/wrong/unsure/none",
        show=False,
        id="question.verdict",
    ),
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
    Binding("equals_sign", "rerank_reset", "Reset re-rank", show=False, id="question.rerank_reset"),
    Binding("g", "toggle_scope", "α/λ/K scope", show=False, id="question.rerank_scope"),
    Binding("f", "toggle_sweep", "Recency sweep figure", show=False, id="question.sweep"),
    Binding("slash", "filter", "Filter", show=False, id="question.filter"),
    Binding("s", "search", "Search memory", show=False, id="question.search"),
    Binding("i", "similar", "Similar images", show=False, id="question.similar"),
]
"""QuestionScreen's."""

TIMELINE: list[BindingType] = [
    Binding("down", "move(1)", "Next round", show=False, id="question.round_next"),
    Binding("up", "move(-1)", "Previous round", show=False, id="question.round_previous"),
    Binding("home", "edge(0)", "First round", show=False),
    Binding("end", "edge(-1)", "Last round", show=False),
    Binding("pagedown", "move(10)", "Page down", show=False),
    Binding("pageup", "move(-10)", "Page up", show=False),
]
"""Timeline's."""

MATRIX: list[BindingType] = [
    Binding("enter", "open_cell", "Queue for cell", id="matrix.open"),
    Binding("m", "next_metric(1)", "Next metric", id="matrix.metric"),
    Binding("M", "next_metric(-1)", "Previous metric", id="matrix.metric_back"),
    Binding("v", "next_view", "Next view", id="matrix.view"),
    Binding("f", "toggle_figure", "Figure", id="matrix.figure"),
    Binding("escape", "back", "Back", id="matrix.back"),
    # The filter belongs to the queue (the grid is always the whole run): / opens it
    # there, as on the question screen.
    Binding("slash", "filter", "Filter the queue", show=False, id="matrix.filter"),
]
"""MatrixScreen's."""

RUNS: list[BindingType] = [
    # priority: the table's own enter (select the row) would hide this one from the footer.
    Binding("enter", "open", "Open (2 marked: compare)", id="runs.open", priority=True),
    Binding("space", "mark", "Mark to compare", id="runs.mark"),
    Binding("escape", "back", "Back", id="runs.back"),
    # j/k move as everywhere else in the app (the table keeps its own down/up).
    Binding("j", "move(1)", "Next run", show=False, id="runs.next"),
    Binding("k", "move(-1)", "Previous run", show=False, id="runs.previous"),
]
"""RunsScreen's."""

HELP: list[BindingType] = [
    Binding("escape,q,question_mark", "dismiss", "Close", id="help.close"),
]
"""HelpScreen's."""

NOTE: list[BindingType] = [Binding("escape", "cancel", "Cancel", id="note.cancel")]
"""NoteDialog's."""

CODES: list[BindingType] = [Binding("escape", "cancel", "Cancel", id="codes.cancel")]
"""CodePicker's."""

ERROR: list[BindingType] = [Binding("escape,enter,q", "close", "Close", id="error.close")]
"""ErrorDialog's."""

SEARCH: list[BindingType] = [Binding("escape", "cancel", "Close", id="search.close")]
"""SearchDialog's."""

EXPORT: list[BindingType] = [Binding("escape", "cancel", "Cancel", id="export.cancel")]
"""ExportDialog's."""
