"""Issue 39, item 4: a benchmark's report section is code in its own package, behind the same
hook a plugin uses (``Benchmark.report_sections``, ``adapters/sections.py``).

A plugin (a ToyBench clone, registered through a real entry point) declares a section whose
``compute`` uses what memscope lends it (answers, intervals over clusters, evidence@k) and
whose ``view`` prints text and a table; ``report`` prints both, sanitised, and a section
that raises is one message naming it. DMV-Bench's and CUE-Mem's sections are such hooks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.adapters.registry import benchmark
from memscope.adapters.sections import ReportSection
from memscope.cli import app
from memscope.store import Store
from memscope.usecases.runs.ingest import ingest_paths
from plugin_helpers import TOY, TOY_CLONE, install_plugins

SECTIONED = (
    TOY_CLONE
    + """
    import numpy as np
    from memscope.plugin import ReportSection, TableBlock, TableColumn, TableRow, TextBlock
    from memscope_toybench import run

    class Reader(RenamedReader):
        def __init__(self):
            super().__init__(NAME)

    def compute(section_run):
        correct = section_run.correct()
        groups = np.full(correct.size, "all", dtype=object)
        clusters = np.array([str(q) for q in section_run.qids], dtype=object)
        rates = section_run.cluster_rates(correct, clusters, groups, ["all"], level=section_run.level)
        recall, _ = section_run.evidence_at((1,))
        return {
            "n": int(correct.size),
            "accuracy": rates["all"].rate,
            "n_clusters": rates["all"].n_clusters,
            "recall_1": float(np.nanmean(recall[:, 0])) if (~np.isnan(recall)).any() else None,
            "nan": float("nan"),
        }

    def view(report):
        mine = report["toysec"]
        return [
            TextBlock("Toy accuracy " + format(mine["accuracy"], ".3f") + "\\x1b[2J"),
            TableBlock("Toy table", (TableColumn("what", justify="left", keep=True),
                                     TableColumn("value")),
                       (TableRow(("questions", str(mine["n"]))),)),
        ]

    def broken(section_run):
        raise ZeroDivisionError("toy")
"""
)


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from install_plugins(tmp_path, monkeypatch)


def _install(plugins, name: str, compute: str) -> None:
    module = f"toy_{name}"
    plugins(
        {name: f"{module}:BENCHMARK"},
        {
            module: SECTIONED.replace("NAME", repr(name))
            + f"    BENCHMARK = clone({name!r}, reader=Reader(), "
            f'report_sections=(ReportSection("toysec", {compute}, view),))\n'
        },
    )


def test_a_plugins_report_section_is_computed_and_printed(plugins, store: Store) -> None:
    _install(plugins, "toysec", "compute")
    outcomes, failures = ingest_paths(store, [TOY / "runs" / "toy_bm25"], _options())
    assert not failures
    run_id = outcomes[0].run_id
    runner = CliRunner()
    document = json.loads(runner.invoke(app, ["report", run_id, "-f", "json"]).stdout)
    section = document["toysec"]
    assert section["n"] == document["run"]["n_questions"]
    assert section["accuracy"] == pytest.approx(document["answer"]["overall"]["em"])
    assert section["n_clusters"] == section["n"]  # one question per cluster
    assert section["nan"] is None  # NaN is JSON null, as in every report section
    text = runner.invoke(app, ["report", run_id], env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.output
    assert "Toy accuracy" in text.output and "Toy table" in text.output
    assert "\x1b[2J" not in text.output  # the plugin's text passed the sanitiser


def test_a_section_that_raises_is_one_message_naming_it(plugins, store: Store) -> None:
    _install(plugins, "toybad", "broken")
    outcomes, _ = ingest_paths(store, [TOY / "runs" / "toy_bm25"], _options())
    result = CliRunner().invoke(app, ["report", outcomes[0].run_id, "-f", "json"])
    assert result.exit_code != 0
    said = " ".join(result.output.split())
    assert "benchmark 'toybad': its report section 'toysec' failed (ZeroDivisionError: toy)" in said
    assert "Traceback" not in result.output


def test_the_built_in_sections_are_hooks_in_their_own_packages() -> None:
    for name, key in (("dmv", "tsr"), ("cuemem", "cue")):
        (section,) = benchmark(name).report_sections
        assert isinstance(section, ReportSection) and section.key == key
        assert isinstance(section.compute, str)
        assert section.compute.startswith(f"memscope.adapters.{name}.")
        assert isinstance(section.view, str)
        assert section.view.startswith(f"memscope.adapters.{name}.")


def test_a_section_key_that_is_the_reports_own_is_refused(plugins) -> None:
    from memscope.adapters.registry import unavailable

    plugins(
        {"toyclash": "toy_clash:BENCHMARK"},
        {
            "toy_clash": TOY_CLONE
            + """
    from memscope.plugin import ReportSection
    BENCHMARK = clone("toyclash", report_sections=(ReportSection("answer", len),))
    """
        },
    )
    assert "report section key 'answer'" in unavailable()["toyclash"]


def _options():
    from memscope.adapters import ReadOptions

    return ReadOptions()


def test_the_matrix_gap_column_is_declared_and_checked(plugins) -> None:
    """CUE-Mem's EI-gap column is its spec's declaration, not a test of its level names in
    the app; a plugin's gap over an axis it does not have is refused, named."""
    from memscope.adapters.registry import unavailable
    from memscope.adapters.spec import MatrixGap

    assert benchmark("cuemem").matrix.gap == MatrixGap("evidence", "explicit", "implicit", "EI-gap")
    plugins(
        {"toygap": "toy_gap:BENCHMARK"},
        {
            "toy_gap": TOY_CLONE
            + """
    from memscope.plugin import MatrixGap, MatrixStyle
    BENCHMARK = clone("toygap", matrix=MatrixStyle(gap=MatrixGap("nope", "a", "b", "gap")))
    """
        },
    )
    assert "matrix.gap names no axis 'nope'" in unavailable()["toygap"]
