"""Issue 39, item 1: one public module, ``memscope.plugin``, versioned by ``API_VERSION``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import memscope.plugin as plugin
from memscope.adapters import registry
from memscope.adapters.spec import API_VERSION, api_compatible
from plugin_helpers import TOY_CLONE, install_plugins

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = [
    *(
        ROOT / "src" / "memscope" / "adapters" / name
        for name in ("memeye", "dmv", "cuemem", "locomo")
    ),
    ROOT / "examples" / "benchmark-plugin" / "src" / "memscope_toybench",
]


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from install_plugins(tmp_path, monkeypatch)


def _memscope_imports(package: Path) -> list[str]:
    """``file: module`` for each import of memscope outside ``memscope.plugin`` and the
    package itself."""
    own = f"memscope.adapters.{package.name}"
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            found += [
                f"{path.name}: {module}"
                for module in modules
                if module.split(".")[0] == "memscope"
                and module != "memscope.plugin"
                and not module.startswith(own)
            ]
    return found


def test_every_benchmark_package_imports_memscope_only_through_memscope_plugin() -> None:
    for package in PACKAGES:
        assert package.is_dir(), package
        assert _memscope_imports(package) == [], package


def test_the_check_itself_finds_an_internal_import(tmp_path: Path) -> None:
    package = tmp_path / "mybench"
    package.mkdir()
    (package / "run.py").write_text(
        "from memscope.records import RunRecord\nimport memscope.errors\n"
    )
    assert len(_memscope_imports(package)) == 2


def test_the_public_module_names_everything_it_offers() -> None:
    assert plugin.API_VERSION == API_VERSION
    assert sorted(plugin.__all__) == sorted(set(plugin.__all__))
    assert all(hasattr(plugin, name) for name in plugin.__all__)


def test_api_versions_are_compatible_within_a_major_and_up_to_memscopes_minor() -> None:
    major, minor = (int(part) for part in API_VERSION.split("."))
    assert api_compatible(API_VERSION)
    assert api_compatible(f"{major}.0")
    assert not api_compatible(f"{major}.{minor + 1}")
    assert not api_compatible(f"{major + 1}.0")
    assert not api_compatible("") and not api_compatible("one")


def test_a_spec_for_another_api_version_is_refused_naming_both(plugins) -> None:
    plugins(
        {"future": "versions:FUTURE", "bare": "versions:BARE", "fine": "versions:FINE"},
        {
            "versions": TOY_CLONE
            + """
    FUTURE = clone("future", api_version="99.0")
    BARE = clone("bare", api_version="")
    FINE = clone("fine")
    """
        },
    )
    found = registry.registry()
    assert "fine" in found.benchmarks
    future = found.problems["future"]
    assert "versions:FUTURE" in future and "99.0" in future and API_VERSION in future
    assert "(none declared)" in found.problems["bare"]


def test_the_docs_list_every_field_of_every_record() -> None:
    import dataclasses

    from memscope.plugin import (
        DatasetRecord,
        Notice,
        QuestionRecord,
        RoundRecord,
        RunRecord,
        SessionRecord,
    )

    docs = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = docs.split("## Records: every field", 1)[1].split("\n## ", 1)[0]
    missing = [
        f"{record.__name__}.{field.name}"
        for record in (RunRecord, DatasetRecord, SessionRecord, RoundRecord, QuestionRecord, Notice)
        for field in dataclasses.fields(record)
        if f"`{field.name}`" not in section
        and not (field.name.startswith("audio_") and "`audio_`" in section)
    ]
    assert missing == []
