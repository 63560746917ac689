"""Benchmarks the memory engine: embedding throughput and nearest-neighbour search latency.

Measured, each as the median of several repeats after a warm-up:

- text embedding throughput (items/s) of the packaged all-MiniLM-L6-v2 (real weights);
- image embedding throughput (items/s, decoding and preprocessing included) of the
  SigLIP-2 base architecture (``ViT-B-16-SigLIP2-384``). Its weights cannot be downloaded
  here, so the network runs with seeded random weights: throughput depends on the
  architecture, not on the weight values, so the numbers hold for the real model;
  ``--image-model`` / ``--image-pretrained`` measure another one;
- for banks of 10k and 100k unit vectors: building the FAISS index, and searching it with a
  batch of queries, against the brute-force numpy baseline (a matrix product and a partial
  sort) on the same vectors; the two must return the same ids.

Each device in ``--devices`` (default: cpu, plus cuda when torch sees a GPU) is measured.

    python benchmarks/bench_engine.py
    python benchmarks/bench_engine.py --quick --json results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

WORDS = [
    "kitchen",
    "cabinet",
    "brass",
    "knob",
    "sage",
    "green",
    "paint",
    "swatch",
    "tile",
    "backsplash",
    "compass",
    "garden",
    "tomato",
    "bed",
    "compost",
    "bin",
    "moved",
    "week",
    "session",
    "photo",
    "colour",
    "shade",
    "oak",
    "counter",
    "drawer",
    "handle",
    "window",
    "light",
]


def median_time(
    action: Callable[[], object], repeats: int, warmup: Callable[[], object] | None = None
) -> float:
    """Median wall time of ``action`` in seconds, after one untimed ``warmup`` call (default: ``action``)."""
    (warmup or action)()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def sentences(count: int, seed: int = 0) -> list[str]:
    """Synthetic dialogue-like sentences of 8 to 60 words."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(8, 61)))) for _ in range(count)]


