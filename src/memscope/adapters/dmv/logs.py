"""Parses DMV-Bench F2 task logs: bank sizes and, per probe, what each recall step retrieved.

``logs/<system>/<task_id>__<system name>.log`` is free text written by
``dualmem/agent/f2_session_runner.py`` (docs/formats.md §2.3). The lines memscope reads:

    === F2 task=<task_id> system=<name> D=<J> ===
      [S<j>] replay: <views> product views, bank +<added> -> size=<bank size>
      --- PROBE <probe_id> reach-<r> cue=<cue_id> gt=/product/<hash> ---
        R<k>/<n> obs=<url> retrieved=['<slug>', ...]
        | <VLM output line>
        -> <action> <url>
        probe_final=<url|None> gt=<url> correct=<True|False>

Every other line (page recovery notes, encode failures) is ignored. A line that starts
like one of these but does not parse is reported as ``file:line`` and skipped.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from memscope.plugin import RunDirError, read_regular

HEADER = re.compile(r"^=== F2 task=(?P<task>\S+) system=(?P<system>.+?) D=(?P<depth>\d+) ===$")
REPLAY = re.compile(
    r"^\[S(?P<session>\d+)\] replay: (?P<views>\d+) product views, bank \+(?P<added>\d+) -> size=(?P<size>\d+)$"
)
PROBE = re.compile(
    r"^--- PROBE (?P<probe>\S+) reach-(?P<reach>\d+) cue=(?P<cue>.*) gt=(?P<gt>\S*) ---$"
)
STEP = re.compile(r"^R(?P<step>\d+)/(?P<of>\d+) obs=(?P<obs>\S*) retrieved=(?P<retrieved>.*)$")
ACTION = re.compile(r"^-> (?P<action>\S+)(?: (?P<url>\S*))?\s*$")
SIMPLE_LIST = re.compile(r"^\[(?:'[^'\\]*'(?:, '[^'\\]*')*)?\]$")
QUOTED = re.compile(r"'([^'\\]*)'")
FINAL = re.compile(r"^probe_final=(?P<final>\S*) gt=(?P<gt>\S*) correct=(?P<correct>True|False)$")
STARTS = (
    ("=== F2", HEADER, "a task header (=== F2 task=… system=… D=… ===)"),
    ("--- PROBE", PROBE, "a probe header (--- PROBE <id> reach-<r> cue=<cue> gt=<url> ---)"),
    ("probe_final=", FINAL, "a probe result (probe_final=<url> gt=<url> correct=True|False)"),
)
VLM_PREFIX = "| "
MAX_NUMBER = 2**31 - 1
"""Sessions, sizes, depths, reaches and step numbers above this make the line a bad one
(the store keeps them in 32-bit columns; upstream's are small)."""


@dataclass
class RecallStep:
    """One recall step of a probe: what the agent saw, what memory returned, what it did."""

    step: int
    observed_url: str
    retrieved: list[str]
    action: str | None = None
    action_url: str | None = None
    vlm_lines: list[str] = field(default_factory=list)


@dataclass
class ProbeLog:
    """The log of one probe."""

    probe_id: str
    line_no: int
    reach: int
    cue_id: str
    target_url: str
    steps: list[RecallStep] = field(default_factory=list)
    final_url: str | None = None
    correct: bool | None = None


@dataclass
class TaskLog:
    """What one task log says: bank size per replayed session, and every probe."""

    path: Path
    task_id: str | None = None
    system_name: str | None = None
    depth: int | None = None
    bank_size: dict[int, int] = field(default_factory=dict)
    probes: dict[str, ProbeLog] = field(default_factory=dict)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)
    """``(line number, why)`` for each line that starts like a known line but does not parse."""


