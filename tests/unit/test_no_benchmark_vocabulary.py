"""Issue 39, done means: no source file outside a benchmark's package tests a benchmark's
name, a method family name, an axis level (``"Y3"``) or a task name; the diagnostics read
what a benchmark declares instead. The allow-list is empty: every file that did has moved
its code into the benchmark's package or reads a declaration (issue 39 item 4), and a new
test of a benchmark's vocabulary anywhere else fails this test."""

from __future__ import annotations

import ast
from pathlib import Path

from memscope.adapters.registry import benchmarks

SRC = Path(__file__).resolve().parents[2] / "src" / "memscope"

FAMILIES = {"full_context", "clue_only_context", "target_session_context"}
"""MemEye's context method families (the oracle and SEL-CTX are declared now)."""
TASKS = {"answer_refusal", "long_pattern", "entity_recall", "personalized_recommendation"}
"""CUE-Mem's tasks."""

ALLOWED: dict[str, set[str]] = {}
"""Files outside a benchmark package allowed to test its vocabulary, and which words: none."""


SETTINGS = {"explicit", "implicit"}
"""CUE-Mem's evidence settings (its implicit questions are declared now)."""


def _vocabulary() -> set[str]:
    """Benchmark names, coordinate levels (MemEye's X1 … Y3), method family, task and
    setting names. Other axes' levels are everyday words (``text``, ``image``)."""
    words = FAMILIES | TASKS | SETTINGS
    for spec in benchmarks():
        words.add(spec.name)
        for axis in spec.axes.axes:
            if {("column", "x"), ("column", "y")} & set(axis.sources()):
                words.update(level.value for level in axis.levels)
    return words


def _tested(tree: ast.AST, words: set[str]) -> list[tuple[int, str]]:
    """``(line, word)`` where a word is compared with, looked up in or keyed by."""

    def found(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in words:
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [word for element in node.elts for word in found(element)]
        return []

    hits = []
    for node in ast.walk(tree):
        parts: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
        elif isinstance(node, ast.Dict):
            parts = [key for key in node.keys if key is not None]
        elif isinstance(node, ast.Subscript):
            parts = [node.slice]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault", "startswith", "endswith")
            and node.args
        ):
            parts = [node.args[0]]
        hits += [(node.lineno, word) for part in parts for word in found(part)]
    return hits


def _problems() -> dict[str, set[str]]:
    names = {spec.name for spec in benchmarks()}
    words = _vocabulary()
    problems: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        if (
            relative.parts[0] == "adapters"
            and len(relative.parts) > 2
            and relative.parts[1] in names
        ):
            continue  # a benchmark's own package may use its own words
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for _, word in _tested(tree, words):
            problems.setdefault(relative.as_posix(), set()).add(word)
    return problems


def test_no_source_file_outside_a_benchmark_package_tests_its_vocabulary() -> None:
    problems = _problems()
    unexpected = {
        path: sorted(found - ALLOWED.get(path, set()))
        for path, found in problems.items()
        if found - ALLOWED.get(path, set())
    }
    assert not unexpected, f"a benchmark's vocabulary tested outside its package: {unexpected}"


def test_the_allow_list_holds_only_what_is_still_there() -> None:
    problems = _problems()
    stale = {
        path: sorted(words - problems.get(path, set()))
        for path, words in ALLOWED.items()
        if words - problems.get(path, set())
    }
    assert not stale, f"allowed but no longer there (shrink ALLOWED): {stale}"


def test_the_check_finds_each_kind_of_test() -> None:
    code = (
        'if y == "Y3": pass\n'
        'x = {"full_context": 1}\n'
        'z = t in ("answer_refusal", "q")\n'
        'w = extra.get("memeye")\n'
        'ok = y == "Y9"\n'
    )
    words = {"Y3", "full_context", "answer_refusal", "memeye"}
    assert [line for line, _ in _tested(ast.parse(code), words)] == [1, 2, 3, 4]
