"""``e`` in the app: export the run's labels to a file (path asked, format from its ending),
and the one-line summary printed when the app quits."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memscope.errors import MemscopeError
from memscope.textsafe import printable_id

if TYPE_CHECKING:
    from memscope.tui.host import SessionHost


def ask_export(app: SessionHost) -> None:
    """Open the export dialog for the current run (default: a csv beside the store)."""
    from memscope.triage.session_summary import default_export_path
    from memscope.tui.screens.dialogs import ExportDialog

    session = app.session
    if session.run is None:
        app.notify("No run is open: nothing to export.", severity="warning", markup=False)
        return
    run_id = session.run.run_id
    path = session.last_export or str(default_export_path(session.store, run_id))

    def chosen(path: str | None) -> None:
        if path:
            export_to(app, path)

    app.push_screen(ExportDialog(run_id, path), chosen)


def export_to(app: SessionHost, chosen: str) -> None:
    """Write the run's labels to ``chosen`` and say how many (or why not)."""
    from memscope.triage.session_summary import export_format
    from memscope.usecases.labels.export import export_labels

    session = app.session
    if session.run is None:
        return
    run_id = session.run.run_id
    path = Path(chosen).expanduser()
    try:
        with session.using_store() as store:
            result = export_labels(store, run_id, fmt=export_format(path), out=path)
    except MemscopeError as error:
        app.notify(error.message, severity="error", title="Not exported", markup=False)
        return
    session.last_export = session.exported[run_id] = str(path)
    app.notify(
        f"Exported {result.rows} label row(s) of {printable_id(run_id)} to {printable_id(path)}",
        markup=False,
    )


def quit_summary(app: SessionHost) -> str | None:
    """What this session did, one line per run it labelled or gave verdicts on (else the
    run open): ``srag_v: labelled 12 · 3 notes · exported: labels-srag_v.csv`` (None: no
    run was open)."""
    from memscope.triage.session_summary import session_summary

    session = app.session
    changed = session.labels.changed
    judged = session.labels.verdicts_changed
    run_ids = list(dict.fromkeys([*changed, *judged])) or (
        [session.run.run_id] if session.run is not None else []
    )
    if not run_ids:
        return None
    try:
        return "\n".join(
            session_summary(
                session.store,
                run_id,
                session.annotator,
                session.exported.get(run_id),
                changed.get(run_id, ()),
                judged.get(run_id, ()),
            )
            for run_id in run_ids
        )
    except MemscopeError:
        return None
