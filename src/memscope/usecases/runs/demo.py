"""The demo that ships with memscope: where its files are, and writing a copy of them.

A wheel carries the repository's ``fixtures/`` and ``runs/`` as ``memscope/demo/`` (setup.py
copies them at build time); an editable install reads the checkout's folders themselves.
:func:`write_demo` copies both trees into a folder side by side, the layout the runs' relative
dataset paths (``../../fixtures/...``) expect, so the copy opens with no flags.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import memscope
from memscope.distribution import install_command
from memscope.errors import InputError, MemscopeError

DEMO_TREES = ("fixtures", "runs")
FIRST_RUN = "runs/srag_v"
"""The run the README's first five minutes open."""


@dataclass(frozen=True)
class DemoCopy:
    """What :func:`write_demo` wrote."""

    root: Path
    n_files: int
    runs: list[str]
    """The run folders, relative to ``root`` (``runs/srag_v``, ...)."""


def demo_source() -> Path:
    """The folder holding ``fixtures/`` and ``runs/``: the wheel's package data or the checkout."""
    package = Path(memscope.__file__).resolve().parent
    for root in (package / "demo", package.parents[1]):
        if all((root / tree).is_dir() for tree in DEMO_TREES) and (root / FIRST_RUN).is_dir():
            return root
    raise MemscopeError(
        "this memscope installation has no demo files",
        where=str(package),
        fix=f"Reinstall memscope from its wheel ({install_command()}), or run from a repository checkout.",
    )


def _demo_files(source: Path) -> list[Path]:
    files = []
    for tree in DEMO_TREES:
        for path in sorted((source / tree).rglob("*")):
            relative = path.relative_to(source)
            if path.is_file() and not any(
                part.startswith(".") or part == "__pycache__" for part in relative.parts
            ):
                files.append(relative)
    return files


def write_demo(target: Path, *, force: bool = False) -> DemoCopy:
    """Copy the demo benchmark and its runs into ``target`` (created if needed).

    Refuses a ``target`` that already has ``fixtures/`` or ``runs/`` unless ``force``, which
    writes the demo's files over them (other files there are left alone). The copy is made
    in a temporary folder inside ``target`` first, so an error leaves nothing half-written.
    """
    source = demo_source()
    if not target.is_absolute():
        target.absolute()  # no working directory any more: the front end says so, not "cannot write"
    if target.exists() and not target.is_dir():
        raise InputError(
            "the demo folder is a file", where=str(target), fix="Choose another folder."
        )
    taken = [tree for tree in DEMO_TREES if (target / tree).exists()]
    if taken and not force:
        raise InputError(
            f"{target} already has {' and '.join(f'{tree}/' for tree in taken)}",
            fix=f"Open it (cd {target} && memscope open {FIRST_RUN}/), choose another folder, "
            "or pass --force to write the demo over it.",
        )
    files = _demo_files(source)
    try:
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".memscope-demo-", dir=target) as scratch:
            for relative in files:
                destination = Path(scratch) / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source / relative, destination)
            for tree in DEMO_TREES:
                if force and (target / tree).exists():
                    shutil.copytree(Path(scratch) / tree, target / tree, dirs_exist_ok=True)
                else:
                    (Path(scratch) / tree).rename(target / tree)
    except OSError as error:
        raise InputError(
            f"could not write the demo: {error.strerror or error}",
            where=str(error.filename or target),
            fix="Choose a folder you can write to.",
        ) from None
    runs = sorted(path.name for path in (source / "runs").iterdir() if path.is_dir())
    return DemoCopy(target, len(files), [f"runs/{name}" for name in runs])
