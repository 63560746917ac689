"""The engine's thread budget: one place decides how many threads each library may use.

torch (intra-op), the BLAS behind numpy, FAISS's OpenMP and the image-decoding pool each
start as many threads as there are CPUs when left alone. Run one after another that is
fine; run together (decoding while the model encodes, a search right after an encode) they
oversubscribe a small machine. :func:`set_thread_budget` records the choice (``--threads``,
else the CPUs this process may use); each component applies its share when it loads its
library (:func:`configure_torch`, :func:`configure_blas`, :func:`configure_faiss`) and
sizes its pool from :meth:`ThreadBudget.decoder_threads`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass

from memscope.errors import EngineError

MAX_DECODERS = 8
"""More decoding threads than this only contend for the GIL-free parts of PIL."""

_lock = threading.Lock()
_budget: ThreadBudget | None = None
_applied: dict[str, int] = {}


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class ThreadBudget:
    """How many threads the engine's libraries may use."""

    compute: int
    """torch intra-op threads, BLAS threads and FAISS OpenMP threads (used one at a time)."""
    requested: int | None = None
    """What ``--threads`` asked for; None when the CPU count decided."""

    def decoder_threads(self, on_gpu: bool) -> int:
        """Threads that decode and preprocess images while the model encodes.

        On a GPU the CPU is otherwise idle, so decoding gets all of it. On the CPU the model
        already uses every compute thread; one decoder (more on a big machine) keeps the next
        batch ready without taking cores from the forward pass.
        """
        if on_gpu:
            return max(1, min(MAX_DECODERS, self.compute))
        return max(1, min(MAX_DECODERS, self.compute // 4))


def plan_threads(requested: int | None = None, cpus: int | None = None) -> ThreadBudget:
    """The budget for ``requested`` threads (None: every available CPU).

    Raises:
        EngineError: for a count below 1.
    """
    if requested is not None and requested < 1:
        raise EngineError(
            f"--threads must be at least 1, got {requested}",
            where="--threads",
            fix="Give a positive thread count, or leave --threads out to use every CPU.",
        )
    return ThreadBudget(compute=requested or cpus or available_cpus(), requested=requested)


def set_thread_budget(requested: int | None = None) -> ThreadBudget:
    """Record the budget for this process and apply it to the libraries already loaded."""
    global _budget
    budget = plan_threads(requested)
    with _lock:
        _budget = budget
        loaded = list(_applied)
        _applied.clear()
    for library in loaded:
        _CONFIGURE[library]()
    return budget


def thread_budget() -> ThreadBudget:
    """The budget in force (every available CPU until :func:`set_thread_budget` says otherwise)."""
    global _budget
    with _lock:
        if _budget is None:
            _budget = plan_threads(None)
        return _budget


def _claim(library: str) -> int | None:
    """The thread count to give ``library`` now, or None when it already has it."""
    threads = thread_budget().compute
    with _lock:
        if _applied.get(library) == threads:
            return None
        _applied[library] = threads
        return threads


def configure_torch() -> None:
    """Give torch its intra-op threads (inter-op stays at one: memscope runs one model at a time)."""
    threads = _claim("torch")
    if threads is None:
        return
    import torch

    torch.set_num_threads(threads)
    # settable only before torch's first parallel work; after that it keeps what it has
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)


def configure_blas() -> None:
    """Limit the BLAS libraries loaded in this process (numpy's, FAISS's) to the budget."""
    threads = _claim("blas")
    if threads is not None:
        _limit_blas(threads)


def configure_faiss() -> None:
    """Give FAISS's OpenMP runtime its threads, and the OpenBLAS it brought along its limit."""
    threads = _claim("faiss")
    if threads is None:
        return
    import faiss

    faiss.omp_set_num_threads(threads)
    _limit_blas(threads)  # FAISS loads its own OpenBLAS, after numpy's was limited


def _limit_blas(threads: int) -> None:
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    except ImportError:  # without it BLAS keeps its own default (one thread per CPU)
        return
    threadpool_limits(limits=threads, user_api="blas")


_CONFIGURE = {"torch": configure_torch, "blas": configure_blas, "faiss": configure_faiss}
