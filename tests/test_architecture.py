"""Architecture you can see: heavy libraries load only in their layer, and only when used.

Static imports could be checked with a linter, but a deferred import is invisible to it;
these run each import in a fresh interpreter and look at ``sys.modules``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src" / "memscope"
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
        "memscope.pipeline.report",
        "memscope.pipeline.runs",
        "memscope.analysis.evidence",
    ],
)
def test_core_layers_load_no_ui_or_model_library(module: str) -> None:
    loaded = loaded_after(f"import {module}")
    assert not loaded & {*HEAVY, *UI}, loaded & {*HEAVY, *UI}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_the_store_imports_duckdb() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if "duckdb" in {name.split(".")[0] for name in _imported_modules(path)}
        and "store" not in path.relative_to(SRC).parts
    ]
    assert offenders == []


def test_only_the_engine_imports_model_libraries() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if {name.split(".")[0] for name in _imported_modules(path)} & set(HEAVY)
        and "engine" not in path.relative_to(SRC).parts
    ]
    assert offenders == []


def test_lower_layers_never_import_front_ends() -> None:
    lower = ("adapters", "store", "analysis", "engine", "pipeline")
    offenders = []
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).parts
        if parts[0] in lower or parts[0] in ("records.py", "errors.py"):
            names = _imported_modules(path)
            if any(
                n.startswith(("memscope.cli", "memscope.tui", "textual", "typer")) for n in names
            ):
                offenders.append("/".join(parts))
    assert offenders == []


def test_every_module_has_a_docstring() -> None:
    missing = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if ast.get_docstring(ast.parse(p.read_text())) is None
    ]
    assert missing == []
