"""Architecture you can see: heavy libraries load only in their layer, and only when used.

Static imports are checked by the import-linter contract in pyproject.toml (run here and in
scripts/test.sh). What a linter cannot see is *when* a deferred import runs; these run each
import in a fresh interpreter and look at ``sys.modules``.
"""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import tokenize
import tomllib
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).parents[2] / "src" / "memscope"
HEAVY = ("torch", "open_clip", "sentence_transformers", "faiss", "transformers")
UI = ("textual", "textual_image", "typer", "rich")


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(','.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return set(output.strip().split(","))


def test_cli_import_loads_no_heavy_library() -> None:
    loaded = loaded_after("import memscope.cli")
    assert not loaded & {*HEAVY, "textual", "duckdb", "pyarrow"}, loaded & {
        *HEAVY,
        "textual",
        "duckdb",
        "pyarrow",
    }


@pytest.mark.parametrize(
    "module",
    [
        "memscope.adapters",
        "memscope.store",
        "memscope.usecases.report.build",
        "memscope.usecases.runs.ingest",
        "memscope.analysis.evidence",
        "memscope.triage.loaded_run",
        "memscope.engine_jobs.engine",
    ],
)
def test_core_layers_load_no_ui_or_model_library(module: str) -> None:
    loaded = loaded_after(f"import {module}")
    assert not loaded & {*HEAVY, *UI}, loaded & {*HEAVY, *UI}


ROOT = Path(__file__).parents[2]


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["contracts"]


def test_the_import_contract_holds() -> None:
    """The static rules (layers, front ends through the use cases, DuckDB and model libraries
    in their layer only) live in pyproject.toml's import-linter contract."""
    pytest.importorskip("importlinter")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_every_top_level_module_has_a_layer() -> None:
    """A new package or module must be placed in the layers contract, not slip past it."""
    (layers,) = [c for c in _contracts() if c["type"] == "layers"]
    placed = {
        name.strip().removeprefix("memscope.")
        for layer in layers["layers"]
        for name in layer.replace(":", "|").split("|")
    }
    present = {
        path.stem if path.suffix == ".py" else path.name
        for path in SRC.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    assert present - placed == set()
    assert placed - present == set()


def test_every_module_has_a_docstring() -> None:
    missing = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if ast.get_docstring(ast.parse(p.read_text())) is None
    ]
    assert missing == []


def any_names(source: str) -> int:
    """How many times the name ``Any`` is used in code (not in strings or comments)."""
    return sum(
        1
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.NAME and token.string == "Any"
    )


def test_any_name_counter_reads_code_only() -> None:
    source = 'from typing import Any\nx: Any = "Any"  # Any\n"""Any"""\nAnyway = 1\n'
    assert any_names(source) == 2


def test_fewer_than_eight_any_per_thousand_lines() -> None:
    # Typed results and JSON values keep mypy checking what the code does with them; an
    # `Any` switches that off, so the package keeps them rare (issue 29).
    files = list(SRC.rglob("*.py"))
    lines = sum(len(p.read_text().splitlines()) for p in files)
    uses = sum(any_names(p.read_text()) for p in files)
    assert uses * 1000 < 8 * lines, (
        f"{uses} Any in {lines} lines: {uses * 1000 / lines:.1f} per 1,000"
    )


def import_edges(package: str) -> dict[str, list[str]]:
    """Which of ``package``'s modules each of them imports (deferred and type-only imports
    included), from grimp, the graph import-linter builds."""
    import grimp

    graph = grimp.build_graph("memscope", cache_dir=None)  # no .grimp_cache in the checkout
    prefix = package + "."
    modules = sorted(m for m in graph.modules if m.startswith(prefix))
    return {
        m: sorted(n for n in graph.find_modules_directly_imported_by(m) if n.startswith(prefix))
        for m in modules
    }


def circles(edges: dict[str, list[str]]) -> list[list[str]]:
    """The groups of modules that import each other in a circle (each group sorted)."""
    reach = {module: _reach(edges, module) for module in edges}
    found: list[list[str]] = []
    for module in edges:
        group = sorted(m for m in reach[module] if module in reach[m] and m in reach[module])
        if len(group) > 1 and group not in found:
            found.append(group)
    return found


def _reach(edges: dict[str, list[str]], start: str) -> set[str]:
    reached, todo = {start}, [start]
    while todo:
        for target in edges.get(todo.pop(), []):
            if target not in reached:
                reached.add(target)
                todo.append(target)
    return reached


def test_the_circle_finder_finds_circles_and_only_them() -> None:
    edges = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": [], "e": ["d"], "f": ["f"]}
    assert circles(edges) == [["a", "b", "c"]]


@pytest.mark.parametrize("package", ["memscope.tui", "memscope.usecases"])
def test_no_import_circle_inside(package: str) -> None:
    # A circle (tui.app <-> commands, labels.events <-> verdicts) means neither module can
    # be read, tested or moved without the other (issue 29).
    edges = import_edges(package)
    assert len(edges) > 10  # the package was found
    assert circles(edges) == []


def test_test_modules_outside_packages_have_unique_names() -> None:
    """pytest's default import mode imports such a module by its bare name: two files of one
    name in different folders stop collection of the whole suite ("import file mismatch")."""
    tests_root = Path(__file__).parents[1]
    seen: dict[str, Path] = {}
    clashes: list[str] = []
    for path in sorted(tests_root.rglob("test_*.py")):
        if (path.parent / "__init__.py").exists():
            continue
        if path.name in seen:
            clashes.append(
                f"{seen[path.name].relative_to(tests_root)} and {path.relative_to(tests_root)}"
            )
        seen[path.name] = path
    assert not clashes, clashes
