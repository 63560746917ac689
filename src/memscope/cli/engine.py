"""``memscope index``, ``retrieve``, ``recompute`` and ``search``: the local memory engine.

They need ``pip install 'memscope-triage[engine]'``; without it each says so in one line (exit 1).

Models load lazily inside the commands (never at CLI start), offline, on the device
``--device`` resolves to (printed once to stderr). Long work shows Rich progress bars with
items per second on stderr.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from memscope.cli.app import ENGINE, app, example
from memscope.cli.common import (
    DbOption,
    FormatOption,
    OutputFormat,
    fmt,
    handles_errors,
    open_store,
    print_json,
    stderr,
    stdout,
    warn,
)
from memscope.cli.number_options import BATCH, COUNT, RANK, THREADS, TOKENS
from memscope.engine_available import require_engine
from memscope.errors import InputError
from memscope.textsafe import printable, printable_id

if TYPE_CHECKING:
    from rich.progress import Task

    from memscope.engine_jobs.engine import EngineOptions

DATASET_HELP = (
    "A benchmark's dataset file (a MemEye dialog JSON, …; see README), a dataset id or a run id."
)
TextModelOption = Annotated[
    str | None,
    typer.Option(
        "--text-model",
        help="Sentence-transformers folder or cached name (default: the packaged all-MiniLM-L6-v2, or \\[engine] text_model).",
        show_default=False,
    ),
]
ImageModelOption = Annotated[
    str | None,
    typer.Option(
        "--image-model",
        help="open_clip model name, hf-hub:ID, local-dir:FOLDER or a JSON architecture config (default: SigLIP-2 base, ViT-B-16-SigLIP2-384).",
        show_default=False,
    ),
]
ImagePretrainedOption = Annotated[
    str | None,
    typer.Option(
        "--image-pretrained",
        help="Pretrained tag or local checkpoint file for --image-model (random:SEED = untrained weights, for tests only).",
        show_default=False,
    ),
]
DeviceOption = Annotated[
    str | None,
    typer.Option(
        "--device",
        help="auto (CUDA when present), cpu or cuda[:N] (default: \\[engine] device, else auto).",
        show_default=False,
    ),
]
BatchOption = Annotated[
    int | None,
    typer.Option("--batch-size", **BATCH, help="Items per encoder batch.", show_default=False),
]
ThreadsOption = Annotated[
    int | None,
    typer.Option(
        "--threads",
        **THREADS,
        help="CPU threads for the models, search and image decoding (default: every CPU).",
        show_default=False,
    ),
]


class Method(str, Enum):
    """The retrievers ``memscope retrieve`` reproduces."""

    srag_t = "srag_t"
    srag_v = "srag_v"
    dualmem = "dualmem"


class Channel(str, Enum):
    """What ``memscope search`` compares the query with."""

    text = "text"
    image = "image"


class ItemsPerSecond(ProgressColumn):
    """A progress column showing throughput in items per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None and task.elapsed:  # too few samples for Rich's estimate (short tasks)
            speed = task.completed / task.elapsed
        return Text(
            "–   items/s" if not speed else f"{speed:,.1f} items/s", style="progress.data.speed"
        )


class RichReporter:
    """Engine notes and progress bars on stderr."""

    def note(self, text: str) -> None:
        """Print one dim line."""
        stderr.print(f"[dim]{escape(text)}[/]")

    @contextmanager
    def progress(self, label: str, total: int) -> Iterator[Callable[[int], None]]:
        """A Rich progress bar for ``total`` items."""
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            ItemsPerSecond(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=stderr) as bar:
            task = bar.add_task(escape(printable(label, keep_newlines=False)), total=total)
            yield lambda count: bar.advance(task, count)


def _options(
    text_model: str | None,
    image_model: str | None,
    image_pretrained: str | None,
    device: str | None,
    batch_size: int | None,
    threads: int | None = None,
) -> EngineOptions:
    from memscope.engine_jobs.engine import EngineOptions, set_thread_budget

    set_thread_budget(threads)  # before any model loads: one budget for torch, BLAS, FAISS
    return EngineOptions(text_model, image_model, image_pretrained, device, batch_size)


