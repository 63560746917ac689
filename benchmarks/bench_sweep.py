"""Times a paper's sweep of many small MemEye runs: ingest, re-ingest, ``table`` and ``runs``.

The sweep is generated once into ``benchmarks/_work/`` (``MEMSCOPE_BENCH_WORK`` moves it):
192 runs (8 tasks × 4 models × 6 methods, 46 questions each, 8,832 questions) and, with
``--sizes 1280``, 1,280 runs (8 tasks × 10 models × 8 methods × 2 modes). Each system answers
with its own accuracy (model, method and mode each shift it), so the systems of a table differ.

Every step is timed as a whole process, alternated with its baseline measured in the same
run, and reported as the median of ``--repeat`` repetitions and as a ratio of the medians:

- first ``memscope ingest runs/`` into a fresh store vs DuckDB ``read_json`` of the same
  predictions and dialog files into tables (target ≤ 3×);
- ``memscope ingest runs/`` again with nothing changed vs the one-query baseline (≤ 2×);
- ``memscope table runs/`` on the ingested store vs the one-query baseline: one DuckDB
  ``read_json`` over every ``predictions.jsonl``, grouped by run and X (≤ 4×);
- ``memscope runs`` vs the same one-query baseline (no target);
- the app's runs screen over the ingested sweep, from start to its first row drawn, vs an
  empty Textual app started the same way (``sweep_screen.py``; no target; ``--no-screen``
  leaves it out);
- with ``--tiny N``: first ``memscope ingest`` of N tiny runs (``TINY_QUESTIONS`` questions
  each, one dialog file) side by side in one folder, against the ``read_json`` baseline of
  those files (the target: 5,000 of them in under a minute).

    .venv/bin/python benchmarks/bench_sweep.py [--sizes 192 1280] [--tiny 5000] [--repeat 3]
        [--no-screen]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import VENV_BIN, WORK, bytecode_env, median, print_table, time_command
from figures import Figure, Target, add_figures_option, at_most, below, write_script_figures
from sweep_screen import measure_figures as measure_screen_figures

QUESTIONS_PER_RUN = 46
TASKS = 8
LETTERS = "ABCD"
# (models, methods, modes) of each sweep size.
SHAPES: dict[int, tuple[int, int, tuple[str, ...]]] = {
    192: (4, 6, ("open",)),
    1280: (10, 8, ("open", "mcq")),
}
# The smoke suite's plumbing check: a sweep small enough to ingest in seconds.
SHAPES[16] = (2, 1, ("open",))
TINY_QUESTIONS = 3
# Issue 27's target: 5,000 tiny runs ingested in under a minute (other sizes have none: a
# small count is mostly the process's start).
TINY_TARGET = (5000, below(60.0))

FIRST_INGEST_BASELINE = (
    "import duckdb, sys; con = duckdb.connect(); "
    "con.execute('CREATE TABLE p AS SELECT * FROM read_json(?, filename = true)', "
    "[sys.argv[1] + '/runs/**/predictions.jsonl']); "
    "con.execute('CREATE TABLE d AS SELECT * FROM read_json(?, filename = true)', "
    "[sys.argv[1] + '/data/dialog/*.json'])"
)
QUERY_BASELINE = (
    "import duckdb, sys; con = duckdb.connect(); "
    "print(len(con.execute('SELECT filename, point[1][1] AS x, avg(em), count(*) "
    "FROM read_json(?, filename = true) GROUP BY ALL ORDER BY ALL', "
    "[sys.argv[1] + '/runs/**/predictions.jsonl']).fetchall()))"
)


def _rescored(row: dict[str, object], accuracy: float, rng: np.random.Generator) -> dict:
    """``row`` answered by a system of ``accuracy`` (its scores, prediction and rotations)."""
    row = dict(row)
    answer = str(row["gt"])
    if row["mode"] == "mcq":
        rotation_em = (rng.random(4) < accuracy).astype(float)
        choices = [LETTERS[r] if e else LETTERS[(r + 1) % 4] for r, e in enumerate(rotation_em)]
        rotations = [
            {**rotation, "pred": choices[r], "choice": choices[r], "em": float(rotation_em[r])}
            for r, rotation in enumerate(row["rotations"])  # type: ignore[arg-type]
        ]
        row |= {
            "pred": choices[-1],
            "choice": choices[-1],
            "exact_match": bool(rotation_em.all()),
            "em": float(rotation_em.mean()),
            "contains_gt": bool(rotation_em[-1]),
            "f1": float(rotation_em.mean()),
            "rotations": rotations,
            "debiased_em": float(rotation_em.mean()),
            "position_bias": {c: choices.count(c) for c in sorted(set(choices))},
        }
    else:
        right = bool(rng.random() < accuracy)
        judge = 1.0 if right else float(rng.choice([0.0, 0.5]))
        row |= {
            "pred": answer if right else "something else",
            "exact_match": right,
            "em": float(right),
            "contains_gt": right,
            "f1": float(right),
            "bleu": float(right),
            "bleu_1": float(right),
            "bleu_2": float(right),
            "judge": judge,
        }
    return row


def generated_sweep(n_runs: int) -> Path:
    """The sweep of ``n_runs`` runs (written once, then reused): ``<root>/data/dialog`` and
    ``<root>/runs/<task>/<model>/<method>[/<mode>]``."""
    from generate_run import generate

    n_models, n_methods, modes = SHAPES[n_runs]
    root = WORK / f"sweep_{n_runs}"
    done = root / "complete"
    if done.is_file():
        return root
    print(f"generating a {n_runs}-run sweep in {root} …", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)
    rng = np.random.default_rng(27)
    model_skill = rng.uniform(-0.2, 0.2, n_models)
    method_skill = rng.uniform(-0.15, 0.15, n_methods)
    for task_number in range(1, TASKS + 1):
        task = f"Sweep_Task{task_number}"
        template_dir = generate(root / "template", QUESTIONS_PER_RUN, seed=task_number, task=task)
        dialog = root / "template" / "data" / "dialog" / f"{task}.json"
        (root / "data" / "dialog").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(dialog, root / "data" / "dialog" / dialog.name)
        rows = [json.loads(line) for line in (template_dir / "predictions.jsonl").open()]
        config = json.loads((template_dir / "config.json").read_text())
        metrics = json.loads((template_dir / "metrics.json").read_text())
        for model in range(n_models):
            for method in range(n_methods):
                for mode_number, mode in enumerate(modes):
                    accuracy = (
                        float(np.clip(0.55 + model_skill[model] + method_skill[method], 0.05, 0.95))
                        - 0.1 * mode_number
                    )
                    model_name, method_name = f"model_{model + 1}", f"method_{method + 1}"
                    run_dir = root / "runs" / task.lower() / model_name / method_name
                    if len(modes) > 1:
                        run_dir = run_dir / mode
                    run_dir.mkdir(parents=True)
                    with (run_dir / "predictions.jsonl").open("w") as handle:
                        for row in rows:
                            handle.write(json.dumps(_rescored(row, accuracy, rng)) + "\n")
                    run_config = {
                        **config,
                        "model": {"name": model_name},
                        "method": {**config["method"], "name": method_name},
                    }
                    (run_dir / "config.json").write_text(json.dumps(run_config))
                    run_metrics = {
                        **metrics,
                        "model_name": model_name,
                        "method_name": method_name,
                        "base_method_name": "semantic_rag_multimodal",
                        "mode": mode,
                        "run_dir": str(run_dir),
                    }
                    (run_dir / "metrics.json").write_text(json.dumps(run_metrics))
    shutil.rmtree(root / "template")
    done.write_text("")
    return root


def generated_tiny_runs(n_runs: int) -> Path:
    """``n_runs`` runs of ``TINY_QUESTIONS`` questions over one dialog file, written once:
    ``<root>/data/dialog`` and ``<root>/runs/run_<n>`` (all in one folder)."""
    from generate_run import generate

    root = WORK / f"tiny_{n_runs}"
    done = root / "complete"
    if done.is_file():
        return root
    print(f"generating {n_runs} tiny runs in {root} …", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)
    task = "Tiny_Task"
    template_dir = generate(root / "template", TINY_QUESTIONS, seed=5, task=task)
    (root / "data" / "dialog").mkdir(parents=True)
    shutil.copyfile(
        root / "template" / "data" / "dialog" / f"{task}.json",
        root / "data" / "dialog" / f"{task}.json",
    )
    files = {
        name: (template_dir / name).read_bytes()
        for name in ("predictions.jsonl", "config.json", "metrics.json")
    }
    for number in range(1, n_runs + 1):
        run_dir = root / "runs" / f"run_{number:05d}"
        run_dir.mkdir(parents=True)
        for name, content in files.items():
            (run_dir / name).write_bytes(content)
    shutil.rmtree(root / "template")
    done.write_text("")
    return root


def measure_tiny(root: Path, repeat: int, *, warm: bool = False) -> dict[str, list[float]]:
    """Seconds of a first ingest of the tiny runs, and of its ``read_json`` baseline
    (``warm``: a sweep measured in this process already warmed the commands up)."""
    cached = bytecode_env()
    if not warm:
        _warm_up(root, cached)
    times: dict[str, list[float]] = {"ingest": [], "read_json": []}
    for _ in range(repeat):
        scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-tiny-"))
        env = dict(cached, MEMSCOPE_DB=str(scratch / "store.duckdb"), COLUMNS="200")
        try:
            times["read_json"].append(
                time_command([sys.executable, "-c", FIRST_INGEST_BASELINE, str(root)], env=cached)
            )
            times["ingest"].append(
                time_command([str(VENV_BIN / "memscope"), "ingest", str(root / "runs")], env=env)
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return times


def tiny_figures(n_runs: int, times: dict[str, list[float]], repeat: int) -> list[Figure]:
    """The tiny runs' first ingest (target: 5,000 in under a minute), its baseline, their ratio."""
    common = {"group": "sweep", "size": n_runs, "trials": repeat}
    statistic = f"median of {repeat} whole processes"
    ingest, baseline = median(times["ingest"]), median(times["read_json"])
    return [
        Figure(
            f"sweep.tiny.ingest.{n_runs}",
            name=f"first `memscope ingest` of {n_runs:,} tiny runs in one folder",
            value=ingest,
            unit="s",
            target=TINY_TARGET[1] if n_runs == TINY_TARGET[0] else None,
            statistic=statistic,
            context={"trials": times["ingest"], "questions_per_run": TINY_QUESTIONS},
            **common,
        ),
        Figure(
            f"sweep.tiny.read_json.{n_runs}",
            name=f"DuckDB `read_json` of the {n_runs:,} tiny runs' files, {n_runs:,} runs",
            value=baseline,
            unit="s",
            statistic=statistic,
            note="baseline",
            context={"trials": times["read_json"]},
            **common,
        ),
        Figure(
            f"sweep.tiny.ratio.{n_runs}",
            name=f"first `memscope ingest` of {n_runs:,} tiny runs / baseline",
            value=ingest / baseline,
            unit="×",
            statistic="ratio of the medians",
            baseline=BASELINES["read_json"],
            **common,
        ),
    ]


