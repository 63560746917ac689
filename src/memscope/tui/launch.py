"""Start the triage app in this terminal: the one entry the CLI calls (``memscope open``).

Keeping the start-up here means the CLI imports one function from the app's package and
nothing else (the cli/tui independence contract in pyproject.toml names this seam).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memscope.usecases.runs.store_access import ReadOptions


@dataclass(frozen=True)
class SampleRequest:
    """``--queue sample``'s options (None: the stored plan's, or the defaults)."""

    seed: int | None = None
    strata: str | None = None
    sample_size: int | None = None
    allocation: str | None = None


def run_triage_app(
    run_refs: list[str],
    *,
    question: str | None = None,
    queue: str | None = None,
    cell: str | None = None,
    annotator: str | None = None,
    options: ReadOptions | None = None,
    db: Path | None = None,
    sample: SampleRequest | None = None,
) -> str | None:
    """Check the options and the runs, run the app until the user quits, and return the
    one-line summary of the session to print then (None when nothing was opened).

    Raises:
        MemscopeError: a bad option, config or run reference, before the terminal is taken.
    """
    from memscope.triage.loaded_run import check_refs
    from memscope.tui.app import make_app
    from memscope.tui.widgets.image_preview import ImagePreview, load_renderer

    triage_app = make_app(
        run_refs,
        question=question,
        queue=queue,
        cell=cell,
        annotator=annotator,
        options=options,
        db=db,
    )
    check_refs(triage_app.store, run_refs)
    if sample is not None:
        # The plan is drawn (or the stored one kept) before the app loads the run.
        from memscope.usecases.labels.sample import open_sample
        from memscope.usecases.runs.ingest import resolve_run

        run_id = resolve_run(
            triage_app.store, run_refs[0] if run_refs else None, options=triage_app.options
        )
        open_sample(
            triage_app.store,
            run_id,
            seed=sample.seed,
            strata=sample.strata,
            sample_size=sample.sample_size,
            allocation=sample.allocation,
        )
    # textual-image asks the terminal what it can draw; that is only possible before Textual starts.
    ImagePreview.renderer = load_renderer()
    triage_app.run()
    from memscope.tui.export_action import quit_summary

    return quit_summary(triage_app)
