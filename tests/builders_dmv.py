"""Builds DMV-Bench F2 run directories in the exact upstream layout, for tests.

``f2_per_probe.csv`` has the columns and order of ``dualmem/metrics_f2.aggregate_f2``;
task logs have the line shapes of ``dualmem/agent/f2_session_runner.py``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).parent / "data" / "dmv"
COLUMNS = [
    "system",
    "task_id",
    "probe_id",
    "at_session",
    "target_session",
    "reach",
    "correct",
    "target_url",
    "final_url",
    "vlm_calls",
]


def registry_rows() -> list[dict]:
    """The real cue registry's rows (tests/data/dmv/cue_registry.json)."""
    return json.loads((DATA / "cue_registry.json").read_text())["rows"]


@dataclass
class Probe:
    """One probe of one system: where it sits, what it targets and what happened."""

    task_id: str
    probe_id: str
    at: int
    target_session: int
    target: str
    correct: bool
    final: str | None
    cue_id: str = "chair::wool scarf::red"
    steps: list[tuple[str, list[str], str, str]] = field(default_factory=list)
    """``(observed url, retrieved slugs, action, action url)`` per recall step."""
    vlm_calls: int | None = None

    @property
    def reach(self) -> int:
        return self.at - self.target_session


def task_log(
    task_id: str, system: str, depth: int, bank_sizes: dict[int, int], probes: list[Probe]
) -> str:
    """A task log as the F2 runner writes it (probes of session j after that session's replay)."""
    lines = [
        f"=== F2 task={task_id} system={system} D={depth} ===",
        f"  built {len(probes)} probes from trajectories  (exhaustive)",
    ]
    for session in range(depth):
        size = bank_sizes.get(session, 0)
        lines.append(
            f"  [S{session}] replay: {size + 1} product views, bank +{size} -> size={size}"
        )
        for probe in (p for p in probes if p.at == session):
            lines.append(
                f"  --- PROBE {probe.probe_id} reach-{probe.reach} cue={probe.cue_id} gt=/product/{probe.target} ---"
            )
            for number, (observed, retrieved, action, url) in enumerate(probe.steps, start=1):
                lines.append(f"    R{number}/8 obs={observed} retrieved={retrieved!r}")
                lines.append("    | Thought: looking for the cue")
                lines.append(f"    | Action: {action} {url}")
                lines.append(f"    -> {action} {url}")
            lines.append(
                f"    probe_final={probe.final} gt=/product/{probe.target} correct={probe.correct}"
            )
    lines.append("  total_vlm_calls=0")
    return "\n".join(lines)


def summary_csv(probes_by_system: dict[str, list[Probe]]) -> str:
    """``f2_summary.csv`` as upstream's aggregator writes it: SR (4 places), injection_placed
    (always 0 in v6), n_recall_tasks (= probes), recall_at_reach_1..max (-1 without probes)."""
    max_reach = max(p.reach for probes in probes_by_system.values() for p in probes)
    summary = io.StringIO()
    writer = csv.writer(summary)
    writer.writerow(
        ["system", "SR", "injection_placed", "n_recall_tasks"]
        + [f"recall_at_reach_{r}" for r in range(1, max_reach + 1)]
    )
    for system, probes in probes_by_system.items():
        rate = sum(p.correct for p in probes) / len(probes)
        by_reach = []
        for reach in range(1, max_reach + 1):
            hits = [p.correct for p in probes if p.reach == reach]
            by_reach.append(round(sum(hits) / len(hits), 4) if hits else -1.0)
        writer.writerow([system, round(rate, 4), 0.0, len(probes), *by_reach])
    return summary.getvalue()


def write_f2_run(
    run_dir: Path,
    probes_by_system: dict[str, list[Probe]],
    *,
    depths: dict[str, int] | None = None,
    bank_sizes: dict[str, dict[int, int]] | None = None,
    logs: bool = True,
) -> Path:
    """Write ``f2_per_probe.csv``, ``f2_summary.csv`` and (with ``logs``) the task logs."""
    run_dir.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    for system, probes in probes_by_system.items():
        for p in probes:
            writer.writerow(
                [
                    system,
                    p.task_id,
                    p.probe_id,
                    p.at,
                    p.target_session,
                    p.reach,
                    int(p.correct),
                    f"/product/{p.target}",
                    p.final or "",
                    p.vlm_calls if p.vlm_calls is not None else len(p.steps),
                ]
            )
    (run_dir / "f2_per_probe.csv").write_text(buffer.getvalue())
    (run_dir / "f2_summary.csv").write_text(summary_csv(probes_by_system))
    if logs:
        for system, probes in probes_by_system.items():
            for task_id in dict.fromkeys(p.task_id for p in probes):
                depth = (depths or {}).get(
                    task_id, max(p.at for p in probes if p.task_id == task_id) + 1
                )
                text = task_log(
                    task_id,
                    system,
                    depth,
                    (bank_sizes or {}).get(task_id, {}),
                    [p for p in probes if p.task_id == task_id],
                )
                path = run_dir / "logs" / system / f"{task_id}__{system}.log"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    return run_dir


HASHES = [
    row["url_hash"] for row in registry_rows()[:6]
]  # chair/modern 00-05: red, blue, green, yellow … wool scarf


def probes(system_correct: bool = True) -> list[Probe]:
    """Six probes of three chains (trunks s0007 and s0008) on real registry products."""
    red, blue, green, yellow = HASHES[:4]
    return [
        Probe(
            "f2_chain_d3_s0007",
            "s1_r1_p00",
            1,
            0,
            red,
            system_correct,
            f"/product/{red}" if system_correct else f"/product/{blue}",
            steps=[
                ("/", [red, blue], "click", f"/product/{red}"),
                (f"/product/{red}", [red, green], "add_to_wishlist", f"/product/{red}"),
            ],
        ),
        Probe(
            "f2_chain_d3_s0007",
            "s1_r1_p01",
            1,
            0,
            blue,
            False,
            f"/product/{red}",
            cue_id="chair::wool scarf::blue",
            steps=[("/", [red, green], "click", f"/product/{red}")],
        ),
        Probe(
            "f2_chain_d3_s0007",
            "s2_r1_p00",
            2,
            1,
            green,
            True,
            f"/product/{green}",
            cue_id="chair::wool scarf::green",
            steps=[("/", [green], "click", f"/product/{green}")],
        ),
        Probe(
            "f2_chain_d3_s0007", "s2_r2_p00", 2, 0, red, False, "", steps=[("/", [], "done", "")]
        ),
        Probe(
            "f2_chain_d2_s0007",
            "s1_r1_p00",
            1,
            0,
            red,
            True,
            f"/product/{red}",
            steps=[("/", [red], "click", f"/product/{red}")],
        ),
        Probe(
            "f2_chain_d3_s0008",
            "s1_r1_p00",
            1,
            0,
            yellow,
            True,
            f"/product/{yellow}",
            cue_id="chair::wool scarf::yellow",
            steps=[("/", [yellow, red], "click", f"/product/{yellow}")],
        ),
    ]
