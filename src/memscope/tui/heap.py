"""Keeping a loaded run out of the cyclic garbage collector's way.

A 50,000-question run loads a few hundred thousand long-lived Python objects. Every full
collection then walks all of them, and Textual allocates enough per frame to trigger one
every few keypresses: on the 50k benchmark run that was a 150 ms stall on one question in
ten (the p95 of "next question"). ``gc.freeze()`` moves what exists now into a permanent
generation that collections skip; objects there are still freed by reference counting.
"""

from __future__ import annotations

import gc


def keep_loaded_run_out_of_gc() -> None:
    """Call once a run's data (or a later part of it) has been loaded and kept."""
    gc.freeze()


def let_gc_see_loaded_runs() -> None:
    """Call before loading another run, so cycles in the one it replaces can be collected."""
    gc.unfreeze()