@app.command(
    rich_help_panel=ENGINE,
    epilog=example("memscope index fixtures/memeye/dialog/Community_Garden.json"),
)
@handles_errors
def index(
    dataset: Annotated[str, typer.Argument(help=DATASET_HELP, show_default=False)],
    text_model: TextModelOption = None,
    image_model: ImageModelOption = None,
    image_pretrained: ImagePretrainedOption = None,
    device: DeviceOption = None,
    batch_size: BatchOption = None,
    threads: ThreadsOption = None,
    no_images: Annotated[bool, typer.Option("--no-images", help="Embed texts only.")] = False,
    image_root: Annotated[
        Path | None,
        typer.Option(
            "--image-root",
            help="Folder the dataset's images are under (default: where its benchmark keeps "
            "them, e.g. MemEye's <data>/image).",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Embed a dataset's round texts, captions, images and questions into the store's cache.

    Vectors are cached by (model, content hash): a second run embeds nothing new. Without
    --image-model, images use SigLIP-2 base when its weights are on this machine and are
    skipped (with a note saying what to pass) when they are not.
    """
    require_engine("memscope index")
    from memscope.engine_jobs.engine import index_dataset

    store = open_store(db)
    summary = index_dataset(
        store,
        dataset,
        _options(text_model, image_model, image_pretrained, device, batch_size, threads),
        reporter=RichReporter(),
        images=not no_images,
        image_root=image_root,
    )
    for note in summary.notes:
        warn(note)
    if output is OutputFormat.json:
        print_json(
            {
                "dataset_id": summary.dataset_id,
                "embedded": summary.embedded,
                "kinds": [vars(kind) for kind in summary.kinds],
                "notes": summary.notes,
            }
        )
        return
    table = Table(
        title=f"Indexed {printable(summary.dataset_id, keep_newlines=False)}", title_justify="left"
    )
    for name, justify in (
        ("kind", "left"),
        ("model", "left"),
        ("items", "right"),
        ("embedded", "right"),
        ("cached", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for kind in summary.kinds:
        table.add_row(
            kind.kind,
            Text(printable(kind.model, keep_newlines=False)),
            str(kind.items),
            str(kind.embedded),
            str(kind.cached),
        )
    stdout.print(table)
    stderr.print(
        "nothing new to embed"
        if summary.embedded == 0
        else f"{summary.embedded} new vector(s) cached"
    )


@app.command(
    rich_help_panel=ENGINE,
    epilog=example("memscope retrieve srag_v --method dualmem --out runs/dualmem"),
)
@handles_errors
def retrieve(
    dataset: Annotated[str, typer.Argument(help=DATASET_HELP, show_default=False)],
    method: Annotated[
        Method,
        typer.Option(
            "--method",
            help="srag_t (text + captions), srag_v (text + images), dualmem (min-max fused channels).",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", help="Run directory to write (e.g. runs/NAME).", show_default=False),
    ],
    k: Annotated[
        int, typer.Option("--k", **RANK, help="Rounds retrieved per question (top_k).")
    ] = 10,
    pool: Annotated[
        int,
        typer.Option(
            "--pool",
            **RANK,
            help="Ranked candidates kept per question (MemEye's retrieval.jsonl; a run format "
            "without scores keeps the top k).",
        ),
    ] = 50,
    text_weight: Annotated[
        float, typer.Option("--text-weight", help="srag_v: weight of the text cosine.")
    ] = 0.5,
    image_weight: Annotated[
        float, typer.Option("--image-weight", help="srag_v: weight of the image cosine.")
    ] = 0.5,
    visual_weight: Annotated[
        float,
        typer.Option("--visual-weight", help="dualmem: weight of the normalised visual channel."),
    ] = 0.75,
    answer_endpoint: Annotated[
        str | None,
        typer.Option(
            "--answer-endpoint",
            help="OpenAI-compatible API base URL (e.g. http://127.0.0.1:8000/v1); without it the run is retrieval-only.",
            show_default=False,
        ),
    ] = None,
    answer_model: Annotated[
        str | None,
        typer.Option(
            "--answer-model", help="Model name sent to the answer endpoint.", show_default=False
        ),
    ] = None,
    answer_key_env: Annotated[
        str,
        typer.Option(
            "--answer-api-key-env",
            help="Environment variable holding the endpoint's API key (sent only when set).",
        ),
    ] = "OPENAI_API_KEY",
    answer_timeout: Annotated[
        float, typer.Option("--answer-timeout", min=0.1, help="Seconds to wait for each answer.")
    ] = 90.0,
    answer_max_tokens: Annotated[
        int, typer.Option("--answer-max-tokens", **TOKENS, help="Tokens per answer.")
    ] = 128,
    limit: Annotated[
        int | None,
        typer.Option("--limit", **COUNT, help="Only the first N questions.", show_default=False),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace a run already in --out.")
    ] = False,
    ingest: Annotated[
        bool, typer.Option("--ingest", help="Ingest the run into the store when it is written.")
    ] = False,
    text_model: TextModelOption = None,
    image_model: ImageModelOption = None,
    image_pretrained: ImagePretrainedOption = None,
    device: DeviceOption = None,
    batch_size: BatchOption = None,
    threads: ThreadsOption = None,
    image_root: Annotated[
        Path | None,
        typer.Option(
            "--image-root", help="Folder the dataset's images are under.", show_default=False
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Run a retriever over a dataset and write a native run in its benchmark's own layout.

    MemEye's layout gets retrieval.jsonl beside it, each question's whole ranked pool with
    its text, image and fused scores; other benchmarks get the run file their own
    evaluation writes (see README), or, where that is a retrieval log for upstream's
    answer step, the log, and what to do next. A dataset of separate
    memories (one per conversation) is searched per memory, a question with its own
    history (a haystack of sessions) within it. Without --answer-endpoint / --answer-model the run is
    retrieval-only (answers null); with them every question is asked with MemEye's prompts
    (where the benchmark's layout records answers). If the endpoint fails, the questions
    answered so far stay a valid run.
    """
    require_engine("memscope retrieve")
    from memscope.engine_jobs.native_run import AnswerSettings, MethodSettings, write_native_run

    if bool(answer_endpoint) != bool(answer_model):
        raise InputError(
            "--answer-endpoint and --answer-model go together",
            fix="Pass both, or neither for a retrieval-only run.",
        )
    answer = None
    if answer_endpoint and answer_model:
        answer = AnswerSettings(
            answer_endpoint,
            answer_model,
            os.environ.get(answer_key_env) or None,
            timeout_s=answer_timeout,
            max_tokens=answer_max_tokens,
        )
    settings = MethodSettings(method.value, text_weight, image_weight, visual_weight)
    store = open_store(db)
    summary = write_native_run(
        store,
        dataset,
        settings,
        out,
        k=k,
        pool=pool,
        options=_options(text_model, image_model, image_pretrained, device, batch_size, threads),
        answer=answer,
        reporter=RichReporter(),
        overwrite=overwrite,
        limit=limit,
        image_root=image_root,
        ingest=ingest,
    )
    kind = f"{summary.n_answered} answered" if answer else "retrieval-only"
    stderr.print(
        Text.assemble(
            "wrote ",
            (printable(str(summary.written or summary.out_dir), keep_newlines=False), "bold"),
            f" · {summary.method} · {summary.n_questions} questions ({kind}) · {summary.corpus_size} rounds",
        )
    )
    if summary.next_step:  # not a run by itself (the writer says what it is for)
        stderr.print(f"Next: {escape(summary.next_step)}")
    elif ingest:
        from memscope.usecases.runs.ingest import ingest_dir
        from memscope.usecases.runs.store_access import ReadOptions

        outcome = ingest_dir(store, out, ReadOptions())
        stderr.print(Text.assemble("ingested ", (printable_id(outcome.run_id), "bold")))
    else:
        stderr.print(f"Next: memscope ingest {printable_id(out)}")


@app.command(rich_help_panel=ENGINE, epilog=example("memscope recompute srag_v"))
@handles_errors
def recompute(
    run: Annotated[str, typer.Argument(help="Run directory or run id.", show_default=False)],
    pool: Annotated[
        int | None,
        typer.Option(
            "--pool",
            **RANK,
            help="Candidates per question (default and minimum: 3 x top_k).",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Write even when the recomputation disagrees with the logged scores."
        ),
    ] = False,
    undo: Annotated[
        bool, typer.Option("--undo", help="Restore the run's logged retrievals.")
    ] = False,
    text_model: TextModelOption = None,
    image_model: ImageModelOption = None,
    image_pretrained: ImagePretrainedOption = None,
    device: DeviceOption = None,
    batch_size: BatchOption = None,
    threads: ThreadsOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Fill a logged run's missing retrieval scores with its own retriever, recomputed here.

    MemEye logs scores for the first five of its top-k only. This recomputes every
    candidate's similarity with the run's models (checked against the logged scores),
    fills the missing ones and extends the pool to at least 3 x top_k candidates; the
    store marks those values origin=recomputed. Logged ranks and scores are kept.
    """
    from memscope.cli.run_arg import pick_run
    from memscope.engine_jobs.gap_fill import fill_gaps, undo_gap_fill

    store = open_store(db)
    run_id = pick_run(store, run, "recompute", say=False)
    if undo:
        done = undo_gap_fill(store, run_id)
        stderr.print(
            f"restored the logged retrievals of {printable_id(run_id)}"
            if done
            else f"{printable_id(run_id)} had no recomputed scores"
        )
        return
    require_engine("memscope recompute")
    summary = fill_gaps(
        store,
        run_id,
        pool=pool,
        force=force,
        options=_options(text_model, image_model, image_pretrained, device, batch_size, threads),
        reporter=RichReporter(),
    )
    for note in summary.notes:
        warn(note)
    if output is OutputFormat.json:
        print_json(vars(summary))
        return
    agreement = (
        "–" if summary.seed_order_agreement is None else f"{summary.seed_order_agreement:.0%}"
    )
    stdout.print(
        Text(
            f"run {printable_id(summary.run_id)} · {summary.method} · text model {summary.text_model}"
            + (f" · image model {summary.image_model}" if summary.image_model else "")
            + "\n"
            f"  {summary.n_questions} questions · pool {summary.pool_size} · {summary.n_filled} logged candidates filled · "
            f"{summary.n_extended} candidates added below the logged ranks\n"
            f"  largest difference from a logged score: {fmt(summary.max_deviation, 7)} over {summary.n_compared} values · "
            f"top-k order reproduced for {agreement} of questions"
        )
    )


@app.command(rich_help_panel=ENGINE, epilog=example('memscope search srag_v "compost bin"'))
@handles_errors
def search(
    dataset: Annotated[str, typer.Argument(help=DATASET_HELP, show_default=False)],
    query: Annotated[
        str | None,
        typer.Argument(help='Words to look for, e.g. "brass compass".', show_default=False),
    ] = None,
    k: Annotated[int, typer.Option("--k", **RANK, help="Rounds to show.")] = 10,
    channel: Annotated[
        Channel,
        typer.Option(
            "--channel",
            help="text: round text with captions (MiniLM); image: the images (image model).",
        ),
    ] = Channel.text,
    similar_to: Annotated[
        str | None,
        typer.Option(
            "--similar-to",
            help="A round id: show the rounds whose images look most like its images.",
            show_default=False,
        ),
    ] = None,
    text_model: TextModelOption = None,
    image_model: ImageModelOption = None,
    image_pretrained: ImagePretrainedOption = None,
    device: DeviceOption = None,
    threads: ThreadsOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Find rounds of a dataset by words, or rounds that look like a round's images.

    Free text searches the round texts with their captions (or, with --channel image, the
    images); --similar-to ROUND finds the look-alike images behind X3 confusions.
    """
    require_engine("memscope search")
    from memscope.engine_jobs.engine import round_previews, search_text, similar_images
    from memscope.engine_jobs.engine_data import open_dataset

    if (query is None) == (similar_to is None):
        raise InputError(
            "give either QUERY or --similar-to ROUND",
            fix='e.g. memscope search DATASET "brass compass"',
        )
    store = open_store(db)
    dataset_id = open_dataset(store, dataset).dataset_id
    if similar_to is not None:
        hits = similar_images(store, dataset_id, similar_to, k)
    else:
        hits = search_text(
            store,
            dataset_id,
            query or "",
            k,
            channel=channel.value,
            options=_options(text_model, image_model, image_pretrained, device, None, threads),
            reporter=RichReporter(),
        )
    previews = round_previews(store, dataset_id, [hit.round_id for hit in hits])
    if output is OutputFormat.json:
        print_json(
            {
                "dataset_id": dataset_id,
                "hits": [vars(hit) | {"text": previews.get(hit.round_id)} for hit in hits],
            }
        )
        return
    if not hits:
        stderr.print("no match")
        return
    title = f"similar to {similar_to}" if similar_to else f"\u201c{query}\u201d"
    table = Table(
        title=printable(f"{dataset_id} · {title}", keep_newlines=False), title_justify="left"
    )
    for name, justify in (
        ("#", "right"),
        ("round", "left"),
        ("score", "right"),
        ("matched", "left"),
        ("text", "left"),
    ):
        table.add_column(name, justify=justify, overflow="ellipsis", no_wrap=name != "text")  # type: ignore[arg-type]
    for number, hit in enumerate(hits, start=1):
        table.add_row(
            str(number),
            Text(printable(hit.round_id, keep_newlines=False)),
            fmt(hit.score),
            Text(printable(hit.item_id, keep_newlines=False)),
            Text(printable(previews.get(hit.round_id) or "", keep_newlines=False)[:120]),
        )
    stdout.print(table)
