"""The label actions of the triage session: key presses become queued store writes, and
the writer's results become what the label bar shows.

The question screen shows the label the store holds (``run.labels``), plus "saving …"
while ops are in flight; a label appears as saved only when the writer reports
:class:`~memscope.triage.label_queue.LabelSaved`, after ``memscope.usecases.labels.events``
committed it. Fast key presses build on what was last requested, so toggling 3 then 6
quickly yields both codes.

A code key becomes "add this code" or "remove it" and a note "set the note", applied to
the label the store holds when the op is written, not to the app's copy: a label another
process wrote meanwhile (``memscope label``) is built on, and the app then shows the
label as stored, saying so when it is not what the app asked for.

Every action returns :class:`Queued` (start the writer) or a ``Notice`` saying why
nothing was queued; results return the qid whose label changed. Plain Python: the app
starts the writer worker and shows the notices.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memscope.errors import MemscopeError
from memscope.triage.label_queue import (
    VERDICT_ACTIONS,
    LabelEvent,
    LabelFailed,
    LabelOp,
    LabelQueue,
    LabelSaved,
    LabelsWaiting,
)
from memscope.triage.loaded_run import label_codes
from memscope.triage.notice import Notice
from memscope.usecases.labels.events import CurrentLabel
from memscope.usecases.labels.journal import LabelJournal
from memscope.usecases.labels.verdicts import next_verdict

if TYPE_CHECKING:
    from memscope.triage.session import TriageSession

UNKNOWN = None
"""The requested codes after an accept / undo: known only once the store answers."""


@dataclass(frozen=True)
class Queued:
    """A label change for ``qid`` is queued: the writer must run."""

    qid: str


class LabelBook:
    """Label actions of the current question, for one session."""

    def __init__(self, session: TriageSession) -> None:
        self.session = session
        self.queue = LabelQueue(journal=LabelJournal(session.store.path))
        self.requested: dict[str, tuple[str, ...] | None] = {}
        self.failed: set[str] = set()
        self.changed: dict[str, set[str]] = {}
        """run id -> the questions whose label this session changed (and the store
        committed), in the order the runs were first labelled: what the quit summary counts."""
        self.requested_verdicts: dict[str, str | None] = {}
        """qid -> the verdict last asked for while its ops are in flight (fast ``v`` presses
        cycle from it, not from the stored one)."""
        self.verdicts_changed: dict[str, set[str]] = {}
        """run id -> the questions whose verdict this session changed (the quit summary)."""
        self.undo_kinds: dict[tuple[str, str], list[str]] = {}
        """(run id, qid) -> ``label`` / ``verdict``, one per change this session asked for:
        undo reverts the latest of the two (the label when this session changed neither)."""

    # -- what the label bar shows ----------------------------------------------------------

    def committed(self, qid: str) -> CurrentLabel | None:
        """The question's label as saved in the store (None: not labelled)."""
        run = self.session.run
        return run.labels.get(qid) if run is not None else None

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

    # -- actions ---------------------------------------------------------------------------

    def refusal(self) -> Notice | None:
        """Why labelling is not possible now (None: it is)."""
        reason = self.session.read_only_reason
        if reason:
            return Notice(f"Labelling is disabled: {reason}", title="Read-only", severity="warning")
        if self.session.run is None or self.session.qid is None:
            return Notice("No question is open.")
        return None

    def _base(self, qid: str) -> tuple[str, ...] | None:
        if qid in self.requested:
            return self.requested[qid]
        return tuple(label_codes(self.committed(qid)))

    def _push(self, op: LabelOp, requested: tuple[str, ...] | None) -> Queued:
        self.requested[op.qid] = requested
        if op.action != "undo":
            self.undo_kinds.setdefault((op.run_id, op.qid), []).append("label")
        return self._queue(op)

    def _queue(self, op: LabelOp) -> Queued:
        self.failed.discard(op.qid)
        self.queue.push(op)
        return Queued(op.qid)

    def _op(
        self,
        action: str,
        *,
        codes: tuple[str, ...] = (),
        note: str | None = None,
        verdict: str | None = None,
    ) -> LabelOp:
        session = self.session
        assert session.run is not None and session.qid is not None
        return LabelOp(
            action,
            session.run.run_id,
            session.qid,
            session.annotator,
            codes=codes,
            note=note,
            params=dict(session.view.as_json()),
            verdict=verdict,
        )

    def toggle(self, code: str) -> Queued | Notice:
        """Add ``code`` to the label, or remove it (removing the last clears the label)."""
        refused = self.refusal()
        if refused is not None:
            return refused
        qid = str(self.session.qid)
        base = self._base(qid)
        if base is UNKNOWN:
            return Notice("Still saving the last change; try again in a moment.")
        if code in base:
            return self._push(
                self._op("remove", codes=(code,)), tuple(c for c in base if c != code)
            )
        return self._push(self._op("add", codes=(code,)), (*base, code))

    def accept(self) -> Queued | Notice:
        """Label the question with its suggested code."""
        refused = self.refusal()
        if refused is not None:
            return refused
        run, qid = self.session.run, str(self.session.qid)
        assert run is not None
        if not run.suggestions_ready:
            return Notice("The suggestions are still loading; try again in a moment.")
        if self.session.suggestion(qid) is None:  # as read with the question
            return Notice("No suggestion for this question: toggle a code with its key instead.")
        return self._push(self._op("accept"), UNKNOWN)

    def verdict(self, qid: str) -> str | None:
        """The question's verdict as saved in the store (None: none)."""
        run = self.session.run
        return run.verdicts.get(qid) if run is not None else None

    def pending_verdict(self, qid: str) -> str | None:
        """The verdict asked for but not saved yet: a verdict, ``none`` (its removal), or
        None when no verdict change is in flight."""
        if not self.queue.busy(qid) or qid not in self.requested_verdicts:
            return None
        return self.requested_verdicts[qid] or "none"

    def cycle_verdict(self) -> Queued | Notice:
        """Give the answer the next verdict: none → correct → wrong → unsure → none."""
        refused = self.refusal()
        if refused is not None:
            return refused
        qid = str(self.session.qid)
        base = self.requested_verdicts[qid] if qid in self.requested_verdicts else self.verdict(qid)
        wanted = next_verdict(base)
        self.requested_verdicts[qid] = wanted
        op = self._op("verdict", verdict=wanted)
        self.undo_kinds.setdefault((op.run_id, qid), []).append("verdict")
        return self._queue(op)

    def undo(self) -> Queued | Notice:
        """Undo the annotator's last change on this question: the verdict when that is
        what this session changed last, else the label."""
        refused = self.refusal()
        if refused is not None:
            return refused
        qid = str(self.session.qid)
        assert self.session.run is not None
        kinds = self.undo_kinds.get((self.session.run.run_id, qid))
        if kinds and kinds[-1] == "verdict":
            kinds.pop()
            self.requested_verdicts.pop(qid, None)
            return self._queue(self._op("undo_verdict"))
        if kinds:
            kinds.pop()
        if not self.queue.busy(qid) and not self._undoable(qid):
            return Notice(
                f"Nothing to undo on {qid}: you have not labelled it (or undid every change)."
            )
        return self._push(self._op("undo"), UNKNOWN)

    def _undoable(self, qid: str) -> bool:
        from memscope.usecases.labels.events import can_undo

        session = self.session
        if not session.store_lock.acquire(
            timeout=0.2
        ):  # a worker reads the store: let the undo find out
            return True
        try:
            assert session.run is not None
            return can_undo(session.store, session.run.run_id, qid, annotator=session.annotator)
        except MemscopeError:
            return True  # the store cannot tell now: let the undo itself find out
        finally:
            session.store_lock.release()

    def clear(self) -> Queued | Notice:
        """Remove the question's label (kept in the history)."""
        refused = self.refusal()
        return refused if refused is not None else self._push(self._op("clear"), ())

    def set_note(self, note: str) -> Queued | Notice:
        """Save ``note`` with the question's current codes."""
        refused = self.refusal()
        if refused is not None:
            return refused
        qid = str(self.session.qid)
        base = self._base(qid)
        if not base:
            return Notice(
                "Pick a failure code first (its key, or l for the list); the note goes with the label."
            )
        return self._push(self._op("note", note=note or None), base)

    def restore_pending(self) -> Notice | None:
        """Queue the changes a previous app left in the journal (the store was busy then);
        a Notice saying so when there were any (then the writer must run)."""
        journal = self.queue.journal
        if journal is None:
            return None
        try:
            rejected = journal.quarantine()
            ops = journal.pending()
        except OSError as error:
            return Notice(
                f"The pending-label journal {journal.path} cannot be read: {error.strerror or error}",
                title="Pending labels",
                severity="warning",
            )
        for op in ops:
            self.queue.push(op, journalled=True)
        lines = []
        if ops:
            lines.append(
                f"{len(ops)} label change(s) from an earlier session were not saved yet; saving them now."
            )
        if rejected:
            where = ", ".join(str(item.line) for item in rejected[:5])
            more = f" and {len(rejected) - 5} more" if len(rejected) > 5 else ""
            lines.append(
                f"{len(rejected)} bad line(s) of {journal.path} (line {where}{more}: "
                f"{rejected[0].reason}) were set aside in {journal.rejected_path}."
            )
        if not lines:
            return None
        return Notice(
            "\n".join(lines),
            title="Pending labels",
            severity="warning" if rejected else "information",
        )

    # -- the writer (worker thread) ----------------------------------------------------------

    def write_pending(self, post: Callable[[LabelEvent], object]) -> None:
        """Write every queued op in order, reporting each through ``post`` (worker thread)."""
        self.queue.write_pending(self.session.store, post, self.session.store_lock)

    # -- results (app thread) ----------------------------------------------------------------

    def waiting(self, event: LabelsWaiting) -> Notice:
        """The store is busy: the changes stay queued and are retried (never dropped)."""
        return Notice(
            f"{event.count} label change(s) wait for the store: {event.error.message}\n"
            "They are kept and saved as soon as the store is free.",
            title="Labels pending",
            severity="warning",
        )

    def saved(self, event: LabelSaved) -> Notice | None:
        """The store committed an op: adopt its current label; a Notice when the label is
        not what this app asked for (another process changed it meanwhile)."""
        self.queue.done(event.qid)
        if event.action in VERDICT_ACTIONS:
            self._verdict_saved(event)
            return None
        self.changed.setdefault(event.run_id, set()).add(event.qid)
        run = self.session.run
        if run is None or run.run_id != event.run_id:
            return None
        if event.label is None:
            run.labels.pop(event.qid, None)
        else:
            run.labels[event.qid] = event.label
        codes = tuple(label_codes(event.label))
        run.set_label(event.qid, codes)
        if self.queue.busy(event.qid):
            return None
        requested = self.requested.pop(event.qid, UNKNOWN)
        if requested is UNKNOWN or set(requested) == set(codes):
            return None
        now = ", ".join(codes) if codes else "no label"
        return Notice(
            f"{event.qid} was changed elsewhere meanwhile (another memscope process); "
            f"your change was applied to that label, which is now: {now}.",
            title="Label changed elsewhere",
            severity="warning",
        )

    def _verdict_saved(self, event: LabelSaved) -> None:
        """Adopt the verdict the store holds now (another process may have changed it)."""
        self.verdicts_changed.setdefault(event.run_id, set()).add(event.qid)
        run = self.session.run
        if run is None or run.run_id != event.run_id:
            return
        if event.verdict is None:
            run.verdicts.pop(event.qid, None)
        else:
            run.verdicts[event.qid] = event.verdict
        if not self.queue.busy(event.qid):
            self.requested_verdicts.pop(event.qid, None)

    def failed_op(self, event: LabelFailed) -> Notice:
        """An op could not be written: nothing of it was saved."""
        self.queue.done(event.qid)
        self.requested.pop(event.qid, None)
        self.requested_verdicts.pop(event.qid, None)
        self.failed.add(event.qid)
        return Notice(
            f"{event.qid}: the label was NOT saved: {event.error.message}",
            title="Label not saved",
            severity="error",
        )
