"""CUE-Mem's ``aggregate_results.py`` summaries beside RQ1/RQ2 results: never runs, and the
``overall`` mode's groups cross-checked against the rows of the runs they name.

``aggregate_results.py`` (upstream-formats.md §3.6) writes ``aggregated_accuracy.json``,
``aggregated_accuracy_<category>.json``, ``aggregated_question_only.json``,
``aggregated_by_caption.json`` and ``aggregated_by_audio_caption.json`` into the folder it
scanned. None of them is a run: the reader skips every ``aggregated_*.json``
(:func:`is_aggregate`); the first one's name even ends in ``_accuracy.json``.

**What is checked.** The ``overall`` mode's ``{"groups": [{model, memory, category_filter,
explicit|implicit|overall: {correct, total}, …}]}``. A group is one results folder
(:meth:`Group.folder`, as upstream's ``model_memory_dirs`` walks the scanned folder: ``<model>/
<memory>/``, or ``<model>/`` and the folder itself for ``"__single__"``) and, within it, the
``<data>[_<category>]_accuracy.json`` files whose category suffix is the group's
``category_filter``. memscope sums the rows of those files' runs **as upstream counts them**
(:func:`upstream_counts`) and compares ``explicit``, ``implicit`` and ``overall`` ``correct``
/ ``total`` exactly:

- each category of a file counts its rows by RQ1/RQ2's own label (``qa_type`` explicit /
  implicit; entity Relationship / Pets explicit, Items by ``entity_explicitness``, else
  ``unknown``);
- ``refusal_text`` rows are labelled from upstream's external adversarial QA file, which the
  history does not carry: memscope takes the QA's ``expression_type`` and, when a refusal QA
  has none, leaves the group's explicit / implicit out of the check (said in a warning);
- **known defect, reproduced:** when any category of a file has an ``unknown`` bucket but no
  ``explicit`` one (every file with refusal QAs has), upstream recounts each entity category
  from the *whole* results file, so every record of the file is counted again under
  ``entity_text`` and again under ``entity_img``. memscope counts the same way, so the check
  says whether upstream read the same answers, and a warning gives how far the group's
  ``overall.total`` exceeds its QAs;
- **known defect, not compared:** a second run over a folder reads its own earlier
  ``aggregated_accuracy.json``: in a results folder that only adds one to ``n_characters``
  (not compared); in a folder of model folders it makes the whole output one empty group
  named after that folder, which names no results and is reported as unmatched, with why.

Groups that name no results folder memscope can see are listed in one warning, given with
the first run folder below the file (so a grid ingested at once says it once).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memscope.adapters.cuemem.roots import RESULTS_SUFFIX, has_results
from memscope.plugin import (
    Comparison,
    JSONObject,
    JSONValue,
    MemscopeError,
    Notice,
    check_notices,
    read_json_file,
    summary_check,
)

AGGREGATE_PREFIX = "aggregated_"
OVERALL_AGGREGATE = re.compile(r"^aggregated_accuracy(?:_[^/]+)?\.json$")
SINGLE = "__single__"
SPLITS = ("explicit", "implicit", "mixed", "unknown", "overall")
COMPARED = ("explicit", "implicit", "overall")
FILE_CATEGORIES = sorted(
    {
        "pref_img",
        "pref_text",
        "rec_img",
        "rec_text",
        "entity_img",
        "entity_text",
        "refusal_text",
        "audio_context",
        "refusal",
    },
    key=len,
    reverse=True,
)
"""The category suffixes upstream parses from a file name (longest first, as it does)."""
ALIASES = {"refusal": "refusal_text"}
REFUSAL = "refusal_text"
ENTITY_CATEGORIES = frozenset({"entity", "entity_img", "entity_text"})
ENTITY_EXPLICIT_TYPES = frozenset({"Relationship", "Pets"})
LISTED = 6


def is_aggregate(name: str) -> bool:
    """Whether a file name is one of ``aggregate_results.py``'s outputs (never a run)."""
    return name.startswith(AGGREGATE_PREFIX) and name.endswith(".json")


