"""Times the triage app headless (Pilot) on generated MemEye runs of several sizes.

For each ``--questions`` size (default 3,000, 50,000 and 1,000,000) the run is generated
once (benchmarks/generate_run.py, cached in benchmarks/_work) and ingested once, with its
suggestions, into a store kept beside it (``_work/app_stores/<size>/store.duckdb``), as
after a first ``memscope open``; how long generating and ingesting took is measured the
first time and kept beside the store. Each measurement then runs in a fresh child process,
so that one cannot warm up the next, and under a memory limit (``--memory-limit-mib``,
6 GiB): the parent samples the child's resident memory and stops it past the limit, which
the figures then say ("did not open within the limit") instead of the machine swapping.

Repaints are timed by the app's own clock (``memscope.tui.paint_clock``: the moment each
screen update is handed to the terminal), installed only here.

- ``start``: an empty Textual app's start (``run_test`` until idle) and, in the same
  process, memscope's start until its queue screen is drawn (the session open, the queue
  screen's first repaint); both after imports (memscope's app module imports DuckDB and
  the installed benchmark plugins with it: ``cold`` counts them). The queue is drawn from
  its head; counting the rest follows in the background (not timed here). Target: ratio
  ≤ 3 at every size.
- ``cold``: the same two as whole processes, from launch until the process reports the
  queue drawn (Python start-up and imports included): each a ``python -c`` script with
  only what it needs (memscope's: the app module and its repaint clock), none of this
  script's own imports. Target: ratio ≤ 2.5.
- ``next``: the queue of every question drawn; the background loading left to finish;
  ``enter`` onto the question screen; then ``j`` pressed ``--presses`` times. Per press:
  the time from the key to the first repaint after the new question's view was built
  (``QuestionScreen.show_question``; to the first repaint at all where that method is
  gone), and *settled*: the time from the key to the last repaint it caused (the app's
  own timestamps; the key counts as done once no repaint came for 120 ms and every
  worker started since the key finished). Then, as the floor, every widget of the same
  screen is relaid out and repainted with nothing changed: what Textual itself needs for
  a full-screen update. Before ``enter``, ``pagedown`` on the queue is timed the same way
  (a scroll step; no target). Targets (issue 30): first repaint p95 ≤ the floor's p95 measured
  in the same process, settled p95 < 100 ms.
- ``memory``: the resident memory of the ``next`` child after imports, with the queue
  drawn, once the background loading finished (evidence, suggestions), on the question
  screen, and its peak. Target (issue 30): peak < 300 MiB at 50,000 questions and
  < 400 MiB at 1,000,000.

Sizes of 1,000,000 and more run ``--large-repeat`` times (default once): they take
minutes and the machine is shared. Prints medians over ``--repeat`` children;
``--figures FILE`` writes the records, ``--into FILE`` replaces this script's records in
a suite document (benchmarks/figures.json) with them. Never asserts: a benchmark, not a
test.

    .venv/bin/python benchmarks/bench_app.py --repeat 3 --presses 100 \\
        --into benchmarks/figures.json
    .venv/bin/python benchmarks/render_table.py benchmarks/figures.json --readme benchmarks/README.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import WORK, bytecode_env, generated_run, generation_seconds, median, print_table
from figures import (
    STARTED,
    Figure,
    FiguresError,
    Target,
    add_figures_option,
    at_most,
    atomic_write_text,
    below,
    dump,
    read_document,
    script_document,
    write_script_figures,
)

SCRIPT = Path(__file__).name
LARGE = 1_000_000  # sizes from here on run --large-repeat times
QUIET_S = 0.12  # a key has settled once no repaint came for this long …
SETTLE_CAP_S = 2.0  # … or after this long in any case (counted in the figures' context)
MACHINE_RESERVE_MIB = 2048  # a child is stopped when the machine has less than this left
# Issue 30's peak-memory targets by run size (none stated below 50,000 questions).
PEAK_TARGETS_MIB = {50_000: 300.0, 1_000_000: 400.0}


def resident_mib() -> tuple[float, float]:
    """This process's resident memory now and its peak so far, in MiB (Linux)."""
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) / 1024
    return found["VmRSS"], found["VmHWM"]


# -- the measurements, each in a fresh child process ----------------------------------------


