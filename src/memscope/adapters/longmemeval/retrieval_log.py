"""LongMemEval's run writer (``Benchmark.run_writer``): the memory engine's rankings as the
retrieval logs upstream's ``src/retrieval/run_retrieval.py`` writes (docs/formats.md
§LongMemEval, upstream commit ``9e0b455``).

``memscope retrieve longmemeval_s.json --method srag_t --out DIR`` ranks, for each question,
every round of its own haystack with the engine's text model (MiniLM by default) and writes
two logs, as ``run_retrieval.sh`` lays them out:

    DIR/retrieval_logs/<retriever>/turn/<dataset file>_retrievallog_turn_<retriever>
    DIR/retrieval_logs/<retriever>/session/<dataset file>_retrievallog_session_<retriever>

``<retriever>`` is ``memscope-<text model>`` (``memscope-<method>-<text model>`` for the
engine's other methods). Each is a JSON line per question: the dataset entry's fields, as
written, plus ``retrieval_results: {query, ranked_items: [{corpus_id, text, timestamp}],
metrics: {session: {...}, turn: {...}}}`` over upstream's own corpus:

- **turn**: every user turn of the haystack, id ``<session id>_<n>`` (n its 1-based
  position among the session's turns; ``answer`` renamed ``noans`` for a turn without
  evidence in an evidence session), text the turn's content; a turn is ranked where the
  engine ranked its round (the user turn and the assistant's reply: the engine's corpus
  unit). ``metrics.turn`` and ``metrics.session`` (upstream's turn-to-session scoring);
- **session**: every session of the haystack, id as upstream names it, text its user turns
  joined by a space; a session is ranked by its best round (the highest-ranked of its
  rounds). ``metrics.session`` only, ``metrics.turn`` empty, as upstream.

The whole corpus is ranked (the writer asks the engine for every round of the history,
``whole_history``), so the metrics are exactly upstream's ``evaluate_retrieval`` /
``evaluate_retrieval_turn2session`` (``upstream.retrieval_metrics``) at k in 1 … 50.

The logs are written one question at a time while the dataset file is read again entry by
entry (never held whole; each question's stored haystack comes with its retrieval) and checked against the hash the engine read; they appear under
their names only when the run completes (nothing half-written). They are no run by
themselves: upstream's ``run_generation.py`` answers over them, and memscope reads them
with that run (``run.locate_log``), or with ``--lme-retrieval-log``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from memscope.adapters.longmemeval.stream import iter_json_list
from memscope.adapters.longmemeval.upstream import corpus_ids, retrieval_metrics
from memscope.plugin import (
    EngineError,
    EngineRetrieval,
    EngineRetriever,
    EngineRunPlan,
    not_regular,
)

PREFIX = "memscope"
GRANULARITIES = ("turn", "session")
ENTRY_FIELDS = (
    "question_id",
    "question_type",
    "question",
    "answer",
    "question_date",
    "haystack_dates",
    "haystack_sessions",
    "haystack_session_ids",
    "answer_session_ids",
)
"""The dataset fields run_retrieval.py copies into each log line, in its order."""
UNSAFE = re.compile(r"[^A-Za-z0-9.+-]+")


def retriever_name(retriever: EngineRetriever) -> str:
    """``memscope-all-MiniLM-L6-v2`` for SRAG(T) with the packaged MiniLM."""
    label = UNSAFE.sub("-", retriever.text_model_label).strip("-") or "text-model"
    method = "" if retriever.method == "srag_t" else f"{retriever.method}-"
    return f"{PREFIX}-{method}{label}"


def log_path(out_dir: Path, dataset_file: str, retriever: str, granularity: str) -> Path:
    """Where run_retrieval.sh puts a log (under ``out_dir`` for its ``home_dir``)."""
    name = f"{dataset_file}_retrievallog_{granularity}_{retriever}"
    return out_dir / "retrieval_logs" / retriever / granularity / name


def check_out(out_dir: Path, *, overwrite: bool) -> None:
    """Refuse an ``--out`` that is not a folder (``RunWriter.check``, before any retrieval);
    the logs themselves are checked when the run opens (their names depend on the retriever)."""
    del overwrite
    kind = not_regular(out_dir)
    if (out_dir.exists() and not out_dir.is_dir()) or (kind is not None and kind != "a folder"):
        raise EngineError(
            f"--out is {kind or 'a file'}, not a folder",
            where=str(out_dir),
            fix="Name a folder for the retrieval logs (it is created).",
        )


def rank_turns(
    entry: dict[str, Any], haystack: list[str], ranks: dict[str, int]
) -> list[dict[str, Any]]:
    """The entry's turn corpus (upstream's ids, texts and dates) in the engine's order;
    ``haystack`` the stored session ids, position by position, ``ranks`` round id -> rank."""
    items: list[tuple[float, int, dict[str, Any]]] = []
    for sid, stored, date, turns in zip(
        entry["haystack_session_ids"],
        haystack,
        entry["haystack_dates"],
        entry["haystack_sessions"],
        strict=True,
    ):
        users = [(n, t) for n, t in enumerate(turns, start=1) if t.get("role") == "user"]
        for (n, turn), cid in zip(users, corpus_ids(str(sid), turns, "turn"), strict=True):
            rank = ranks.get(f"{stored}_{n}", float("inf"))
            item = {"corpus_id": cid, "text": turn["content"], "timestamp": date}
            items.append((rank, len(items), item))
    return [item for _rank, _order, item in sorted(items, key=lambda found: found[:2])]


def rank_sessions(
    entry: dict[str, Any], haystack: list[str], ranks: dict[str, int]
) -> list[dict[str, Any]]:
    """The entry's session corpus in the engine's order: a session where its best round is."""
    best: dict[str, int] = {}
    for round_id, rank in ranks.items():
        session = round_id.rpartition("_")[0]
        best[session] = min(rank, best.get(session, rank))
    items: list[tuple[float, int, dict[str, Any]]] = []
    for sid, stored, date, turns in zip(
        entry["haystack_session_ids"],
        haystack,
        entry["haystack_dates"],
        entry["haystack_sessions"],
        strict=True,
    ):
        (cid,) = corpus_ids(str(sid), turns, "session")
        text = " ".join(t["content"] for t in turns if t.get("role") == "user")
        item = {"corpus_id": cid, "text": text, "timestamp": date}
        items.append((best.get(stored, float("inf")), len(items), item))
    return [item for _rank, _order, item in sorted(items, key=lambda found: found[:2])]


def log_line(
    entry: dict[str, Any], granularity: str, ranked_items: list[dict[str, Any]]
) -> dict[str, Any]:
    """One line of a log: the entry's fields and ``retrieval_results``."""
    ranked = [str(item["corpus_id"]) for item in ranked_items]
    line = {name: entry.get(name) for name in ENTRY_FIELDS}
    line["retrieval_results"] = {
        "query": entry["question"],
        "ranked_items": ranked_items,
        "metrics": retrieval_metrics(ranked, granularity),
    }
    return line


