"""Times opening a question in the app (Pilot, headless): a LongMemEval question over its own
500-session history against a MemEye question (issue 40 item 4: "opening a question's
500-session history in the app at the same cost as a MemEye question").

Two stores are prepared once and kept in ``benchmarks/_work/history_app/``:

- LongMemEval at M size: ``bench_longmemeval.py``'s generated tree (496 questions, each over
  its own haystack of 500 filler sessions plus its evidence; ``--turn-chars`` sets the
  text's length) with its judged full-history run, ingested;
- MemEye: ``bench_app.py``'s generated run of ``--memeye-questions`` (3,000), ingested with
  its suggestions, as the app's own benchmark keeps it.

Each measurement is a fresh child process, LongMemEval and MemEye in alternation,
``--repeat`` of each. A child opens the run's queue, waits until the background loading is
over, enters the question screen, then opens ``--questions`` questions spread over the
queue, each *cold* (the session's question cache emptied first, so the question is read
from the store on the key, as a question never prefetched is): ``j`` pressed, timed to the
first repaint after the question's view was built (the app's own repaint clock,
``memscope.tui.paint_clock``), and to the end of the work the key started (its prefetch of
the next questions). Also timed alone: ``TriageSession.read_question`` of a question not
cached (the store read and the view records). Figures are the median of each child's
median, then their ratio, LongMemEval / MemEye. Target: ≤ 1.2× (the same cost; the shared
machine's noise between children is about 10 %).

    .venv/bin/python benchmarks/bench_history_app.py [--repeat 3] [--questions 20]

Never asserts: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import WORK, bytecode_env, median, print_table

ROOT = Path(__file__).resolve().parents[1]
LME_RUN = "full-history-session/gpt-4o-mini/con:m-top500-20250104-0900@gpt-4o"
SIZE = (160, 48)
QUIET_S = 0.12
"""A key's work is over once no repaint came for this long and its workers finished."""


def register_longmemeval() -> None:
    """The ``longmemeval`` entry point where the installed metadata predates it (a checkout
    run with ``PYTHONPATH=src``), as the tests and ``bench_longmemeval.py`` do."""
    from importlib import metadata

    from memscope.adapters import registry
    from memscope.adapters.registry import GROUP

    points = list(metadata.entry_points(group=GROUP))
    if not any(point.name == "longmemeval" for point in points):
        points.append(
            metadata.EntryPoint(
                name="longmemeval", value="memscope.adapters.longmemeval:BENCHMARK", group=GROUP
            )
        )
        registry.reset(points)


# -- children ----------------------------------------------------------------------------------


def child_prepare(run_dir: str) -> dict[str, Any]:
    """Ingest the LongMemEval run folder into $MEMSCOPE_DB (unless done)."""
    register_longmemeval()
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.usecases.runs.ingest import ingest_dir

    store = Store(Path(os.environ["MEMSCOPE_DB"]))
    began = time.perf_counter()
    ingest_dir(store, Path(run_dir), ReadOptions())
    return {"ingest_s": time.perf_counter() - began}


