"""The benchmark registry (issue 26): specs from entry points, clear errors, and no source
file outside a benchmark's own package that dispatches on its name."""

from __future__ import annotations

import ast
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.adapters import registry
from memscope.adapters.registry import GROUP, benchmark, benchmarks
from memscope.adapters.spec import Benchmark
from memscope.cli import app
from memscope.errors import PluginError

SRC = Path(__file__).resolve().parents[2] / "src" / "memscope"
BUILT_IN = ("memeye", "dmv", "cuemem")


@pytest.fixture
def fresh_registry():
    """Whatever a test loads into the registry is forgotten afterwards."""
    yield
    registry.reset()


def test_the_built_in_benchmarks_register_through_entry_points() -> None:
    points = {point.name: point.value for point in metadata.entry_points(group=GROUP)}
    for name in BUILT_IN:
        assert points[name] == f"memscope.adapters.{name}:BENCHMARK"
        spec = benchmark(name)
        assert isinstance(spec, Benchmark) and spec.name == name
    assert [spec.name for spec in benchmarks()][:3] == ["memeye", "dmv", "cuemem"]


def _point(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name=name, value=value, group=GROUP)


def test_a_broken_or_foreign_plugin_is_named_and_the_others_still_load(fresh_registry) -> None:
    registry.reset(
        [
            _point("memeye", "memscope.adapters.memeye:BENCHMARK"),
            _point("broken", "memscope_no_such_module:BENCHMARK"),
            _point("notaspec", "memscope.adapters.spec:Benchmark"),
            _point("misnamed", "memscope.adapters.dmv:BENCHMARK"),
        ]
    )
    assert [spec.name for spec in benchmarks()] == ["memeye"]
    with pytest.raises(PluginError, match=r"'broken' cannot be used: its package failed to load"):
        benchmark("broken")
    with pytest.raises(PluginError, match="not a memscope Benchmark"):
        benchmark("notaspec")
    with pytest.raises(PluginError, match="named 'misnamed' but its spec says 'dmv'"):
        benchmark("misnamed")
    with pytest.raises(
        PluginError, match=r"no benchmark 'locomo2' is installed \(installed: memeye\)"
    ):
        benchmark("locomo2")


def test_two_benchmarks_cannot_declare_the_same_option_flag(fresh_registry) -> None:
    from dataclasses import replace

    import memscope.adapters.dmv as dmv

    # A clone valid in every other way (its own axes name, no detail table of dmv's).
    clone = replace(
        dmv.BENCHMARK,
        name="dmv_clone",
        axes=replace(dmv.BENCHMARK.axes, benchmark="dmv_clone"),
        detail_tables=(),
    )
    dmv.__dict__["_TEST_CLONE"] = clone
    try:
        registry.reset(
            [
                _point("dmv", "memscope.adapters.dmv:BENCHMARK"),
                _point("dmv_clone", "memscope.adapters.dmv:_TEST_CLONE"),
            ]
        )
        assert [spec.name for spec in benchmarks()] == ["dmv"]
        with pytest.raises(PluginError, match="option flag benchmark 'dmv' already declares"):
            benchmark("dmv_clone")
    finally:
        del dmv.__dict__["_TEST_CLONE"]


def test_no_benchmark_installed_says_to_install_memscope(fresh_registry) -> None:
    registry.reset([])
    with pytest.raises(PluginError, match="pip install -e"):
        benchmark("memeye")


def test_the_cli_offers_each_benchmarks_options_without_naming_them() -> None:
    """``--dmv-registry`` is declared by DMV-Bench's package; the commands that read runs
    show it, and no CLI module spells it."""
    runner = CliRunner()
    for command in ("ingest", "open", "report", "table", "compare", "suggest", "rerun"):
        result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "--dmv-registry" in result.output, command
    for path in (SRC / "cli").rglob("*.py"):
        assert "dmv-registry" not in path.read_text(encoding="utf-8"), path
        assert "dmv_registry" not in path.read_text(encoding="utf-8"), path


