"""Builds the dataset of a DMV-Bench run directory: probes as questions, products as rounds.

- **Questions** are the distinct ``(task_id, probe_id)`` pairs of ``f2_per_probe.csv``
  (shared by every system). They are numbered ``q1..qN`` in a fixed order (chain seed,
  chain depth, task id, recall session, reach, encoding position, probe id), so the
  mapping from probe id to qid does not depend on the row order of the CSV; the original
  ids stay in the question's ``extra``. The text is the probe's own instruction ("Earlier
  you saw a product that had a red wool scarf on it. …"), the gold answer the target
  URL, the one gold clue the target product. Question attributes (``extra``): task id,
  probe id, trunk (the chain seed), chain depth, recall and visit session, reach,
  trajectory bank size, encoding position, the target's cue and catalogue place.
- **Rounds** are the products the run mentions (targets, final pages, retrieved bank
  entries): round id = url hash, grouped into one session per category, in registry order.
  A round's image is the catalogue's with-cue image when it exists on this machine.

Bank size is per system: each system's prediction carries its own (its log's replay line
for the probe's recall session, 0 for a memoryless system); the question carries only
``trajectory_bank_size``, the distinct products of the trajectory cache up to the recall
session, used for a system without a log. The encoding position (1-based place of
the target in its visit session's de-duplicated visit order) comes from an exhaustive
probe id ``s<j>_r<r>_p<NN>``; a Monte-Carlo probe id carries a sample index instead, so its
position is recomputed from the trajectory cache when present.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.adapters.dmv.catalogue import Product, ProductData
from memscope.plugin import (
    DatasetRecord,
    JSONObject,
    Notice,
    QuestionRecord,
    RoundRecord,
    SessionRecord,
    question_key,
)

if TYPE_CHECKING:
    from memscope.adapters.dmv.run import ProbeRow, SystemLogs

TASK = "dmv_f2"
BENCHMARK = "dmv"
UNKNOWN_CATEGORY = "unknown"
TASK_ID = re.compile(r"^f2_chain_d(?P<depth>\d+)_s(?P<seed>\d+)$")
MAX_TASK_NUMBER = 2**31 - 1
"""A task id's depth or seed above this is no chain's (and would not fit the store)."""
PROBE_ID = re.compile(r"^s(?P<at>\d+)_r(?P<reach>\d+)_p(?P<index>\d+)(?P<mc>_mc)?$")
PRODUCT_URL = re.compile(r"^/product/(?P<hash>[^/?#\s]+)")

ProbeKey = tuple[str, str]
"""``(task_id, probe_id)``: a probe's identity inside a run directory."""


@dataclass
class DmvDataset:
    """The dataset record and the qid of every probe."""

    record: DatasetRecord
    qid_of: dict[ProbeKey, str]


def parse_task_id(task_id: str) -> tuple[str, int | None, int | None]:
    """``(trunk, chain depth, seed)`` of a task id: ``f2_chain_d5_s0003`` gives ``("s0003", 5, 3)``.

    The chain seed is the trunk: chains of any depth with one seed share their sessions
    (the trajectory cache is keyed by seed and session). A task id of another form is its
    own trunk.
    """
    match = TASK_ID.match(task_id)
    if match is None:
        return task_id, None, None
    seed, depth = int(match["seed"]), int(match["depth"])
    if seed > MAX_TASK_NUMBER or depth > MAX_TASK_NUMBER:  # not upstream's: its own trunk
        return task_id, None, None
    return f"s{seed:04d}", depth, seed


def product_hash(url: str | None) -> str | None:
    """The url hash of a ``/product/<hash>`` URL (None for any other page)."""
    match = PRODUCT_URL.match(url or "")
    return match["hash"] if match else None