def normalize(category: JSONValue) -> str | None:
    """A category as upstream normalises it (``refusal`` is ``refusal_text``)."""
    text = str(category or "").strip()
    return ALIASES.get(text, text) or None


def file_category(stem: str) -> str | None:
    """The category suffix of a results / accuracy stem (``…_p0_entity_text`` →
    ``entity_text``), None for a whole data file."""
    for category in FILE_CATEGORIES:
        if stem.endswith(f"_{category}"):
            return normalize(category)
    return None


@dataclass(frozen=True)
class Group:
    """One group of an ``aggregated_accuracy*.json``."""

    file: Path
    model: str
    memory: str
    category: str | None
    numbers: Mapping[str, JSONValue]

    @property
    def name(self) -> str:
        """``model/memory`` (and the category filter) as the check names it."""
        return f"{self.model}/{self.memory}" + (f" [{self.category}]" if self.category else "")

    def folder(self) -> Path:
        """The results folder upstream read for this group."""
        scanned = self.file.parent
        if self.memory != SINGLE:
            return scanned / self.model / self.memory
        if self.model == scanned.name and any(scanned.glob("*_accuracy.json")):
            return scanned  # the scanned folder held accuracy files itself
        return scanned / self.model

    def has_runs(self) -> bool:
        """Whether its folder holds results of its category."""
        try:
            names = [p.name for p in self.folder().iterdir()]
        except OSError:
            return False
        return any(
            name.endswith(RESULTS_SUFFIX)
            and not is_aggregate(name)
            and file_category(name[: -len(RESULTS_SUFFIX)]) == self.category
            for name in names
        )


@dataclass
class FolderAggregates:
    """The ``aggregated_accuracy*.json`` files that say something about one results folder."""

    files: list[Path] = field(default_factory=list)
    """Files with a group naming the folder (they count in its runs' content hash)."""
    groups: list[Group] = field(default_factory=list)
    """The groups naming the folder."""
    notices: list[Notice] = field(default_factory=list)
    """Unreadable files and unmatched groups (only for the first folder below a file)."""


@dataclass(frozen=True)
class FileRun:
    """What the check needs of one run of the folder: its results stem, its rows as
    ``(point, qa_type, entity_explicitness, expression_type, correct)``, and its own
    ``<stem>_accuracy.json`` (None when it has none: upstream does not count it)."""

    stem: str
    rows: list[tuple[str, str, JSONValue, JSONValue, bool]]
    accuracy: JSONValue


def overall_aggregates(folder: Path) -> list[Path]:
    """The ``aggregated_accuracy*.json`` of ``folder`` and the two folders above it (where
    a scan of the folder, of its model folder or of the results root writes them)."""
    found: list[Path] = []
    for place in (folder, folder.parent, folder.parent.parent):
        try:
            found += sorted(
                p for p in place.iterdir() if OVERALL_AGGREGATE.match(p.name) and p.is_file()
            )
        except OSError:
            continue
    return list(dict.fromkeys(found))


def read_groups(path: Path) -> tuple[list[Group], list[str]]:
    """The groups of one file, and why any part of it could not be used."""
    try:
        data = read_json_file(path, what="aggregate_results summary")
    except MemscopeError as error:
        return [], [f"{path.name} cannot be read ({error.message}); not cross-checked"]
    groups = data.get("groups") if isinstance(data, dict) else None
    if not isinstance(groups, list):
        return [], [
            f"{path.name} is not aggregate_results.py's overall summary "
            "(no 'groups' list); not cross-checked"
        ]
    found: list[Group] = []
    surprises: list[str] = []
    for number, group in enumerate(groups, start=1):
        model = group.get("model") if isinstance(group, dict) else None
        memory = group.get("memory") if isinstance(group, dict) else None
        if not (isinstance(group, dict) and isinstance(model, str) and isinstance(memory, str)):
            surprises.append(f"{path.name}: group {number} names no model and memory; skipped")
            continue
        found.append(
            Group(
                path,
                model,
                memory,
                normalize(group.get("category_filter")),
                group,
            )
        )
    return found, surprises


