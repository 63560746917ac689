"""``memscope rerun``: the recency re-ranking probe, for one question or a whole run."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Group
from rich.table import Table
from rich.text import Text

from memscope.cli.app import DIAGNOSE, app
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    FormatOption,
    OutputFormat,
    fmt,
    handles_errors,
    open_store,
    print_json,
    stderr,
    stdout,
)
from memscope.cli.number_options import RANK, RESAMPLES, SEED
from memscope.cli.run_arg import RunAliasOption, RunArgument, named_run, pick_run
from memscope.textsafe import printable
from memscope.usecases.metric_names import METRIC_NAMES


@app.command(rich_help_panel=DIAGNOSE)
@handles_errors
def rerun(
    alpha: Annotated[
        list[float] | None,
        typer.Option(
            "--alpha",
            "-a",
            help="Similarity weight in [0, 1] (repeat for several); 1.0 is the original order.",
            show_default=False,
        ),
    ] = None,
    run: RunArgument = None,
    run_alias: RunAliasOption = None,
    question: Annotated[
        str | None,
        typer.Option(
            "--question",
            "-q",
            help="One question (qN): show its candidates before and after.",
            show_default=False,
        ),
    ] = None,
    lam: Annotated[
        float | None,
        typer.Option(
            "--lambda",
            help="Recency decay per dialogue round (≥ 0; default: 0.02, docs/metrics.md).",
            show_default=False,
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option(
            "--k", **RANK, help="Cut-off K (default: the run's top_k, else 10).", show_default=False
        ),
    ] = None,
    pool: Annotated[
        int | None,
        typer.Option(
            "--pool",
            **RANK,
            help="Keep the first P candidates of the original ranking (default: all stored; P ≥ K).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", **SEED, help="Bootstrap seed.")] = 20260430,
    resamples: Annotated[
        int, typer.Option("--resamples", **RESAMPLES, help="Bootstrap resamples over questions.")
    ] = 10_000,
    requery: Annotated[
        bool,
        typer.Option(
            "--requery",
            help="Re-retrieve the candidates with the memory engine (the run's own retriever and models) instead of re-ranking the logged pool.",
        ),
    ] = False,
    dataset: DatasetOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Re-rank the retrieved candidates with s = alpha·sim + (1 − alpha)·exp(−lambda·age).

    age = N − position: dialogue rounds from the candidate to the end of the history.
    Ties keep the original order. The pool is fixed: a clue outside it never comes back.
    Where the run logged similarities for only part of its ranking (MemEye: the top 5),
    only the scored candidates are re-ranked and the rest keep their ranks.

    Without --question: Latest@K, Latest-Miss, Rank-Inversion and Stale-Dominance over the
    run's Y3 questions for alpha = 1.0 and each alpha, with paired deltas versus 1.0 and
    95% percentile bootstrap intervals over questions. Every rerun is stored.
    With --question and several --alpha, --format json prints a list (one per alpha).
    With --requery the pool is re-retrieved by the memory engine, fully scored.
    """
    from memscope.usecases.loading import load_run
    from memscope.usecases.rerun import (
        DEFAULT_LAMBDA,
        check_params,
        require_ranked,
        require_scores,
        rerun_question,
        rerun_run,
        store_rerun,
    )
    from memscope.usecases.store_access import ReadOptions

    # The default lives in analysis.rerank; the help only quotes it (a test holds them equal).
    lam = DEFAULT_LAMBDA if lam is None else lam
    alphas = list(alpha or [])
    check_params(alphas, lam, k, pool)
    if requery:
        from memscope.engine_available import require_engine

        require_engine("memscope rerun --requery")
    store = open_store(db)
    run_id = pick_run(
        store, named_run(run, run_alias), "rerun", options=ReadOptions(dataset=dataset)
    )
    retrievals = None
    if requery:
        from memscope.engine_jobs.engine import requery_pool

        retrievals = requery_pool(store, run_id, [question] if question else None, pool=pool)
        stderr.print(
            f"re-retrieved {retrievals.num_rows} candidates with the memory engine (not stored)"
        )
    data = load_run(store, run_id, retrievals=retrievals)
    require_ranked(data)
    require_scores(data)
    if question is not None:
        results = [
            rerun_question(data, question, alpha=value, lam=lam, k=k, pool=pool) for value in alphas
        ]
        stored = [store_rerun(store, run_id, result.as_dict()) for result in results]
        if output is OutputFormat.json:
            payload = [result.as_dict() for result in results]
            print_json(payload[0] if len(payload) == 1 else payload)
            return
        for result in results:
            stdout.print(render_question(result))
        stderr.print(f"stored as rerun {', '.join(map(str, stored))}")
        return
    summary = rerun_run(data, alphas, lam=lam, k=k, pool=pool, seed=seed, resamples=resamples)
    rerun_id = store_rerun(store, run_id, summary)
    if output is OutputFormat.json:
        print_json(summary)
        return
    stdout.print(render_run(summary))
    stderr.print(f"stored as rerun {rerun_id}")