def child_open(run_id: str, questions: int) -> dict[str, Any]:
    """Open ``questions`` questions of ``run_id`` cold, one ``j`` each; their timings."""
    register_longmemeval()
    from memscope.tui.app import make_app
    from memscope.tui.open_request import OpenRequest
    from memscope.tui.paint_clock import PaintClock
    from memscope.tui.screens.question import QuestionScreen
    from memscope.tui.widgets.image_preview import ImagePreview

    ImagePreview.renderer = None  # no terminal to draw images on
    built_at: list[float] = []
    show = QuestionScreen.show_question

    def timed_show(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = show(self, *args, **kwargs)
        built_at.append(time.perf_counter())
        return result

    QuestionScreen.show_question = timed_show  # type: ignore[method-assign]

    async def until(pilot: Any, ready: Any, what: str) -> None:
        began = time.perf_counter()
        while not ready():
            await pilot.pause(0.001)
            if time.perf_counter() - began > 600:
                raise SystemExit(f"the app did not reach {what}")

    async def measure() -> dict[str, Any]:
        app = make_app(OpenRequest([run_id], annotator=f"bench-{os.getpid()}", queue="all"))
        clock = PaintClock(mark=lambda: bool(app.session.is_open)).install(app)
        first: list[float] = []
        settled: list[float] = []
        reads: list[float] = []
        history: list[int] = []
        async with app.run_test(size=SIZE) as pilot:
            session = app.session
            await until(pilot, lambda: session.is_open and session.counted, "the queue")
            run = session.run
            await until(pilot, lambda: run.suggestions_ready, "the suggestions")
            await app.workers.wait_for_complete()
            step = max(1, len(session.rows) // (questions + 1))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)
            for n in range(questions):
                session.go_to(min(len(session.rows) - 2, n * step))
                # The question after the cursor, read cold on the key: never prefetched.
                session.questions.clear()
                await app.workers.wait_for_complete()
                built_at.clear()
                clock.clear()
                before = set(app.workers)
                began = time.perf_counter()
                await pilot.press("j")
                while True:
                    await asyncio.sleep(0.005)
                    now = time.perf_counter()
                    busy = any(not w.is_finished for w in app.workers if w not in before)
                    if built_at and not busy and now - (clock.last() or began) >= QUIET_S:
                        break
                    if now - began > 30:
                        raise SystemExit("a question did not open within 30 s")
                paint = clock.first_after(built_at[-1])
                first.append((paint if paint is not None else built_at[-1]) - began)
                settled.append((clock.last() or now) - began)
                entries = getattr(app.screen, "entries", [])
                history.append(sum(1 for entry in entries if entry.kind == "session"))
            # The store read and view records alone, of questions not cached.
            qids = [qid for qid in session.upcoming_qids(ahead=questions * 2) if qid][:questions]
            for qid in qids:
                session.questions.clear()
                began = time.perf_counter()
                session.read_question(qid)
                reads.append(time.perf_counter() - began)
        return {
            "first_s": first,
            "settled_s": settled,
            "read_s": reads,
            "sessions_shown": history,
        }

    return asyncio.run(measure())


# -- the parent --------------------------------------------------------------------------------


def run_child(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", *argv],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{argv[:2]} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def lme_store(sessions: int, turn_chars: int, env: dict[str, str]) -> Path:
    """The M-sized LongMemEval tree (``bench_longmemeval.py``'s), ingested once."""
    from bench_longmemeval import generated

    _dataset, run_dir = generated(sessions, turn_chars)
    folder = WORK / "history_app" / f"longmemeval_m_{sessions}_{turn_chars}"
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "store.duckdb"
    if not (folder / "ingested").is_file():
        print(f"ingesting {run_dir} into {store} …", file=sys.stderr)
        store.unlink(missing_ok=True)
        done = run_child(["prepare", str(run_dir)], env | {"MEMSCOPE_DB": str(store)})
        (folder / "ingested").write_text(json.dumps(done) + "\n")
    return store


def memeye_store(questions: int, env: dict[str, str]) -> tuple[Path, str]:
    """``bench_app.py``'s generated MemEye run, ingested with its suggestions (once)."""
    from bench_app import prepared_store

    record = prepared_store(questions, dict(env), limit_mib=6144)
    return WORK / "app_stores" / str(questions) / "store.duckdb", str(record["run_id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--turn-chars", type=int, default=300)
    parser.add_argument("--memeye-questions", type=int, default=3000)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.child:
        mode, *rest = args.child
        prepare = mode == "prepare"
        result = child_prepare(rest[0]) if prepare else child_open(rest[0], int(rest[1]))
        print(json.dumps(result))
        return
    env = bytecode_env(PYTHONPATH=str(ROOT / "src"))
    lme = lme_store(args.sessions, args.turn_chars, env)
    memeye, memeye_run = memeye_store(args.memeye_questions, env)
    got: dict[str, list[dict[str, Any]]] = {"lme": [], "memeye": []}
    for trial in range(args.repeat + 1):  # the first, untimed, fills the bytecode cache
        for name, store, run_id in (("lme", lme, LME_RUN), ("memeye", memeye, memeye_run)):
            print(f"{name} {trial}/{args.repeat} …", file=sys.stderr)
            result = run_child(
                ["open", run_id, str(args.questions)], env | {"MEMSCOPE_DB": str(store)}
            )
            if trial:
                got[name].append(result)

    def figure(name: str, key: str) -> float:
        return median([median(child[key]) for child in got[name]]) * 1000

    shown = median([median(child["sessions_shown"]) for child in got["lme"]])
    rows = []
    for key, what in (
        ("first_s", "key to the question painted"),
        ("settled_s", "key to the end of its work (prefetch included)"),
        ("read_s", "read_question alone (store read, view records)"),
    ):
        lme_ms, memeye_ms = figure("lme", key), figure("memeye", key)
        ratio = lme_ms / memeye_ms
        target = "≤ 1.2x" if key == "first_s" else ""
        verdict = ("met" if ratio <= 1.2 else "missed") if target else ""
        rows.append(
            [what, f"{lme_ms:.1f} ms", f"{memeye_ms:.1f} ms", f"{ratio:.2f}x", target, verdict]
        )
    print_table(
        f"Opening a question cold: LongMemEval ({args.sessions} sessions a question, "
        f"{shown:.0f} session lines on its timeline) vs MemEye ({args.memeye_questions:,} "
        f"questions); medians of {args.repeat} children x {args.questions} questions",
        ["figure", "LongMemEval", "MemEye", "ratio", "target", ""],
        rows,
    )  # fmt: skip


if __name__ == "__main__":
    main()
