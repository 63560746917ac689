"""The specifications in docs/ keep up with the code.

Fails when a metric, rule, failure code or default exists in the code but not in docs/:

- every key of the JSON that ``report``, ``compare`` and ``rerun`` print for the demo runs
  (collected from the real output at test time, so a key added later fails here until it
  is documented) appears as a code span in docs/metrics.md, except the few identity and
  text keys of :data:`STRUCTURAL_KEYS`;
- the suggestion-rule table of docs/taxonomy.md lists every ``Rule`` of
  ``memscope.analysis.suggest.RULES``, with its code, in priority order;
- the code table of docs/taxonomy.md lists every shipped failure code with its name,
  stage and key, and the stages in order;
- every row of the defaults table of docs/metrics.md names a real constant with that
  value, and every ``DEFAULT_*`` constant of the metric modules is in it;
- every ``docs/<file>.md §N`` cited in src/ and tests/ names a file and section that exist.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.analysis.suggest import RULES
from memscope.cli import app
from memscope.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RUNS = ROOT / "runs"

STRUCTURAL_KEYS = frozenset(
    {
        # who the run is: identity, not a measurement
        "run",
        "run_a",
        "run_b",
        "id",
        "run_id",
        "benchmark",
        "task",
        "model",
        "method",
        "modality",
        "path",
        # question ids and sentences for the reader
        "qid",
        "qids",
        "question",
        "notes",
        "note",
        "warnings",
        "examples",
    }
)
"""Keys that name or describe rather than measure; every other key is a metric key."""

LEVEL_LABEL = re.compile(r"X\d(_Y\d)?|Y\d|\d+(-\d+)?")
"""Keys that are data (X/Y levels and cells, reach and bank-size groups, the k of @k)."""

DEMO_REPORTS = ("srag_v", "cue_mm", "cue_text", "dmv_f2_demo")
METRIC_MODULES = (
    "memscope.analysis.bootstrap",
    "memscope.analysis.cluster_rates",
    "memscope.analysis.rerank",
    "memscope.usecases.runs.ingest",
)


def invoke(db: Path, *args: str) -> dict:
    """Run one memscope command with ``--format json`` on the store ``db``; its JSON."""
    result = CliRunner().invoke(app, [*args, "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The JSON of report, compare and rerun for the demo runs, from a fresh store."""
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.usecases.runs.ingest import ingest_dir_runs

    folder = tmp_path_factory.mktemp("docs_store")
    db = folder / "memscope.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMSCOPE_CONFIG", str(folder / "config.toml"))
        patch.setenv("MEMSCOPE_DB", str(db))
        store = Store(db)
        run_ids: dict[str, list[str]] = {}
        for name in (*DEMO_REPORTS, "srag_t"):
            outcomes = ingest_dir_runs(store, RUNS / name, ReadOptions())
            run_ids[name] = [outcome.run_id for outcome in outcomes]
        found: dict[str, dict] = {}
        for name in DEMO_REPORTS:
            for run_id in run_ids[name]:
                found[f"report {run_id}"] = invoke(db, "report", run_id)
        found["compare srag"] = invoke(db, "compare", "srag_t", "srag_v")
        dmv_a, dmv_b = sorted(run_ids["dmv_f2_demo"])[:2]
        found["compare dmv"] = invoke(db, "compare", dmv_a, dmv_b)
        found["rerun run"] = invoke(db, "rerun", "--run", "srag_v", "--alpha", "0.7")
        found["rerun question"] = invoke(
            db, "rerun", "--run", "srag_v", "--question", "q37", "--alpha", "0.7"
        )
    return found


def json_keys(value: object, where: str = "") -> Iterator[tuple[str, str]]:
    """``(key, path)`` for every dict key below ``value``, level labels left out."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not LEVEL_LABEL.fullmatch(str(key)):
                yield str(key), f"{where}.{key}"
            yield from json_keys(item, f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from json_keys(item, f"{where}[]")


def code_spans(text: str) -> set[str]:
    """Everything written as `code` in a Markdown text."""
    return set(re.findall(r"`([^`\n]+)`", text))


def section(text: str, number: int) -> str:
    """The body of ``## <number>.`` up to the next ``## `` heading."""
    match = re.search(rf"^## {number}\. .*?(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL)
    assert match, f"no section {number}"
    return match.group(0)


def table_rows(text: str) -> list[list[str]]:
    """The cells of every Markdown table row (header and separator rows included)."""
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|")
    ]