def _warm_up(root: Path, env: dict[str, str]) -> None:
    """One untimed pass of every command over one run, so no trial pays for compiling."""
    one_run = next((root / "runs").glob("**/predictions.jsonl")).parent
    memscope = str(VENV_BIN / "memscope")
    with tempfile.TemporaryDirectory(prefix="memscope-bench-sweep-") as scratch:
        store = dict(env, MEMSCOPE_DB=str(Path(scratch) / "store.duckdb"))
        for argv in (["ingest", str(one_run)], ["table", str(one_run)], ["runs"]):
            time_command([memscope, *argv], env=store)
    time_command([sys.executable, "-c", QUERY_BASELINE, str(root)], env=env)


def measure(
    root: Path, repeat: int, *, screen: bool = True
) -> tuple[dict[str, list[float]], list[Figure]]:
    """Seconds of every step and baseline, one list of ``repeat`` trials each; with
    ``screen``, the runs screen's figures (``sweep_screen.py``) over the last trial's store."""
    memscope = str(VENV_BIN / "memscope")
    runs = str(root / "runs")
    times: dict[str, list[float]] = {
        name: [] for name in ("ingest", "read_json", "reingest", "table", "runs", "query")
    }
    python = [sys.executable, "-c"]
    # Both sides import from compiled bytecode, as an installed memscope does.
    cached = bytecode_env()
    _warm_up(root, cached)
    screen_figures: list[Figure] = []
    for trial in range(repeat):
        scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-sweep-"))
        env = dict(cached, MEMSCOPE_DB=str(scratch / "store.duckdb"), COLUMNS="200")
        try:
            times["read_json"].append(
                time_command([*python, FIRST_INGEST_BASELINE, str(root)], env=cached)
            )
            times["ingest"].append(time_command([memscope, "ingest", runs], env=env))
            times["query"].append(time_command([*python, QUERY_BASELINE, str(root)], env=cached))
            times["reingest"].append(time_command([memscope, "ingest", runs], env=env))
            times["table"].append(time_command([memscope, "table", runs], env=env))
            times["runs"].append(time_command([memscope, "runs"], env=env))
            if screen and trial == repeat - 1:
                # The store now holds the whole sweep: the app opens its runs folder.
                screen_figures = measure_screen_figures(
                    scratch / "store.duckdb", repeat, root / "runs"
                )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return times, screen_figures