def _names_compared(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines where a benchmark name is compared with, looked up in or keyed by."""

    def named(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant) and node.value in names:
            return True
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(named(element) for element in node.elts)
        return False

    lines = []
    for node in ast.walk(tree):
        if (
            (
                isinstance(node, ast.Compare)
                and any(named(part) for part in [node.left, *node.comparators])
            )
            or (
                isinstance(node, ast.Dict)
                and any(key is not None and named(key) for key in node.keys)
            )
            or (isinstance(node, ast.Subscript) and named(node.slice))
            or (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("get", "pop", "setdefault")
                and node.args
                and named(node.args[0])
            )
        ):
            lines.append(node.lineno)
    return lines


def test_no_source_file_outside_a_benchmarks_package_dispatches_on_its_name() -> None:
    names = {spec.name for spec in benchmarks()}
    assert set(BUILT_IN) <= names
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        if relative.parts[0] == "adapters" and relative.parts[1] in names:
            continue  # a benchmark's own package may name itself
        tree = ast.parse(path.read_text(encoding="utf-8"))
        problems += [f"{relative}:{line}" for line in _names_compared(tree, names)]
    assert not problems, f"benchmark names dispatched on outside their packages: {problems}"


def test_the_check_itself_finds_a_dispatch() -> None:
    code = 'if run["benchmark"] == "dmv": pass\nx = {"cuemem": 1}\ny = b in ("memeye", "q")\n'
    assert _names_compared(ast.parse(code), set(BUILT_IN)) == [1, 2, 3]


OLD_FIGURE_KINDS = frozenset({"retention", "setting_bars"})
"""API 1.2's figure names that stood for DMV-Bench's and CUE-Mem's figures (issue 39, item 2)."""


def _figures_named(tree: ast.AST, figures: set[str]) -> list[int]:
    """Lines holding one of the old figure kinds as a value at all (a ``Literal``, a tuple of
    kinds, a comparison), or a registered figure's name compared with or keyed by."""
    held = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in OLD_FIGURE_KINDS
    ]
    return sorted(set(held + _names_compared(tree, figures)))


def test_no_source_file_outside_a_benchmarks_package_names_its_figure() -> None:
    """A figure is its benchmark's code (``Benchmark.figure``): no core module branches on
    its name, and the app and ``plot`` draw any chart (issue 39, item 2)."""
    from memscope.adapters.charts import own_figure

    names = {spec.name for spec in benchmarks()}
    figures = {figure.name for spec in benchmarks() if (figure := own_figure(spec))}
    assert {"retention", "cue"} <= figures
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        if relative.parts[0] == "adapters" and relative.parts[1] in names:
            continue  # a benchmark's own package may name its figure
        tree = ast.parse(path.read_text(encoding="utf-8"))
        problems += [f"{relative}:{line}" for line in _figures_named(tree, figures)]
    assert not problems, f"benchmark figures named outside their packages: {problems}"


def test_the_figure_check_finds_what_the_core_did() -> None:
    code = (
        'Figure = Literal["grid_lines", "retention", "setting_bars"]\n'
        'if spec.figure == "retention": pass\n'
        'KINDS = ("heatmap", "cue")\n'
        'BUILDERS = {"cue": draw}\n'
    )
    assert _figures_named(ast.parse(code), {"retention", "cue"}) == [1, 2, 4]


OLD_PANEL_NAMES = frozenset({"probe"})
"""API 1.2's panel name that stood for DMV-Bench's view of a probe (issue 39, item 2)."""

SCHEMA_HISTORY = ("store", "migrations")
"""Migrations are the store's frozen schema history (a store created before the benchmarks
declared their tables went through them): the one place a detail table may be named."""


def _panels_named(tree: ast.AST, panels: set[str], tables: set[str]) -> list[int]:
    """Lines holding an old panel name as a value at all (a ``Literal``, a comparison), a
    registered question panel's name compared with or keyed by, or a string naming one of
    a benchmark's own detail tables (SQL that reads it)."""
    held = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (node.value in OLD_PANEL_NAMES or any(table in node.value for table in tables))
    ]
    return sorted(set(held + _names_compared(tree, panels)))


