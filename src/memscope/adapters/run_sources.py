"""The optional ``memscope_sources.json`` of a run directory: where its data lives.

Upstream DMV-Bench and CUE-Mem runs record no path to the data they were made from (a
MemEye run records its dialog JSON in ``metrics.json``). A run directory may therefore
carry this small file, written by memscope's own demo and native runs or by a user who
does not want to repeat a flag, e.g.::

    {"dataset": "../../fixtures/cuemem/data/history_dialogue",
     "dmv_registry": "../../fixtures/dmv"}

``dataset`` plays the part of ``--dataset`` and every other key the part of the benchmark
option of that key (``Benchmark.read_options``: ``dmv_registry`` is DMV-Bench's
``--dmv-registry``); relative paths are relative to the run directory. A flag given on
the command line wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memscope.adapters.files import read_json_file
from memscope.errors import RunDirError

SOURCES_FILE = "memscope_sources.json"


def recorded_sources(run_dir: Path, keys: Iterable[str] = ()) -> dict[str, Path]:
    """The paths ``run_dir/memscope_sources.json`` names, resolved; ``{}`` without the file.

    ``keys``: the benchmark's own option keys (``Benchmark.read_options``) the file may name
    besides ``dataset``. The reader that calls this knows them: no registry is asked, so
    reading a run imports no other benchmark.

    Raises:
        RunDirError: when the file is not a JSON object of strings with known keys.
    """
    path = run_dir / SOURCES_FILE
    if not path.is_file():
        return {}
    data = read_json_file(path, what=SOURCES_FILE)
    if not isinstance(data, dict):
        raise RunDirError(f"{SOURCES_FILE} is not a JSON object", where=str(path))
    sources: dict[str, Path] = {}
    known = ("dataset", *keys)
    for key, value in data.items():
        if key not in known:
            raise RunDirError(
                f"unknown key {key!r} in {SOURCES_FILE}",
                where=str(path),
                fix=f"Valid keys: {', '.join(known)}.",
            )
        if not isinstance(value, str) or not value.strip():
            raise RunDirError(
                f"{SOURCES_FILE}: {key!r} must be a non-empty path string", where=str(path)
            )
        recorded = Path(value).expanduser()
        sources[key] = recorded if recorded.is_absolute() else (run_dir / recorded)
    return sources