def _markers(row: Any) -> Text:
    # One word per flag of the JSON row, so the table and `--format json` always agree
    # (the latest clue is gold too).
    flags = [
        ("gold", row.is_gold, "green"),
        ("latest", row.is_latest, "bold green"),
        ("stale", row.is_stale, "bold yellow"),
    ]
    return Text(" ").join(Text(word, style=style) for word, on, style in flags if on)


def _candidate_table(title: str, rows: list[Any], k: int, *, show_moves: bool) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("rank", justify="right")
    if show_moves:
        table.add_column("was", justify="right", style="dim")
    for name in ("round", "session"):
        table.add_column(name, overflow="fold")
    for name in ("sim", "age", "recency", "score"):
        table.add_column(name, justify="right")
    table.add_column("markers")
    for row in rows:
        cells: list[Any] = [str(row.rank)]
        if show_moves:
            moved = row.original_rank - row.rank
            cells.append(
                f"{row.original_rank}"
                + (f" ↑{moved}" if moved > 0 else f" ↓{-moved}" if moved < 0 else "")
            )
        cells += [
            Text(printable(row.round_id, keep_newlines=False)),
            Text(printable(row.session_id or "", keep_newlines=False)),
            fmt(row.sim) + ("*" if row.origin == "recomputed" else ""),
            "–" if row.age is None else str(row.age),
            fmt(row.recency),
            fmt(row.score),
            _markers(row),
        ]
        table.add_row(*cells, style=None if row.in_top_k else "dim", end_section=row.rank == k)
    return table


def render_question(result: Any) -> Group:
    """One question before and after, as Rich renderables."""
    header = Text.assemble(
        "run ",
        (printable(result.run_id, keep_newlines=False), "bold"),
        " · question ",
        (result.qid, "bold"),
        f" ({result.y or 'no Y level'}) · alpha={result.alpha:g} · lambda={result.lam:g} · K={result.k}",
        f" · pool {result.pool_size} · {result.scored_count} scored",
    )
    metrics = Table(title="Per-question metrics", title_justify="left")
    for name in ("metric", "before", "after", "Δ"):
        metrics.add_column(name, justify="right" if name != "metric" else "left")
    for name, label in METRIC_NAMES.items():
        before, after = result.before.metrics.get(name), result.after.metrics.get(name)
        delta = None if before is None or after is None else after - before
        metrics.add_row(label, fmt(before), fmt(after), "–" if delta is None else f"{delta:+.3f}")
    parts: list[Any] = [
        header,
        Text(""),
        _candidate_table("Before (original order)", result.before.rows, result.k, show_moves=False),
        _candidate_table(
            f"After (alpha = {result.alpha:g})", result.after.rows, result.k, show_moves=True
        ),
        metrics,
        Text(
            "score = alpha·sim + (1 − alpha)·exp(−lambda·age); dim rows are below K; * similarity recomputed by the memory engine",
            style="dim",
        ),
    ]
    if result.note:
        parts.append(Text(f"Note: {result.note}.", style="yellow"))
    parts.append(Text(""))
    return Group(*parts)


def _interval(delta: dict[str, Any] | None) -> str:
    if delta is None or delta.get("mean") is None:
        return "–"
    return f"{delta['mean']:+.3f} [{delta['ci_low']:+.3f}, {delta['ci_high']:+.3f}]"


def render_run(result: dict[str, Any]) -> Group:
    """The run-level rerun as Rich renderables."""
    params = result["params"]
    scored = result["scored"]
    pool = params["pool"] if params["pool"] is not None else f"all ({scored['pool_size']})"
    header = Text.assemble(
        "run ",
        (printable(result["run"], keep_newlines=False), "bold"),
        f" · {result['n']} Y3 questions · K={params['k']} · lambda={params['lambda']:g} · pool {pool}",
        f" · {scored['scored']} of {scored['candidates']} candidates scored",
    )
    names = ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance")
    values = Table(title="Temporal authority per alpha (Y3)", title_justify="left")
    deltas = Table(
        title=f"Δ vs alpha = 1.00 with 95% CI ({params['resamples']} resamples over questions, seed {params['seed']})",
        title_justify="left",
    )
    for table in (values, deltas):
        table.add_column("alpha", justify="right", style="bold")
        for name in names:
            table.add_column(METRIC_NAMES[name], justify="right")
    values.add_column("misses: not in pool / below K", justify="right")
    for index, entry in enumerate(result["results"]):
        label = f"{entry['alpha']:.2f}" + (" (original)" if index == 0 else "")
        causes = entry["latest_miss_causes"]
        values.add_row(
            label,
            *(fmt(entry[name]) for name in names),
            f"{causes['not_in_pool']} / {causes['in_pool_below_k']}",
        )
        if index:
            deltas.add_row(label, *(_interval(entry["delta"].get(name)) for name in names))
    parts: list[Any] = [header, Text(""), values]
    if len(result["results"]) > 1:
        parts.append(deltas)
    for note in result.get("notes", []):
        parts.append(Text(f"Note: {note}.", style="yellow"))
    return Group(*parts)