def prepare_store(run_dir: Path) -> dict[str, Any]:
    """Ingest the run into $MEMSCOPE_DB and compute its suggestions (each unless done)."""
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.usecases.runs.ingest import ingest_dir
    from memscope.usecases.suggest.rules import suggest_run, suggestion_state

    store = Store(Path(os.environ["MEMSCOPE_DB"]))
    began = time.perf_counter()
    outcome = ingest_dir(store, run_dir, ReadOptions())
    ingest_s = time.perf_counter() - began
    suggest_s = None
    if suggestion_state(store, outcome.run_id) is None:
        began = time.perf_counter()
        suggest_run(store, outcome.run_id)
        suggest_s = time.perf_counter() - began
    return {
        "run_id": outcome.run_id,
        "status": outcome.status,  # "unchanged": nothing was ingested, ingest_s is the check
        "ingest_s": ingest_s,
        "suggest_s": suggest_s,
    }


def queue_rows(session: Any) -> int | None:
    """How many rows the session's queue has (None where it keeps no ``rows``)."""
    rows = getattr(session, "rows", None)
    return len(rows) if rows is not None else None


def child(mode: str, run_id: str, presses: int) -> dict[str, Any]:
    """One measurement in this (fresh) process; returns its figures."""
    import asyncio

    from textual.app import App

    from memscope.tui.heap import starting_without_gc

    # As ``memscope open`` does (tui/launch.py): the imports and the app's construction
    # with the garbage collector off, what they built frozen.
    with starting_without_gc():
        from memscope.tui.app import make_app
        from memscope.tui.open_request import OpenRequest
        from memscope.tui.paint_clock import PaintClock
        from memscope.tui.screens.queue import QueueScreen
    if mode == "next":  # only the question screen's measurement shows it (and images)
        from memscope.tui.screens.question import QuestionScreen
        from memscope.tui.widgets.image_preview import ImagePreview

        ImagePreview.renderer = None  # no terminal to draw images on
    memory = {"imports": resident_mib()}
    deadline_s = 1800.0
    # A fresh annotator per process: nothing to resume, so every start lands on the queue.
    annotator = f"bench-{os.getpid()}"

    async def until(pilot: Any, ready: Any, what: str) -> None:
        began = time.perf_counter()
        while not ready():
            await pilot.pause(0.001)
            if time.perf_counter() - began > deadline_s:
                screen = type(pilot.app.screen).__name__
                raise SystemExit(f"the app did not reach {what}; it shows {screen}")

    def clock_for(app: Any) -> PaintClock:
        """The app's repaint clock, marking each frame with whether the run was open."""
        return PaintClock(mark=lambda: bool(app.session.is_open)).install(app)

    def queue_paints(clock: PaintClock) -> list[float]:
        """When the queue screen was drawn with the run open."""
        drawn = zip(clock.times, clock.screens, clock.marks, strict=True)
        return [at for at, screen, is_open in drawn if is_open and isinstance(screen, QueueScreen)]

    def background_done(app: Any) -> bool:
        """The run's background loading finished (where this version has one)."""
        run = getattr(app.session, "run", None)
        return bool(
            getattr(run, "evidence_ready", True) and getattr(run, "suggestions_ready", True)
        )

    async def settle(pilot: Any, clock: PaintClock, began: float, before: set[Any]) -> bool:
        """Wait until the key's repaints are over; False if that took over the cap."""
        app = pilot.app
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            busy = any(not w.is_finished for w in app.workers if w not in before)
            if not busy and now - (clock.last() or began) >= QUIET_S:
                return True
            if now - began > SETTLE_CAP_S:
                return False

    async def start() -> dict[str, Any]:
        began = time.perf_counter()
        async with App().run_test(size=(120, 40)) as pilot:
            await pilot.pause()
        empty_s = time.perf_counter() - began
        began = time.perf_counter()
        with starting_without_gc():
            app = make_app(OpenRequest([run_id], annotator=annotator))
        clock = clock_for(app)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: bool(queue_paints(clock)), "a drawn queue")
            drawn = queue_paints(clock)[0]
            rows = queue_rows(app.session)
            # The queue is drawn from its head; then the whole of it is counted (untimed
            # above: the user has the queue meanwhile).
            await until(pilot, lambda: getattr(app.session, "counted", True), "a counted queue")
            counted_s = time.perf_counter() - began
            whole = queue_rows(app.session)
        return {
            "empty_s": empty_s,
            "memscope_s": drawn - began,
            "queue_rows": rows,
            "counted_s": counted_s,
            "whole_rows": whole,
        }

    async def navigate() -> dict[str, Any]:
        built_at: list[float] = []
        build_times: list[float] = []
        show = getattr(QuestionScreen, "show_question", None)
        if show is not None:

            def timed_show(self: Any, *args: Any, **kwargs: Any) -> Any:
                began = time.perf_counter()
                result = show(self, *args, **kwargs)
                built_at.append(time.perf_counter())
                build_times.append(built_at[-1] - began)
                return result

            QuestionScreen.show_question = timed_show  # type: ignore[method-assign]
        with starting_without_gc():
            app = make_app(OpenRequest([run_id], annotator=annotator, queue="all"))
        clock = clock_for(app)
        settled: list[float] = []
        first_paint: list[float] = []
        page_first: list[float] = []
        page_settled: list[float] = []
        over_cap = 0
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: bool(queue_paints(clock)), "a drawn queue")
            memory["queue"] = resident_mib()
            await until(pilot, lambda: background_done(app), "the end of the background loading")
            await app.workers.wait_for_complete()
            memory["loaded"] = resident_mib()
            # The queue paged: what a scroll step costs (issue 30 reads it from the store).
            for _ in range(max(10, presses // 5)):
                clock.clear()
                before = set(app.workers)
                began = time.perf_counter()
                await pilot.press("pagedown")
                over_cap += not await settle(pilot, clock, began, before)
                if clock.times:  # none: the end of the queue, nothing moved
                    page_first.append(clock.times[0] - began)
                    page_settled.append(clock.times[-1] - began)
            # Back to the first row, so that a short queue still has questions after it.
            await pilot.press("home")
            await settle(pilot, clock, time.perf_counter(), set(app.workers))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
            await app.workers.wait_for_complete()
            await pilot.pause(0.5)
            memory["question"] = resident_mib()
            build_times.clear()
            for _ in range(presses):
                built_at.clear()
                clock.clear()
                before = set(app.workers)
                began = time.perf_counter()
                await pilot.press("j")
                over_cap += not await settle(pilot, clock, began, before)
                if not clock.times:  # the end of the queue: nothing moved, nothing to time
                    continue
                settled.append(clock.times[-1] - began)
                paint = clock.first_after(built_at[-1] if built_at else began)
                if paint is not None:
                    first_paint.append(paint - began)
            moved = getattr(app.session, "position", None)
            # Textual's floor: the same screen relaid out and repainted with nothing changed.
            floor: list[float] = []
            for _ in range(max(10, presses // 4)):
                clock.clear()
                began = time.perf_counter()
                for widget in app.screen.query("*"):
                    widget.refresh(layout=True)
                await pilot.pause()
                paint = clock.first_after(began)
                if paint is not None:
                    floor.append(paint - began)
        memory["end"] = resident_mib()
        return {
            "key_s": settled,
            "paint_s": first_paint,
            "build_s": build_times,
            "floor_s": floor,
            "page_first_s": page_first,
            "page_settled_s": page_settled,
            "over_cap": over_cap,
            "moved": moved,
            "memory": memory,
            "peak_mib": max(peak for _, peak in memory.values()),
        }

    modes = {"start": start, "next": navigate}
    return asyncio.run(modes[mode]())


EMPTY_APP = (
    "import asyncio, os\nfrom textual.app import App\n"
    "async def main():\n    async with App().run_test(size=(120, 40)) as pilot:\n        await pilot.pause()\n"
    "        print('READY', flush=True)\n        os._exit(0)\n"
    "asyncio.run(main())\n"
)
# memscope's whole process, as lean as the empty app's: the app module, its repaint clock
# (to see the queue drawn) and nothing of this script (argv: the run id, the annotator).
MEMSCOPE_APP = (
    "import asyncio, os, sys\n"
    "from memscope.tui.heap import starting_without_gc\n"
    "with starting_without_gc():  # as memscope open starts (tui/launch.py)\n"
    "    from memscope.tui.app import make_app\n"
    "    from memscope.tui.open_request import OpenRequest\n"
    "    from memscope.tui.paint_clock import PaintClock\n"
    "    from memscope.tui.screens.queue import QueueScreen\n"
    "    app = make_app(OpenRequest([sys.argv[1]], annotator=sys.argv[2]))\n"
    "async def main():\n"
    "    clock = PaintClock(mark=lambda: bool(app.session.is_open)).install(app)\n"
    "    drawn = lambda: any(o and isinstance(s, QueueScreen) for s, o in zip(clock.screens, clock.marks))\n"
    "    async with app.run_test(size=(120, 40)) as pilot:\n"
    "        while not drawn():\n            await pilot.pause(0.001)\n"
    "        print('READY', flush=True)\n"
    "        os._exit(0)  # the background loading need not finish for this measurement\n"
    "asyncio.run(main())\n"
)


# -- running children under a memory limit ---------------------------------------------------


@dataclass
class Outcome:
    """How a child process ended."""

    returncode: int
    stdout: str
    stderr: str
    ready_s: float | None  # when it printed READY (cold starts), from launch
    peak_mib: float  # the largest resident memory the parent saw
    over_limit: bool  # stopped because it passed the memory limit


def child_resident_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def machine_available_mib() -> float:
    """The machine's available memory (MemAvailable), in MiB."""
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return float("inf")


def run_limited(
    argv: list[str], env: dict[str, str], limit_mib: float, timeout_s: float = 3600
) -> Outcome:
    """Run ``argv``, sampling its resident memory every 50 ms and killing it past the limit
    (or when the shared machine has less than ``MACHINE_RESERVE_MIB`` left)."""
    began = time.perf_counter()
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None and process.stderr is not None
    lines: list[str] = []
    errors: list[str] = []
    ready: list[float] = []

    def read_out() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("READY") and not ready:
                ready.append(time.perf_counter() - began)
            lines.append(line)

    def read_err() -> None:
        assert process.stderr is not None
        errors.extend(process.stderr)

    readers = [threading.Thread(target=read_out), threading.Thread(target=read_err)]
    for reader in readers:
        reader.start()
    peak, over = 0.0, False
    while process.poll() is None:
        peak = max(peak, child_resident_mib(process.pid))
        if peak > limit_mib or machine_available_mib() < MACHINE_RESERVE_MIB:
            over = True
            process.kill()
        elif time.perf_counter() - began > timeout_s:
            process.kill()
        time.sleep(0.05)
    for reader in readers:
        reader.join()
    return Outcome(
        process.returncode,
        "".join(lines),
        "".join(errors),
        ready[0] if ready else None,
        peak,
        over,
    )


def child_argv(mode: str, run_id: str, presses: int = 0) -> list[str]:
    return [
        sys.executable,
        __file__,
        "--child",
        mode,
        "--run-id",
        run_id,
        "--presses",
        str(presses),
    ]


class OverLimit(Exception):
    """A child passed the memory limit (the size's figures say so)."""

    def __init__(self, what: str, peak_mib: float) -> None:
        super().__init__(what)
        self.what, self.peak_mib = what, peak_mib


def measured(what: str, outcome: Outcome) -> dict[str, Any]:
    """The JSON a child printed last, or exit with what went wrong."""
    if outcome.over_limit:
        raise OverLimit(what, outcome.peak_mib)
    if outcome.returncode:
        sys.exit(f"the {what} measurement failed:\n{outcome.stderr[-3000:]}")
    return json.loads(outcome.stdout.strip().splitlines()[-1])


def cold_start(argv: list[str], env: dict[str, str], limit_mib: float, what: str) -> float:
    outcome = run_limited(argv, env, limit_mib)
    if outcome.over_limit:
        raise OverLimit(what, outcome.peak_mib)
    if outcome.ready_s is None or outcome.returncode:
        sys.exit(
            f"the {what} failed with exit status {outcome.returncode}:\n{outcome.stderr[-3000:]}"
        )
    return outcome.ready_s


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank); NaN when there are no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


# -- one size ----------------------------------------------------------------------------------


@dataclass
class SizeResult:
    """Everything measured at one run size."""

    questions: int
    repeat: int
    prepared: dict[str, Any]
    starts: list[dict[str, Any]]
    cold_empty: list[float]
    cold_ours: list[float]
    navigations: list[dict[str, Any]]
    over_limit: OverLimit | None = None
    load_average: tuple[float, float] = (0.0, 0.0)  # 1-minute load, before and after


def prepared_store(questions: int, env: dict[str, str], limit_mib: float) -> dict[str, Any]:
    """The size's run generated and ingested (each once, timed then), with those timings."""
    folder = WORK / "app_stores" / str(questions)
    folder.mkdir(parents=True, exist_ok=True)
    record_path = folder / "prepared.json"
    record = json.loads(record_path.read_text()) if record_path.is_file() else {}
    run_dir = generated_run(questions)
    record["generate_s"] = generation_seconds(questions)
    env["MEMSCOPE_DB"] = str(folder / "store.duckdb")
    print(f"ingesting {run_dir} into {folder} (unless done) …", file=sys.stderr)
    outcome = run_limited(
        [sys.executable, __file__, "--child", "prepare", "--run-dir", str(run_dir)], env, limit_mib
    )
    if outcome.over_limit:
        sys.exit(f"ingesting the {questions:,}-question run passed {limit_mib:,.0f} MiB; stopped")
    if outcome.returncode:
        sys.exit(f"ingesting the {questions:,}-question run failed:\n{outcome.stderr[-3000:]}")
    done = json.loads(outcome.stdout.strip().splitlines()[-1])
    # Only what this call did replaces what an earlier one measured.
    if done["status"] != "unchanged":
        record |= {"ingest_s": done["ingest_s"], "ingest_peak_mib": outcome.peak_mib}
    if done["suggest_s"] is not None:
        record |= {"suggest_s": done["suggest_s"], "suggest_peak_mib": outcome.peak_mib}
    record["run_id"] = done["run_id"]
    atomic_write_text(record_path, json.dumps(record, indent=2) + "\n")
    return record


def measure_size(
    questions: int,
    repeat: int,
    presses: int,
    limits: tuple[float, float],
    env: dict[str, str],
    warm_up: bool,
) -> SizeResult:
    """Every measurement at one size (stopped early where a child passes the limit)."""
    limit_mib, ingest_limit_mib = limits
    prepared = prepared_store(questions, env, ingest_limit_mib)
    run_id = prepared["run_id"]
    result = SizeResult(questions, repeat, prepared, [], [], [], [])
    load_before = os.getloadavg()[0]
    try:
        if warm_up:  # untimed: fills the bytecode cache and the file cache
            cold_start([sys.executable, "-c", EMPTY_APP], env, limit_mib, "empty app")
            cold_start(
                [sys.executable, "-c", MEMSCOPE_APP, run_id, f"bench-cold-{time.monotonic_ns()}"],
                env,
                limit_mib,
                "whole-process start",
            )
        for _ in range(repeat):
            result.starts.append(
                measured("start", run_limited(child_argv("start", run_id), env, limit_mib))
            )
        for _ in range(repeat):
            result.cold_empty.append(
                cold_start([sys.executable, "-c", EMPTY_APP], env, limit_mib, "empty app")
            )
            result.cold_ours.append(
                cold_start(
                    [
                        sys.executable,
                        "-c",
                        MEMSCOPE_APP,
                        run_id,
                        f"bench-cold-{time.monotonic_ns()}",
                    ],
                    env,
                    limit_mib,
                    "whole-process start",
                )
            )
        for _ in range(repeat):
            outcome = run_limited(child_argv("next", run_id, presses), env, limit_mib)
            result.navigations.append(measured("next", outcome))
    except OverLimit as stopped:
        result.over_limit = stopped
    result.load_average = (load_before, os.getloadavg()[0])
    return result


# -- figures -----------------------------------------------------------------------------------


def size_figures(result: SizeResult, presses: int, limit_mib: float) -> list[Figure]:
    """One size's measurements as records, with issue 30's targets (times in ms)."""
    n, repeat = result.questions, result.repeat
    processes = f"median of {repeat} processes"
    common = {"group": "app", "size": n, "trials": repeat}
    at = f"{n:,} questions"
    figures: list[Figure] = []
    prepared = result.prepared
    if prepared.get("generate_s") is not None:
        figures.append(
            Figure(
                f"app.{n}.prepare.generate",
                name=f"generating the run (JSON), {at}",
                value=prepared["generate_s"],
                unit="s",
                statistic="once, then cached",
                note="benchmarks/generate_run.py, streaming",
                group="app",
                size=n,
                trials=1,
            )
        )
    steps = {"ingest": "ingesting it (`ingest_dir`)", "suggest": "computing its suggestions"}
    for step, words in steps.items():
        peak_mib = prepared.get(f"{step}_peak_mib") or 0.0
        if prepared.get(f"{step}_s") is not None:
            figures.append(
                Figure(
                    f"app.{n}.prepare.{step}",
                    name=f"{words}, {at}",
                    value=prepared[f"{step}_s"],
                    unit="s",
                    statistic="once, then cached",
                    note="; ".join(
                        part
                        for part in (
                            f"peak of the process that did it: {peak_mib:,.0f} MiB",
                            prepared.get(f"{step}_note"),  # how, where it was measured apart
                        )
                        if part
                    ),
                    group="app",
                    size=n,
                    trials=1,
                )
            )

    def in_ms(key: str, name: str, seconds: float, note: str = "", **more: Any) -> Figure:
        return Figure(
            f"app.{n}.{key}",
            name=f"{name}, {at}",
            value=seconds * 1000,
            unit="ms",
            statistic=processes,
            note=note,
            **common,
            **more,
        )

    def ratio(
        key: str, name: str, ours: float, base: float, target: Target, baseline: str
    ) -> Figure:
        return Figure(
            f"app.{n}.{key}",
            name=f"{name}, {at}",
            value=ours / base,
            unit="×",
            target=target,
            statistic="ratio of the medians",
            baseline=baseline,
            context={"memscope_ms": ours * 1000, "baseline_ms": base * 1000},
            **common,
        )

    if result.starts:
        empty = median([s["empty_s"] for s in result.starts])
        ours = median([s["memscope_s"] for s in result.starts])
        rows = result.starts[0]["queue_rows"]
        whole = result.starts[0].get("whole_rows")
        shown = f" ({rows:,} rows drawn)" if rows is not None else ""
        figures += [
            in_ms("start.empty", "empty Textual app start (run_test to idle)", empty, "baseline"),
            in_ms(
                "start.memscope",
                f"memscope start to drawn queue{shown}",
                ours,
                context={"queue_rows": rows},
            ),
        ]
        if whole is not None:
            counted = median([s["counted_s"] for s in result.starts])
            figures.append(
                in_ms(
                    "start.counted",
                    f"memscope start to the whole queue counted ({whole:,} rows)",
                    counted,
                    "after the first paint, in the background",
                    context={"queue_rows": whole},
                )
            )
        figures += [
            ratio(
                "start.ratio",
                "app start to drawn queue / empty Textual app, in-process",
                ours,
                empty,
                at_most(3),
                "an empty Textual app's start, in the same process",
            ),
        ]
    if result.cold_ours and len(result.cold_ours) == len(result.cold_empty):
        empty, ours = median(result.cold_empty), median(result.cold_ours)
        figures += [
            in_ms(
                "cold.empty",
                "empty Textual app, whole process (launch to drawn)",
                empty,
                "baseline",
            ),
            in_ms(
                "cold.memscope", "memscope to drawn queue, whole process (launch to drawn)", ours
            ),
            ratio(
                "cold.ratio",
                "app to drawn queue / empty Textual app, whole processes",
                ours,
                empty,
                at_most(2.5),
                "an empty Textual app, launched the same way",
            ),
        ]
    navigations = result.navigations
    if navigations:

        def spread(
            key: str,
            name: str,
            samples: str,
            p95: Target | None = None,
            note: str = "",
            each: str = f"{presses} presses",
        ) -> list[Figure]:
            """p50 and p95 of each process's samples, median over the processes (none
            where a process has no samples: e.g. a queue too short to move in)."""
            if not all(nav.get(samples) for nav in navigations):
                return []
            return [
                Figure(
                    f"app.{n}.{key}.p{q}",
                    name=f"{name}, p{q}, {at}",
                    value=median([percentile(nav[samples], q) for nav in navigations]) * 1000,
                    unit="ms",
                    statistic=f"p{q} of each process's {each}, {processes}",
                    target=p95 if q == 95 else None,
                    note=note,
                    **common,
                )
                for q in (50, 95)
            ]

        paint95 = median([percentile(nav["paint_s"], 95) for nav in navigations])
        floor95 = median([percentile(nav["floor_s"], 95) for nav in navigations])
        over_cap = sum(nav["over_cap"] for nav in navigations)
        settled_note = "the app's own repaint times"
        if over_cap:
            settled_note += f"; {over_cap} presses still repainting after {SETTLE_CAP_S:g} s"
        figures += [
            *spread("next.first_repaint", "next question, key to first repaint", "paint_s"),
            *spread(
                "floor",
                "same screen relaid out + repainted, nothing changed",
                "floor_s",
                note="Textual's own floor for a full repaint",
                each=f"{max(10, presses // 4)} repaints",
            ),
        ]
        if all(nav["paint_s"] and nav["floor_s"] for nav in navigations):
            figures.append(
                Figure(
                    f"app.{n}.next.first_repaint.vs_floor",
                    name=f"next question, first repaint p95 / full-repaint floor p95, {at}",
                    value=paint95 / floor95,
                    unit="×",
                    target=at_most(1),
                    statistic="ratio of the medians of each process's p95",
                    baseline="the same screen relaid out and repainted, in the same process",
                    context={
                        "first_repaint_p95_ms": paint95 * 1000,
                        "floor_p95_ms": floor95 * 1000,
                    },
                    **common,
                )
            )
        figures += [
            *spread(
                "next.settled",
                "next question, key to its last repaint (settled)",
                "key_s",
                below(100),
                settled_note,
            ),
            *spread("next.build", "next question, building the view", "build_s"),
        ]
        if all(nav.get("page_settled_s") for nav in navigations):
            pages = f"{max(10, presses // 5)} page-downs"
            figures += [
                *spread(
                    "queue.page.first_repaint",
                    "queue, page down, key to first repaint",
                    "page_first_s",
                    each=pages,
                ),
                *spread(
                    "queue.page.settled",
                    "queue, page down, key to its last repaint (settled)",
                    "page_settled_s",
                    note="the app's own repaint times",
                    each=pages,
                ),
            ]
        parts = {
            "imports": "after imports",
            "queue": "with the queue drawn",
            "loaded": "once the background loading finished",
            "question": "on the question screen",
        }
        for part, words in parts.items():
            figures.append(
                Figure(
                    f"app.{n}.memory.{part}",
                    name=f"resident memory {words}, {at}",
                    value=max(nav["memory"][part][0] for nav in navigations),
                    unit="MiB",
                    statistic=f"max over the {repeat} processes that ran the presses",
                    context={"peak_so_far_mib": max(nav["memory"][part][1] for nav in navigations)},
                    **common,
                )
            )
    target = PEAK_TARGETS_MIB.get(n)
    if navigations and result.over_limit is None:
        figures.append(
            Figure(
                f"app.{n}.memory.peak",
                name=f"peak memory of the app process, {at}",
                value=max(nav["peak_mib"] for nav in navigations),
                unit="MiB",
                target=None if target is None else below(target),
                statistic=f"max over the {repeat} processes that ran the presses",
                context={"load_average_before_after": result.load_average},
                **common,
            )
        )
    elif result.over_limit is not None:
        stopped = result.over_limit
        figures.append(
            Figure(
                f"app.{n}.memory.peak",
                name=f"peak memory of the app process, {at}",
                value=stopped.peak_mib,
                unit="MiB",
                target=None if target is None else below(target),
                statistic="resident memory when stopped",
                note=(
                    f"did not open within the {limit_mib:,.0f} MiB limit: the {stopped.what} "
                    "process was stopped there"
                ),
                **common,
            )
        )
    return figures


def summary_rows(figures: list[Figure]) -> list[list[str]]:
    rows = []
    for figure in figures:
        target = "" if figure.target is None else f"{figure.target.op} {figure.target.bound:g}"
        met = {True: "met", False: "MISSED", None: ""}[figure.met]
        value = f"{figure.value:,.2f} {figure.unit}"
        rows.append([figure.name, value, f"{target} {met}".strip(), figure.note])
    return rows


def write_into(
    path: Path, figures: list[Figure], sizes: list[int], parser: argparse.ArgumentParser
) -> None:
    """Put this run's records into the suite document at ``path``, in place of the ones of
    the sizes it measured; records of other sizes, and the entries that measured them,
    stay (so the 1,000,000 size need not be measured again with the others)."""
    try:
        document = read_document(path)
    except FiguresError as error:
        sys.exit(f"bench_app: {error}")
    argv = sys.argv[1:]
    at = argv.index("--into")
    own = script_document(SCRIPT, argv[:at] + argv[at + 2 :], STARTED, figures)
    if document.get("source", "measured") != "measured":  # e.g. a transcribed document
        own["scripts"][0]["source"] = "measured"
    measured = set(sizes)

    def superseded(entry: dict[str, Any]) -> bool:
        known, _ = parser.parse_known_args(entry["argv"])
        return entry["script"] == SCRIPT and set(known.questions) <= measured

    def kept(record: dict[str, Any]) -> bool:
        if record["script"] != SCRIPT:
            return True
        sized = record["id"].split(".")[1].isdigit()  # records from before issue 30: not
        return sized and record["size"] not in measured

    document["scripts"] = [e for e in document["scripts"] if not superseded(e)]
    document["scripts"] += own["scripts"]
    others = [r for r in document["figures"] if r["script"] != SCRIPT]
    mine = [r for r in document["figures"] if r["script"] == SCRIPT and kept(r)]
    mine = sorted(mine + own["figures"], key=lambda record: record["size"] or 0)  # stable
    document["figures"] = others + mine
    atomic_write_text(path, dump(document))
    read_document(path)


def build_parser() -> argparse.ArgumentParser:
    """The command line (also read back from earlier runs' entries by ``write_into``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[3_000, 50_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--large-repeat",
        type=int,
        default=1,
        help=f"repetitions for sizes of {LARGE:,} questions and more (default 1)",
    )
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument(
        "--memory-limit-mib",
        type=float,
        default=6144,
        help="stop any child process whose resident memory passes this (default 6 GiB)",
    )
    parser.add_argument(
        "--ingest-limit-mib",
        type=float,
        default=14336,
        help=(
            "the same for ingesting a run into its store and computing its suggestions "
            "(default 14 GiB: the 1,000,000-question suggestions peak near 12 GiB)"
        ),
    )
    parser.add_argument(
        "--into", type=Path, metavar="FILE", help="replace this script's records in FILE"
    )
    parser.add_argument(
        "--prepare-only",
        action="store_true",
        help="only generate and ingest the runs (each once) and say how long that took",
    )
    parser.add_argument("--child", choices=("start", "next", "prepare"), help=argparse.SUPPRESS)
    parser.add_argument("--run-id", help=argparse.SUPPRESS)
    parser.add_argument("--run-dir", type=Path, help=argparse.SUPPRESS)
    add_figures_option(parser)
    return parser


def main() -> None:
    parser = build_parser()
    args = parser.parse_args()
    if args.child == "prepare":
        print(json.dumps(prepare_store(args.run_dir)))
        return
    if args.child:
        print(json.dumps(child(args.child, args.run_id, args.presses)))
        return

    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="memscope-bench-app-") as scratch:
        # Children import from compiled bytecode, as an installed memscope does.
        env = bytecode_env(
            MEMSCOPE_CONFIG=str(Path(scratch) / "config.toml"), MEMSCOPE_IMAGE_RENDERER="none"
        )
        if args.prepare_only:
            for questions in args.questions:
                record = prepared_store(questions, env, args.ingest_limit_mib)
                print(f"{questions:,} questions: {json.dumps(record)}")
            return
        for number, questions in enumerate(args.questions):
            repeat = args.large_repeat if questions >= LARGE else args.repeat
            limits = (args.memory_limit_mib, args.ingest_limit_mib)
            result = measure_size(questions, repeat, args.presses, limits, env, number == 0)
            mine = size_figures(result, args.presses, args.memory_limit_mib)
            print_table(
                f"memscope app, {questions:,}-question run, medians of {repeat} processes, "
                f"{args.presses} presses each (load average {result.load_average[0]:.1f} before, "
                f"{result.load_average[1]:.1f} after)",
                ["what", "measured", "target", "note"],
                summary_rows(mine),
            )
            figures += mine
    write_script_figures(args.figures, figures)
    if args.into is not None:
        write_into(args.into, figures, args.questions, parser)


if __name__ == "__main__":
    main()
