"""Write the demo label exports of two annotators: fixtures/labels/srag_v_{alice,bob}.*

Each annotator labels, in a store of their own, the sampled queue of runs/srag_v that
`memscope sample runs/srag_v/ --sample-size 10 --seed 7` plans (alice all ten, bob
eight), mostly accepting the rule suggestion and overruling it where the demo's design
says the rule is wrong; then each exports: alice the event history as jsonl, bob the
current labels as csv. The README's "From labels to a paper table" imports both.
Label times are the time this script ran, so the files differ from run to run.

    python scripts/demo/make_label_demo.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

from memscope.adapters import ReadOptions  # noqa: E402
from memscope.store import Store  # noqa: E402
from memscope.usecases.labels.events import record_label  # noqa: E402
from memscope.usecases.labels.export import export_labels  # noqa: E402
from memscope.usecases.labels.sample import failures, open_sample  # noqa: E402
from memscope.usecases.runs.ingest import ingest_dir  # noqa: E402

OUT = REPO / "fixtures" / "labels"
# Where the people overrule the rules (qid -> code), per annotator.
ALICE_OVERRULES = {"q3": "USE-EVID", "q33": "USE-STATE"}
BOB_OVERRULES = {"q3": "USE-EVID", "q8": "USE-EVID", "q33": "USE-EVID"}
BOB_SKIPS = 2  # bob labels the first eight of the ten


def label(folder: Path, who: str, overrules: dict[str, str], skip: int) -> Store:
    """One annotator's store with their labels of the sampled queue."""
    store = Store(folder / f"{who}.duckdb")
    run_id = ingest_dir(store, REPO / "runs" / "srag_v", ReadOptions()).run_id
    plan, _ = open_sample(store, run_id, seed=7, sample_size=10)
    suggested = dict(zip(*(lambda f: (f.qids, f.suggested))(failures(store, run_id)), strict=True))
    planned = [qid for qid in plan.qids if qid in plan.planned]
    for qid in planned[: len(planned) - skip]:
        code = overrules.get(qid, suggested[qid])
        record_label(store, run_id, qid, codes=[code], annotator=who)
    return store


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        alice = label(Path(folder), "alice", ALICE_OVERRULES, 0)
        export_labels(alice, "srag_v", fmt="jsonl", history=True, out=OUT / "srag_v_alice.jsonl")
        bob = label(Path(folder), "bob", BOB_OVERRULES, BOB_SKIPS)
        export_labels(bob, "srag_v", fmt="csv", out=OUT / "srag_v_bob.csv")
    print(f"wrote {OUT / 'srag_v_alice.jsonl'} and {OUT / 'srag_v_bob.csv'}")


if __name__ == "__main__":
    main()
