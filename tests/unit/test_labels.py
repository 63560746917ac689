"""Labels: append-only events, the derived current label, undo, durability, the taxonomy,
export round-trips through DuckDB, and Cohen's kappa on known tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.analysis.agreement import (
    cohen_kappa,
    confusion_matrix,
    kappa_from_matrix,
    presence_kappas,
)
from memscope.config import load_config
from memscope.errors import ConfigError, InputError, NotFoundError
from memscope.store import Store
from memscope.taxonomy import load_taxonomy
from memscope.usecases.labels import export as export_module
from memscope.usecases.labels.events import (
    accept_suggestion,
    agreement,
    clear_label,
    current_labels,
    label_history,
    record_label,
    undo_label,
)
from memscope.usecases.labels.export import export_labels, label_table
from memscope.usecases.runs.ingest import ingest_dir

SESSIONS = {"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]}


def make_run(tmp_path: Path, *, judge_q1: float = 0.0) -> Path:
    data = dialog(
        SESSIONS,
        [
            qa(
                f"Question number {i}?",
                "gold",
                [["X1" if i % 2 else "X2"], ["Y1"]],
                ["D1:1"],
                ["D1"],
            )
            for i in range(1, 13)
        ],
    )
    rows = [
        open_row(i, data, judge=judge_q1 if i == 1 else 0.0, seed=["D2:1", "D1:1"])
        for i in range(1, 13)
    ]
    return write_run(tmp_path / "runs" / "labelled", data, rows, top_k=1)


@pytest.fixture
def run_id(tmp_path: Path, store: Store) -> str:
    return ingest_dir(store, make_run(tmp_path), ReadOptions()).run_id


def test_history_current_and_undo(store: Store, run_id: str) -> None:
    first = record_label(
        store,
        run_id,
        "q1",
        codes=["ret-miss", "SEL-NOISE"],
        note="clue at rank 2",
        annotator="alice",
        params={"alpha": 0.7, "lambda": 0.02, "k": 1},
    )
    assert (
        first.codes == ("RET-MISS", "SEL-NOISE")
        and first.primary == "RET-MISS"
        and first.supersedes is None
    )
    second = record_label(
        store, run_id, "q1", codes=["SEL-NOISE", "RET-MISS"], primary="RET-MISS", annotator="alice"
    )
    assert second.supersedes == first.event_id
    current = current_labels(store, run_id, annotator="alice")["q1"]
    assert current.codes == ("SEL-NOISE", "RET-MISS") and current.primary == "RET-MISS"
    assert current.first_labelled_at == first.created_at and current.event_id == second.event_id
    undone = undo_label(store, run_id, "q1", annotator="alice")
    assert undone.action == "undo" and undone.supersedes == second.event_id
    restored = current_labels(store, run_id, annotator="alice")["q1"]
    assert restored.event_id == first.event_id and restored.note == "clue at rank 2"
    assert restored.params == {"alpha": 0.7, "lambda": 0.02, "k": 1}
    cleared = clear_label(store, run_id, "q1", annotator="alice")
    assert cleared.supersedes == first.event_id
    assert "q1" not in current_labels(store, run_id, annotator="alice")
    undo_label(store, run_id, "q1", annotator="alice")  # undo the clear
    assert current_labels(store, run_id)["q1"].event_id == first.event_id
    undo_label(store, run_id, "q1", annotator="alice")
    assert current_labels(store, run_id) == {}
    assert undo_label(store, run_id, "q1", annotator="alice") is None  # nothing left to undo
    history = label_history(store, run_id, "q1")
    assert [event.action for event in history] == ["set", "set", "undo", "clear", "undo", "undo"]
    assert all(event.taxonomy_version == load_taxonomy().version for event in history)
    assert history[0].question_key and history[0].run_hash


def test_annotators_are_separate(store: Store, run_id: str) -> None:
    record_label(store, run_id, "q2", codes=["RET-MISS"], annotator="alice")
    record_label(store, run_id, "q2", codes=["USE-EVID"], annotator="bob")
    assert undo_label(store, run_id, "q2", annotator="carol") is None
    undo_label(store, run_id, "q2", annotator="bob")
    assert current_labels(store, run_id, annotator="alice")["q2"].codes == ("RET-MISS",)
    assert current_labels(store, run_id, annotator="bob") == {}
    # Without an annotator: the latest current label of anyone.
    record_label(store, run_id, "q2", codes=["EVAL-GOLD"], annotator="bob")
    assert current_labels(store, run_id)["q2"].annotator == "bob"


def test_default_annotator_comes_from_the_config(
    store: Store, run_id: str, isolated_env: Path
) -> None:
    (isolated_env / "config.toml").write_text('[user]\nannotator = "dana"\n')
    assert record_label(store, run_id, "q3", codes=["RET-MISS"]).annotator == "dana"
    assert load_config().annotator == "dana"


def test_bad_labels(store: Store, run_id: str) -> None:
    with pytest.raises(NotFoundError, match="unknown failure code 'RET-MIS'") as caught:
        record_label(store, run_id, "q1", codes=["RET-MIS"])
    assert "Valid codes: ENC-TEXT" in str(caught.value) and "Did you mean RET-MISS" in str(
        caught.value
    )
    with pytest.raises(NotFoundError, match="no question 'q13' in run") as caught:
        record_label(store, run_id, "q13", codes=["RET-MISS"])
    assert "Did you mean q12, q11, q10?" in str(caught.value)
    with pytest.raises(NotFoundError, match="no run 'nope'"):
        record_label(store, "nope", "q1", codes=["RET-MISS"])
    with pytest.raises(InputError, match="primary code USE-EVID is not among"):
        record_label(store, run_id, "q1", codes=["RET-MISS"], primary="USE-EVID")
    with pytest.raises(InputError, match="at least one failure code"):
        record_label(store, run_id, "q1", codes=[])
    with pytest.raises(InputError, match="unknown label source"):
        record_label(store, run_id, "q1", codes=["RET-MISS"], source="robot")
    assert label_history(store, run_id) == []


def test_accept_suggestion(store: Store, run_id: str) -> None:
    event = accept_suggestion(store, run_id, "q1", annotator="alice")
    # q1: the only gold clue D1:1 is at rank 2 with K = 1.
    # Accepting is the annotator's decision; the rule and its numbers are kept apart.
    assert event.codes == ("RET-MISS",) and event.source == "human"
    assert event.params["accepted_from"] == "no-clue-in-top-k"
    assert event.params["suggestion"]["code"] == "RET-MISS"
    assert "numbers" in event.params["suggestion"]


def test_accept_without_a_suggestion(tmp_path: Path, store: Store) -> None:
    run = ingest_dir(store, make_run(tmp_path, judge_q1=1.0), ReadOptions()).run_id
    with pytest.raises(NotFoundError, match="no suggestion for q1"):
        accept_suggestion(store, run, "q1")


def test_labels_survive_reingest(tmp_path: Path, store: Store) -> None:
    run_dir = make_run(tmp_path)
    run = ingest_dir(store, run_dir, ReadOptions()).run_id
    record_label(store, run, "q4", codes=["USE-EVID"], annotator="alice")
    lines = (run_dir / "predictions.jsonl").read_text().splitlines()
    changed = json.loads(lines[0]) | {"judge": 0.25}
    (run_dir / "predictions.jsonl").write_text("\n".join([json.dumps(changed), *lines[1:]]) + "\n")
    outcome = ingest_dir(store, run_dir, ReadOptions())
    assert outcome.status == "replaced" and outcome.run_id == run
    label = current_labels(store, run)["q4"]
    assert label.codes == ("USE-EVID",)


def test_a_burst_of_labels_follows_the_runs_current_questions(tmp_path: Path, store: Store) -> None:
    """From the second label of a run on, question facts come from one cached join; a
    re-ingested run (new hash) must not be served stale facts."""
    run_dir = make_run(tmp_path)
    run = ingest_dir(store, run_dir, ReadOptions()).run_id
    events = [
        record_label(store, run, f"q{i}", codes=["RET-MISS"], annotator="alice")
        for i in range(1, 13)
    ]
    with store.read() as con:
        keys = dict(con.execute("SELECT qid, question_key FROM questions").fetchall())
    assert [event.question_key for event in events] == [keys[f"q{i}"] for i in range(1, 13)]
    with pytest.raises(NotFoundError, match="no question 'q13' in run") as caught:
        record_label(store, run, "q13", codes=["RET-MISS"], annotator="alice")
    assert "Did you mean q12" in str(caught.value)
    # Drop q12 from the run: its hash changes, so q12 is no longer labellable.
    lines = (run_dir / "predictions.jsonl").read_text().splitlines()
    (run_dir / "predictions.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    assert ingest_dir(store, run_dir, ReadOptions()).status == "replaced"
    record_label(store, run, "q11", codes=["USE-EVID"], annotator="alice")
    with pytest.raises(NotFoundError, match="no question 'q12' in run"):
        record_label(store, run, "q12", codes=["RET-MISS"], annotator="alice")


def test_labels_are_committed_before_returning(tmp_path: Path, store: Store, run_id: str) -> None:
    # The process is killed (no clean exit, no atexit) right after record_label returns.
    script = (
        "import os, signal\n"
        "from memscope.store import Store\n"
        "from memscope.usecases.labels.events import record_label\n"
        f"record_label(Store({str(store.path)!r}), {run_id!r}, 'q5', codes=['RET-PART'], annotator='kim')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == -9, done.stderr
    assert current_labels(store, run_id)["q5"].codes == ("RET-PART",)


def test_taxonomy_defaults_and_extra_codes(isolated_env: Path) -> None:
    taxonomy = load_taxonomy()
    assert len(taxonomy.codes) == 15 and taxonomy.names[0] == "ENC-TEXT"
    keyed = {str(k): taxonomy.by_key(str(k)).code for k in range(1, 10)}
    assert keyed == {
        "1": "ENC-TEXT",
        "2": "ENC-PERC",
        "3": "RET-MISS",
        "4": "RET-PART",
        "5": "RET-LATEST",
        "6": "SEL-STALE",
        "7": "SEL-CTX",
        "8": "USE-EVID",
        "9": "USE-STATE",
    }
    assert taxonomy.get("sel-stale").stage == "select" and taxonomy.by_key("0") is None
    config = isolated_env / "config.toml"
    config.write_text(
        '[[taxonomy.codes]]\ncode = "ENC-OCR"\nname = "OCR miss"\nstage = "encode"\nkey = "0"\n'
    )
    extended = load_taxonomy()
    assert extended.by_key("0").code == "ENC-OCR" and extended.get("ENC-OCR").extra
    assert extended.version.startswith(taxonomy.version + "+")
    config.write_text('[[taxonomy.codes]]\ncode = "X-1"\nname = "x"\nstage = "encode"\nkey = "3"\n')
    with pytest.raises(ConfigError, match="key '3' is already bound to RET-MISS"):
        load_taxonomy()
    config.write_text('[[taxonomy.codes]]\ncode = "X-1"\nname = "x"\nstage = "storage"\n')
    with pytest.raises(ConfigError, match="unknown stage 'storage'"):
        load_taxonomy()
    config.write_text('[[taxonomy.codes]]\ncode = "RET-MISS"\nname = "x"\nstage = "retrieve"\n')
    with pytest.raises(ConfigError, match="already exists"):
        load_taxonomy()


def test_extra_code_can_label(store: Store, run_id: str, isolated_env: Path) -> None:
    (isolated_env / "config.toml").write_text(
        '[[taxonomy.codes]]\ncode = "ENC-OCR"\nname = "OCR miss"\nstage = "encode"\n'
    )
    event = record_label(store, run_id, "q1", codes=["enc-ocr"], annotator="alice")
    assert event.codes == ("ENC-OCR",) and "+" in event.taxonomy_version


# --- export -----------------------------------------------------------------------------


def labelled(store: Store, run_id: str) -> None:
    record_label(
        store,
        run_id,
        "q1",
        codes=["RET-MISS", "SEL-NOISE"],
        note='a "quoted", note',
        annotator="alice",
        params={"alpha": 0.7, "lambda": 0.02, "k": 1},
    )
    record_label(store, run_id, "q2", codes=["USE-EVID"], annotator="alice")
    record_label(store, run_id, "q2", codes=["RET-MISS"], annotator="bob")
    undo_label(store, run_id, "q2", annotator="alice")


def read_back(store: Store, path: Path, fmt: str) -> list[dict]:
    reader = {"jsonl": "read_json", "csv": "read_csv", "parquet": "read_parquet"}[fmt]
    with store.read() as con:
        result = con.execute(f"SELECT * FROM {reader}(?)", [str(path)])
        names = [d[0] for d in result.description]
        return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_export_round_trip(store: Store, run_id: str, tmp_path: Path, fmt: str) -> None:
    labelled(store, run_id)
    expected = label_table(store, run_id).to_pylist()
    out = tmp_path / f"labels.{fmt}"
    result = export_labels(store, run_id, fmt=fmt, out=out)
    assert result.rows == 2 and out.is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".memscope-export-")]
    loaded = read_back(store, out, fmt)
    assert [row["qid"] for row in loaded] == [row["qid"] for row in expected] == ["q1", "q2"]
    for got, want in zip(loaded, expected, strict=True):
        assert set(got) == set(want)
        for name, value in want.items():
            if name == "codes" and fmt == "csv":
                assert got[name] == ";".join(value)
            elif name == "params":
                assert (json.loads(got[name]) if isinstance(got[name], str) else got[name]) == (
                    json.loads(value) if value else None
                )
            else:
                assert got[name] == value, (fmt, name)


def test_export_history_summary_and_suggestions(store: Store, run_id: str, tmp_path: Path) -> None:
    labelled(store, run_id)
    history = json_lines(export_labels(store, run_id, fmt="jsonl", history=True).content)
    assert [row["action"] for row in history] == ["set", "set", "set", "undo"]
    assert history[3]["supersedes"] == history[1]["event_id"]
    summary = json_lines(export_labels(store, run_id, fmt="jsonl", summary=True).content)
    assert {
        (row["annotator"], row["cell"], row["code"], row["n"], row["n_primary"]) for row in summary
    } == {
        ("alice", "X1_Y1", "RET-MISS", 1, 1),
        ("alice", "X1_Y1", "SEL-NOISE", 1, 0),
        ("bob", "X2_Y1", "RET-MISS", 1, 1),
    }
    from memscope.usecases.suggest.rules import suggest_run

    suggest_run(store, run_id)
    rows = json_lines(export_labels(store, run_id, fmt="jsonl", include_suggestions=True).content)
    by_qid = {
        row["qid"]: row for row in rows if row["annotator"] == "alice" or row["annotator"] is None
    }
    assert (
        by_qid["q1"]["suggested_code"] == "RET-MISS"
        and by_qid["q1"]["suggested_rule"] == "no-clue-in-top-k"
    )
    assert by_qid["q1"]["suggestion_numbers"]["k"] == 1
    unlabelled = [row for row in rows if row["annotator"] is None]
    assert len(unlabelled) == 10 and all(
        row["source"] == "rule" and row["codes"] is None for row in unlabelled
    )


def json_lines(content: bytes | None) -> list[dict]:
    assert content is not None
    return [json.loads(line) for line in content.decode().splitlines() if line.strip()]


def test_failed_export_leaves_nothing(
    store: Store, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labelled(store, run_id)
    out = tmp_path / "labels.csv"

    def broken(con, table, path, fmt, json_columns=()):
        Path(path).write_text("half a fi")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("memscope.store.labels.copy_to_file", broken)
    with pytest.raises(Exception, match="No space left"):
        export_labels(store, run_id, fmt="csv", out=out)
    assert list(tmp_path.glob("labels.csv")) == [] and not list(tmp_path.glob(".memscope-export-*"))


def test_parquet_needs_a_file(store: Store, run_id: str) -> None:
    with pytest.raises(InputError, match="parquet is binary"):
        export_labels(store, run_id, fmt="parquet")
    assert export_module.FORMATS == ("jsonl", "csv", "parquet")


# --- agreement --------------------------------------------------------------------------


def test_kappa_on_a_textbook_two_by_two() -> None:
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa 0.4.
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    kappa = cohen_kappa(first, second)
    assert (
        kappa.kappa == pytest.approx(0.4)
        and kappa.observed == pytest.approx(0.7)
        and kappa.expected == pytest.approx(0.5)
    )


def test_kappa_on_a_three_by_three_table() -> None:
    # rows = first annotator; p_o = 30/40 = 0.75; row sums 15, 10, 15; column sums 13, 11, 16;
    # p_e = (15*13 + 10*11 + 15*16) / 1600 = 545 / 1600; kappa = (0.75 - 0.340625) / 0.659375 = 0.620853.
    table = [[10, 2, 3], [1, 8, 1], [2, 1, 12]]
    first, second = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            first += ["ABC"[i]] * count
            second += ["ABC"[j]] * count
    categories, matrix = confusion_matrix(first, second)
    assert categories == ["A", "B", "C"] and matrix.tolist() == table
    assert kappa_from_matrix(matrix).kappa == pytest.approx(0.409375 / 0.659375)


def test_kappa_edge_cases() -> None:
    assert cohen_kappa(["a", "a"], ["a", "a"]).kappa is None  # p_e = 1: undefined
    assert cohen_kappa(["a", "b"], ["a", "b"]).kappa == pytest.approx(1.0)
    # X: first yes/yes, second yes/no -> p_o 0.5, p_e 0.5, kappa 0; Y: no/yes both -> kappa 1.
    per_code = presence_kappas([("X",), ("X", "Y")], [("X",), ("Y",)], ["X", "Y"])
    assert per_code["X"].kappa == pytest.approx(0.0) and per_code["Y"].kappa == pytest.approx(1.0)
    assert presence_kappas([("X",), ("X",)], [("X",), ("X",)], ["X"])["X"].kappa is None


def test_agreement_between_annotators(store: Store, run_id: str) -> None:
    plan = {  # qid: (alice, bob)
        "q1": ("RET-MISS", "RET-MISS"),
        "q2": ("RET-MISS", "USE-EVID"),
        "q3": ("USE-EVID", "USE-EVID"),
        "q4": ("USE-EVID", "USE-EVID"),
        "q5": ("RET-MISS", "RET-MISS"),
    }
    for qid, (a, b) in plan.items():
        record_label(store, run_id, qid, codes=[a], annotator="alice")
        record_label(store, run_id, qid, codes=[b], annotator="bob")
    record_label(store, run_id, "q6", codes=["RET-MISS"], annotator="alice")
    result = agreement(store, run_id, "alice", "bob")
    # 2x2: alice RET 3 / USE 2; bob RET 2 / USE 3; agree 4 of 5: p_o 0.8, p_e 0.6*0.4 + 0.4*0.6 = 0.48.
    assert result["n"] == 5 and result["only_first"] == 1 and result["only_second"] == 0
    assert result["primary"]["kappa"] == pytest.approx((0.8 - 0.48) / 0.52)
    assert set(result["per_code"]) == {"RET-MISS", "USE-EVID"}
    with pytest.raises(NotFoundError, match="annotator 'zoe' has no labels"):
        agreement(store, run_id, "alice", "zoe")
