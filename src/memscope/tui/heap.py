"""Keeping long-lived objects out of the cyclic garbage collector's way.

A 50,000-question run loads a few hundred thousand long-lived Python objects. Every full
collection then walks all of them, and Textual allocates enough per frame to trigger one
every few keypresses: on the 50k benchmark run that was a 150 ms stall on one question in
ten (the p95 of "next question"). ``gc.freeze()`` moves what exists now into a permanent
generation that collections skip; objects there are still freed by reference counting.

The start is the same story at a smaller scale: importing Textual, numpy and the app
builds some 50,000 objects that live as long as the process, and each full collection
while they are imported, and while the first screens are built, walks them all again
(about 25 ms each here). :func:`starting_without_gc` runs the imports with the collector
off and freezes what they built.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_frozen_runs = False
"""Whether a loaded run was frozen since the last unfreeze (else there is nothing to let go)."""


@contextmanager
def starting_without_gc() -> Iterator[None]:
    """Import and build the app with the cyclic collector off, then freeze what was built
    (modules, classes, the app object: nothing in there is garbage to find)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def keep_loaded_run_out_of_gc() -> None:
    """Call once a run's data (or a later part of it) has been loaded and kept."""
    global _frozen_runs
    gc.freeze()
    _frozen_runs = True


def let_gc_see_loaded_runs() -> None:
    """Call before loading another run, so cycles in the one it replaces can be collected
    (a no-op before the first run was kept: the start's frozen imports stay frozen)."""
    global _frozen_runs
    if _frozen_runs:
        gc.unfreeze()
        _frozen_runs = False