def aggregates_for(folder: Path) -> FolderAggregates:
    """The aggregates beside and above the results folder ``folder`` (resolved), its groups,
    and the warnings it is the one to give."""
    result = FolderAggregates()
    for path in overall_aggregates(folder):
        groups, surprises = read_groups(path)
        mine = [group for group in groups if group.folder() == folder]
        if mine:
            result.files.append(path)
            result.groups += mine
        if not _speaks_for(folder, path.parent):
            continue
        result.notices += [Notice(surprise, str(path)) for surprise in surprises]
        result.notices += _unmatched_notices(path, [g for g in groups if not g.has_runs()])
    return result


def _speaks_for(folder: Path, scanned: Path) -> bool:
    """Whether ``folder`` is the first results folder at or below ``scanned`` (two levels
    down, as upstream looks), the one that reports a file's unmatched groups."""
    candidates = [scanned]
    for child in _subfolders(scanned):
        candidates += [child, *_subfolders(child)]
    with_results = sorted(c for c in candidates if has_results(c))
    return bool(with_results) and with_results[0] == folder


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []


def _unmatched_notices(path: Path, unmatched: list[Group]) -> list[Notice]:
    notices = []
    own_output = [
        g
        for g in unmatched
        if g.memory == SINGLE and g.folder() == path.parent and not has_results(path.parent)
    ]
    if own_output:
        notices.append(
            Notice(
                f"group {own_output[0].name} names this file's own folder, which holds no "
                "results: it is what a second aggregate_results.py run writes after reading its "
                "own earlier output (an upstream defect); not cross-checked — delete the file "
                "and run aggregate_results.py once",
                str(path),
            )
        )
    rest = [g for g in unmatched if g not in own_output]
    if rest:
        listed = ", ".join(g.name for g in rest[:LISTED])
        more = f" and {len(rest) - LISTED} more" if len(rest) > LISTED else ""
        notices.append(
            Notice(
                f"{len(rest)} group(s) name no results folder here, so they were not "
                f"cross-checked: {listed}{more}",
                str(path),
                tuple(str(g.folder()) for g in rest[:3]),
            )
        )
    return notices


def rq12_split(point: str, qa_type: str, entity_explicitness: JSONValue) -> str:
    """The explicit / implicit / … bucket ``run_bench.py`` files a row under."""
    if point in ("entity_img", "entity_text"):
        if qa_type in ENTITY_EXPLICIT_TYPES:
            return "explicit"
        if qa_type == "Items":
            return str(entity_explicitness or "unknown")
        return "unknown"
    return qa_type if qa_type in ("explicit", "implicit") else "unknown"


def _counts(rows: Iterable[tuple[str, bool]]) -> dict[str, list[int]]:
    counts = {split: [0, 0] for split in SPLITS}
    for split, correct in rows:
        for name in {split, "overall"}:
            if name in counts:
                counts[name][0] += int(correct)
                counts[name][1] += 1
    return counts


@dataclass
class Tally:
    """A group's counts as upstream sums them, and what the sum says about its defects."""

    counts: dict[str, list[int]] = field(default_factory=lambda: {s: [0, 0] for s in SPLITS})
    rows: int = 0
    recounted_files: int = 0
    unlabelled_refusals: int = 0

    def add(self, counts: Mapping[str, list[int]]) -> None:
        for split, (correct, total) in counts.items():
            self.counts[split][0] += correct
            self.counts[split][1] += total


