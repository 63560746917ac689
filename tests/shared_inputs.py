"""Inputs built once per test session (per xdist worker) that tests copy instead of rebuilding.

Ingesting the demo runs costs most of a second each time; copying the ingested store file
costs milliseconds. ``ingested_store`` gives a test a store holding exactly the runs it names,
ingested once per session from read-only files (the repository's ``runs/``, ``fixtures/``,
``tests/data/``, ``examples/``, and the briefs' shared upstream samples beside the
checkout) into a template, then copied to the test's store path (``MEMSCOPE_DB``). The copy
holds what a fresh ingest of the same folders in the same order writes (the same rows:
paths, file stats, ids; only the times of writing are the template's,
tests/unit/test_shared_inputs.py), so every later command sees those runs as unchanged,
just as after the test's own ingest.

A test about ingest itself (its outcomes, messages, batching or failures) still ingests; so
does any test on runs it writes or changes (they live in its ``tmp_path``, not here).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from isolation import REPO

SHARED_READ_ONLY = tuple(REPO / name for name in ("runs", "fixtures", "tests", "examples"))
"""Where the folders a template may be built from live: the repository's own files, which
no test changes (a test on changed runs works on its own copy in ``tmp_path``)."""
SAMPLE_FOLDER_ENVS = ("MEMSCOPE_LOCOMO_SAMPLES", "MEMSCOPE_LOCOMO_HARNESSES")
"""Variables that point the tests at the shared upstream samples elsewhere (builders_locomo*)."""


def read_only_places() -> list[Path]:
    """The repository's own inputs and the shared upstream samples (``shared/upstream-samples``
    beside the checkout or above it, or where the variables above say): read, never written,
    by every test."""
    samples = [folder / "shared" / "upstream-samples" for folder in REPO.parents]
    samples += [Path(os.environ[name]) for name in SAMPLE_FOLDER_ENVS if os.environ.get(name)]
    return [*SHARED_READ_ONLY, *(place.resolve() for place in samples if place.is_dir())]


STORE_FILES = ("", ".wal")
"""A DuckDB store is its file and, while a write is pending, its write-ahead log."""


class StoreTemplates:
    """Template stores, one per distinct list of ingested folders, built when first asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.built: dict[tuple[str, ...], tuple[Path, list[str]]] = {}

    def template(self, folders: Sequence[Path]) -> tuple[Path, list[str]]:
        """The template store holding ``folders`` ingested in this order (built once), and
        the ids of its runs in the order the ingest reported them."""
        key = tuple(str(Path(folder).resolve()) for folder in folders)
        if key not in self.built:
            places = read_only_places()
            for folder in key:
                if not any(Path(folder).is_relative_to(place) for place in places):
                    raise ValueError(
                        f"{folder} is not one of the read-only inputs (the repository's, the "
                        "shared upstream samples); ingest it in the test instead"
                    )
            self.built[key] = self._build(key)
        return self.built[key]

    def _build(self, key: tuple[str, ...]) -> tuple[Path, list[str]]:
        from memscope.adapters import ReadOptions
        from memscope.store import Store
        from memscope.usecases.runs.ingest import ingest_dir_runs

        digest = hashlib.sha1("\n".join(key).encode()).hexdigest()[:12]
        path = self.root / digest / "memscope.duckdb"
        shutil.rmtree(path.parent, ignore_errors=True)  # what a failed build left
        path.parent.mkdir(parents=True)
        store = Store(path)
        run_ids = []
        for folder in key:  # as ingest_dir does, one folder after the other
            run_ids += [
                outcome.run_id for outcome in ingest_dir_runs(store, Path(folder), ReadOptions())
            ]
        return path, run_ids


def copy_store(template: Path, target: Path) -> Path:
    """Copy a store file (and its write-ahead log, if any) to ``target``; returns ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in STORE_FILES:
        source = Path(str(template) + suffix)
        if source.exists():
            shutil.copyfile(source, str(target) + suffix)
    return target


@pytest.fixture(scope="session")
def store_templates(tmp_path_factory: pytest.TempPathFactory) -> StoreTemplates:
    """This session's (this worker's) template stores."""
    return StoreTemplates(tmp_path_factory.mktemp("store_templates"))


@pytest.fixture
def ingested_store(store_templates: StoreTemplates, store_path: Path) -> Callable[..., list[str]]:
    """``ingested_store(*folders)``: make this test's store (``MEMSCOPE_DB``) hold the runs of
    ``folders`` (the repository's own: ``runs/srag_v``, ``tests/data/...``; the shared
    upstream samples: ``shared_locomo() / "results" / "honcho"``), as
    ``ingest_dir_runs(store, folder, ReadOptions())`` for each folder in turn would; returns the runs' ids in the
    order that ingest reports them (``ingested_store(RUN)[0]`` for a one-run folder).

    Call it before anything opens the test's store; a test adding more runs afterwards
    ingests those itself."""

    def make(*folders: Path | str) -> list[str]:
        template, run_ids = store_templates.template([Path(f) for f in folders])
        copy_store(template, store_path)
        return list(run_ids)

    return make