def build_dmv_dataset(
    run_dir: Path,
    probe_rows: list[ProbeRow],
    logs: dict[str, SystemLogs],
    products: ProductData,
    *,
    notices: list[Notice],
) -> DmvDataset:
    """Turn the probes of every system, their logs and the product data into a dataset."""
    first_row: dict[ProbeKey, ProbeRow] = {}
    conflicting: list[str] = []
    for row in probe_rows:
        key = (row.task_id, row.probe_id)
        kept = first_row.setdefault(key, row)
        if kept is not row and (kept.target_url, kept.at_session, kept.target_session) != (
            row.target_url,
            row.at_session,
            row.target_session,
        ):
            conflicting.append(f"{row.task_id}/{row.probe_id}")
    if conflicting:
        notices.append(
            Notice(
                f"{len(conflicting)} probe(s) have a different target in different systems; the first is used",
                str(run_dir),
                tuple(conflicting[:3]),
            )
        )
    attributes = {key: _probe_attributes(row, logs, products) for key, row in first_row.items()}
    ordered = sorted(first_row, key=lambda key: _sort_key(first_row[key]))
    referenced: set[str] = set()
    questions: list[QuestionRecord] = []
    qid_of: dict[ProbeKey, str] = {}
    for idx, key in enumerate(ordered, start=1):
        extra = attributes[key]
        qid = f"q{idx}"
        qid_of[key] = qid
        target = str(extra["target_hash"])
        referenced.add(target)
        text = _probe_text(extra)
        questions.append(
            QuestionRecord(
                qid=qid,
                idx=idx,
                question_key=question_key(TASK, "probe", f"{key[0]}/{key[1]}/{target}"),
                task=TASK,
                question=text,
                gold=first_row[key].target_url,
                mode="probe",
                clue_ids=[target],
                clue_rounds=[target],
                extra=extra,
            )
        )
    for row in probe_rows:
        if (found := product_hash(row.final_url)) is not None:
            referenced.add(found)
    for system_logs in logs.values():
        for log in system_logs.by_task.values():
            for probe in log.probes.values():
                for step in probe.steps:
                    referenced.update(step.retrieved)
    sessions, rounds = _product_rounds(referenced, products)
    unknown = sorted(h for h in referenced if h not in products.products)
    if products.products and unknown:
        notices.append(
            Notice(
                f"{len(unknown)} product hash(es) are not in the cue registry",
                str(products.registry_path),
                tuple(unknown[:3]),
            )
        )
    digest = hashlib.sha256()
    digest.update(products.content_hash.encode())
    for question in questions:
        digest.update(json.dumps([question.qid, question.extra], sort_keys=True).encode())
    for product_round in rounds:
        digest.update(
            json.dumps([product_round.round_id, product_round.image_files], sort_keys=True).encode()
        )
    content_hash = digest.hexdigest()
    return DmvDataset(
        DatasetRecord(
            dataset_id=f"dmv-{content_hash[:12]}",
            benchmark=BENCHMARK,
            task=TASK,
            source_path=str(products.registry_path or (run_dir / "f2_per_probe.csv")),
            content_hash=content_hash,
            media_root=str(products.image_root) if products.image_root else None,
            sessions=sessions,
            rounds=rounds,
            questions=questions,
        ),
        qid_of,
    )


def _probe_attributes(
    row: ProbeRow, logs: dict[str, SystemLogs], products: ProductData
) -> JSONObject:
    trunk, depth, seed = parse_task_id(row.task_id)
    target = product_hash(row.target_url) or row.target_url
    product = products.products.get(target)
    match = PROBE_ID.match(row.probe_id)
    is_mc = bool(match and match["mc"])
    position: int | None = None
    if match and not is_mc:
        position = int(match["index"]) + 1
    elif seed is not None and (seed, row.target_session) in products.trajectories:
        visits = _distinct(products.trajectories[(seed, row.target_session)], products)
        position = visits.index(target) + 1 if target in visits else None
    # Each system's own bank size is its prediction's (its log); this one is what a memory
    # keeping every viewed product holds, from the trajectory cache, for any system without a log.
    bank_size: int | None = None
    if seed is not None:
        sessions = [products.trajectories.get((seed, j)) for j in range(row.at_session + 1)]
        if all(session is not None for session in sessions):
            bank_size = len({h for session in sessions for h in session})  # type: ignore[union-attr]
    cue_id = product.cue_id if product else _logged_cue(row, logs)
    cue_object, cue_color = (
        (product.cue_object, product.cue_color) if product else _cue_parts(cue_id)
    )
    return {
        "benchmark": BENCHMARK,
        "task_id": row.task_id,
        "probe_id": row.probe_id,
        "trunk": trunk,
        "chain_depth": depth,
        "recall_session": row.at_session,
        "visit_session": row.target_session,
        "reach": row.reach,
        "trajectory_bank_size": bank_size,
        "encoding_position": position,
        "mc": is_mc,
        "target_hash": target,
        "target_url": row.target_url,
        "cue_id": cue_id,
        "cue_object": cue_object,
        "cue_color": cue_color,
        "category": product.category if product else None,
        "style": product.style if product else None,
    }