def test_the_demo_outputs_cover_every_benchmark(outputs: dict[str, dict]) -> None:
    # The key check below is only as good as the outputs it walks.
    reports = [value for name, value in outputs.items() if name.startswith("report")]
    assert any(report.get("temporal") for report in reports)
    assert any(report.get("tsr") for report in reports)
    assert any(report.get("cue") for report in reports)
    assert outputs["compare dmv"]["significance"] is not None


def test_every_metric_key_of_the_json_is_documented(outputs: dict[str, dict]) -> None:
    documented = code_spans((DOCS / "metrics.md").read_text(encoding="utf-8"))
    missing: dict[str, str] = {}
    for name, value in outputs.items():
        for key, where in json_keys(value):
            if key not in STRUCTURAL_KEYS and key not in documented:
                missing.setdefault(key, f"{name}: {where}")
    assert not missing, f"JSON keys not documented in docs/metrics.md §11: {missing}"


def test_the_rule_table_is_the_code_in_priority_order() -> None:
    rules = section((DOCS / "taxonomy.md").read_text(encoding="utf-8"), 5)
    documented = [
        (int(cells[0]), cells[1].strip("`"), cells[2].strip("`"))
        for cells in table_rows(rules)
        if cells[0].isdigit()
    ]
    assert [number for number, _, _ in documented] == list(range(1, len(documented) + 1))
    assert [(name, code) for _, name, code in documented] == [
        (rule.name, rule.code) for rule in RULES
    ]


def test_every_failure_code_is_documented_with_its_name_stage_and_key() -> None:
    text = (DOCS / "taxonomy.md").read_text(encoding="utf-8")
    codes = section(text, 4)
    rows = {
        cells[0].strip("`"): cells[1:4] for cells in table_rows(codes) if cells[0].startswith("`")
    }
    taxonomy = load_taxonomy()
    assert list(rows) == taxonomy.names
    for item in taxonomy.codes:
        assert rows[item.code] == [item.name, item.stage, item.key or "–"], item.code
    assert f"`{taxonomy.version}`" in codes
    assert " → ".join(f"`{stage}`" for stage in taxonomy.stages[:-1]) in codes
    assert f"`{taxonomy.stages[-1]}`" in codes


def defined_defaults(module: str) -> list[str]:
    """The ``DEFAULT_*`` names a module assigns itself (not the ones it imports)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    return [
        target.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and target.id.startswith("DEFAULT_")
    ]


def test_the_defaults_table_matches_the_code() -> None:
    defaults = section((DOCS / "metrics.md").read_text(encoding="utf-8"), 10)
    listed: dict[str, object] = {}
    for cells in table_rows(defaults):
        if not cells[0].startswith("`memscope."):
            continue
        dotted = cells[0].strip("`")
        module, _, name = dotted.rpartition(".")
        actual = getattr(importlib.import_module(module), name)
        expected = ast.literal_eval(cells[1])
        assert actual == expected, f"{dotted} is {actual!r}, docs/metrics.md §10 says {cells[1]}"
        listed[dotted] = actual
    for module in METRIC_MODULES:
        for name in defined_defaults(module):
            assert f"{module}.{name}" in listed, f"{module}.{name} is not in docs/metrics.md §10"


def test_doc_citations_in_the_code_resolve() -> None:
    citation = re.compile(r"(?<![/\w])docs/(\w[\w-]*)\.md(?: §(\d+))?")
    problems = []
    for folder in ("src", "tests"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".toml") or not path.is_file():
                continue
            for doc, number in citation.findall(path.read_text(encoding="utf-8")):
                target = DOCS / f"{doc}.md"
                if not target.is_file():
                    problems.append(f"{path.relative_to(ROOT)}: docs/{doc}.md does not exist")
                elif number and not re.search(
                    rf"^## {number}\. ", target.read_text(encoding="utf-8"), flags=re.MULTILINE
                ):
                    problems.append(f"{path.relative_to(ROOT)}: docs/{doc}.md has no §{number}")
    assert not problems, problems
