"""An accepted suggestion is a human label: source human, accepted_from the rule, the view's
parameters in ``params`` and the suggestion's own apart (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

from memscope.store import Store
from memscope.usecases.labels.events import accept_suggestion, record_label
from memscope.usecases.labels.export import export_labels

SRAG_V = Path(__file__).parents[2] / "runs" / "srag_v"


def test_an_accepted_suggestion_exports_as_the_annotators_decision(
    store: Store, ingested_store
) -> None:
    run_id = ingested_store(SRAG_V)[0]
    view = {"alpha": 0.7, "lambda": 0.02, "k": 10}
    accept_suggestion(store, run_id, "q37", annotator="alice", params=view)
    record_label(store, run_id, "q39", codes=["USE-EVID"], annotator="alice", params=view)
    content = export_labels(store, run_id, fmt="jsonl").content
    rows = {row["qid"]: row for row in map(json.loads, content.decode().splitlines())}
    accepted = rows["q37"]
    assert accepted["source"] == "human" and accepted["accepted_from"] == "rank-inversion"
    assert accepted["params"] == view  # the view's, at the moment of labelling
    assert accepted["accepted_suggestion"]["code"] == "SEL-STALE"
    assert accepted["accepted_suggestion"]["numbers"]["stale"] == "D2:2"
    typed = rows["q39"]
    assert typed["accepted_from"] is None and typed["accepted_suggestion"] is None
    csv_text = export_labels(store, run_id, fmt="csv").content.decode()
    assert "accepted_from,accepted_suggestion" in csv_text.splitlines()[0]


def test_a_label_stored_as_source_rule_exports_as_human_too(store: Store, ingested_store) -> None:
    """Stores written before accepting counted as human: the rule moves to accepted_from."""
    run_id = ingested_store(SRAG_V)[0]
    record_label(
        store, run_id, "q37", codes=["SEL-STALE"], source="rule", params={"rule": "rank-inversion"}
    )
    (row,) = map(json.loads, export_labels(store, run_id).content.decode().splitlines())
    assert (row["source"], row["accepted_from"], row["params"]) == ("human", "rank-inversion", None)
