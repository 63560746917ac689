"""Loading a run for triage: ingest what is new, load the run(s) into memory, and read the
suggestions, labels and remembered queue position that go with them.

The app's session service (``memscope.triage.session_service``) calls :func:`open_session`
in a worker for what the queue needs, then
:func:`load_evidence` and :func:`load_suggestions` in the background; afterwards it works
from memory and touches the store only in short connections (labels, the remembered
position), so other memscope processes can use the store meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from memscope.triage.candidate_rows import ChannelIndex
from memscope.triage.round_index import RoundIndex
from memscope.usecases.labels.events import CurrentLabel
from memscope.usecases.labels.queue import QueueSpec, TriageTable
from memscope.usecases.labels.sample import SamplePlan
from memscope.usecases.runs import session_io
from memscope.usecases.runs.ingest import effective_k
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.session_io import AppState
from memscope.usecases.runs.store_access import Store
from memscope.usecases.suggest.changes import load_suggestions
from memscope.usecases.suggest.rules import Suggestion

Progress = Callable[[str], None]


@dataclass
class LoadedRun:
    """One run (or two, compared) loaded for triage, with everything the screens show."""

    store: Store
    data: RunData
    rounds: RoundIndex
    channels: ChannelIndex
    table: TriageTable
    annotator: str
    suggestions: dict[str, Suggestion] = field(default_factory=dict)
    labels: dict[str, CurrentLabel] = field(default_factory=dict)
    other: RunData | None = None
    saved: AppState | None = None
    notes: list[str] = field(default_factory=list)
    """Things the user should know (e.g. label support missing), shown once."""
    suggestions_ready: bool = True
    """False while the suggestions are still being loaded in the background."""
    evidence_ready: bool = True
    """False while the retrieval evidence is still being loaded in the background."""
    sample: SamplePlan | None = None
    """The run's stored sample plan, None without one."""
    verdicts: dict[str, str] = field(default_factory=dict)
    """qid -> the annotator's verdict on the answer as stored (correct, wrong, unsure)."""
    _other_rows: dict[int, int] | None = field(default=None, repr=False)

    @property
    def run_id(self) -> str:
        """The run being triaged."""
        return str(self.data.run.run_id)

    @property
    def other_run_id(self) -> str | None:
        """The compared run, if any."""
        return str(self.other.run.run_id) if self.other is not None else None

    @property
    def k(self) -> int:
        """The run's cut-off K (its top_k, else 10)."""
        return effective_k(self.data.run, None)

    def other_row(self, row: int) -> int | None:
        """The compared run's row holding the question at ``row`` (None: not in the other run)."""
        if self.other is None:
            return None
        if self._other_rows is None:
            from memscope.usecases.compare.pairs import match_questions

            rows, other_rows = match_questions(
                self.data.questions.column("question_key").to_pylist(),
                self.other.questions.column("question_key").to_pylist(),
            )
            self._other_rows = dict(zip(rows.tolist(), other_rows.tolist(), strict=True))
        return self._other_rows.get(row)


@dataclass(frozen=True)
class DirRuns:
    """The runs at or below a directory the user opened."""

    path: str
    run_ids: list[str]
    notes: list[str]
    """Runs below it that could not be read, one line each."""


def load_evidence(store: Store, data: RunData) -> ChannelIndex:
    """Complete ``data`` (from :func:`load_questions` or a session opened without
    evidence) with its retrieval evidence and its questions' answers, options and
    rotations, in place; return the per-channel scores of its retrieved rounds, with
    whether ``memscope recompute`` can fill the scores it did not log."""
    read = session_io.read_evidence(store, data)
    return ChannelIndex(read.channels, read.recompute_hint)


def load_rounds(store: Store, dataset_id: str) -> RoundIndex:
    """The dataset's rounds, indexed by round id."""
    return RoundIndex(session_io.read_rounds(store, dataset_id))


def open_session(
    store: Store,
    run_ids: list[str],
    annotator: str,
    progress: Progress | None = None,
    *,
    with_suggestions: bool = True,
    with_evidence: bool = True,
    sample_for: str = "failures",
) -> LoadedRun:
    """Load ``run_ids[0]`` (and the answers of ``run_ids[1]`` to compare) for triage.

    The app passes False for both flags and completes the session in the background
    (:func:`load_evidence`, :func:`load_suggestions`): on a large run those take longer
    than everything else together, and the queue does not need them. ``sample_for="verdicts"``
    makes the sampled queue the run's verdict sample (``memscope sample RUN --for verdicts``)
    instead of its failure sample.

    Raises:
        MemscopeError: the run cannot be loaded.
    """
    say = progress or (lambda _text: None)
    run_id = run_ids[0]
    say(f"Loading run {run_id} …")
    # Without the evidence, the queue needs no answer texts, options or rotations either:
    # they come with load_evidence.
    start = session_io.read_session_start(store, run_ids, annotator, detail=with_evidence)
    data, other, saved, sample = start.data, start.other, start.saved, start.sample
    rounds = RoundIndex(start.rounds)
    channels = load_evidence(store, data) if with_evidence else ChannelIndex(None)
    notes: list[str] = []
    suggestions = load_suggestions(store, data, notes, say) if with_suggestions else {}
    labels = _labels(store, run_id, annotator, notes)
    table = TriageTable(
        data, suggestions, {qid: label_codes(label) for qid, label in labels.items()}, other
    )
    session = LoadedRun(
        store, data, rounds, channels, table, annotator, suggestions, labels, other, saved, notes
    )
    session.verdicts = _verdicts(store, run_id, annotator)
    if sample_for == "verdicts":
        from memscope.usecases.labels.verdict_sample import verdict_sample_plan

        sample = verdict_sample_plan(store, run_id)
    if sample is not None:
        table.set_sample_order(sample.qids, with_passes=sample.purpose == "verdicts")
        session.sample = sample
    session.suggestions_ready = with_suggestions
    session.evidence_ready = with_evidence
    return session


def label_codes(label: CurrentLabel | None) -> list[str]:
    """The codes of a current label (empty when cleared)."""
    return list(label.codes) if label is not None else []


def _labels(store: Store, run_id: str, annotator: str, notes: list[str]) -> dict[str, CurrentLabel]:
    from memscope.usecases.labels import events as labels

    return dict(labels.current_labels(store, run_id, annotator=annotator))


def _verdicts(store: Store, run_id: str, annotator: str) -> dict[str, str]:
    from memscope.usecases.labels.verdicts import current_verdicts

    current = current_verdicts(store, run_id, annotator=annotator)
    return {qid: verdict.verdict for qid, verdict in current.items()}


def save_position(
    store: Store,
    session: LoadedRun,
    qid: str | None,
    spec: QueueSpec,
    view: dict[str, float | str],
) -> None:
    """Remember where the annotator is in this run's queue."""
    state = AppState(session.run_id, session.annotator, qid, spec.to_json(), view)
    session_io.save_position(store, state)


def mark_opened(store: Store, run_id: str) -> None:
    """Make ``run_id`` the store's default run (``memscope report`` without a run)."""
    session_io.mark_opened(store, run_id)
