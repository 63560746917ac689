"""The benchmark figure records (benchmarks/figures.py) and their tables (render_table.py).

Also checks that the figure tables in benchmarks/README.md are exactly what
benchmarks/figures.json renders to, so they are regenerated, never hand-edited.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from figures import (  # noqa: E402  (benchmarks/ is not a package)
    FIGURE_FIELDS,
    SCHEMA,
    Figure,
    FiguresError,
    Target,
    at_least,
    at_most,
    below,
    check_document,
    dump,
    read_document,
    script_document,
)
from render_table import render, render_everything, select, update_readme  # noqa: E402


def document(*figures: Figure) -> dict:
    return script_document("bench_x.py", ["--repeat", "1"], "2026-12-01T00:00:00Z", figures)


def test_met_follows_the_target_and_is_null_without_one() -> None:
    assert Figure("a", group="g", name="a", value=33.0, unit="ms", target=below(33)).met is False
    assert Figure("a", group="g", name="a", value=3.0, unit="×", target=at_most(3)).met is True
    assert (
        Figure("a", group="g", name="a", value=0.94, unit="×", target=at_least(0.95)).met is False
    )
    assert Figure("a", group="g", name="a", value=1.0, unit="s").met is None
    with pytest.raises(ValueError, match="operator"):
        Target("==", 1.0)


def test_a_script_document_has_every_field_and_passes_the_check() -> None:
    made = document(
        Figure("x.ratio", group="x", name="x / y", value=2.5, unit="×", target=at_most(2)),
        Figure("x.time", group="x", name="x", value=1.25, unit="s", size=100, trials=3),
    )
    parsed = check_document(json.loads(dump(made)))
    assert parsed["schema"] == SCHEMA
    first, second = parsed["figures"]
    assert set(first) == set(FIGURE_FIELDS)
    assert first["target"] == {"op": "<=", "value": 2.0}
    assert first["met"] is False and first["script"] == "bench_x.py"
    assert second["target"] is None and second["met"] is None and second["trials"] == 3
    assert parsed["scripts"][0]["argv"] == ["--repeat", "1"]
    assert parsed["scripts"][0]["machine"]["cpus"]


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda d: d.update(schema="other/1"), "schema"),
        (lambda d: d["figures"][0].pop("unit"), "missing keys \\['unit'\\]"),
        (lambda d: d["figures"][0].update(value="fast"), "'value'"),
        (lambda d: d["figures"][0].update(value=True), "'value'"),
        (lambda d: d["figures"][0].update(met=True), "'met' does not follow"),
        (lambda d: d["figures"][1].update(met=False), "no target"),
        (lambda d: d["figures"][0].update(target={"op": "~", "value": 1}), "target"),
        (lambda d: d["figures"][1].update(id="x.ratio"), "twice"),
    ],
)
def test_the_check_names_what_is_wrong(change, complaint: str) -> None:
    broken = copy.deepcopy(
        document(
            Figure("x.ratio", group="x", name="x / y", value=2.5, unit="×", target=at_most(2)),
            Figure("x.time", group="x", name="x", value=1.25, unit="s"),
        )
    )
    change(broken)
    with pytest.raises(FiguresError, match=complaint):
        check_document(broken)


def test_the_table_shows_value_target_result_and_baseline() -> None:
    made = document(
        Figure(
            "app.next.p95",
            group="app",
            name="next question, p95",
            value=90.51,
            unit="ms",
            target=below(33),
            statistic="median of 3",
        ),
        Figure(
            "app.start.ratio",
            group="app",
            name="start / empty app",
            value=2.0,
            unit="×",
            target=at_most(3),
            baseline="an empty app",
        ),
        Figure("ingest.memscope", group="ingest", name="ingest | 1k", value=0.9, unit="s"),
    )
    table = render(made, "app")
    assert "| next question, p95 | 90.51 ms | < 33 ms | **missed** |  | median of 3 |" in table
    assert "| start / empty app | 2× | ≤ 3× | met | an empty app |" in table
    assert "ingest" not in table
    assert "Measured `bench_x.py --repeat 1` (2026-12-01T00:00:00Z)." in table
    assert "ingest \\| 1k" in render(made, "ingest")  # a pipe in a name stays in its cell
    assert [r["id"] for r in select(made, "targets")] == ["app.next.p95", "app.start.ratio"]
    assert [r["id"] for r in select(made, "app.start")] == ["app.start.ratio"]
    assert "| section |" in render(made, "all")
    with pytest.raises(FiguresError, match="no figures of report"):
        render(made, "app,report")


def test_update_readme_regenerates_only_the_marked_blocks() -> None:
    made = document(Figure("x.time", group="x", name="the x time", value=1.5, unit="s"))
    text = "# Title\n\nprose\n<!-- figures:start x -->\nstale | table\n<!-- figures:end -->\nend\n"
    updated = update_readme(text, made)
    assert updated.startswith("# Title\n\nprose\n<!-- figures:start x -->\n")
    assert updated.endswith("<!-- figures:end -->\nend\n")
    assert "stale" not in updated and "| the x time | 1.5 s |" in updated
    assert update_readme(updated, made) == updated
    with pytest.raises(FiguresError, match="figures:start"):
        update_readme("no markers here\n", made)


def test_the_readme_tables_are_what_figures_json_renders_to() -> None:
    shipped = read_document(BENCHMARKS / "figures.json")
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    assert update_readme(readme, shipped) == readme, (
        "benchmarks/README.md's figure tables were edited by hand or are stale; run "
        "python benchmarks/render_table.py benchmarks/figures.json --readme benchmarks/README.md"
    )
    every_table = render_everything(shipped)
    for record in shipped["figures"]:
        assert record["name"].replace("|", "\\|") in every_table
    # issue 30's targets for the app, as records, at every run size it measures
    targets = {r["id"]: r["target"] for r in shipped["figures"] if r["group"] == "app"}
    for size in (3_000, 50_000, 1_000_000):
        assert targets[f"app.{size}.start.ratio"] == {"op": "<=", "value": 3.0}
        assert targets[f"app.{size}.cold.ratio"] == {"op": "<=", "value": 2.5}
        assert targets[f"app.{size}.next.first_repaint.vs_floor"] == {"op": "<=", "value": 1.0}
        assert targets[f"app.{size}.next.settled.p95"] == {"op": "<", "value": 100.0}
        assert f"app.{size}.floor.p95" in targets
    assert targets["app.50000.memory.peak"] == {"op": "<", "value": 300.0}
    assert targets["app.1000000.memory.peak"] == {"op": "<", "value": 400.0}


def test_render_table_says_what_is_wrong_with_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "figures.json"
    bad.write_text('{"schema": "memscope-benchmark-figures/1", "scripts": []}')
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "render_table.py"), str(bad)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == f"render_table: {bad}: 'figures' is missing or not a list"
    readme = tmp_path / "README.md"
    readme.write_text("<!-- figures:start app -->\nold\n<!-- figures:end -->\n")
    fine = tmp_path / "fine.json"
    fine.write_text(dump(document(Figure("x.t", group="x", name="t", value=1, unit="s"))))
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "render_table.py"), str(fine), "--readme", str(readme)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "no figures of app" in done.stderr
    assert "Traceback" not in done.stderr
    assert readme.read_text() == "<!-- figures:start app -->\nold\n<!-- figures:end -->\n"


def test_run_all_writes_nothing_when_a_script_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import run_all

    # argparse rejects the value, so the script fails at once
    monkeypatch.setitem(run_all.SUITES, "smoke", [["bench_report.py", "--repeat", "many"]])
    out = tmp_path / "figures.json"
    assert run_all.main(["--smoke", "--json", str(out)]) == 1
    assert not out.exists()
    assert f"bench_report.py failed (exit status 2); nothing written to {out}" in (
        capsys.readouterr().err
    )
