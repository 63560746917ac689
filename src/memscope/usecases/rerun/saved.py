"""Re-rank results kept in the store, so the app and ``memscope rerun --list`` find them later."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memscope.errors import NotFoundError

if TYPE_CHECKING:
    from memscope.store import Store


def store_rerun(store: Store, run_id: str, result: dict[str, Any]) -> int:
    """Keep a rerun result (from :func:`rerun_run` or ``QuestionRerun.as_dict()``); returns its id."""
    from memscope.store import reruns

    kind = "question" if "question" in result else "run"
    with store.write() as con:
        return reruns.insert_rerun(con, run_id, kind, result.get("params", {}), result, _now())


def list_reruns(store: Store, run_id: str | None = None) -> list[dict[str, Any]]:
    """Stored reruns (of one run, or all), newest first, without their results."""
    from memscope.store import reruns

    with store.read() as con:
        return reruns.list_reruns(con, run_id)


def get_rerun(store: Store, rerun_id: int) -> dict[str, Any]:
    """One stored rerun with its results.

    Raises:
        NotFoundError: no rerun with that id.
    """
    from memscope.store import reruns

    with store.read() as con:
        found = reruns.get_rerun(con, rerun_id)
    if found is None:
        raise NotFoundError(f"no stored rerun {rerun_id}", where=str(store.path))
    return found


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)
