#!/usr/bin/env python3
"""Generate a small DMV-Bench (F2) fixture and a simulated F2 run directory for memscope.

Usage::

    python scripts/demo/make_dmv_demo.py [--out DIR]

DIR defaults to the repository root. The script writes

- ``DIR/fixtures/dmv/``: a stand-in for DMV-Bench's ``data/vismem_diag_v2/``:
  ``cue_registry.json`` and ``seed_v2.json`` (18 real catalogue products of the upstream
  registry, fields unchanged), ``_caption_cache.json`` (captions as a caption-based memory
  would store them), ``images/with_cue/<cat>/<style>/<idx>.png`` (each product drawn with
  its small coloured cue object) and ``f2_trajectories/f2traj_s<seed>_sess<j>.json`` (the
  product pages each encoding session viewed);
- ``DIR/runs/dmv_f2_demo/``: the ``--out-dir`` of a simulated
  ``scripts/run_dmvbench_f2.py`` run over seven chains (seeds 0-5 at depth 4, and seed 0
  again at depth 3, which shares the trunk of seed 0) for three systems (DualMem-a75,
  TextOnly, NoMemory): ``f2_per_probe.csv``, ``f2_summary.csv``, ``f2_summary.txt`` and
  ``logs/<system>/<task_id>__<system>.log`` in the upstream formats, plus
  ``memscope_sources.json`` pointing memscope at ``fixtures/dmv``;
- ``DIR/runs/README_cuemem_dmv.md`` (the DMV section; ``make_cuemem_demo.py`` writes the
  other).

Nothing was run: outcomes and retrievals come from a seeded simulation in which recall
decays with reach, the caption-based memory confuses same-collection products whose cues
differ only in colour, and the memory-less agent guesses. The output is byte-for-byte
reproducible (no clock, seeded randomness, fixed PNG encoder settings). Only the standard
library, numpy and Pillow are used; memscope itself is not imported.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from readme_sections import write_section

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE_DIR = Path("fixtures") / "dmv"
RUN_DIR = Path("runs") / "dmv_f2_demo"
README = Path("runs") / "README_cuemem_dmv.md"
SEED = 20260430
RECALL_STEPS = 8
TOP_K = 5

# (cat, style, prod_idx, url_hash, cue_object, cue_color, displayName, price): rows of
# DMV-Bench's data/vismem_diag_v2/cue_registry.json and seed_v2.json (commit 6ee8a8e).
PRODUCTS = [
    ("chair", "modern", 0, "df5b5fde", "wool scarf", "red", "Lumen Chair 01", 280.99),
    ("chair", "modern", 3, "cc6d6ab0", "wool scarf", "yellow", "Lumen Chair 04", 293.59),
    ("chair", "modern", 6, "13c821e1", "wool scarf", "brown", "Lumen Chair 07", 306.19),
    ("chair", "vintage", 0, "b54bb930", "baseball cap", "red", "Marlowe Chair 01", 314.59),
    ("chair", "vintage", 3, "ac613e5e", "baseball cap", "yellow", "Marlowe Chair 04", 327.19),
    ("chair", "vintage", 6, "042579a6", "baseball cap", "brown", "Marlowe Chair 07", 339.79),
    ("lamp", "modern", 0, "ed653346", "framed photo", "red", "Lumen Lamp 01", 120.99),
    ("lamp", "modern", 3, "478fa781", "framed photo", "yellow", "Lumen Lamp 04", 126.39),
    ("lamp", "modern", 6, "d6fdca12", "framed photo", "brown", "Lumen Lamp 07", 131.79),
    ("lamp", "scandinavian", 0, "31f9f00d", "wall calendar (small)", "red", "Wren Lamp 01", 149.79),
    (
        "lamp",
        "scandinavian",
        3,
        "f86e4ce2",
        "wall calendar (small)",
        "yellow",
        "Wren Lamp 04",
        155.19,
    ),
    (
        "lamp",
        "scandinavian",
        6,
        "756cc8b6",
        "wall calendar (small)",
        "brown",
        "Wren Lamp 07",
        160.59,
    ),
    ("vase", "bohemian", 0, "ff18e34e", "pampas plume", "red", "Saga Vase 01", 76.39),
    ("vase", "bohemian", 3, "41595903", "pampas plume", "yellow", "Saga Vase 04", 79.0),
    ("vase", "bohemian", 6, "7b3d882b", "pampas plume", "brown", "Saga Vase 07", 81.61),
    ("cushion", "vintage", 0, "66566b9b", "ornate hair clip", "red", "Marlowe Cushion 01", 48.03),
    (
        "cushion",
        "vintage",
        3,
        "cb37f291",
        "ornate hair clip",
        "yellow",
        "Marlowe Cushion 04",
        49.92,
    ),
    ("cushion", "vintage", 6, "c3e173cc", "ornate hair clip", "brown", "Marlowe Cushion 07", 51.81),
]
CATEGORIES = {
    "chair": ("Chairs", 0),
    "lamp": ("Lamps", 2),
    "cushion": ("Cushions", 3),
    "vase": ("Vases", 4),
}
SERIES = {
    "modern": ("Lumen", 1),
    "vintage": ("Marlowe", 3),
    "scandinavian": ("Wren", 5),
    "bohemian": ("Saga", 6),
}
COLOURS = {"red": (200, 40, 40), "yellow": (235, 200, 40), "brown": (120, 75, 40)}
STYLE_TONES = {
    "modern": (90, 110, 140),
    "vintage": (150, 110, 80),
    "scandinavian": (190, 180, 160),
    "bohemian": (170, 120, 150),
}
CHAINS = [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4), (5, 4), (0, 3)]
"""(seed, depth J) per task; seed 0 appears twice, so its two chains share a trunk."""
SESSION_CATEGORIES = {
    0: ["chair", "lamp", "vase", "cushion"],
    1: ["lamp", "cushion", "chair", "vase"],
    2: ["vase", "chair", "cushion", "lamp"],
    3: ["cushion", "vase", "lamp", "chair"],
    4: ["chair", "vase", "cushion", "lamp"],
    5: ["lamp", "chair", "vase", "cushion"],
}
SYSTEMS = {
    # system: (success at reach 1, loss per extra reach, chance the target is retrieved when the probe fails)
    "DualMem-a75": (0.9, 0.17, 0.5),
    "TextOnly": (0.55, 0.12, 0.35),
    "NoMemory": (0.06, 0.0, 0.0),
}


def by_hash() -> dict[str, tuple]:
    return {row[3]: row for row in PRODUCTS}


# --------------------------------------------------------------------------------------
# fixtures/dmv: registry, catalogue, captions, images, trajectories
# --------------------------------------------------------------------------------------


def registry_payload() -> dict:
    rows = [
        {
            "cat": c,
            "style": s,
            "prod_idx": i,
            "url_hash": h,
            "cue_object": o,
            "cue_color": col,
            "cue_id": f"{c}::{o}::{col}",
        }
        for c, s, i, h, o, col, _name, _price in PRODUCTS
    ]
    return {"version": "v2.3a", "n_cues": len(rows), "rows": rows}


def catalogue_payload() -> dict:
    categories = [
        {
            "id": f"cat_{c}",
            "slug": c,
            "display": d,
            "description": f"Browse our {d.lower()}.",
            "sortOrder": order,
        }
        for c, (d, order) in CATEGORIES.items()
    ]
    pairs = list(dict.fromkeys((c, s) for c, s, *_ in PRODUCTS))
    collections = [
        {
            "id": f"col_{c}_{s}",
            "slug": f"{c}-{s}",
            "categoryId": f"cat_{c}",
            "tier": SERIES[s][1],
            "styleSlug": s,
            "displayName": f"{SERIES[s][0]} {CATEGORIES[c][0]}",
            "displayOrder": SERIES[s][1] - 1,
        }
        for c, s in pairs
    ]
    products = [
        {
            "id": f"prod_{c}_{s}",
            "categoryId": f"cat_{c}",
            "baseName": f"{SERIES[s][0]} {c.title()}",
            "baseDesc": f"A {c} from the {SERIES[s][0]} series.",
            "longDesc": f"Part of our {SERIES[s][0]} line. Sized for everyday use.",
            "material": "varied",
            "price": float(int(min(p[7] for p in PRODUCTS if p[0] == c and p[1] == s))),
        }
        for c, s in pairs
    ]
    variants = []
    for c, s, i, h, o, col, name, price in PRODUCTS:
        image = f"/images_v2/{c}/{s}/{i:02d}.png"
        variants.append(
            {
                "id": f"var_{c}_{s}_{i:02d}",
                "productId": f"prod_{c}_{s}",
                "collectionId": f"col_{c}_{s}",
                "grainTier": 1,
                "internalVariantKey": f"v2_{s}_{i:02d}",
                "styleSlug": s,
                "colorName": "",
                "incidentalDetails": "[]",
                "displayName": name,
                "price": price,
                "urlHash": h,
                "primaryImage": image,
                "galleryImages": json.dumps([image]),
                "title": name,
                "altText": name,
                "_cue_object": o,
                "_cue_color": col,
            }
        )
    return {
        "version": "v2.5",
        "categories": categories,
        "collections": collections,
        "products": products,
        "variants": variants,
    }


def captions_payload() -> dict:
    """What a captioner wrote: the cue object is named, its colour is not (the TextOnly trap)."""
    return {
        f"with_cue/{c}/{s}/{i:02d}.png": f"A {s} {c} shown on a plain backdrop, with a {o} placed beside it."
        for c, s, i, _h, o, _col, _n, _p in PRODUCTS
    }


def draw_product(category: str, style: str, colour: str) -> Image.Image:
    """A 96x96 product shot: the item in its style's tone, the cue as a small coloured tag."""
    image = Image.new("RGB", (96, 96), (244, 242, 236))
    draw = ImageDraw.Draw(image)
    tone = STYLE_TONES[style]
    dark = tuple(max(0, v - 60) for v in tone)
    if category == "chair":
        draw.rectangle((28, 46, 68, 54), fill=tone, outline=dark)
        draw.rectangle((28, 18, 34, 54), fill=tone, outline=dark)
        for x in (30, 64):
            draw.line((x, 54, x, 80), fill=dark, width=3)
    elif category == "lamp":
        draw.polygon([(34, 42), (62, 42), (54, 20), (42, 20)], fill=tone, outline=dark)
        draw.line((48, 42, 48, 76), fill=dark, width=3)
        draw.rectangle((38, 76, 58, 80), fill=dark)
    elif category == "vase":
        draw.ellipse((32, 34, 64, 80), fill=tone, outline=dark)
        draw.rectangle((42, 22, 54, 38), fill=tone, outline=dark)
    else:
        draw.rounded_rectangle((22, 36, 74, 70), radius=10, fill=tone, outline=dark)
    # The incidental cue: small, off-centre, coloured.
    cue = COLOURS[colour]
    draw.ellipse((70, 66, 84, 80), fill=cue, outline=(40, 40, 40))
    draw.line((77, 66, 81, 58), fill=cue, width=2)
    return image.quantize(colors=16, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=9)
    return buffer.getvalue()


