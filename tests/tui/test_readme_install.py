"""The README's set-up and install lines are ones a newcomer can follow today (issue 41.16, 41.18).

memscope is not on a package index, so the README installs the wheel it builds (no
``pipx install memscope-triage``), names the wheel this version builds, and the set-up it
opens with installs what its later steps use: ``memscope plot`` needs the ``plot`` extra,
so ``./scripts/setup.sh`` installs it (run here with a stand-in Python that records what
pip would install, so nothing is installed).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from memscope import __version__

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
PROSE = " ".join(README.split())


def test_the_readme_promises_no_index_install() -> None:
    index_installs = re.findall(r"(?:pipx|pip) install [\"']?memscope-triage\b", README)
    assert not index_installs, index_installs
    assert "not on a package index" in PROSE


def test_the_readme_installs_the_wheel_this_version_builds() -> None:
    wheel = f"memscope_triage-{__version__}-py3-none-any.whl"
    assert "pip wheel --no-deps . -w dist/" in README
    assert f'pipx install "./dist/{wheel}[plot]"' in README
    named = set(re.findall(r"memscope_triage-[^\s\"\[]+\.whl", README))
    assert named == {wheel}, named


def _setup_installs(tmp_path: Path, *args: str) -> list[str]:
    """What ``scripts/setup.sh ARGS`` asks pip to install, in a copy with a stand-in Python."""
    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "setup.sh", clone / "scripts" / "setup.sh")
    log = tmp_path / "pip.log"
    venv_bin = clone / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {log}\n'
        'case "$*" in *" show "*) exit 1 ;; esac\n'  # no old `memscope` to uninstall
        "exit 0\n"
    )
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "ldconfig").write_text("#!/bin/sh\necho 'libportaudio.so.2 (libc6,x86-64)'\n")
    for stub in (venv_bin / "python", stubs / "ldconfig"):
        stub.chmod(0o755)
    done = subprocess.run(
        ["bash", str(clone / "scripts" / "setup.sh"), *args],
        env={**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in log.read_text().splitlines() if " install " in f" {line} "]


def test_the_set_up_installs_what_the_readme_plots_with(tmp_path: Path) -> None:
    assert "memscope plot codes" in README and "`plot` extra" in PROSE
    (plain,) = _setup_installs(tmp_path)
    assert plain.endswith("-e .[plot]"), plain
    engine = _setup_installs(tmp_path / "engine", "--engine")
    assert engine[-1].endswith("-e .[plot,engine]"), engine