def upstream_counts(run: FileRun, tally: Tally) -> None:
    """Add one accuracy file's rows to ``tally`` as ``aggregate_results.add_accuracy_file``
    does (see the module docstring)."""
    payload = run.accuracy if isinstance(run.accuracy, dict) else {}
    tally.rows += len(run.rows)
    recounted = False

    def refusal() -> dict[str, list[int]]:
        chosen = [r for r in run.rows if normalize(r[0]) == REFUSAL]
        labels = [str(r[3] or "").strip().lower() for r in chosen]
        tally.unlabelled_refusals += sum(label not in ("explicit", "implicit") for label in labels)
        counts = _counts((label, r[4]) for label, r in zip(labels, chosen, strict=True))
        for split in ("mixed", "unknown"):
            counts[split] = [0, 0]  # upstream files unmatched refusals under overall only
        return counts

    def entity_recount() -> dict[str, list[int]]:
        nonlocal recounted
        recounted = True
        return _counts(
            (
                ("explicit" if r[1] in ENTITY_EXPLICIT_TYPES else "unknown")
                if r[1] != "Items"
                else str(r[2] or "unknown"),
                r[4],
            )
            for r in run.rows
        )

    if file_category(run.stem) == REFUSAL:
        tally.add(refusal())
        return
    recount = any(
        isinstance(value, dict) and "unknown" in value and "explicit" not in value
        for key, value in payload.items()
        if key != "__overall__"
    )
    for raw, value in payload.items():
        if raw == "__overall__" or not isinstance(value, dict):
            continue
        category = normalize(raw)
        if category == REFUSAL:
            tally.add(refusal())
        elif category in ENTITY_CATEGORIES and recount:
            tally.add(entity_recount())
        else:
            tally.add(
                _counts(
                    (rq12_split(r[0], r[1], r[2]), r[4])
                    for r in run.rows
                    if normalize(r[0]) == category
                )
            )
    tally.recounted_files += int(recounted)


def group_check(group: Group, runs: Sequence[FileRun]) -> tuple[JSONObject, list[Notice]]:
    """The check record of one group against the rows of its runs, and the warnings about
    upstream's defects it met (the disagreement itself is in the record)."""
    tally = Tally()
    counted = [run for run in runs if run.accuracy is not None]
    for run in counted:
        upstream_counts(run, tally)
    surprises: list[str] = []
    notes: list[Notice] = []
    where = str(group.file)
    if not counted:
        surprises.append(
            f"group {group.name} names this folder, but none of its results has an "
            "_accuracy.json beside it (upstream counts only those); not cross-checked"
        )
        return summary_check(where, [], surprises=surprises), notes
    splits = list(COMPARED)
    if tally.unlabelled_refusals:
        splits = ["overall"]
        surprises.append(
            f"group {group.name}: {tally.unlabelled_refusals} refusal QA(s) "
            "carry no expression_type (upstream labels them from its external adversarial QA "
            "file), so explicit / implicit are not compared"
        )
    comparisons: list[Comparison] = []
    for split in splits:
        bucket = group.numbers.get(split)
        for key in ("correct", "total"):
            value = bucket.get(key) if isinstance(bucket, dict) else None
            if not isinstance(value, int) or isinstance(value, bool):
                surprises.append(
                    f"group {group.name} has no count {split}.{key}; left out of the check"
                )
                continue
            recomputed = tally.counts[split][0 if key == "correct" else 1]
            comparisons.append((f"{group.name} {split}.{key}", value, recomputed, 0.0))
    if tally.recounted_files and tally.counts["overall"][1] > tally.rows:
        notes.append(
            Notice(
                f"group {group.name} counts {tally.counts['overall'][1]} answers for "
                f"{tally.rows} QAs: aggregate_results.py counts every record of "
                f"{tally.recounted_files} results file(s) again under each entity category (an "
                "upstream defect); memscope counted as it does to compare, so read its totals "
                "with care",
                where,
            )
        )
    return summary_check(where, comparisons, surprises=surprises), notes


def checks_by_stem(
    found: FolderAggregates, runs: Sequence[FileRun]
) -> tuple[dict[str, list[JSONObject]], dict[str, list[Notice]]]:
    """Each group's check, filed under the stems of the runs it covers (every run of the
    group carries it), and its warnings filed under the group's first run only."""
    checks: dict[str, list[JSONObject]] = {}
    notices: dict[str, list[Notice]] = {}
    for group in found.groups:
        members = [run for run in runs if file_category(run.stem) == group.category]
        check, notes = group_check(group, members)
        covered = [run.stem for run in members if run.accuracy is not None] or [
            run.stem for run in runs[:1]
        ]
        for stem in covered:
            checks.setdefault(stem, []).append({**check, "groups": [group.name]})
        if covered:
            notices.setdefault(covered[0], []).extend([*notes, *check_notices(check)])
    return checks, notices