def test_no_source_file_outside_a_benchmarks_package_names_its_panel_or_tables() -> None:
    """A question panel is its benchmark's code (``Benchmark.question_panel``) and reads its
    own detail tables through the hook: no core module branches on the panel's name or
    queries the tables (issue 39, item 2)."""
    names = {spec.name for spec in benchmarks()}
    panels = {spec.question_panel.name for spec in benchmarks() if spec.question_panel}
    # Tables named for their benchmark (the ``<benchmark>_`` rule; older ones predate it).
    tables = {
        table.name
        for spec in benchmarks()
        for table in spec.detail_tables
        if table.name.startswith(f"{spec.name}_")
    }
    assert "probe" in panels and "dmv_recall_steps" in tables
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        if relative.parts[0] == "adapters" and relative.parts[1] in names:
            continue  # a benchmark's own package may name its panel and tables
        if relative.parts[:2] == SCHEMA_HISTORY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        problems += [f"{relative}:{line}" for line in _panels_named(tree, panels, tables)]
    assert not problems, (
        f"benchmark panels or detail tables named outside their packages: {problems}"
    )


def test_the_panel_check_finds_what_the_core_did() -> None:
    """What main held before the panel became a hook (spec.py, question_view.py, the
    question screen and store/queries_benchmarks.py) each fails the check."""
    code = (
        'Panel = Literal["rerank", "evidence", "probe"]\n'
        'probe = self.panel == "probe"\n'
        'if kind == "probe": pass\n'
        'SQL = "SELECT step FROM dmv_recall_steps WHERE run_id = ?"\n'
        'ok = spec.panel == "evidence"\n'
    )
    assert _panels_named(ast.parse(code), {"probe"}, {"dmv_recall_steps"}) == [1, 2, 3, 4]


def test_the_same_entry_point_seen_twice_is_one_registration(fresh_registry) -> None:
    """An installed copy and stale build metadata on the path announce the same entry point."""
    same = _point("memeye", "memscope.adapters.memeye:BENCHMARK")
    registry.reset([same, _point("memeye", "memscope.adapters.memeye:BENCHMARK")])
    assert [spec.name for spec in benchmarks()] == ["memeye"]
    registry.reset([same, _point("memeye", "memscope.adapters.dmv:BENCHMARK")])
    with pytest.raises(PluginError, match="registered twice"):
        benchmark("memeye")


def test_a_fourth_benchmark_is_one_package_plus_its_registration() -> None:
    """Outside ``adapters/locomo/`` no source file names LoCoMo: the benchmark is its
    package and its entry point (pyproject.toml), nothing more."""
    named = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*"))
        if path.is_file()
        and path.suffix in (".py", ".toml", ".tcss")
        and path.relative_to(SRC).parts[:2] != ("adapters", "locomo")
        and "locomo" in path.read_text(encoding="utf-8").lower()
    ]
    assert not named, f"LoCoMo named outside its package: {named}"
    assert benchmark("locomo").title == "LoCoMo"


def test_memscope_benchmarks_lists_them_and_names_a_broken_plugin(fresh_registry) -> None:
    import json

    runner = CliRunner()
    listed = json.loads(runner.invoke(app, ["benchmarks", "--format", "json"]).stdout)
    names = [entry["name"] for entry in listed["benchmarks"]]
    assert names[:4] == ["memeye", "dmv", "cuemem", "locomo"] and listed["problems"] == []
    assert next(e for e in listed["benchmarks"] if e["name"] == "dmv")["options"] == [
        "--dmv-registry"
    ]
    registry.reset(
        [
            _point("memeye", "memscope.adapters.memeye:BENCHMARK"),
            _point("broken", "memscope_no_such_module:BENCHMARK"),
        ]
    )
    shown = runner.invoke(app, ["benchmarks"])
    assert shown.exit_code == 0 and "MemEye" in shown.stdout
    assert "benchmark 'broken' is not available: its package failed to load" in shown.stderr


def _naming(root: Path, words: tuple[str, ...]) -> list[str]:
    """``file:line`` (from ``root``) of every line under ``root`` naming one of ``words``
    (any case)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if any(word in line.lower() for word in words):
                found.append(f"{path.relative_to(root)}:{number}")
    return found


def test_the_store_names_no_memeye() -> None:
    """The store reads the formats a benchmark declares (``memscope.record_formats``):
    MemEye's predictions and dialog files are described in its package, and no store
    module, loader or batch path names it (issue 39 item 4)."""
    assert _naming(SRC / "store", ("memeye",)) == []


def test_the_store_check_finds_a_name(tmp_path: Path) -> None:
    (tmp_path / "loaders").mkdir()
    (tmp_path / "loaders" / "m.py").write_text('"""x"""\n# reads MemEye\n', encoding="utf-8")
    assert _naming(tmp_path, ("memeye",)) == ["loaders/m.py:2"]
