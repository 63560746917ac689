"""Writes the README's figures (docs/fig-*.svg) with the commands the README states.

    .venv/bin/python scripts/figures.py [--out DIR]

In a scratch store (never yours) and from the repository root, the steps of the README's
"From labels to a paper table" that the figures rest on run first (:data:`SETUP`: the
demo runs ingested, srag_v's sample planned, the two annotators' labels imported), then
each figure's own ``memscope plot`` line (:data:`FIGURES`) with ``--out`` in docs/ (or
DIR). The README shows the same plot lines writing into the working folder;
tests/cli/test_shipped_figures.py checks that they make the shipped bytes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP = [
    ["ingest", "runs/srag_v/", "runs/srag_t/"],
    ["sample", "runs/srag_v/", "--sample-size", "10", "--seed", "7"],
    ["import-labels", "fixtures/labels/srag_v_alice.jsonl", "fixtures/labels/srag_v_bob.csv"],
]
"""What the figures rest on, as the README does it before its plot lines."""
FIGURES = {
    "fig-failure-codes.svg": ["plot", "codes", "srag_v", "--annotator", "alice"],
    "fig-recency.svg": ["plot", "recency", "runs/srag_v/", "runs/srag_t/"],
}
"""Each shipped figure and the ``memscope plot`` line that draws it (without ``--out``)."""


def memscope(argv: list[str], scratch: Path, cwd: Path) -> None:
    """Run one memscope command on the scratch store; raise when it fails."""
    env = {
        **os.environ,
        "MEMSCOPE_DB": str(scratch / "store.duckdb"),
        "MEMSCOPE_CONFIG": str(scratch / "config.toml"),
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    done = subprocess.run(
        [sys.executable, "-m", "memscope", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"memscope {' '.join(argv)} failed:\n{done.stdout}{done.stderr}")


def write_figures(out: Path, cwd: Path = ROOT, scratch: Path | None = None) -> list[Path]:
    """Every figure of :data:`FIGURES` written into ``out``, after :data:`SETUP`, run in
    ``cwd`` (a folder holding the demo's runs/ and fixtures/) on a new store in
    ``scratch`` (default: a temporary folder)."""
    if scratch is None:
        with tempfile.TemporaryDirectory() as folder:
            return write_figures(out, cwd, Path(folder))
    scratch.mkdir(parents=True, exist_ok=True)
    written = []
    for argv in SETUP:
        memscope(argv, scratch, cwd)
    for name, argv in FIGURES.items():
        memscope([*argv, "--out", str(out / name)], scratch, cwd)
        written.append(out / name)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="default: docs/")
    args = parser.parse_args()
    for path in write_figures(args.out.resolve()):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
