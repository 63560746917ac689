"""Times the app's runs screen over a sweep: from start to its first row drawn (issue 27).

``memscope open runs/`` on a folder of many runs starts on the runs screen, one row per run
of the folder (each listed with its headline scores, all read in one query). Given a store
that holds the sweep, the folder opened is the one that holds every stored run (or
``--folder``). Each trial runs in a fresh child process, headless (Textual's ``run_test``,
as ``bench_app.py`` measures the queue): first an empty Textual app started the same way
(``run_test`` until idle: the baseline), then memscope from ``make_app`` until the runs
screen is current with its rows filled and drawn once. The children import from compiled
bytecode (a cache of the benchmark's own where the environment forbids writing it, as
``bench_sweep.py`` does), and one untimed child goes first, so no trial pays for compiling
or for a first look at the files.

``measure(store_path, repeat)`` returns the figure records (``figures.py``'s format) that
``bench_sweep.py`` adds to its own; run alone, the script prints them:

    .venv/bin/python benchmarks/sweep_screen.py STORE [--folder DIR] [--repeat 3] [--figures FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import WORK, median, print_table
from figures import Figure, add_figures_option, write_script_figures

SCRIPT = Path(__file__).name
SIZE = (120, 40)
"""The headless terminal both apps start in."""
DEADLINE_S = 600.0


def sweep_folder(store_path: Path) -> Path:
    """The deepest folder that holds every run of the store (what one would open)."""
    from memscope.store import Store
    from memscope.usecases.runs.store_access import list_runs

    paths = [str(run["path"]) for run in list_runs(Store(store_path)) if run.get("path")]
    if not paths:
        sys.exit(f"{store_path}: no run with a directory in this store; ingest the sweep first")
    return Path(os.path.commonpath(paths))


def child(folder: str) -> dict[str, Any]:
    """One trial in this (fresh) process: the empty app, then memscope to the first row."""
    import asyncio
    import time

    from textual.app import App
    from textual.widgets import DataTable

    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest
    from memscope.tui.screens.runs import RunsScreen

    async def first_row_drawn(pilot: Any) -> int:
        """Wait until the runs screen is current with rows in its table and drawn once;
        return how many rows it shows."""
        from textual._compositor import Compositor

        app, render = pilot.app, Compositor.render_update
        painted: list[int] = []

        def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = render(self, *args, **kwargs)
            screen = app.screen
            if isinstance(screen, RunsScreen) and not painted:
                rows = screen.query_one(DataTable).row_count
                if rows:
                    painted.append(rows)
            return result

        Compositor.render_update = hooked  # type: ignore[method-assign]
        began = time.perf_counter()
        try:
            while not painted:
                await asyncio.sleep(0.001)
                if time.perf_counter() - began > DEADLINE_S:
                    raise SystemExit(
                        f"no runs row drawn; the app shows {type(app.screen).__name__}"
                    )
        finally:
            Compositor.render_update = render  # type: ignore[method-assign]
        return painted[0]

    async def trial() -> dict[str, Any]:
        started = time.perf_counter()
        async with App().run_test(size=SIZE) as pilot:
            await pilot.pause()
        empty_s = time.perf_counter() - started
        started = time.perf_counter()
        app = make_app(OpenRequest([folder], annotator=f"bench-{os.getpid()}"))
        async with app.run_test(size=SIZE) as pilot:
            rows = await first_row_drawn(pilot)
            memscope_s = time.perf_counter() - started
        return {"empty_s": empty_s, "memscope_s": memscope_s, "rows": rows}

    return asyncio.run(trial())


def run_child(store_path: Path, folder: Path, scratch: Path) -> dict[str, Any]:
    """One trial in a fresh child process (the store named by ``MEMSCOPE_DB``)."""
    # Imports come from compiled bytecode, as an installed memscope's do (bench_sweep.py
    # does the same where the environment forbids writing it): a cache of the benchmark's own.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    work = Path(os.environ.get("MEMSCOPE_BENCH_WORK") or WORK)
    env.update(
        PYTHONPYCACHEPREFIX=str(work / "pycache"),
        MEMSCOPE_DB=str(store_path),
        MEMSCOPE_CONFIG=str(scratch / "config.toml"),
        MEMSCOPE_IMAGE_RENDERER="none",
    )
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if done.returncode:
        sys.exit(f"the runs-screen measurement failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def screen_figures(trials: list[dict[str, Any]], folder: Path) -> list[Figure]:
    """The trials as figures: both sides' medians and the ratio of the medians."""
    repeat = len(trials)
    rows = trials[0]["rows"]
    common = {"group": "sweep", "size": rows, "trials": repeat}
    statistic = f"median of {repeat} processes"
    empty = median([t["empty_s"] for t in trials])
    ours = median([t["memscope_s"] for t in trials])
    return [
        Figure(
            f"sweep.screen.empty.{rows}",
            name=f"empty Textual app start (run_test to idle), {rows:,} runs",
            value=empty * 1000,
            unit="ms",
            statistic=statistic,
            note="baseline",
            context={"trials": [t["empty_s"] for t in trials]},
            **common,
        ),
        Figure(
            f"sweep.screen.memscope.{rows}",
            name=f"`memscope open runs/` to the runs screen's first row drawn, {rows:,} runs",
            value=ours * 1000,
            unit="ms",
            statistic=statistic,
            context={"trials": [t["memscope_s"] for t in trials], "folder": folder.name},
            **common,
        ),
        Figure(
            f"sweep.ratio.screen.{rows}",
            name=f"runs screen to first row / empty Textual app, {rows:,} runs",
            value=ours / empty,
            unit="×",
            statistic="ratio of the medians",
            baseline="an empty Textual app's start, in the same process",
            **common,
        ),
    ]


def measure_figures(store_path: Path, repeat: int, folder: Path | None = None) -> list[Figure]:
    """``repeat`` trials (after one untimed) of the runs screen over the store's sweep."""
    store_path = Path(store_path).resolve()
    folder = Path(folder).resolve() if folder is not None else sweep_folder(store_path)
    with tempfile.TemporaryDirectory(prefix="memscope-sweep-screen-") as scratch:
        run_child(store_path, folder, Path(scratch))  # warm-up, untimed
        trials = [run_child(store_path, folder, Path(scratch)) for _ in range(repeat)]
    return screen_figures(trials, folder)


def measure(store_path: Path, repeat: int, folder: Path | None = None) -> list[dict[str, Any]]:
    """The runs-screen figures as JSON records (``Figure.to_json``), for ``bench_sweep.py``."""
    return [figure.to_json(SCRIPT) for figure in measure_figures(store_path, repeat, folder)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, nargs="?", help="the store that holds the sweep")
    parser.add_argument("--folder", type=Path, help="the folder to open (default: the runs' own)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", metavar="FOLDER", help=argparse.SUPPRESS)
    add_figures_option(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)), flush=True)
        os._exit(0)  # the app's background work need not finish for this measurement
    if args.store is None:
        parser.error("name the store that holds the sweep")
    figures = measure_figures(args.store, args.repeat, args.folder)
    print_table(
        f"memscope runs screen, medians of {args.repeat} processes",
        ["what", "measured", "note"],
        [
            [
                figure.name,
                f"{figure.value:,.{2 if figure.unit == '×' else 0}f} {figure.unit}",
                figure.note or figure.statistic,
            ]
            for figure in figures
        ],
    )
    write_script_figures(args.figures, figures)


if __name__ == "__main__":
    main()