def trajectories() -> dict[tuple[int, int], list[str]]:
    """(seed, session) -> url hashes viewed, in order, repeats included."""
    rng = np.random.default_rng(SEED)
    visits: dict[tuple[int, int], list[str]] = {}
    for seed in sorted({seed for seed, _ in CHAINS}):
        for session, category in enumerate(SESSION_CATEGORIES[seed]):
            pool = [row[3] for row in PRODUCTS if row[0] == category]
            chosen = [pool[i] for i in rng.choice(len(pool), size=3, replace=False)]
            order = chosen + [chosen[int(rng.integers(0, 3))]]  # one product page is revisited
            visits[(seed, session)] = order
    return visits


# --------------------------------------------------------------------------------------
# The simulated run
# --------------------------------------------------------------------------------------


def distinct(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def probes_for(seed: int, depth: int, visits: dict) -> list[dict]:
    """Exhaustive F2 probes, exactly as build_probes_from_trajectories makes them."""
    probes = []
    for j in range(1, depth):
        for r in range(1, j + 1):
            target_session = j - r
            for index, url_hash in enumerate(distinct(visits[(seed, target_session)])):
                probes.append(
                    {
                        "probe_id": f"s{j}_r{r}_p{index:02d}",
                        "at": j,
                        "target": target_session,
                        "reach": r,
                        "hash": url_hash,
                    }
                )
    return probes


def bank_after(seed: int, session: int, visits: dict) -> list[str]:
    return distinct([h for j in range(session + 1) for h in visits[(seed, j)]])


def simulate_probe(system: str, probe: dict, bank: list[str], rng: np.random.Generator) -> dict:
    """Outcome, recall steps and final page of one probe for one system."""
    products = by_hash()
    base, decay, retrieved_when_failing = SYSTEMS[system]
    target = probe["hash"]
    success = bool(rng.random() < max(0.02, base - decay * (probe["reach"] - 1)))
    category, style = products[target][0], products[target][1]
    siblings = [
        h for h in bank if h != target and products[h][1] == style and products[h][0] == category
    ]
    others = [h for h in bank if h != target and h not in siblings]
    steps = []
    if system == "NoMemory" or not bank:
        retrieved: list[str] = []
    else:
        ranked = (
            list(siblings)
            + [h for h in others if products[h][0] == category]
            + [h for h in others if products[h][0] != category]
        )
        if success or rng.random() < retrieved_when_failing:
            position = 0 if success else int(rng.integers(1, min(TOP_K, len(ranked) + 1)))
            ranked.insert(position, target)
        retrieved = ranked[:TOP_K]
    if success:
        wrong_first = bool(rng.random() < 0.3) and siblings
        path = ([siblings[0]] if wrong_first else []) + [target]
    else:
        candidates = (
            [h for h in retrieved if h != target and products[h][0] == category]
            or [h for h in retrieved if h != target]
            or siblings
            or [h for h in products if h != target]
        )
        path = [candidates[int(rng.integers(0, len(candidates)))]]
    observed = "/"
    for number, url_hash in enumerate(path, start=1):
        is_last = number == len(path)
        url = f"/product/{url_hash}"
        if is_last:
            steps.append(
                {
                    "obs": observed,
                    "retrieved": retrieved,
                    "thought": f"This page shows the {probes_phrase(target)}."
                    if success
                    else "This looks like the product I remember.",
                    "action": "click",
                    "url": url,
                }
            )
            steps.append(
                {
                    "obs": url,
                    "retrieved": retrieved,
                    "thought": "The cue matches; adding it to the wishlist."
                    if success
                    else "I think this is it.",
                    "action": "add_to_wishlist",
                    "url": url,
                }
            )
        else:
            steps.append(
                {
                    "obs": observed,
                    "retrieved": retrieved,
                    "thought": "Memory suggests this one; checking it.",
                    "action": "click",
                    "url": url,
                }
            )
            steps.append(
                {
                    "obs": url,
                    "retrieved": retrieved,
                    "thought": "The cue has the wrong colour; going back.",
                    "action": "go_back",
                    "url": "",
                }
            )
            observed = "/"
    return {"correct": success, "final": f"/product/{path[-1]}", "steps": steps[:RECALL_STEPS]}


def probes_phrase(url_hash: str) -> str:
    row = by_hash()[url_hash]
    return f"{row[5]} {row[4]}"


def run_simulation(visits: dict) -> tuple[list[list], dict[str, dict[str, list[str]]]]:
    """CSV rows and log text per (system, task)."""
    rng = np.random.default_rng(SEED + 1)
    products = by_hash()
    rows: list[list] = []
    logs: dict[str, dict[str, list[str]]] = {}
    for system in SYSTEMS:
        logs[system] = {}
        for seed, depth in CHAINS:
            task_id = f"f2_chain_d{depth}_s{seed:04d}"
            probes = probes_for(seed, depth, visits)
            log = [
                f"=== F2 task={task_id} system={system} D={depth} ===",
                f"  built {len(probes)} probes from trajectories  (exhaustive)",
            ]
            total_calls = 0
            for session in range(depth):
                views = visits[(seed, session)]
                before = len(bank_after(seed, session - 1, visits)) if session else 0
                bank = bank_after(seed, session, visits)
                size = 0 if system == "NoMemory" else len(bank)
                added = 0 if system == "NoMemory" else len(bank) - before
                log.append(
                    f"  [S{session}] replay: {len(views)} product views, bank +{added} -> size={size}"
                )
                for probe in (p for p in probes if p["at"] == session):
                    target = probe["hash"]
                    row = products[target]
                    cue_id = f"{row[0]}::{row[4]}::{row[5]}"
                    outcome = simulate_probe(system, probe, bank, rng)
                    log.append(
                        f"  --- PROBE {probe['probe_id']} reach-{probe['reach']} cue={cue_id} gt=/product/{target} ---"
                    )
                    for number, step in enumerate(outcome["steps"], start=1):
                        log.append(
                            f"    R{number}/{RECALL_STEPS} obs={step['obs']} retrieved={step['retrieved']!r}"
                        )
                        log.append(f"    | Thought: {step['thought']}")
                        log.append(f"    | Action: {step['action']} {step['url']}".rstrip())
                        log.append(f"    -> {step['action']} {step['url']}")
                    calls = len(outcome["steps"])
                    total_calls += calls
                    log.append(
                        f"    probe_final={outcome['final']} gt=/product/{target} correct={outcome['correct']}"
                    )
                    rows.append(
                        [
                            system,
                            task_id,
                            probe["probe_id"],
                            probe["at"],
                            probe["target"],
                            probe["reach"],
                            int(outcome["correct"]),
                            f"/product/{target}",
                            outcome["final"],
                            calls,
                        ]
                    )
            log.append(f"  total_vlm_calls={total_calls}")
            logs[system][task_id] = log
    return rows, logs


def summary_rows(rows: list[list]) -> tuple[list[dict], str]:
    max_reach = max(row[5] for row in rows)
    table_rows = []
    header = f"{'system':14s}{'SR':>8s}{'inj_ok':>8s}{'n_recall':>10s}" + "".join(
        f"{'R@r' + str(r):>8s}" for r in range(1, max_reach + 1)
    )
    lines = [header, "-" * len(header)]
    for system in sorted(SYSTEMS):
        mine = [row for row in rows if row[0] == system]
        overall = sum(row[6] for row in mine) / len(mine)
        per_reach = []
        for reach in range(1, max_reach + 1):
            values = [row[6] for row in mine if row[5] == reach]
            per_reach.append(sum(values) / len(values) if values else -1.0)
        lines.append(
            f"{system:14s}{overall * 100:>7.1f}%{0.0:>7.1f}%{len(mine):>10d}"
            + "".join(f"{v * 100:>7.1f}%" for v in per_reach)
        )
        table_rows.append(
            {
                "system": system,
                "SR": round(overall, 4),
                "injection_placed": 0.0,
                "n_recall_tasks": len(mine),
                **{
                    f"recall_at_reach_{r}": round(per_reach[r - 1], 4)
                    for r in range(1, max_reach + 1)
                },
            }
        )
    return table_rows, "\n".join(lines)


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------


def write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # csv.writer's default, as upstream
    writer.writerow(header)
    writer.writerows(rows)
    path.write_bytes(buffer.getvalue().encode("utf-8"))


def dump_json(payload: object, path: Path, indent: int | None = 2) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")


def readme_section(rows: list[list], table: str) -> str:
    return "\n".join(
        [
            "## DMV-Bench demo run (simulated): `runs/dmv_f2_demo/`",
            "",
            "Written by `scripts/demo/make_dmv_demo.py`; **simulated**, no agent or model was run.",
            "It is the `--out-dir` of DMV-Bench's `scripts/run_dmvbench_f2.py` (`f2_per_probe.csv`,",
            "`f2_summary.csv`, `f2_summary.txt`, `logs/<system>/<task>__<system>.log`) for seven chains",
            "(seeds 0-5 at depth 4 and seed 0 at depth 3, which shares seed 0's trunk) and three",
            f"systems, {len(rows) // len(SYSTEMS)} probes each. memscope ingests one run per system:",
            "`dmv_f2_demo:DualMem-a75`, `dmv_f2_demo:TextOnly`, `dmv_f2_demo:NoMemory`.",
            "",
            "- The products are 18 real rows of DMV-Bench's cue registry and catalogue (fixtures/dmv/);",
            "  their images are drawings of the item with a small coloured cue, not the upstream photos.",
            "- Recall decays with reach; TextOnly's captions name the cue object but not its colour, so",
            "  it confuses products of one collection; NoMemory guesses.",
            "- `memscope_sources.json` points memscope at `fixtures/dmv` (the cue registry with images",
            "  and trajectories). Try `memscope report runs/dmv_f2_demo:DualMem-a75`.",
            "",
            "```",
            table,
            "```",
            "",
        ]
    )


def generate(out: Path) -> None:
    fixture, run_dir = out / FIXTURE_DIR, out / RUN_DIR
    for target in (fixture, run_dir):
        if target.exists():
            shutil.rmtree(target)
    dump_json(registry_payload(), fixture / "cue_registry.json")
    dump_json(catalogue_payload(), fixture / "seed_v2.json")
    dump_json(captions_payload(), fixture / "_caption_cache.json")
    for c, s, i, _h, _o, col, _n, _p in PRODUCTS:
        path = fixture / "images" / "with_cue" / c / s / f"{i:02d}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png_bytes(draw_product(c, s, col)))
    visits = trajectories()
    for (seed, session), views in sorted(visits.items()):
        payload = {
            "session_idx": session,
            "visited": [
                [
                    h,
                    f"data/vismem_diag_v2/images/with_cue/{by_hash()[h][0]}/{by_hash()[h][1]}/{by_hash()[h][2]:02d}.png",
                ]
                for h in views
            ],
            "injection": None,
            "n_steps": 4 * len(views) + 2,
            "vlm_calls": 4 * len(views) + 2,
        }
        dump_json(payload, fixture / "f2_trajectories" / f"f2traj_s{seed:04d}_sess{session}.json")
    rows, logs = run_simulation(visits)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_csv(
        run_dir / "f2_per_probe.csv",
        [
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
        ],
        rows,
    )
    summary, table = summary_rows(rows)
    write_csv(run_dir / "f2_summary.csv", list(summary[0]), [list(row.values()) for row in summary])
    (run_dir / "f2_summary.txt").write_text(table + "\n", encoding="utf-8")
    for system, by_task in logs.items():
        for task_id, lines in by_task.items():
            path = run_dir / "logs" / system / f"{task_id}__{system}.log"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines), encoding="utf-8")
    dump_json({"dmv_registry": "../../fixtures/dmv"}, run_dir / "memscope_sources.json")
    write_section(out / README, "dmv", readme_section(rows, table))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT, help="folder to write fixtures/ and runs/ into"
    )
    args = parser.parse_args()
    generate(args.out.resolve())
    print(f"wrote {args.out / FIXTURE_DIR} and {args.out / RUN_DIR}")


if __name__ == "__main__":
    main()
