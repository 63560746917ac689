"""Times the triage app headless (Pilot) on a generated 50,000-question MemEye run.

The run (benchmarks/generate_run.py, cached in benchmarks/_work) is ingested into a
temporary store with its suggestions computed, as after a first ``memscope open``. Each
measurement then runs in a fresh child process so that one cannot warm up the next:

- ``start``: an empty Textual app's start (``run_test`` until idle) and, in the same
  process, memscope's start until the queue screen of the 50k run is drawn (loaded,
  filled, taking keys; the evidence and suggestions keep loading in the background);
  both after imports. Target: ratio ≤ 3.
- ``cold``: the same two as whole processes, from launch until the process reports the
  screen interactive (Python start-up and imports included: what a user waits for after
  typing the command).
- ``next``: on the question screen (once the run's evidence and suggestions finished
  loading in the background), ``j`` pressed ``--presses`` times; per press: the time from
  the key to the first repaint of the screen after the new question was built (what the
  user sees), the time until every follow-up repaint settled (Pilot's press + pause), and
  the part spent building the question view (``QuestionScreen.show_question``). p50 / p95.
  Then, as a floor, every widget of the same screen is relaid out and repainted with
  nothing changed: what Textual itself needs for a full-screen update.
  Targets (issue 14): p95 < 33 ms to the first repaint and < 100 ms until settled.
- ``memory``: peak resident memory of the child that ran ``next`` (target < 700 MiB).

Prints medians over ``--repeat`` children (``--figures FILE``: also as JSON records). Never
asserts: a benchmark, not a test.

    .venv/bin/python benchmarks/bench_app.py [--questions 50000] [--repeat 5] [--presses 200]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import generated_run, median, print_table
from figures import Figure, Target, add_figures_option, at_most, below, write_script_figures


def prepare_store(store_path: Path, run_dir: Path) -> str:
    """Ingest the run and compute its suggestions; return the run id."""
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.usecases.runs.ingest import ingest_dir
    from memscope.usecases.suggest.rules import suggest_run, suggestion_state

    store = Store(store_path)
    run_id = ingest_dir(store, run_dir, ReadOptions()).run_id
    if suggestion_state(store, run_id) is None:
        suggest_run(store, run_id)
    return run_id


def child(mode: str, run_id: str, presses: int) -> dict:
    """One measurement in this (fresh) process; returns its figures."""
    import asyncio
    import resource
    import time

    from textual.app import App

    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest
    from memscope.tui.screens.question import QuestionScreen
    from memscope.tui.screens.queue import QueueScreen
    from memscope.tui.widgets.image_preview import ImagePreview

    ImagePreview.renderer = None  # no terminal to draw on; decoding still runs in its worker

    deadline_s = 600.0

    async def interactive(pilot, screen_type) -> None:
        app, began = pilot.app, time.perf_counter()
        while not (app.session.is_open and isinstance(app.screen, screen_type)):
            await pilot.pause(0.001)
            if time.perf_counter() - began > deadline_s:
                raise SystemExit(
                    f"the app did not reach {screen_type.__name__}; it shows {type(app.screen).__name__}"
                )
        await pilot.pause()

    # A fresh annotator per process: nothing to resume, so every start lands on the queue.
    annotator = f"bench-{os.getpid()}"

    async def painted(pilot) -> None:
        """Wait until the queue screen is current, filled, and drawn once."""
        from textual._compositor import Compositor

        app, render, painted_at = pilot.app, Compositor.render_update, []

        def hooked(self, *args, **kwargs):
            result = render(self, *args, **kwargs)
            if app.session.is_open and isinstance(app.screen, QueueScreen):
                painted_at.append(time.perf_counter())
            return result

        Compositor.render_update = hooked  # type: ignore[method-assign]
        try:
            while not painted_at:
                await asyncio.sleep(0.001)
        finally:
            Compositor.render_update = render  # type: ignore[method-assign]

    async def start() -> dict:
        started = time.perf_counter()
        async with App().run_test(size=(120, 40)) as pilot:
            await pilot.pause()
        empty_s = time.perf_counter() - started
        started = time.perf_counter()
        app = make_app(OpenRequest([run_id], annotator=annotator))
        async with app.run_test(size=(120, 40)) as pilot:
            await painted(pilot)
            memscope_s = time.perf_counter() - started
            rows = len(app.session.rows)
        return {"empty_s": empty_s, "memscope_s": memscope_s, "queue_rows": rows}

    async def navigate() -> dict:
        from textual._compositor import Compositor

        build_times: list[float] = []
        built_at: list[float] = []
        painted_at: list[float] = []
        show, render = QuestionScreen.show_question, Compositor.render_update

        def timed_show(self: QuestionScreen) -> None:
            began = time.perf_counter()
            show(self)
            built_at.append(time.perf_counter())
            build_times.append(built_at[-1] - began)

        def timed_render(self, *args, **kwargs):
            result = render(self, *args, **kwargs)
            if built_at and (not painted_at or painted_at[-1] < built_at[-1]):
                painted_at.append(time.perf_counter())
            return result

        QuestionScreen.show_question = timed_show  # type: ignore[method-assign]
        Compositor.render_update = timed_render  # type: ignore[method-assign]
        app = make_app(OpenRequest([run_id], annotator=annotator, queue="all"))
        settled: list[float] = []
        first_paint: list[float] = []
        async with app.run_test(size=(120, 40)) as pilot:
            await interactive(pilot, QueueScreen)
            await pilot.press("enter")
            await interactive(pilot, QuestionScreen)
            while not (app.session.run.evidence_ready and app.session.run.suggestions_ready):
                await pilot.pause(0.05)
            await app.workers.wait_for_complete()
            await pilot.pause(0.5)
            build_times.clear()
            for _ in range(presses):
                built_at.clear()
                painted_at.clear()
                began = time.perf_counter()
                await pilot.press("j")
                await pilot.pause()
                settled.append(time.perf_counter() - began)
                if painted_at:
                    first_paint.append(painted_at[0] - began)
            moved = app.session.position
            # Textual's floor: the same screen relaid out and repainted with nothing changed.
            floor: list[float] = []
            for _ in range(max(10, presses // 4)):
                built_at[:] = [time.perf_counter()]
                painted_at.clear()
                for widget in app.screen.query("*"):
                    widget.refresh(layout=True)
                await pilot.pause()
                if painted_at:
                    floor.append(painted_at[0] - built_at[0])
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return {
            "key_s": settled,
            "paint_s": first_paint,
            "build_s": build_times,
            "moved": moved,
            "floor_s": floor,
            "peak_mib": peak_kib / 1024,
        }

    async def cold() -> dict:
        app = make_app(OpenRequest([run_id], annotator=annotator))
        async with app.run_test(size=(120, 40)) as pilot:
            await painted(pilot)
            print("READY", flush=True)
            os._exit(0)  # the background loading need not finish for this measurement
        return {}

    return asyncio.run({"start": start, "next": navigate, "cold": cold}[mode]())


EMPTY_APP = (
    "import asyncio, os\nfrom textual.app import App\n"
    "async def main():\n    async with App().run_test(size=(120, 40)) as pilot:\n        await pilot.pause()\n"
    "        print('READY', flush=True)\n        os._exit(0)\n"
    "asyncio.run(main())\n"
)


def cold_start(argv: list[str], env: dict[str, str]) -> float:
    """Wall time from launching a process until it prints READY."""
    import time

    began = time.perf_counter()
    child_process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    assert child_process.stdout is not None
    for line in child_process.stdout:
        if line.startswith("READY"):
            break
    ready = time.perf_counter() - began
    child_process.wait(timeout=60)
    if child_process.returncode:
        sys.exit(f"{argv[-1]} failed with exit status {child_process.returncode}")
    return ready


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def run_child(mode: str, run_id: str, presses: int, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--run-id", run_id, "--presses", str(presses)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if done.returncode:
        sys.exit(f"the {mode} measurement failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument(
        "--store", type=Path, help="reuse this prepared store (default: a fresh temporary one)"
    )
    parser.add_argument("--child", choices=("start", "next", "cold"), help=argparse.SUPPRESS)
    parser.add_argument("--run-id", help=argparse.SUPPRESS)
    add_figures_option(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.run_id, args.presses)))
        return

    run_dir = generated_run(args.questions)
    with tempfile.TemporaryDirectory(prefix="memscope-bench-app-") as scratch:
        store_path = args.store or Path(scratch) / "store.duckdb"
        env = dict(
            os.environ,
            MEMSCOPE_DB=str(store_path),
            MEMSCOPE_CONFIG=str(Path(scratch) / "config.toml"),
            MEMSCOPE_IMAGE_RENDERER="none",
        )
        os.environ.update(env)
        print(f"ingesting {run_dir} (unless the store has it) …", file=sys.stderr)
        run_id = prepare_store(store_path, run_dir)
        starts = [run_child("start", run_id, 0, env) for _ in range(args.repeat)]
        cold_empty = [
            cold_start([sys.executable, "-c", EMPTY_APP], env) for _ in range(args.repeat)
        ]
        cold_ours = [
            cold_start([sys.executable, __file__, "--child", "cold", "--run-id", run_id], env)
            for _ in range(args.repeat)
        ]
        navigations = [run_child("next", run_id, args.presses, env) for _ in range(args.repeat)]

    empty = median([s["empty_s"] for s in starts])
    ours = median([s["memscope_s"] for s in starts])
    key_p50 = median([percentile(n["key_s"], 50) for n in navigations])
    key_p95 = median([percentile(n["key_s"], 95) for n in navigations])
    paint_p50 = median([percentile(n["paint_s"], 50) for n in navigations])
    paint_p95 = median([percentile(n["paint_s"], 95) for n in navigations])
    build_p50 = median([percentile(n["build_s"], 50) for n in navigations])
    build_p95 = median([percentile(n["build_s"], 95) for n in navigations])
    floor_p50 = median([percentile(n["floor_s"], 50) for n in navigations])
    floor_p95 = median([percentile(n["floor_s"], 95) for n in navigations])
    peak = max(n["peak_mib"] for n in navigations)
    rows = [
        ["empty Textual app start (run_test to idle)", f"{empty * 1000:.0f} ms", "baseline"],
        [
            f"memscope start to interactive queue ({starts[0]['queue_rows']:,} rows)",
            f"{ours * 1000:.0f} ms",
            f"{ours / empty:.2f}× the empty app (target ≤ 3×)",
        ],
        [
            "empty Textual app, whole process (launch to drawn)",
            f"{median(cold_empty) * 1000:.0f} ms",
            "baseline",
        ],
        [
            "memscope to drawn queue, whole process (launch to drawn)",
            f"{median(cold_ours) * 1000:.0f} ms",
            f"{median(cold_ours) / median(cold_empty):.2f}× the empty app (target ≤ 3×)",
        ],
        [
            "next question, key to first repaint, p50 / p95",
            f"{paint_p50 * 1000:.1f} / {paint_p95 * 1000:.1f} ms",
            "target p95 < 33 ms (issue 14)",
        ],
        [
            "next question, key to every repaint settled, p50 / p95",
            f"{key_p50 * 1000:.1f} / {key_p95 * 1000:.1f} ms",
            "Pilot press + pause; target p95 < 100 ms",
        ],
        [
            "next question, building the view, p50 / p95",
            f"{build_p50 * 1000:.1f} / {build_p95 * 1000:.1f} ms",
            "",
        ],
        [
            "same screen relaid out + repainted, nothing changed, p50 / p95",
            f"{floor_p50 * 1000:.1f} / {floor_p95 * 1000:.1f} ms",
            "Textual's floor for a full repaint",
        ],
        ["peak memory of the app process", f"{peak:.0f} MiB", "target < 700 MiB"],
    ]
    print_table(
        f"memscope app, {args.questions:,}-question run, medians of {args.repeat} processes, {args.presses} presses each",
        ["what", "measured", "note"],
        rows,
    )
    write_script_figures(
        args.figures, app_figures(args, starts, cold_empty, cold_ours, navigations)
    )


def app_figures(
    args: argparse.Namespace,
    starts: list[dict],
    cold_empty: list[float],
    cold_ours: list[float],
    navigations: list[dict],
) -> list[Figure]:
    """The measurements as records, with issue 14's targets (times in ms)."""
    repeat, presses = args.repeat, args.presses
    processes = f"median of {repeat} processes"
    common = {"group": "app", "size": args.questions, "trials": repeat}

    def in_ms(key: str, name: str, seconds: float, note: str = "", **more) -> Figure:
        return Figure(
            key,
            name=name,
            value=seconds * 1000,
            unit="ms",
            statistic=processes,
            note=note,
            **common,
            **more,
        )

    def spread(
        key: str,
        name: str,
        samples: str,
        p95: Target | None = None,
        note: str = "",
        each: str = f"{presses} presses",
    ) -> list[Figure]:
        """p50 and p95 of each process's samples, median over the processes."""
        return [
            Figure(
                f"{key}.p{q}",
                name=f"{name}, p{q}",
                value=median([percentile(n[samples], q) for n in navigations]) * 1000,
                unit="ms",
                statistic=f"p{q} of each process's {each}, {processes}",
                target=p95 if q == 95 else None,
                note=note,
                **common,
            )
            for q in (50, 95)
        ]

    empty = median([s["empty_s"] for s in starts])
    ours = median([s["memscope_s"] for s in starts])
    rows = starts[0]["queue_rows"]
    return [
        in_ms("app.start.empty", "empty Textual app start (run_test to idle)", empty, "baseline"),
        in_ms(
            "app.start.memscope",
            f"memscope start to interactive queue ({rows:,} rows)",
            ours,
            context={"queue_rows": rows},
        ),
        Figure(
            "app.start.ratio",
            name="app start to interactive queue / empty Textual app, in-process",
            value=ours / empty,
            unit="×",
            target=at_most(3),
            statistic="ratio of the medians",
            baseline="an empty Textual app's start, in the same process",
            **common,
        ),
        in_ms(
            "app.cold.empty",
            "empty Textual app, whole process (launch to drawn)",
            median(cold_empty),
            "baseline",
        ),
        in_ms(
            "app.cold.memscope",
            "memscope to drawn queue, whole process (launch to drawn)",
            median(cold_ours),
        ),
        Figure(
            "app.cold.ratio",
            name="app to drawn queue / empty Textual app, whole processes",
            value=median(cold_ours) / median(cold_empty),
            unit="×",
            target=at_most(3),
            statistic="ratio of the medians",
            baseline="an empty Textual app, launched the same way",
            **common,
        ),
        *spread(
            "app.next.first_repaint", "next question, key to first repaint", "paint_s", below(33)
        ),
        *spread(
            "app.next.settled",
            "next question, key to every repaint settled",
            "key_s",
            below(100),
            "Pilot press + pause",
        ),
        *spread("app.next.build", "next question, building the view", "build_s"),
        *spread(
            "app.floor",
            "same screen relaid out + repainted, nothing changed",
            "floor_s",
            note="Textual's own floor for a full repaint",
            each=f"{max(10, presses // 4)} repaints",
        ),
        Figure(
            "app.memory.peak",
            name="peak memory of the app process",
            value=max(n["peak_mib"] for n in navigations),
            unit="MiB",
            target=below(700),
            statistic=f"max over the {repeat} processes that ran the presses",
            **common,
        ),
    ]


if __name__ == "__main__":
    main()