class RetrievalLogSink:
    """The two retrieval logs being written (``RunSink``)."""

    def __init__(self, plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> None:
        if not plan.source_path or not Path(plan.source_path).is_file():
            raise EngineError(
                "cannot write the retrieval logs: the dataset file is not known or gone",
                where=plan.source_path or plan.dataset_id,
                fix="Pass the dataset file (longmemeval_s.json …) itself.",
            )
        check_out(out_dir, overwrite=overwrite)
        self.source = Path(plan.source_path)
        self.expected_hash = plan.content_hash
        self.retriever = retriever_name(plan.retriever)
        self.root = out_dir / "retrieval_logs" / self.retriever
        self.paths = {
            g: log_path(out_dir, self.source.name, self.retriever, g) for g in GRANULARITIES
        }
        for path in self.paths.values():
            if path.is_symlink() or (path.exists() and not path.is_file()):
                raise EngineError(
                    "a retrieval log's place holds something that is not a regular file",
                    where=str(path),
                    fix="Choose another --out folder.",
                )
            if path.exists() and not overwrite:
                raise EngineError(
                    "the output folder already holds this retrieval log",
                    where=str(path),
                    fix="Choose another --out folder, or pass --overwrite to replace it.",
                )
        self.digest = hashlib.sha256()
        self.entries: Iterator[Any] = iter_json_list(
            self.source, what="dataset", digest=self.digest
        )
        try:
            for path in self.paths.values():
                path.parent.mkdir(parents=True, exist_ok=True)
            self.handles = {
                g: path.with_name(path.name + ".tmp").open("w", encoding="utf-8")
                for g, path in self.paths.items()
            }
        except OSError as exc:
            raise EngineError(
                f"cannot write the retrieval logs: {exc.strerror or exc}", where=str(out_dir)
            ) from None

    @property
    def path(self) -> Path:
        """The retriever's folder of logs (``retrieval_logs/<retriever>``)."""
        return self.root

    def _entry(self, qid: str) -> dict[str, Any]:
        """The dataset entry of ``qid``, read on from where the last one was found."""
        for entry in self.entries:
            if isinstance(entry, dict) and str(entry.get("question_id")) == qid:
                return entry
        raise EngineError(
            f"question {qid} was not found in the dataset file after the questions before it",
            where=str(self.source),
            fix="The engine retrieves in the file's order; this is a bug, please report it.",
        )

    def add(self, question: EngineRetrieval) -> None:
        """Write the question's line to both logs."""
        entry = self._entry(question.qid)
        # the stored session ids, position by position: a session id written with other
        # content in two haystacks is stored twice (``dataset.py``), and rounds carry it
        haystack = question.history_sessions
        if haystack is None or len(haystack) != len(entry["haystack_session_ids"]):
            raise EngineError(
                f"question {question.qid} came without its own haystack",
                where=str(self.source),
                fix="Pass the dataset file itself (the store's copy may predate it).",
            )
        ranks = {candidate.round_id: candidate.rank for candidate in question.pool}
        ranked = {
            "turn": rank_turns(entry, haystack, ranks),
            "session": rank_sessions(entry, haystack, ranks),
        }
        for granularity, handle in self.handles.items():
            print(json.dumps(log_line(entry, granularity, ranked[granularity])), file=handle)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for handle in self.handles.values():
            handle.close()
        temporary = {g: path.with_name(path.name + ".tmp") for g, path in self.paths.items()}
        try:
            if error is None:
                for _rest in self.entries:  # hash the file to its end
                    pass
                if self.expected_hash and self.digest.hexdigest() != self.expected_hash:
                    raise EngineError(
                        "cannot write the retrieval logs: the dataset file changed while "
                        "they were written",
                        where=str(self.source),
                        fix="Run memscope retrieve again.",
                    )
                for granularity, path in self.paths.items():
                    temporary[granularity].replace(path)
        finally:
            for path in temporary.values():  # an interrupted run leaves nothing behind
                path.unlink(missing_ok=True)


def open_run(plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> RetrievalLogSink:
    """Start the retrieval logs in ``out_dir`` (the spec's run writer).

    Raises:
        EngineError: a log is already there (and not ``overwrite``), the dataset file is
            gone, or ``out_dir`` cannot be written.
    """
    return RetrievalLogSink(plan, out_dir, overwrite=overwrite)
