"""The triage tool without the memory engine: ``pip install memscope-triage`` with no ``[engine]``.

Every command here runs as a real ``python -m memscope`` process in which the engine's
libraries cannot be imported (``no_engine/sitecustomize.py`` refuses them, as if they were
not installed): the core's whole job works, each engine entry point says in one line what to
install (exit 1, no traceback), and the app's ``s`` and ``i`` say the same. The wheel tests
(test_wheel.py) repeat the core part in a venv where the libraries really are absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
INSTALL = "pip install 'memscope-triage[engine]'"


def no_engine_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE / "no_engine"), str(SRC), *filter(None, [env.get("PYTHONPATH")])]
    )
    env.pop("MEMSCOPE_DB", None)  # the demo folder's own store
    env.pop("MEMSCOPE_DEBUG", None)
    return env


def memscope(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memscope", *args],
        cwd=cwd,
        env=no_engine_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("no-engine")
    done = memscope(root, "demo")
    assert done.returncode == 0, done.stderr
    return root / "memscope-demo"


def test_the_blocker_really_hides_the_engine(tmp_path: Path) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import torch"],
        env=no_engine_env(),
        capture_output=True,
        text=True,
    )
    assert probe.returncode != 0 and "blocked" in probe.stderr


def test_every_memscope_module_imports_without_the_engine() -> None:
    code = (
        "import importlib, pkgutil, sys, memscope\n"
        "for m in pkgutil.walk_packages(memscope.__path__, 'memscope.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "heavy = {'torch', 'open_clip', 'sentence_transformers', 'faiss', 'transformers'}\n"
        "print(sorted(heavy & {name.split('.')[0] for name in sys.modules}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=no_engine_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_triage_job_works_without_the_engine(demo_dir: Path) -> None:
    for args in (
        ["ingest", "runs"],
        ["report", "runs/srag_v/"],
        ["compare", "runs/srag_t/", "runs/srag_v/"],
        ["suggest", "runs/srag_v/"],
        ["rerun", "--run", "runs/srag_v/", "--question", "q37", "--alpha", "0.7"],
        ["label", "runs/srag_v/", "--question", "q37", "--accept"],
        ["export-labels", "--format", "csv"],
        ["report", "runs/dmv_f2_demo:TextOnly"],
        ["recompute", "runs/srag_v/", "--undo"],
    ):
        done = memscope(demo_dir, *args)
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr and "[engine]" not in done.stderr, args
    assert "q37" in memscope(demo_dir, "export-labels", "--format", "csv").stdout


@pytest.mark.parametrize(
    "args",
    [
        ["index", "fixtures/memeye/dialog/Community_Garden.json"],
        ["retrieve", "runs/srag_v/", "--method", "srag_t", "--out", "runs/new"],
        ["recompute", "runs/srag_v/"],
        ["search", "runs/srag_v/", "compost bin"],
        ["search", "runs/srag_v/", "--similar-to", "D2:2"],
        ["rerun", "--run", "runs/srag_v/", "--alpha", "0.7", "--requery"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_each_engine_entry_point_says_what_to_install(demo_dir: Path, args: list[str]) -> None:
    done = memscope(demo_dir, *args)
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert INSTALL in lines[0] and "missing torch" in lines[0], lines[0]
    assert not (demo_dir / "runs" / "new").exists()


def test_the_apps_search_keys_say_what_to_install(demo_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "headless_open.py"), "runs/srag_v/", "q37", "--no-engine"],
        cwd=demo_dir,
        env=no_engine_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert "opened q37" in done.stdout
