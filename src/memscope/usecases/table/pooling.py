"""Which runs one table row may pool, so that no question is counted twice unsaid.

A row pools the questions of its runs. That is sound in two cases: the runs are disjoint
parts of one system's evaluation (tasks, conversations: no question in two of them), or
they are repeats of one configuration over the same questions (each question answered
once per repeat; the caption then says how many). Runs that share some questions but
not all (one run is all ten conversations of a dataset, another one of them alone) would
count the shared questions twice in a mean that looks like one evaluation's: such a row
is split into one row per run, with a note saying why.

A question is identified by its question key (task, answer mode, question text), counted
as a multiset: a run may ask the same question twice.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Pooling:
    """How a row's runs relate."""

    kind: str
    """``single`` (one run), ``disjoint`` (parts), ``repeats`` (equal question sets, in
    disjoint classes) or ``overlap`` (anything else: the row must be split)."""
    repeats: tuple[int, ...] = ()
    """Per class of equal runs, how many repeats (``repeats`` only)."""
    shared: int = 0
    """Questions found in more than one run's class (``overlap`` only)."""


def classify(keys_per_run: list[list[str]]) -> Pooling:
    """How the runs whose question keys are ``keys_per_run`` may pool (see the module)."""
    if len(keys_per_run) < 2:
        return Pooling("single")
    classes: dict[frozenset[tuple[str, int]], int] = {}
    for keys in keys_per_run:
        signature = frozenset(Counter(keys).items())
        classes[signature] = classes.get(signature, 0) + 1
    seen: Counter[str] = Counter()
    for signature in classes:
        seen.update({key for key, _ in signature})
    shared = sum(1 for count in seen.values() if count > 1)
    if shared:
        return Pooling("overlap", shared=shared)
    counts = tuple(classes.values())
    if all(count == 1 for count in counts):
        return Pooling("disjoint")
    return Pooling("repeats", repeats=counts)


def repeats_text(repeats: tuple[int, ...]) -> str:
    """``3 repeats`` (or ``1–3 repeats`` where the classes differ)."""
    low, high = min(repeats), max(repeats)
    return f"{high} repeats" if low == high else f"{low}–{high} repeats"


def split_note(label: str, runs: list[str], shared: int) -> str:
    """What the table says on stderr when it splits a row whose runs overlap."""
    return (
        f"row {label}: runs {', '.join(runs)} share {shared} question(s) but are neither "
        "disjoint parts nor repeats of the same questions; pooling them would count those "
        "questions twice, so each run is its own row (pass --per-run, or only one of them)"
    )