def _distinct(visits: list[str], products: ProductData) -> list[str]:
    """De-duplicated visit order, keeping registry products only (as the probe builder does)."""
    seen: dict[str, None] = {}
    for url_hash in visits:
        if url_hash in products.products:
            seen.setdefault(url_hash, None)
    return list(seen)


def _logged_cue(row: ProbeRow, logs: dict[str, SystemLogs]) -> str | None:
    for system_logs in logs.values():
        log = system_logs.by_task.get(row.task_id)
        if log and (probe := log.probes.get(row.probe_id)) and probe.cue_id:
            return probe.cue_id
    return None


def _cue_parts(cue_id: str | None) -> tuple[str | None, str | None]:
    """``"chair::wool scarf::red"`` gives ``("wool scarf", "red")``."""
    if not cue_id:
        return None, None
    parts = cue_id.split("::")
    if len(parts) == 3:
        return parts[1], parts[2]
    obj, _, color = cue_id.partition("::")
    return obj or None, color or None


def _probe_text(extra: JSONObject) -> str:
    if extra["cue_object"]:
        phrase = f"{extra['cue_color'] or ''} {extra['cue_object']}".strip()
        return f"Earlier you saw a product that had a {phrase} on it. Take me back to that exact product."
    return f"Take me back to the product {extra['target_url']} (its cue is unknown: no cue registry or log)."


def _sort_key(row: ProbeRow) -> tuple[int, int, str, int, int, bool, int, str]:
    """Probes by chain seed, depth, task, recall session, reach, kind and number."""
    _trunk, depth, seed = parse_task_id(row.task_id)
    match = PROBE_ID.match(row.probe_id)
    index = int(match["index"]) if match else -1
    return (
        seed if seed is not None else -1,
        depth or 0,
        row.task_id,
        row.at_session,
        row.reach,
        bool(match and match["mc"]),
        index,
        row.probe_id,
    )


def _product_rounds(
    referenced: set[str], products: ProductData
) -> tuple[list[SessionRecord], list[RoundRecord]]:
    known = sorted(
        (products.products[h] for h in referenced if h in products.products),
        key=lambda p: p.registry_order,
    )
    unknown = sorted(h for h in referenced if h not in products.products)
    categories: list[str] = list(dict.fromkeys(p.category or UNKNOWN_CATEGORY for p in known))
    if unknown and UNKNOWN_CATEGORY not in categories:
        categories.append(UNKNOWN_CATEGORY)
    ordered: list[tuple[str, Product | None]] = [(p.url_hash, p) for p in known] + [
        (h, None) for h in unknown
    ]
    ordered.sort(
        key=lambda item: categories.index(
            item[1].category or UNKNOWN_CATEGORY if item[1] else UNKNOWN_CATEGORY
        )
    )
    sessions = [
        SessionRecord(category, order) for order, category in enumerate(categories, start=1)
    ]
    rounds: list[RoundRecord] = []
    per_category: Counter[str] = Counter()
    for url_hash, product in ordered:
        category = (product.category or UNKNOWN_CATEGORY) if product else UNKNOWN_CATEGORY
        per_category[category] += 1
        rounds.append(
            _product_round(url_hash, product, category, len(rounds) + 1, per_category[category])
        )
    return sessions, rounds


def _product_round(
    url_hash: str, product: Product | None, category: str, position: int, order: int
) -> RoundRecord:
    url = f"/product/{url_hash}"
    if product is None:
        return RoundRecord(
            url_hash,
            category,
            position,
            order,
            user_text=f"product {url} (not in the cue registry)",
            extra={"url": url, "in_registry": False},
        )
    name = product.display_name or f"{product.category} #{product.prod_idx:02d}"
    return RoundRecord(
        round_id=url_hash,
        session_id=category,
        position=position,
        round_order=order,
        user_text=f"{name} ({product.category}, {product.style} style)",
        assistant_text=f"incidental cue: a {product.cue_phrase}",
        image_refs=[product.image_ref] if product.image_ref else [],
        image_files=[product.image_file] if product.image_ref else [],
        image_captions=[product.caption] if product.caption else [],
        image_ids=[url_hash],
        extra={
            "url": url,
            "in_registry": True,
            "category": product.category,
            "style": product.style,
            "prod_idx": product.prod_idx,
            "cue_id": product.cue_id,
            "cue_object": product.cue_object,
            "cue_color": product.cue_color,
            "cue_phrase": product.cue_phrase,
            "display_name": product.display_name,
            "price": product.price,
        },
    )