def parse_task_log(path: Path) -> TaskLog:
    """Read one F2 task log.

    Raises:
        RunDirError: when the file cannot be read or is not UTF-8 text.
    """
    try:
        text = read_regular(path).decode("utf-8")
    except OSError as exc:
        raise RunDirError(f"cannot read the log: {exc.strerror or exc}", where=str(path)) from None
    except UnicodeDecodeError as exc:
        raise RunDirError(
            f"the log is not UTF-8 text (byte {exc.start})", where=str(path)
        ) from None
    log = TaskLog(path)
    probe: ProbeLog | None = None
    step: RecallStep | None = None
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line[0] == "|":  # the VLM's own text: the bulk of a log
            if step is not None:
                step.vlm_lines.append(line[2:] if line.startswith(VLM_PREFIX) else "")
            continue
        if line.startswith("[S") and " replay:" in line:
            match = REPLAY.match(line)
            if match is None:
                log.bad_lines.append(
                    (
                        line_no,
                        "a replay line that does not parse ([S<j>] replay: <n> product views, bank +<n> -> size=<n>)",
                    )
                )
                continue
            session, size = int(match["session"]), int(match["size"])
            if session > MAX_NUMBER or size > MAX_NUMBER:
                log.bad_lines.append((line_no, f"a replay line with a number above {MAX_NUMBER}"))
                continue
            log.bank_size[session] = size
            continue
        if line[0] == "R" and " obs=" in line and "retrieved=" in line:
            parsed = _parse_step(line)
            if isinstance(parsed, str):
                log.bad_lines.append((line_no, parsed))
                step = None
                continue
            if probe is None:
                log.bad_lines.append((line_no, "a recall step outside any probe"))
                step = None
                continue
            step = parsed
            probe.steps.append(step)
            continue
        if line.startswith("-> "):
            match = ACTION.match(line)
            if step is not None and match is not None:
                step.action = match["action"]
                step.action_url = match["url"] or None
            continue
        for start, pattern, shape in STARTS:
            if not line.startswith(start):
                continue
            match = pattern.match(line)
            if match is None:
                log.bad_lines.append(
                    (line_no, f"a line that starts like {shape} but does not parse")
                )
                break
            numbers = [
                int(match[name]) for name in ("depth", "reach") if name in pattern.groupindex
            ]
            if any(number > MAX_NUMBER for number in numbers):
                log.bad_lines.append((line_no, f"a {shape} line with a number above {MAX_NUMBER}"))
                break
            if pattern is HEADER:
                log.task_id, log.system_name, log.depth = (
                    match["task"],
                    match["system"],
                    int(match["depth"]),
                )
            elif pattern is PROBE:
                probe = ProbeLog(
                    match["probe"], line_no, int(match["reach"]), match["cue"], match["gt"]
                )
                step = None
                log.probes.setdefault(probe.probe_id, probe)
            elif probe is not None:
                probe.final_url = None if match["final"] in ("", "None") else match["final"]
                probe.correct = match["correct"] == "True"
                probe, step = None, None
            break
    return log


def _parse_step(line: str) -> RecallStep | str:
    """A recall step line, or why it does not parse."""
    match = STEP.match(line)
    if match is None:
        return "a recall step line that does not parse (R<k>/<n> obs=<url> retrieved=[…])"
    if int(match["step"]) > MAX_NUMBER:
        return f"a recall step numbered above {MAX_NUMBER}"
    listed = match["retrieved"]
    if SIMPLE_LIST.match(listed):
        # The usual repr of a list of plain slugs: read it without building a syntax tree.
        return RecallStep(int(match["step"]), match["obs"], QUOTED.findall(listed))
    try:
        retrieved = ast.literal_eval(listed)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return "a recall step whose retrieved=… is not a Python list of slugs"
    if not isinstance(retrieved, (list, tuple)) or not all(
        isinstance(slug, str) for slug in retrieved
    ):
        return "a recall step whose retrieved=… is not a Python list of slugs"
    return RecallStep(int(match["step"]), match["obs"], [str(slug) for slug in retrieved])
