"""Turning label keys into store writes and their results into what the screen shows.

The question screen shows the label the store holds (``session.labels``), plus "saving …"
while ops are in flight; a label appears as saved only when ``LabelSaved`` arrives, which
the writer posts after ``memscope.pipeline.labels`` committed it. Fast key presses build on
what was last requested, so toggling 3 then 6 quickly yields both codes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from memscope.pipeline.label_journal import LabelJournal
from memscope.pipeline.triage_session import label_codes
from memscope.tui.labelling import LabelOp, LabelQueue
from memscope.tui.messages import LabelFailed, LabelSaved, LabelsWaiting
from memscope.tui.widgets.label_bar import codes_text, label_status, suggestion_text

if TYPE_CHECKING:
    from memscope.tui.app import MemscopeApp

UNKNOWN = None
"""The requested codes after an accept / undo: known only once the store answers."""


class LabelController:
    """Label actions of the current question, for one app."""

    def __init__(self, app: MemscopeApp) -> None:
        self.app = app
        self.queue = LabelQueue(journal=LabelJournal(app.store.path))
        self.requested: dict[str, tuple[str, ...] | None] = {}
        self.failed: set[str] = set()

    # -- what the screen shows -----------------------------------------------------------

    def committed(self, qid: str) -> Any:
        """The question's label as saved in the store (None: not labelled)."""
        return self.app.state.session.labels.get(qid) if self.app.state else None

    def pending_codes(self, qid: str) -> set[str] | None:
        """Codes asked for but not saved yet (None when nothing is pending)."""
        if not self.queue.busy(qid):
            return None
        requested = self.requested.get(qid, UNKNOWN)
        return set(requested) if requested is not UNKNOWN else None

    def pending_total(self) -> int:
        """How many label changes are not committed yet (the status bar shows it)."""
        return self.queue.pending_count()

    def state(self, qid: str) -> str:
        """``saving``, ``waiting``, ``failed`` or ``saved``."""
        if self.queue.busy(qid) and self.queue.waiting is not None:
            return "waiting"
        if self.queue.busy(qid):
            return "saving"
        return "failed" if qid in self.failed else "saved"

    def bar_lines(self, qid: str) -> tuple[Text, Text, Text]:
        """Suggestion, codes and status lines of the label bar for ``qid``."""
        app = self.app
        session = app.state.session
        label = self.committed(qid)
        current = set(getattr(label, "codes", None) or [])
        code_keys = app.question_screen.code_keys() if app.question_screen else {}
        codes = app.taxonomy.codes if app.taxonomy is not None else []
        suggestion = (
            suggestion_text(
                session.suggestions.get(qid), app.keymap_keys("question.accept"), app.taxonomy
            )
            if session.suggestions_ready
            else Text("loading failure suggestions …", style="dim italic")
        )
        return (
            suggestion,
            codes_text(
                codes, code_keys, current, getattr(label, "primary", None), self.pending_codes(qid)
            ),
            label_status(label, self.state(qid), app.read_only_reason),
        )

    # -- actions ---------------------------------------------------------------------------

    def allowed(self) -> bool:
        """Whether labelling is possible now (says why not when it is not)."""
        reason = self.app.read_only_reason
        if reason:
            self.app.notify(
                f"Labelling is disabled: {reason}",
                severity="warning",
                title="Read-only",
                markup=False,
            )
            return False
        return self.app.state is not None and self.app.state.qid is not None

    def _base(self, qid: str) -> tuple[str, ...] | None:
        if qid in self.requested:
            return self.requested[qid]
        return tuple(label_codes(self.committed(qid)))

    def _push(self, op: LabelOp, requested: tuple[str, ...] | None) -> None:
        self.requested[op.qid] = requested
        self.failed.discard(op.qid)
        self.queue.push(op)
        self.app.write_labels()
        self.app.labels_changed(op.qid)

    def _op(self, action: str, **fields: Any) -> LabelOp:
        state = self.app.state
        return LabelOp(
            action,
            state.session.run_id,
            str(state.qid),
            self.app.annotator,
            params=state.view.as_json(),
            **fields,
        )

    def toggle(self, code: str) -> None:
        """Add ``code`` to the label, or remove it (removing the last clears the label)."""
        if not self.allowed():
            return
        qid = str(self.app.state.qid)
        base = self._base(qid)
        if base is UNKNOWN:
            self.app.notify("Still saving the last change; try again in a moment.", markup=False)
            return
        codes = tuple(c for c in base if c != code) if code in base else (*base, code)
        label = self.committed(qid)
        if not codes:
            self._push(self._op("clear"), ())
            return
        primary = getattr(label, "primary", None)
        primary = primary if primary in codes else codes[0]
        self._push(
            self._op("set", codes=codes, primary=primary, note=getattr(label, "note", None)), codes
        )

    def accept(self) -> None:
        """Label the question with its suggested code."""
        if not self.allowed():
            return
        qid = str(self.app.state.qid)
        if not self.app.state.session.suggestions_ready:
            self.app.notify(
                "The suggestions are still loading; try again in a moment.", markup=False
            )
            return
        if qid not in self.app.state.session.suggestions:
            self.app.notify(
                "No suggestion for this question: toggle a code with its key instead.", markup=False
            )
            return
        self._push(self._op("accept"), UNKNOWN)

    def undo(self) -> None:
        """Undo the annotator's last change on this question."""
        if not self.allowed():
            return
        qid = str(self.app.state.qid)
        if not self.queue.busy(qid) and not self._undoable(qid):
            self.app.notify(
                f"Nothing to undo on {qid}: you have not labelled it (or undid every change).",
                markup=False,
            )
            return
        self._push(self._op("undo"), UNKNOWN)

    def _undoable(self, qid: str) -> bool:
        from memscope.errors import MemscopeError
        from memscope.pipeline.labels import can_undo

        lock = self.app.store_lock
        if not lock.acquire(timeout=0.2):  # a worker reads the store: let the undo find out
            return True
        try:
            return can_undo(
                self.app.store, self.app.state.session.run_id, qid, annotator=self.app.annotator
            )
        except MemscopeError:
            return True  # the store cannot tell now: let the undo itself find out
        finally:
            lock.release()

    def clear(self) -> None:
        """Remove the question's label (kept in the history)."""
        if self.allowed():
            self._push(self._op("clear"), ())

    def set_note(self, note: str) -> None:
        """Save ``note`` with the question's current codes."""
        if not self.allowed():
            return
        qid = str(self.app.state.qid)
        base = self._base(qid)
        if not base:
            self.app.notify(
                "Pick a failure code first (its key, or l for the list); the note goes with the label.",
                markup=False,
            )
            return
        label = self.committed(qid)
        primary = getattr(label, "primary", None)
        self._push(
            self._op(
                "set",
                codes=base,
                primary=primary if primary in base else base[0],
                note=note or None,
            ),
            base,
        )

    def restore_pending(self) -> int:
        """Queue the changes a previous app left in the journal (the store was busy then)."""
        journal = self.queue.journal
        ops = journal.pending() if journal is not None else []
        for op in ops:
            self.queue.push(op, journalled=True)
        if ops:
            self.app.write_labels()
            self.app.notify(
                f"{len(ops)} label change(s) from an earlier session were not saved yet; saving them now.",
                title="Pending labels",
                markup=False,
            )
        return len(ops)

    # -- results ---------------------------------------------------------------------------

    def waiting(self, message: LabelsWaiting) -> None:
        """The store is busy: the changes stay queued and are retried (never dropped)."""
        self.app.notify(
            f"{message.count} label change(s) wait for the store: {message.error.message}\n"
            "They are kept and saved as soon as the store is free.",
            severity="warning",
            title="Labels pending",
            markup=False,
        )
        if self.app.state is not None and self.app.state.qid is not None:
            self.app.labels_changed(str(self.app.state.qid))

    def saved(self, message: LabelSaved) -> None:
        """The store committed an op: adopt its current label."""
        self.queue.done(message.qid)
        state = self.app.state
        if state is None or state.session.run_id != message.run_id:
            return
        if message.label is None:
            state.session.labels.pop(message.qid, None)
        else:
            state.session.labels[message.qid] = message.label
        state.session.table.set_label(message.qid, label_codes(message.label))
        if not self.queue.busy(message.qid):
            self.requested.pop(message.qid, None)
        self.app.labels_changed(message.qid)

    def failed_op(self, message: LabelFailed) -> None:
        """An op could not be written: nothing of it was saved."""
        self.queue.done(message.qid)
        self.requested.pop(message.qid, None)
        self.failed.add(message.qid)
        self.app.notify(
            f"{message.qid}: the label was NOT saved: {message.error.message}",
            severity="error",
            title="Label not saved",
            markup=False,
        )
        self.app.labels_changed(message.qid)
