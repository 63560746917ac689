"""Issue 39, item 6: a plugin is imported only when its benchmark is needed.

Two hostile plugins, real packages registered through real entry points, write a marker file
when they are imported, then one hangs and the other calls ``sys.exit(0)``. Over a store
whose runs are all MemEye's, ``ingest`` of the run directory, ``report``, ``label``,
``audit`` and ``export-labels`` must work as without them, and never import them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import small_run
from memscope.adapters import registry
from memscope.cli import app
from plugin_helpers import install_plugins

MARKED = """
    from pathlib import Path
    Path({marker!r}).write_text("imported")
"""


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Install a plugin that hangs and one that exits at import; yield their marker files."""
    monkeypatch.setenv("MEMSCOPE_PLUGIN_IMPORT_SECONDS", "0.5")
    markers = {name: tmp_path / f"{name}.imported" for name in ("hangs", "exits")}
    for install in install_plugins(tmp_path, monkeypatch):
        install(
            {"hangs": "lazy_hang:BENCHMARK", "exits": "lazy_exit:BENCHMARK"},
            {
                "lazy_hang": MARKED.format(marker=str(markers["hangs"]))
                + "    import time\n    while True:\n        time.sleep(0.05)\n",
                "lazy_exit": MARKED.format(marker=str(markers["exits"]))
                + "    import sys\n    sys.exit(0)\n",
            },
        )
        yield markers


def _run(*args: str) -> str:
    """What the command wrote (stdout alone for ``-f json``), after asserting exit 0."""
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout if "json" in args else result.output


def test_commands_over_built_in_runs_never_import_a_plugin(hostile, tmp_path: Path) -> None:
    run_dir = small_run(tmp_path / "runs")
    ingested = _run("ingest", str(run_dir))
    assert "ingested" in ingested
    run_id = json.loads(_run("runs", "-f", "json"))[0]["run_id"]
    report = json.loads(_run("report", run_id, "-f", "json"))
    assert report["run"]["n_questions"] == 4
    _run("label", run_id, "-q", "q1", "-c", "SEL-STALE")
    for qid, verdict in (("q1", "wrong"), ("q2", "correct"), ("q4", "correct")):
        _run("label", run_id, "-q", qid, "--verdict", verdict)
    _run("audit", run_id)
    exported = tmp_path / "labels.jsonl"
    _run("export-labels", run_id, "-o", str(exported))
    assert "SEL-STALE" in exported.read_text()
    assert [marker for marker in hostile.values() if marker.exists()] == []
    assert not registry.plugins_imported()


def test_a_flag_only_a_plugin_could_declare_imports_the_plugins(hostile, tmp_path: Path) -> None:
    """The other side: where the plugins are needed they are imported, and contained."""
    run_dir = small_run(tmp_path / "runs")
    result = CliRunner().invoke(app, ["report", str(run_dir), "--no-such-flag", "x"])
    assert result.exit_code != 0 and "no-such-flag" in result.output
    assert hostile["exits"].exists() and hostile["hangs"].exists()
    problems = registry.registry().problems
    assert "SystemExit" in problems["exits"]
    assert "did not finish importing" in problems["hangs"]


def test_a_folder_no_built_in_claims_asks_the_plugins(hostile, tmp_path: Path) -> None:
    small_run(tmp_path / "runs" / "one")
    assert "ingested" in _run("ingest", str(tmp_path / "runs"))
    assert hostile["exits"].exists()  # runs/ itself is no built-in's run: the plugins were asked
