"""DMV-Bench's product data: the cue registry, the storefront catalogue, captions, images
and the trajectory cache (docs/formats.md §2.4).

A DMV-Bench run directory holds only per-probe results; what a probed product is (its
category, style, cue object and colour, name, image) lives in the repository's
``data/vismem_diag_v2/`` folder. :func:`locate_registry` finds ``cue_registry.json``
(``--dmv-registry``, else ``memscope_sources.json``, else in or next to the run directory,
else ``data/vismem_diag_v2/`` in the folders above it); everything else is looked for
beside the registry and is optional.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from memscope.plugin import (
    DatasetError,
    JSONObject,
    JSONValue,
    read_json_file,
    read_regular,
    refuse_special,
)

REGISTRY_FILE = "cue_registry.json"
CATALOGUE_FILE = "seed_v2.json"
CAPTION_CACHE_FILE = "_caption_cache.json"
TRAJECTORY_DIR = "f2_trajectories"
DATA_DIR_PARTS = ("data", "vismem_diag_v2")
ANCESTOR_LEVELS = 6
TRAJECTORY_NAME = re.compile(r"^f2traj_s(\d+)_sess(\d+)\.json$")


@dataclass(frozen=True)
class Product:
    """One catalogue product (a registry row), joined with the catalogue when present."""

    url_hash: str
    category: str
    style: str
    prod_idx: int
    cue_object: str
    cue_color: str
    cue_id: str
    registry_order: int
    display_name: str | None = None
    price: float | None = None
    image_ref: str | None = None
    image_file: str | None = None
    caption: str | None = None

    @property
    def cue_phrase(self) -> str:
        """How the recall probe names the cue: ``"red wool scarf"``."""
        return f"{self.cue_color} {self.cue_object}".strip()


@dataclass
class ProductData:
    """What is known about the products of a run: registry rows, by url hash."""

    registry_path: Path | None
    content_hash: str
    products: dict[str, Product] = field(default_factory=dict)
    catalogue_path: Path | None = None
    image_root: Path | None = None
    trajectories: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    """``(seed, session) -> url hashes viewed``, in order, repeats included."""


def locate_registry(
    run_dir: Path, given: Path | None, recorded: Path | None
) -> tuple[Path | None, list[Path]]:
    """Find ``cue_registry.json`` for a run.

    Args:
        run_dir: The run directory.
        given: ``--dmv-registry``: the file, or a folder holding it.
        recorded: ``dmv_registry`` from ``memscope_sources.json``.

    Returns:
        The registry file (None when there is none) and every path tried.

    Raises:
        DatasetError: when ``--dmv-registry`` names nothing usable (a flag the user typed
            must not be ignored silently).
    """
    tried: list[Path] = []

    def first_file(candidates: list[Path]) -> Path | None:
        for candidate in candidates:
            path = candidate / REGISTRY_FILE if candidate.is_dir() else candidate
            if path not in tried:
                tried.append(path)
            if path.is_file():
                return path.resolve()
        return None

    if given is not None:
        refuse_special(given.expanduser(), "--dmv-registry")
        found = first_file([given.expanduser()])
        if found is None:
            raise DatasetError(
                "--dmv-registry names no cue registry",
                where=str(given),
                fix=f"Pass the {REGISTRY_FILE} file, or the folder holding it (DMV-Bench's data/vismem_diag_v2/).",
            )
        return found, tried
    candidates: list[Path] = []
    if recorded is not None:
        candidates.append(recorded)
    candidates += [run_dir, run_dir.parent]
    for ancestor in [run_dir, *run_dir.parents][:ANCESTOR_LEVELS]:
        candidates.append(ancestor.joinpath(*DATA_DIR_PARTS))
    return first_file(candidates), tried


def read_product_data(registry_path: Path | None) -> ProductData:
    """Read the registry and, beside it, the catalogue, caption cache, images and trajectories.

    Raises:
        DatasetError: when the registry (or a catalogue present beside it) is unreadable or
            not shaped like DMV-Bench's.
    """
    if registry_path is None:
        return ProductData(None, "no-registry")
    data = read_json_file(registry_path, error=DatasetError, what="cue registry")
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise DatasetError(
            "the cue registry has no 'rows' list",
            where=str(registry_path),
            fix=f"Pass DMV-Bench's {REGISTRY_FILE} with --dmv-registry PATH.",
        )
    folder = registry_path.parent
    catalogue = _read_catalogue(folder / CATALOGUE_FILE)
    captions = _read_captions(folder / CAPTION_CACHE_FILE)
    image_root = next((p for p in (folder / "images" / "with_cue",) if p.is_dir()), None)
    products: dict[str, Product] = {}
    for order, row in enumerate(rows):
        if not isinstance(row, dict) or not row.get("url_hash"):
            raise DatasetError(
                f"cue registry row {order + 1} has no 'url_hash'", where=str(registry_path)
            )
        url_hash = str(row["url_hash"])
        category, style = str(row.get("cat") or ""), str(row.get("style") or "")
        prod_idx = _int_or(row.get("prod_idx"), 0)
        image_ref = f"with_cue/{category}/{style}/{prod_idx:02d}.png"
        image_file = None
        if image_root is not None:
            candidate = image_root / category / style / f"{prod_idx:02d}.png"
            image_file = str(candidate.resolve()) if candidate.is_file() else None
        variant = catalogue.get(url_hash, {})
        name = variant.get("displayName") or variant.get("title")
        price = variant.get("price")
        products[url_hash] = Product(
            url_hash=url_hash,
            category=category,
            style=style,
            prod_idx=prod_idx,
            cue_object=str(row.get("cue_object") or ""),
            cue_color=str(row.get("cue_color") or ""),
            cue_id=str(row.get("cue_id") or ""),
            registry_order=order,
            display_name=str(name) if name else None,
            price=price if isinstance(price, (int, float)) else None,
            image_ref=image_ref,
            image_file=image_file,
            caption=captions.get(image_ref),
        )
    digest = hashlib.sha256(read_regular(registry_path))
    return ProductData(
        registry_path=registry_path,
        content_hash=digest.hexdigest(),
        products=products,
        catalogue_path=(folder / CATALOGUE_FILE) if catalogue else None,
        image_root=image_root,
        trajectories=_read_trajectories(folder / TRAJECTORY_DIR),
    )


def _read_catalogue(path: Path) -> dict[str, JSONObject]:
    """``url_hash -> variant row`` of the storefront catalogue (empty when absent)."""
    if not path.is_file():
        return {}
    data = read_json_file(path, error=DatasetError, what="catalogue (seed_v2.json)")
    variants = data.get("variants") if isinstance(data, dict) else None
    if not isinstance(variants, list):
        raise DatasetError("the catalogue has no 'variants' list", where=str(path))
    return {str(v["urlHash"]): v for v in variants if isinstance(v, dict) and v.get("urlHash")}


def _read_captions(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    data = read_json_file(path, error=DatasetError, what="caption cache")
    if not isinstance(data, dict):
        return {}
    return {str(key): str(value) for key, value in data.items() if isinstance(value, str)}


def _read_trajectories(folder: Path) -> dict[tuple[int, int], list[str]]:
    """The cached encoding trajectories ``f2traj_s<seed>_sess<j>.json`` (optional)."""
    found: dict[tuple[int, int], list[str]] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.iterdir()):
        match = TRAJECTORY_NAME.match(path.name)
        if not match:
            continue
        data = read_json_file(path, error=DatasetError, what="trajectory cache file")
        visited = data.get("visited") if isinstance(data, dict) else None
        if not isinstance(visited, list):
            raise DatasetError("trajectory cache file has no 'visited' list", where=str(path))
        found[(int(match.group(1)), int(match.group(2)))] = [
            str(item[0]) for item in visited if isinstance(item, list) and item
        ]
    return found


def _int_or(value: JSONValue, default: int) -> int:
    if isinstance(value, list | dict) or value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