def image_files(folder: Path, count: int, seed: int = 0) -> list[str]:
    """Noise photos of 640x480 as PNG (decoding and resizing are part of the measured work)."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    paths = []
    for number in range(count):
        pixels = rng.integers(0, 256, size=(480, 640, 3), dtype=np.uint8)
        path = folder / f"photo_{number:04d}.png"
        Image.fromarray(pixels).save(path)
        paths.append(str(path))
    return paths


def default_devices() -> list[str]:
    import torch

    return ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]


def bench_text(device: str, count: int, batch: int, repeats: int) -> dict:
    from memscope.engine.device import resolve_device
    from memscope.engine.models import resolve_text_model
    from memscope.engine.text import load_text_encoder

    resolved = resolve_device(device)
    encoder = load_text_encoder(resolve_text_model(None), resolved)
    texts = sentences(count)
    seconds = median_time(
        lambda: encoder.encode(texts, batch_size=batch),
        repeats,
        warmup=lambda: encoder.encode(texts[:batch], batch_size=batch),
    )
    return {
        "what": "text embedding",
        "model": encoder.source.label,
        "device": resolved.description,
        "items": count,
        "batch": batch,
        "median_s": seconds,
        "items_per_s": count / seconds,
    }


def bench_images(
    device: str, count: int, batch: int, repeats: int, model: str, pretrained: str, folder: Path
) -> dict:
    from memscope.engine.device import resolve_device
    from memscope.engine.image import load_image_encoder
    from memscope.engine.models import resolve_image_model

    resolved = resolve_device(device)
    encoder = load_image_encoder(resolve_image_model(model, pretrained), resolved)
    paths = image_files(folder, count)
    seconds = median_time(
        lambda: encoder.encode_images(paths, batch_size=batch),
        repeats,
        warmup=lambda: encoder.encode_images(paths[:1]),
    )
    return {
        "what": "image embedding",
        "model": encoder.source.label,
        "device": resolved.description,
        "items": count,
        "batch": batch,
        "median_s": seconds,
        "items_per_s": count / seconds,
    }


def unit_vectors(count: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def bench_search(bank_size: int, dim: int, queries: int, k: int, repeats: int) -> list[dict]:
    from memscope.engine.index import VectorIndex, brute_force_search

    bank = unit_vectors(bank_size, dim, seed=bank_size)
    query = unit_vectors(queries, dim, seed=1)
    build = median_time(lambda: VectorIndex(bank), repeats)
    index = VectorIndex(bank)
    faiss_s = median_time(lambda: index.search(query, k), repeats)
    numpy_s = median_time(lambda: brute_force_search(bank, query, k), repeats)
    same = float(np.mean(index.search(query, k)[1] == brute_force_search(bank, query, k)[1]))
    common = {"bank": bank_size, "dim": dim, "queries": queries, "k": k}
    return [
        common
        | {
            "method": "FAISS IndexFlatIP",
            "build_ms": build * 1e3,
            "batch_ms": faiss_s * 1e3,
            "per_query_ms": faiss_s * 1e3 / queries,
            "same_ids": same,
        },
        common
        | {
            "method": "numpy brute force",
            "build_ms": 0.0,
            "batch_ms": numpy_s * 1e3,
            "per_query_ms": numpy_s * 1e3 / queries,
            "same_ids": 1.0,
        },
    ]


def print_table(title: str, rows: list[dict], columns: list[tuple[str, str, str]]) -> None:
    """A plain text table: columns are (key, header, format)."""
    cells = [
        [format(row[key], spec) if spec else str(row[key]) for key, _, spec in columns]
        for row in rows
    ]
    widths = [
        max(len(header), *(len(cell[i]) for cell in cells))
        for i, (_, header, _) in enumerate(columns)
    ]
    print(f"\n{title}")
    print(
        "  ".join(
            header.ljust(width) for (_, header, _), width in zip(columns, widths, strict=True)
        )
    )
    print("  ".join("-" * width for width in widths))
    for cell in cells:
        print(
            "  ".join(
                value.rjust(width) if spec else value.ljust(width)
                for value, width, (_, _, spec) in zip(cell, widths, columns, strict=True)
            )
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--devices", nargs="*", help="cpu, cuda, cuda:N (default: cpu, and cuda when present)"
    )
    parser.add_argument("--text-items", type=int, default=512, help="texts per repeat on the CPU")
    parser.add_argument("--image-items", type=int, default=8, help="images per repeat on the CPU")
    parser.add_argument(
        "--gpu-text-items", type=int, default=8192, help="texts per repeat on a GPU"
    )
    parser.add_argument(
        "--gpu-image-items", type=int, default=512, help="images per repeat on a GPU"
    )
    parser.add_argument("--text-batch", type=int, default=64)
    parser.add_argument("--image-batch", type=int, default=16)
    parser.add_argument("--image-model", default="ViT-B-16-SigLIP2-384")
    parser.add_argument(
        "--image-pretrained",
        default="random:0",
        help="pretrained tag or checkpoint; the default random:0 measures the architecture",
    )
    parser.add_argument("--banks", default="10000,100000", help="bank sizes, comma-separated")
    parser.add_argument(
        "--dim", type=int, default=384, help="vector dimension (MiniLM: 384, SigLIP-2 base: 768)"
    )
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-images", action="store_true")
    parser.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    if args.quick:
        (
            args.text_items,
            args.image_items,
            args.gpu_text_items,
            args.gpu_image_items,
            args.repeats,
        ) = 64, 2, 512, 32, 2
    devices = args.devices or default_devices()

    embedding: list[dict] = []
    for device in devices:
        on_gpu = device.startswith("cuda")
        text_items = args.gpu_text_items if on_gpu else args.text_items
        image_items = args.gpu_image_items if on_gpu else args.image_items
        embedding.append(
            bench_text(device, text_items, args.text_batch * (4 if on_gpu else 1), args.repeats)
        )
        print(f"text  {device}: {embedding[-1]['items_per_s']:.1f} items/s", file=sys.stderr)
        if not args.skip_images:
            with tempfile.TemporaryDirectory() as folder:
                embedding.append(
                    bench_images(
                        device,
                        image_items,
                        args.image_batch * (4 if on_gpu else 1),
                        args.repeats,
                        args.image_model,
                        args.image_pretrained,
                        Path(folder),
                    )
                )
            print(f"image {device}: {embedding[-1]['items_per_s']:.1f} items/s", file=sys.stderr)
    search: list[dict] = []
    for bank in (int(size) for size in args.banks.split(",") if size.strip()):
        search += bench_search(bank, args.dim, args.queries, args.k, args.repeats)
        print(f"search bank {bank}: done", file=sys.stderr)

    print_table(
        f"Embedding throughput (median of {args.repeats} repeats)",
        embedding,
        [
            ("what", "what", ""),
            ("model", "model", ""),
            ("device", "device", ""),
            ("items", "items", "d"),
            ("batch", "batch", "d"),
            ("median_s", "median s", ".3f"),
            ("items_per_s", "items/s", ",.1f"),
        ],
    )
    print_table(
        f"Exact top-{args.k} search, {args.queries} queries in one batch (median of {args.repeats} repeats)",
        search,
        [
            ("bank", "bank", ",d"),
            ("dim", "dim", "d"),
            ("method", "method", ""),
            ("build_ms", "build ms", ".1f"),
            ("batch_ms", "search ms", ".2f"),
            ("per_query_ms", "ms/query", ".3f"),
            ("same_ids", "same ids", ".3f"),
        ],
    )
    if args.json:
        args.json.write_text(json.dumps({"embedding": embedding, "search": search}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
