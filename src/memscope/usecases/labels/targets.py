"""Who and what a label or verdict is about: the annotator, the run and the question.

Label events (``events``) and verdicts (``verdicts``) both check their target here inside
their write transaction: the annotator's name, the run's identity (hash and dataset) and
the question's stored facts, with the errors that name the nearest runs and questions.
"""

from __future__ import annotations

from typing import Any

from memscope.errors import InputError


def resolve_annotator(annotator: str | None) -> str:
    """The annotator named (stripped; an empty name refused), else the configured one."""
    if annotator is not None:
        if not annotator.strip():
            raise InputError(
                "the annotator name is empty",
                fix="Pass --annotator NAME or leave it out (default: you).",
            )
        return annotator.strip()
    from memscope.config import load_config

    return load_config().annotator


def require_run(con: Any, run_id: str) -> dict[str, Any]:
    """``{"run_hash", "dataset_id"}`` of the run, or NotFoundError naming the nearest run ids."""
    # Deferred: importing the label modules loads no DuckDB (the CLI starts without it).
    from memscope.store import queries
    from memscope.store.labels import run_identity
    from memscope.usecases.runs.names import unknown_run

    identity = run_identity(con, run_id)
    if identity is None:
        raise unknown_run(run_id, queries.run_ids(con))
    return {"run_hash": identity[0], "dataset_id": identity[1]}


# Question facts of the runs this process labels, by (store, run id, run hash, dataset id):
# a run's questions cannot change without its hash or dataset changing. A label's point
# lookup scans the run's predictions (no index, to keep ingest fast); the app saves labels
# one keypress after another, so from the second label of a run on, one join serves all.
# The value is None after the first label (a one-off `memscope label` pays no join).
_QuestionKey = tuple[str, str, str, str]
_question_facts: dict[_QuestionKey, dict[str, dict[str, Any]] | None] = {}
_QUESTION_FACT_RUNS = 4


def require_question(
    con: Any, run_id: str, qid: str, cache_key: _QuestionKey | None = None
) -> dict[str, Any]:
    """The stored facts of question ``qid`` of the run, or NotFoundError naming its qids."""
    from memscope.store.labels import question_index, question_info, run_qids
    from memscope.usecases.runs.questions import unknown_question

    if cache_key is None:
        found = question_info(con, run_id, qid)
    elif cache_key not in _question_facts:
        if len(_question_facts) >= _QUESTION_FACT_RUNS:
            _question_facts.pop(next(iter(_question_facts)))
        _question_facts[cache_key] = None
        found = question_info(con, run_id, qid)
    else:
        facts = _question_facts[cache_key]
        if facts is None:
            facts = _question_facts[cache_key] = question_index(con, run_id)
        found = facts.get(qid)
    if found is not None:
        return found
    raise unknown_question(qid, run_id, run_qids(con, run_id))


def default_annotator_notice(store: Any, annotator: str | None) -> str | None:
    """One line to say, at first use, that labels go under the OS user's name by default.

    None when a name was given (``annotator``) or configured, or when the store already
    holds a label or verdict by the default name (it was said then: said once).
    """
    if annotator is not None:
        return None
    from memscope.config import load_config
    from memscope.paths import config_path

    config = load_config()
    if config.user.annotator:
        return None
    who = config.annotator
    if store.exists:
        from memscope.store.sql import one

        with store.read() as con:
            found = one(
                con,
                "SELECT 1 FROM label_events WHERE annotator = ? "
                "UNION ALL SELECT 1 FROM verdict_events WHERE annotator = ? LIMIT 1",
                [who, who],
            )
        if found:
            return None
    return (
        f"labels and verdicts are recorded as {who!r}, your OS user name (the default): "
        f'to use another name, set annotator = "NAME" under [user] in {config_path()} '
        "or pass --annotator NAME"
    )
