"""memscope's wheel with the ``[engine]`` extra, installed the way a user would: one
``memscope index`` on the demo.

The venv sees this environment's engine libraries through a ``.pth`` line instead of
installing its own (torch with its CUDA libraries is about 6 GB); the wheel is installed in
it first, so its memscope is the one that runs, and pip resolves the extra against what it
sees.

Minutes, not seconds: marked ``wheel`` (run by default and by CI; ``-m 'not wheel'`` skips).
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from wheel_build import new_venv, ok, run

from memscope.distribution import DISTRIBUTION

pytestmark = pytest.mark.wheel


def test_engine_extra_indexes_the_demo(wheel: Path, tmp_path: Path) -> None:
    bin_dir = new_venv(tmp_path / "venv")
    python = bin_dir / "python"
    ok(run([python, "-m", "pip", "install", "-q", "--no-deps", wheel]))
    purelib = Path(
        ok(
            run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        ).stdout.strip()
    )
    (purelib / "zz_engine_libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    ok(run([python, "-m", "pip", "install", "-q", f"{DISTRIBUTION}[engine] @ {wheel.as_uri()}"]))
    where = ok(run([python, "-c", "import memscope; print(memscope.__file__)"])).stdout
    assert where.startswith(str(purelib)), where  # the wheel's memscope, not this checkout's
    ok(run([bin_dir / "memscope", "demo"], cwd=tmp_path))
    demo = tmp_path / "memscope-demo"
    indexed = ok(
        run(
            [bin_dir / "memscope", "index", "fixtures/memeye/dialog/Community_Garden.json"]
            + ["--no-images", "--device", "cpu", "--format", "json"],
            cwd=demo,
        )
    )
    assert '"embedded"' in indexed.stdout and '"embedded": 0' not in indexed.stdout
