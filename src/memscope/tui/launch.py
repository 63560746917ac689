"""Start the triage app in this terminal: the one entry the CLI calls (``memscope open``).

Keeping the start-up here means the CLI imports one module from the app's package and
nothing else (the cli/tui independence contract in pyproject.toml names this seam): the
request it fills (:class:`OpenRequest`) is offered here too. It is also the one module of
the app's package that imports ``tui.app`` (the ``tui-app-entry`` contract).
"""

from __future__ import annotations

from memscope.tui.open_request import OpenRequest, SampleRequest

__all__ = ["OpenRequest", "SampleRequest", "run_triage_app"]


def run_triage_app(request: OpenRequest) -> str | None:
    """Check the options and the runs, run the app until the user quits, and return the
    one-line summary of the session to print then (None when nothing was opened).

    Raises:
        MemscopeError: a bad option, config or run reference, before the terminal is taken;
            or the app stopped on an exception (never an exit 0).
    """
    from memscope.tui.heap import starting_without_gc

    # The imports and the app's construction build only long-lived objects: no collection
    # needs to walk them (tui/heap.py).
    with starting_without_gc():
        from memscope.tui.app import make_app
        from memscope.tui.widgets.image_preview import ImagePreview, load_renderer
        from memscope.usecases.runs.selection import SelectOptions, check_refs, select_runs

        triage_app = make_app(request)
        refs = list(request.refs)
        check_refs(triage_app.store, refs)
    sample = request.sample
    if sample is not None and sample.purpose == "verdicts":
        # The verdict sample is drawn by `memscope sample --for verdicts`, never here.
        from memscope.errors import InputError
        from memscope.usecases.labels.verdict_sample import load_verdict_sample

        run_id = select_runs(
            triage_app.store, refs[:1], SelectOptions(read=triage_app.options)
        ).first
        if not load_verdict_sample(triage_app.store, run_id):
            raise InputError(
                f"run {run_id} has no verdict sample",
                fix=f"Draw one first: memscope sample {run_id} --for verdicts.",
            )
    elif sample is not None:
        # The plan is drawn (or the stored one kept) before the app loads the run.
        from memscope.usecases.labels.sample import open_sample

        run_id = select_runs(
            triage_app.store, refs[:1], SelectOptions(read=triage_app.options)
        ).first
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
    if triage_app.return_code:
        # Textual printed the traceback as the app closed; the process must not end 0.
        from memscope.errors import MemscopeError

        raise MemscopeError(
            "the app stopped on an unexpected error (its traceback is above)",
            fix="This is a bug in memscope; please report it with the traceback.",
        )
    from memscope.tui.export_action import quit_summary

    return quit_summary(triage_app)
