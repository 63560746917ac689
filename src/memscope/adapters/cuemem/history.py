"""Finding the CUE-Mem history file a results file or a human-baseline submission was made from.

The results name no dataset, so the history file is searched: ``--dataset`` (a file, or a
folder searched recursively), else ``dataset`` in the run's ``memscope_sources.json``, else
the history file the store joined this file to before, else the run directory and its
parent, ``$RQ3_HISTORY_DIR``, and the upstream layouts in the folders above
(``data/history_dialogue/``, ``RQ3/data/history_dialogue/``,
``[benchmark/]data/dialog/[<caption variant>/]``: the official release prepares its
histories into ``workdir/benchmark/data/dialog/base/`` for both RQ1/RQ2 and RQ3). The file
name comes from the results file: ``p<N>_results.json`` needs ``history_with_qa_p<N>.json``;
``<data>[_sample<N>][_<category>]_results.json`` needs ``<data>.json`` (the longest prefix
that exists). A human-baseline submission names its history file itself (``data_file``,
relative to the app's project root), which is also tried below each folder above it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memscope.adapters.cuemem.roots import CAPTION_VARIANTS
from memscope.plugin import DatasetError, files_named, refuse_special

PROFILE_STEM = re.compile(r"^p(\d+)$")
ANCESTOR_LEVELS = 8
HISTORY_ENV = ("RQ3_HISTORY_DIR",)
"""Environment variables of the official release that name the histories' folder."""
LISTED = 12


def history_names(stem: str) -> list[str]:
    """The history file names a results stem can come from, most specific first."""
    profile = PROFILE_STEM.match(stem)
    if profile:
        return [f"history_with_qa_p{profile.group(1)}.json", f"{stem}.json"]
    parts = stem.split("_")
    return [f"{'_'.join(parts[:end])}.json" for end in range(len(parts), 0, -1)]


def locate_history(
    results: Path,
    stem: str,
    given: Path | None,
    recorded: Path | None,
    remembered: Path | None = None,
    *,
    names: list[str] | None = None,
    below_ancestors: Path | None = None,
) -> Path:
    """Find the history file of one results file (see the module docstring for the order).

    ``remembered`` is the history file the store joined this results file to last time
    (so a run ingested with ``--dataset`` is found again without it); it is used when it
    still exists and neither the flag nor ``memscope_sources.json`` names one. ``names``
    replaces the names derived from ``stem``; ``below_ancestors`` (a relative folder) is
    tried below each folder above the file before the upstream layouts.

    Raises:
        DatasetError: naming every path tried and the ``--dataset`` flag.
    """
    names = names or history_names(stem)
    run_dir = results.parent
    tried: list[Path] = []

    def look_in(folder: Path, *, deep: bool = False) -> Path | None:
        for name in names:
            candidates = [folder / name]
            if deep and folder.is_dir():
                candidates += files_named(folder, name)
            for candidate in candidates:
                if candidate not in tried:
                    tried.append(candidate)
                if candidate.is_file():
                    return candidate.resolve()
        return None

    for explicit in (given, recorded):
        if explicit is None:
            continue
        explicit = explicit.expanduser()
        refuse_special(explicit, "--dataset")
        if explicit.is_file():
            return explicit.resolve()
        found = look_in(explicit, deep=True) if explicit.is_dir() else None
        if found:
            return found
        if explicit is given:
            raise DatasetError(
                f"--dataset holds no history file for this run (looked for {', '.join(names[:2])})",
                where=str(explicit),
                fix="Pass the history file itself, or the folder holding it.",
            )
    if remembered is not None and remembered.is_file():
        return remembered.resolve()
    variants = [part for part in results.parts if part in CAPTION_VARIANTS]
    ancestors = [run_dir, *run_dir.parents][:ANCESTOR_LEVELS]
    folders = [run_dir, run_dir.parent]
    if below_ancestors is not None:
        folders += [ancestor / below_ancestors for ancestor in ancestors]
    folders += [Path(os.environ[name]) for name in HISTORY_ENV if os.environ.get(name)]
    for ancestor in ancestors:
        folders += [
            ancestor / "data" / "history_dialogue",
            ancestor / "RQ3" / "data" / "history_dialogue",
        ]
        # The official release: results under workdir/{benchmark/result_debug,RQ3/results},
        # histories prepared into workdir/benchmark/data/dialog/<variant>/.
        for root in (ancestor, ancestor / "benchmark"):
            folders += [root / "data" / "dialog" / variant for variant in variants]
            folders += [root / "data" / "dialog", root / "data" / "dialog" / "base"]
    for folder in folders:
        found = look_in(folder)
        if found:
            return found
    listed = "\n    ".join(str(path) for path in tried[:LISTED])
    more = f"\n    … and {len(tried) - LISTED} more" if len(tried) > LISTED else ""
    raise DatasetError(
        f"cannot find the history file of this run ({names[0]}); tried:\n    {listed}{more}",
        where=str(results),
        fix="Pass the history file (or a folder holding it) with --dataset PATH.",
    )
