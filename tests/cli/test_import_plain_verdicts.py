"""``memscope import-labels FILE --run RUN``: a plain ``qid,verdict[,note]`` file, as a person
writes one, gives that run's questions those verdicts in one command (issue 41.17).

On the demo run in the repository (no shared data needed); the README's own LoCoMo file is
checked in ``test_readme_locomo``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app
from memscope.store import Store
from memscope.usecases.labels.verdicts import current_verdicts

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture
def ingested(store: Store) -> str:
    result = runner.invoke(app, ["ingest", str(REPO / "runs" / "srag_v")])
    assert result.exit_code == 0, result.output
    return "srag_v"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_plain_verdict_file_imports_once_with_its_run(
    ingested: str, store: Store, tmp_path: Path
) -> None:
    plain = write(
        tmp_path / "verdicts.csv",
        "qid,verdict,note\nq37,wrong,the old place\nq1,correct,\nq8, Unsure ,hard to read\n",
    )
    first = runner.invoke(
        app, ["import-labels", str(plain), "--run", ingested, "--annotator", "alice"]
    )
    assert first.exit_code == 0, first.output
    assert "3 verdict(s) imported as alice, 0 already given" in first.stdout
    given = {
        v.qid: (v.verdict, v.note, v.annotator) for v in current_verdicts(store, ingested).values()
    }
    assert given == {
        "q37": ("wrong", "the old place", "alice"),
        "q1": ("correct", None, "alice"),
        "q8": ("unsure", "hard to read", "alice"),
    }
    again = runner.invoke(
        app, ["import-labels", str(plain), "--run", ingested, "--annotator", "alice", "-f", "json"]
    )
    assert again.exit_code == 0, again.output
    (entry,) = json.loads(again.stdout)["verdict_files"]
    assert (entry["imported"], entry["present"]) == (0, 3)


def test_without_the_run_it_says_to_name_it(ingested: str, tmp_path: Path) -> None:
    plain = write(tmp_path / "verdicts.csv", "qid,verdict\nq37,wrong\n")
    result = runner.invoke(app, ["import-labels", str(plain)])
    assert result.exit_code == 1
    assert "does not say which run it judges" in result.stderr
    assert "--run RUN" in result.stderr and "Traceback" not in result.output
    assert "lacks the column" not in result.stderr


def test_bad_rows_refuse_the_file_naming_each(ingested: str, store: Store, tmp_path: Path) -> None:
    plain = write(
        tmp_path / "verdicts.csv",
        "qid,verdict\nq37,wrong\nq999,correct\nq1,maybe\nq37,correct\n",
    )
    result = runner.invoke(app, ["import-labels", str(plain), "--run", ingested])
    assert result.exit_code == 1
    said = " ".join(result.stderr.split())
    assert "3 bad row(s)" in said and "nothing was imported" in said
    assert "row 3: the run has no question 'q999'" in said
    assert "row 4: unknown verdict 'maybe'" in said
    assert "row 5: q37 is judged twice" in said
    assert current_verdicts(store, ingested) == {}


def test_run_is_only_for_plain_files(ingested: str, tmp_path: Path) -> None:
    export = write(
        tmp_path / "labels.csv",
        "run_id,qid,codes,annotator,labelled_at\nsrag_v,q37,,a,2026-01-01\n",
    )
    result = runner.invoke(app, ["import-labels", str(export), "--run", ingested])
    assert result.exit_code == 1
    assert "is not a plain verdict file" in result.stderr
