"""The worked third-party plugin (``examples/benchmark-plugin/``, ToyBench), installed the way
a plugin author would install theirs, and used through memscope's own commands.

The plugin is built from a copy of its folder with this environment's build backend and
installed into a temporary target (``pip install --no-deps --no-build-isolation
--target``, offline); memscope runs in real processes with that target on ``PYTHONPATH``,
so the registry finds ToyBench through its entry point exactly as it would find an
installed package, and a temporary store:

- every command that reads runs offers the plugin's ``--toybench-photos`` (and none does
  without the plugin);
- ``ingest`` stores the example run, passing the option to the plugin's reader, and
  checks ToyBench's own summary; ``table`` lays it out on ToyBench's axes, ``table
  --check-upstream`` agrees with the summary, ``report`` shows its matrix;
- the app opens the run on ToyBench's matrix and filters its queue by ToyBench's words;
- the plugin's own tests (the ones docs/benchmarks.md says to copy) pass;
- without the plugin, its runs are one clear message, never a traceback or another
  benchmark's reading.

Builds and installs a package: marked ``wheel`` like the other packaging tests (CI runs
them; ``-m 'not wheel'`` skips them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "examples" / "benchmark-plugin"
HERE = Path(__file__).resolve().parent
COMMANDS_READING_RUNS = (
    "ingest",
    "open",
    "report",
    "table",
    "compare",
    "suggest",
    "rerun",
    "label",
)


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(the plugin's source copy, the target it is installed into)``."""
    root = tmp_path_factory.mktemp("plugin")
    source = root / "benchmark-plugin"
    shutil.copytree(
        PLUGIN,
        source,
        ignore=shutil.ignore_patterns(
            "__pycache__", "*.egg-info", "build", ".pytest_cache", ".mypy_cache", ".ruff_cache"
        ),
    )
    target = root / "site"
    ok(
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
            + ["--target", str(target), str(source)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    )
    return source, target


def environment(tmp_path: Path, target: Path | None) -> dict[str, str]:
    """A memscope process's environment: its own store and config, the plugin's target
    first on the path when given."""
    env = {key: value for key, value in os.environ.items() if key != "MEMSCOPE_DEBUG"}
    env["MEMSCOPE_DB"] = str(tmp_path / "store" / "memscope.duckdb")
    env["MEMSCOPE_CONFIG"] = str(tmp_path / "config.toml")
    env["COLUMNS"] = "200"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    paths = [str(target)] if target is not None else []
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def memscope(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memscope", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def example_run(tmp_path: Path) -> Path:
    return Path(shutil.copytree(PLUGIN / "runs" / "toy_bm25", tmp_path / "runs" / "toy_bm25"))


def test_the_target_holds_the_package_its_data_and_its_entry_point(
    plugin: tuple[Path, Path],
) -> None:
    _source, target = plugin
    assert (target / "memscope_toybench" / "data" / "dialogue.toybench.json").is_file()
    (points,) = target.glob("memscope_toybench-*.dist-info/entry_points.txt")
    text = points.read_text(encoding="utf-8")
    assert "[memscope.benchmarks]" in text
    assert "toybench = memscope_toybench:BENCHMARK" in text


def test_every_command_that_reads_runs_offers_the_plugins_option(
    plugin: tuple[Path, Path], tmp_path: Path
) -> None:
    with_plugin, without = environment(tmp_path, plugin[1]), environment(tmp_path, None)
    for command in COMMANDS_READING_RUNS:
        assert "--toybench-photos" in ok(memscope(with_plugin, command, "--help")).stdout, command
        assert "--toybench-photos" not in ok(memscope(without, command, "--help")).stdout


def test_ingest_table_and_report_the_example_run(
    plugin: tuple[Path, Path], tmp_path: Path, example_run: Path
) -> None:
    env = environment(tmp_path, plugin[1])
    photos = tmp_path / "photos"
    photos.mkdir()  # empty: the reader says so, which shows the option reached it
    ingested = ok(memscope(env, "ingest", example_run, "--toybench-photos", photos)).stderr
    assert "ingested toy_bm25 · 8 questions" in ingested
    assert "1 photo(s) are not in the --toybench-photos folder" in ingested
    assert "agrees with upstream's summary summary.toybench.json" in ingested

    table = json.loads(ok(memscope(env, "table", "toy_bm25", "--format", "json")).stdout)
    assert (table["benchmark"], table["metric"], table["by"]) == ("toybench", "accuracy", ["kind"])
    (row,) = table["rows"]
    by_label = {column["label"]: row["cells"][column["key"]] for column in table["columns"]}
    assert {label: (cell["value"], cell["n"]) for label, cell in by_label.items()} == {
        "Fact": (1.0, 4),
        "Updated fact": (0.0, 2),
        "Preference": (0.5, 2),
        "all": (0.625, 8),
    }
    by_gap = json.loads(
        ok(memscope(env, "table", "toy_bm25", "--by", "gap", "--format", "json")).stdout
    )
    assert [column["label"] for column in by_gap["columns"]] == ["gap 0", "gap 1", "gap 2", "all"]

    checked = json.loads(
        ok(memscope(env, "table", "toy_bm25", "--check-upstream", "--format", "json")).stdout
    )["upstream"]
    assert (checked["n_runs_checked"], checked["n_disagreeing"], len(checked["checks"])) == (
        1,
        0,
        6,
    )

    report = json.loads(ok(memscope(env, "report", "toy_bm25", "--format", "json")).stdout)
    assert report["axes"]["benchmark"] == "toybench"
    (view,) = report["axes"]["views"]
    assert (view["rows"], view["columns"]) == ("kind", "gap")
    assert report["upstream_check"]["agrees"] is True
    assert report["retrieval"]["n"] == 8
    shown = ok(memscope(env, "report", "toy_bm25")).stdout
    assert "question kind × evidence gap (sessions)" in shown


def test_the_app_shows_its_matrix_and_filters_by_its_axes(
    plugin: tuple[Path, Path], tmp_path: Path, example_run: Path
) -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "headless_plugin.py"), str(example_run)],
        env=environment(tmp_path, plugin[1]),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "matrix kind x gap",
        "kind:update: q2 q3",
        "kind:fact gap:>=1: q1 q4 q5",
    ]


def test_the_plugins_own_tests_pass(plugin: tuple[Path, Path], tmp_path: Path) -> None:
    source, target = plugin
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=source,
        env=environment(tmp_path, target),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_without_the_plugin_its_runs_are_one_clear_message(
    plugin: tuple[Path, Path], tmp_path: Path, example_run: Path
) -> None:
    without = environment(tmp_path, None)
    refused = memscope(without, "ingest", example_run)
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: not a run directory: no MemEye")
    assert "Traceback" not in refused.stderr and "internal error" not in refused.stderr

    ok(memscope(environment(tmp_path, plugin[1]), "ingest", example_run))
    stored = memscope(without, "report", "toy_bm25")
    assert stored.returncode == 1
    assert "no benchmark 'toybench' is installed" in stored.stderr
    assert "Traceback" not in stored.stderr and "internal error" not in stored.stderr