STEPS: dict[str, tuple[str, str, Target | None]] = {
    # step: (what it is, its baseline, the target of their ratio)
    "ingest": ("first `memscope ingest runs/`", "read_json", at_most(3)),
    "reingest": ("`memscope ingest runs/` again, nothing changed", "query", at_most(2)),
    "table": ("`memscope table runs/`", "query", at_most(4)),
    "runs": ("`memscope runs`", "query", None),
}
BASELINES = {
    "read_json": "DuckDB `read_json` of the same predictions and dialog files into tables",
    "query": "one DuckDB `read_json` over every predictions.jsonl, grouped by run and X",
}


def figures_of(n_runs: int, times: dict[str, list[float]], repeat: int) -> list[Figure]:
    """Every step and baseline as a median, and each step's ratio to its baseline."""
    common = {"group": "sweep", "size": n_runs, "trials": repeat}
    statistic = f"median of {repeat} whole processes"
    medians = {name: median(values) for name, values in times.items()}
    figures = [
        Figure(
            f"sweep.{name}.{n_runs}",
            name=f"{what}, {n_runs:,} runs",
            value=medians[name],
            unit="s",
            statistic=statistic,
            note="baseline" if name in BASELINES else "",
            context={"trials": times[name]},
            **common,
        )
        for name, what in [(step, STEPS[step][0]) for step in STEPS] + list(BASELINES.items())
    ]
    for step, (what, baseline, target) in STEPS.items():
        figures.append(
            Figure(
                f"sweep.ratio.{step}.{n_runs}",
                name=f"{what} / baseline, {n_runs:,} runs",
                value=medians[step] / medians[baseline],
                unit="×",
                target=target,
                statistic="ratio of the medians",
                baseline=BASELINES[baseline],
                **common,
            )
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[192], choices=sorted(SHAPES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--tiny", type=int, default=0, metavar="N", help="also time N tiny runs in one folder"
    )
    parser.add_argument(
        "--no-screen",
        dest="screen",
        action="store_false",
        help="leave out the app's runs screen (sweep_screen.py)",
    )
    add_figures_option(parser)
    args = parser.parse_args()
    figures: list[Figure] = []
    rows = []
    for n_runs in args.sizes:
        times, screen_figures = measure(generated_sweep(n_runs), args.repeat, screen=args.screen)
        medians = {name: median(values) for name, values in times.items()}
        figures += figures_of(n_runs, times, args.repeat) + screen_figures
        for step, (what, baseline, target) in STEPS.items():
            ratio = medians[step] / medians[baseline]
            verdict = "" if target is None else ("met" if target.met(ratio) else "missed")
            rows.append(
                [
                    f"{n_runs:,}",
                    what,
                    f"{medians[step]:.2f} s",
                    f"{medians[baseline]:.2f} s",
                    f"{ratio:.2f}×",
                    verdict,
                ]
            )
        if screen_figures:
            empty, ours, ratio_figure = screen_figures
            rows.append(
                [
                    f"{n_runs:,}",
                    "the app's runs screen to its first row",
                    f"{ours.value / 1000:.2f} s",
                    f"{empty.value / 1000:.2f} s",
                    f"{ratio_figure.value:.2f}×",
                    "",
                ]
            )
    if args.tiny:
        times = measure_tiny(generated_tiny_runs(args.tiny), args.repeat, warm=bool(args.sizes))
        figures += tiny_figures(args.tiny, times, args.repeat)
        ingest, baseline = median(times["ingest"]), median(times["read_json"])
        target = TINY_TARGET[1] if args.tiny == TINY_TARGET[0] else None
        rows.append(
            [
                f"{args.tiny:,} tiny",
                "first `memscope ingest runs/`",
                f"{ingest:.2f} s",
                f"{baseline:.2f} s",
                f"{ingest / baseline:.2f}×",
                "" if target is None else ("met" if target.met(ingest) else "missed"),
            ]
        )
    print_table(
        f"a sweep of many runs vs DuckDB alone (medians of {args.repeat})",
        ["runs", "step", "memscope", "baseline", "ratio", "target"],
        rows,
    )
    write_script_figures(args.figures, figures)


if __name__ == "__main__":
    main()
