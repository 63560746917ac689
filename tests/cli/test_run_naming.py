"""One way to name a run, and no default that silently empties a result (issue 15, part A).

Every command that takes a run takes it as the positional RUN; without one, a command says
on stderr which run it picked, and export-labels exports every run that has labels.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memscope.cli import app

REPO = Path(__file__).parents[2]
SRAG_V = REPO / "runs" / "srag_v"
SRAG_T = REPO / "runs" / "srag_t"
runner = CliRunner()


def ok(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _label_then_compare() -> None:
    """The trap of the issue: label srag_v, then `compare` ingests srag_t (now "last")."""
    ok("ingest", str(SRAG_V))
    ok("label", "srag_v", "-q", "q37", "--code", "SEL-STALE")
    ok("compare", str(SRAG_T), str(SRAG_V))


def test_export_without_a_run_keeps_the_labels_a_compare_would_have_hidden() -> None:
    _label_then_compare()
    exported = ok("export-labels", "--format", "csv")
    _header, *rows = exported.stdout.strip().splitlines()
    assert len(rows) == 1 and rows[0].startswith("srag_v,") and ",q37," in rows[0]
    assert "every run that has labels: srag_v" in exported.stderr


def test_export_without_any_label_says_so() -> None:
    ok("ingest", str(SRAG_V))
    exported = ok("export-labels", "--format", "csv")
    assert exported.stdout.strip().count("\n") == 0  # the header only …
    assert "no run in the store has labels yet" in exported.stderr  # … and it says why


def test_export_names_its_run_positionally_and_takes_json() -> None:
    _label_then_compare()
    lines = ok("export-labels", "srag_v", "--format", "json").stdout.splitlines()
    assert [json.loads(line)["qid"] for line in lines] == ["q37"]
    assert ok("export-labels", "srag_t").stdout == ""  # srag_t has no labels: none, named
    legacy = ok("export-labels", "--run", "srag_v", "-f", "jsonl").stdout
    assert legacy.splitlines() == lines
    clash = runner.invoke(app, ["export-labels", "srag_v", "--run", "srag_t"])
    assert clash.exit_code == 1 and "two runs named" in clash.stderr


def test_every_command_says_which_run_it_defaulted_to() -> None:
    _label_then_compare()
    for args in (
        ["suggest"],
        ["report"],
        ["rerun", "-q", "q37", "-a", "0.7"],
    ):
        result = ok(*args)
        assert "using run srag_t, the run opened or ingested last" in result.stderr, args
    agreement = runner.invoke(app, ["agreement", "--annotators", "a", "b"])
    assert "using run srag_t" in agreement.stderr  # said even before it refuses
    named = ok("rerun", "srag_v", "-q", "q37", "-a", "0.7", "-f", "json")
    assert json.loads(named.stdout)["question"] == "q37"
    assert "using run" not in named.stderr
