"""Benchmarks the memory engine against the libraries it wraps, in the same run.

Each figure is measured in interleaved trials (memscope, then the raw library, then the
other way round, ...) so the noise of a shared machine falls on both; the ratio is taken
per trial and the median ratio is quoted, with the median throughput of each side:

- text: ``TextEncoder.encode`` (with a progress callback, as the CLI runs it) against one
  ``SentenceTransformer.encode`` call on the same texts, packaged all-MiniLM-L6-v2;
- images: ``ImageEncoder.encode_images`` on PNG files (decoding and preprocessing
  included, overlapped in the decoding pool) against the model's own forward pass on the
  same images already decoded to tensors. The SigLIP-2 base architecture
  (``ViT-B-16-SigLIP2-384``) runs with seeded random weights, since its weights cannot be
  downloaded here: throughput depends on the architecture, not on the weight values;
- search: FAISS ``IndexFlatIP`` against the blocked numpy exact search over banks of
  unit vectors (the crossover: which one ``VectorIndex`` should use at each size), and an IVF
  index on a clustered bank with its recall@10 against the exact search.

Each device in ``--device`` (default: cpu, plus cuda when torch sees a GPU) is measured;
``--threads`` sets the engine's thread budget (default: every CPU).

    python benchmarks/bench_engine.py
    python benchmarks/bench_engine.py --device cuda
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import Figure, add_figures_option, at_least, write_script_figures

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


def median_time(action: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``action`` in seconds, after one untimed warm-up call."""
    action()
    return statistics.median(timed(action) for _ in range(repeats))


def timed(action: Callable[[], object]) -> float:
    """Wall time of one call in seconds."""
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def interleaved(ours: Callable[[], object], raw: Callable[[], object], trials: int) -> dict:
    """Median seconds of each side and the median of the per-trial ratios raw/ours.

    A ratio of 1.0 means memscope runs at the library's speed; trials alternate which side
    goes first so neither always runs on a warmer (or busier) machine.
    """
    ours_s, raw_s = [], []
    for trial in range(trials):
        if trial % 2:
            raw_s.append(timed(raw))
            ours_s.append(timed(ours))
        else:
            ours_s.append(timed(ours))
            raw_s.append(timed(raw))
    ratios = [r / o for r, o in zip(raw_s, ours_s, strict=True)]
    return {
        "ours_s": statistics.median(ours_s),
        "raw_s": statistics.median(raw_s),
        "ratio": statistics.median(ratios),
        "ratios": ratios,
    }


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


def bench_text(device: str, count: int, batch: int, trials: int) -> dict:
    import torch

    from memscope.engine.device import resolve_device
    from memscope.engine.models import resolve_text_model
    from memscope.engine.text import load_text_encoder

    resolved = resolve_device(device)
    encoder = load_text_encoder(resolve_text_model(None), resolved)
    texts = sentences(count)
    progressed = []

    def ours() -> np.ndarray:
        progressed.clear()
        return encoder.encode(texts, batch_size=batch, on_batch=progressed.append)

    def raw() -> np.ndarray:
        vectors = encoder.model.encode(
            texts,
            batch_size=batch,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        if resolved.is_cuda:
            torch.cuda.synchronize()
        return vectors

    gap = float(np.abs(ours() - raw()).max())  # warm-up, and the two must agree
    assert sum(progressed) == count, "progress must add up to the input"
    measured = interleaved(ours, raw, trials)
    return {
        "what": "text",
        "model": encoder.source.label,
        "device": resolved.description,
        "items": count,
        "batch": batch,
        "ours_per_s": count / measured["ours_s"],
        "raw_per_s": count / measured["raw_s"],
        "baseline": "SentenceTransformer.encode",
        "ratio": measured["ratio"],
        "ratios": measured["ratios"],
        "max_abs_diff": gap,
    }


def bench_images(
    device: str, count: int, batch: int, trials: int, model: str, pretrained: str, folder: Path
) -> dict:
    import torch
    from PIL import Image

    from memscope.engine.device import resolve_device
    from memscope.engine.image import load_image_encoder
    from memscope.engine.models import resolve_image_model
    from memscope.engine.threads import thread_budget

    resolved = resolve_device(device)
    encoder = load_image_encoder(resolve_image_model(model, pretrained), resolved)
    paths = image_files(folder, count)
    decoded = []
    for path in paths:
        with Image.open(path) as image:
            decoded.append(encoder.preprocess(image.convert("RGB")))
    # the baseline's input: already decoded, batched and on the device
    batches = [
        torch.stack(decoded[start : start + batch]).to(resolved.name)
        for start in range(0, count, batch)
    ]

    def ours() -> np.ndarray:
        return encoder.encode_images(paths, batch_size=batch).vectors

    def raw() -> np.ndarray:
        with torch.inference_mode():
            return np.concatenate(
                [
                    torch.nn.functional.normalize(
                        encoder.model.encode_image(tensors).float(), dim=-1
                    )
                    .cpu()
                    .numpy()
                    for tensors in batches
                ]
            )

    gap = float(np.abs(ours() - raw()).max())  # warm-up, and the two must agree
    measured = interleaved(ours, raw, trials)
    return {
        "what": "images",
        "model": encoder.source.label,
        "device": resolved.description
        + f", {thread_budget().decoder_threads(resolved.is_cuda)} decoder thread(s)",
        "items": count,
        "batch": batch,
        "ours_per_s": count / measured["ours_s"],
        "raw_per_s": count / measured["raw_s"],
        "baseline": "model.encode_image on decoded tensors",
        "ratio": measured["ratio"],
        "ratios": measured["ratios"],
        "max_abs_diff": gap,
    }


def unit_vectors(count: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def clustered_vectors(count: int, dim: int, clusters: int, seed: int) -> np.ndarray:
    """Unit vectors around ``clusters`` centres: the structure real embeddings have and IVF uses."""
    rng = np.random.default_rng(seed)
    centres = unit_vectors(clusters, dim, seed + 1)
    vectors = centres[rng.integers(0, clusters, count)] + 0.6 * rng.standard_normal(
        (count, dim), dtype=np.float32
    ) / np.sqrt(dim)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def bench_search(bank_size: int, dim: int, queries: int, k: int, trials: int) -> dict:
    """FAISS flat against the numpy exact search on one bank (the crossover table)."""
    from memscope.engine.index import VectorIndex, choose_method

    bank = unit_vectors(bank_size, dim, seed=bank_size)
    query = unit_vectors(queries, dim, seed=1)
    flat = VectorIndex(bank, method="faiss-flat")
    exact = VectorIndex(bank, method="exact")
    same = float(np.mean(flat.search(query, k)[1] == exact.search(query, k)[1]))
    measured = interleaved(lambda: exact.search(query, k), lambda: flat.search(query, k), trials)
    return {
        "bank": bank_size,
        "dim": dim,
        "queries": queries,
        "faiss_ms": measured["raw_s"] * 1e3,
        "numpy_ms": measured["ours_s"] * 1e3,
        "faiss_over_numpy": measured["ratio"],
        "faster": "numpy" if measured["ratio"] > 1 else "faiss",
        "auto": choose_method(bank_size),
        "same_ids": same,
    }


def bench_ivf(bank_size: int, dim: int, queries: int, k: int, trials: int) -> dict:
    """The IVF index against the exact search on a clustered bank: build, search, recall@10."""
    from memscope.engine.index import VectorIndex, recall_at_k

    bank = clustered_vectors(bank_size, dim, clusters=max(8, bank_size // 500), seed=7)
    rng = np.random.default_rng(3)
    query = bank[rng.choice(bank_size, queries, replace=False)] + 0.3 * rng.standard_normal(
        (queries, dim), dtype=np.float32
    ) / np.sqrt(dim)
    query /= np.linalg.norm(query, axis=1, keepdims=True)
    build_s = timed(lambda: VectorIndex(bank, method="ivf"))
    ivf = VectorIndex(bank, method="ivf")
    exact = VectorIndex(bank, method="exact")
    recall = recall_at_k(ivf.search(query, k)[1], exact.search(query, k)[1])
    measured = interleaved(lambda: ivf.search(query, k), lambda: exact.search(query, k), trials)
    return {
        "bank": bank_size,
        "dim": dim,
        "queries": queries,
        "build_s": build_s,
        "nprobe": int(ivf._faiss.nprobe),
        "lists": int(ivf._faiss.nlist),
        "ivf_ms": measured["ours_s"] * 1e3,
        "exact_ms": measured["raw_s"] * 1e3,
        "speedup": measured["ratio"],
        "recall_at_10": recall,
        "build_recall_at_10": ivf.recall_at_10,
    }


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
        "--device",
        "--devices",
        dest="devices",
        nargs="*",
        help="cpu, cuda, cuda:N (default: cpu, and cuda when present)",
    )
    parser.add_argument(
        "--threads", type=int, help="the engine's thread budget (default: all CPUs)"
    )
    parser.add_argument("--text-items", type=int, default=256, help="texts per trial on the CPU")
    parser.add_argument("--image-items", type=int, default=8, help="images per trial on the CPU")
    parser.add_argument("--gpu-text-items", type=int, default=8192, help="texts per trial on a GPU")
    parser.add_argument(
        "--gpu-image-items", type=int, default=512, help="images per trial on a GPU"
    )
    parser.add_argument("--text-batch", type=int, default=64)
    parser.add_argument("--image-batch", type=int, default=4, help="on the CPU (x16 on a GPU)")
    parser.add_argument("--image-model", default="ViT-B-16-SigLIP2-384")
    parser.add_argument(
        "--image-pretrained",
        default="random:0",
        help="pretrained tag or checkpoint; the default random:0 measures the architecture",
    )
    parser.add_argument(
        "--banks", default="1000,4000,16000,100000", help="bank sizes for the crossover"
    )
    parser.add_argument(
        "--ivf-bank", type=int, default=50000, help="bank size for the IVF row (0: skip)"
    )
    parser.add_argument(
        "--dim", type=int, default=384, help="vector dimension (MiniLM: 384, SigLIP-2 base: 768)"
    )
    parser.add_argument(
        "--queries", default="1,100", help="query batch sizes for the crossover, comma-separated"
    )
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5, help="interleaved trials per figure")
    parser.add_argument("--skip-images", action="store_true")
    parser.add_argument("--skip-text", action="store_true")
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    add_figures_option(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.text_items, args.image_items, args.gpu_text_items, args.gpu_image_items = (
            64,
            2,
            512,
            32,
        )
        args.repeats, args.banks, args.ivf_bank, args.image_batch = 2, "1000,16000", 4000, 2
    from memscope.engine.threads import set_thread_budget

    budget = set_thread_budget(args.threads)
    print(f"thread budget: {budget.compute} compute thread(s)", file=sys.stderr)
    devices = args.devices or default_devices()

    embedding: list[dict] = []
    for device in devices:
        on_gpu = device.startswith("cuda")
        if not args.skip_text:
            embedding.append(
                bench_text(
                    device,
                    args.gpu_text_items if on_gpu else args.text_items,
                    args.text_batch * (4 if on_gpu else 1),
                    args.repeats,
                )
            )
            print(f"text  {device}: ratio {embedding[-1]['ratio']:.3f}", file=sys.stderr)
        if not args.skip_images:
            with tempfile.TemporaryDirectory() as folder:
                embedding.append(
                    bench_images(
                        device,
                        args.gpu_image_items if on_gpu else args.image_items,
                        args.image_batch * (16 if on_gpu else 1),
                        args.repeats,
                        args.image_model,
                        args.image_pretrained,
                        Path(folder),
                    )
                )
            print(f"image {device}: ratio {embedding[-1]['ratio']:.3f}", file=sys.stderr)
    search: list[dict] = []
    ivf: list[dict] = []
    if not args.skip_search:
        for bank in (int(size) for size in args.banks.split(",") if size.strip()):
            for queries in (int(q) for q in args.queries.split(",") if q.strip()):
                search.append(bench_search(bank, args.dim, queries, args.k, args.repeats))
            print(f"search bank {bank}: done", file=sys.stderr)
        if args.ivf_bank:
            ivf.append(bench_ivf(args.ivf_bank, args.dim, 100, args.k, args.repeats))

    if embedding:  # --skip-text --skip-images leaves none
        print_table(
            f"memscope vs the raw library (median of {args.repeats} interleaved trials; "
            "ratio = memscope / library throughput, median of per-trial ratios)",
            embedding,
            [
                ("what", "what", ""),
                ("model", "model", ""),
                ("device", "device", ""),
                ("items", "items", "d"),
                ("batch", "batch", "d"),
                ("ours_per_s", "memscope items/s", ",.1f"),
                ("raw_per_s", "library items/s", ",.1f"),
                ("baseline", "library baseline", ""),
                ("ratio", "ratio", ".3f"),
                ("max_abs_diff", "max |diff|", ".1e"),
            ],
        )
    if search:
        print_table(
            f"Exact top-{args.k} search: FAISS IndexFlatIP vs numpy (blocked), "
            f"median of {args.repeats} interleaved trials",
            search,
            [
                ("bank", "bank", ",d"),
                ("dim", "dim", "d"),
                ("queries", "queries", "d"),
                ("faiss_ms", "FAISS ms", ".2f"),
                ("numpy_ms", "numpy ms", ".2f"),
                ("faiss_over_numpy", "FAISS/numpy time", ".2f"),
                ("faster", "faster", ""),
                ("auto", "auto picks", ""),
                ("same_ids", "same ids", ".3f"),
            ],
        )
    if ivf:
        print_table(
            "Approximate search: IVF (nprobe tuned at build to recall@10 >= 0.95) vs exact, "
            "clustered bank",
            ivf,
            [
                ("bank", "bank", ",d"),
                ("dim", "dim", "d"),
                ("queries", "queries", "d"),
                ("lists", "lists", "d"),
                ("nprobe", "nprobe", "d"),
                ("build_s", "build s", ".1f"),
                ("ivf_ms", "IVF ms", ".2f"),
                ("exact_ms", "exact ms", ".2f"),
                ("speedup", "speed-up", ".2f"),
                ("recall_at_10", "recall@10", ".3f"),
            ],
        )
    if args.json:
        args.json.write_text(
            json.dumps({"embedding": embedding, "search": search, "ivf": ivf}, indent=2)
        )
    write_script_figures(args.figures, engine_figures(args, embedding, search, ivf))
    return 0


def queries_text(count: int) -> str:
    return "1 query" if count == 1 else f"{count:,} queries"


# The ratio each embedding path must reach against its library (benchmarks/README.md).
EMBEDDING_TARGETS = {"text": 0.95, "images": 0.9}


def engine_figures(
    args: argparse.Namespace, embedding: list[dict], search: list[dict], ivf: list[dict]
) -> list[Figure]:
    """The results as records: throughputs and ratios, the search crossover, the IVF row."""
    trials = args.repeats
    interleaved_note = f"median of {trials} interleaved trials"
    figures = []
    for row in embedding:
        key = f"engine.{row['what']}.{row['device'].split()[0].rstrip(',')}"
        setting = f"{row['what']}, {row['model']}, {row['device']}, batch {row['batch']}"
        context = {
            name: row[name] for name in ("model", "device", "batch", "ratios", "max_abs_diff")
        }
        common = {"group": "engine", "size": row["items"], "trials": trials, "context": context}
        figures += [
            Figure(
                f"{key}.memscope_per_s",
                name=f"memscope throughput; {setting}",
                value=row["ours_per_s"],
                unit="items/s",
                statistic=interleaved_note,
                **common,
            ),
            Figure(
                f"{key}.library_per_s",
                name=f"library throughput; {setting}",
                value=row["raw_per_s"],
                unit="items/s",
                statistic=interleaved_note,
                note="baseline",
                **common,
            ),
            Figure(
                f"{key}.ratio",
                name=f"memscope / library throughput; {setting}",
                value=row["ratio"],
                unit="×",
                target=at_least(EMBEDDING_TARGETS[row["what"]]),
                statistic=f"median of {trials} per-trial ratios",
                baseline=row["baseline"],
                **common,
            ),
        ]
    for row in search:
        figures.append(
            Figure(
                f"engine.search.bank_{row['bank']}.queries_{row['queries']}",
                group="engine",
                name=f"exact top-{args.k} search, FAISS flat / numpy time, "
                f"bank {row['bank']:,} × {row['dim']}, {queries_text(row['queries'])}",
                value=row["faiss_over_numpy"],
                unit="×",
                statistic=f"median of {trials} per-trial ratios",
                baseline="memscope's blocked numpy exact search",
                size=row["bank"],
                trials=trials,
                note=f"FAISS {row['faiss_ms']:.2f} ms, numpy {row['numpy_ms']:.2f} ms; "
                f"`auto` picks {row['auto']}",
                context={
                    name: row[name]
                    for name in ("dim", "queries", "faiss_ms", "numpy_ms", "auto", "same_ids")
                },
            )
        )
    for row in ivf:
        key, setting = f"engine.ivf.bank_{row['bank']}", f"clustered bank {row['bank']:,}"
        context = {
            name: row[name]
            for name in (
                "dim",
                "queries",
                "lists",
                "nprobe",
                "ivf_ms",
                "exact_ms",
                "build_recall_at_10",
            )
        }
        common = {"group": "engine", "size": row["bank"], "context": context}
        figures += [
            Figure(
                f"{key}.build",
                name=f"IVF build (k-means, nprobe tuning), {setting}",
                value=row["build_s"],
                unit="s",
                statistic="one build",
                trials=1,
                **common,
            ),
            Figure(
                f"{key}.speedup",
                name=f"IVF search speed-up over exact, {setting}, {queries_text(row['queries'])}",
                value=row["speedup"],
                unit="×",
                statistic=f"median of {trials} per-trial ratios",
                baseline="the exact search of the same bank",
                trials=trials,
                note=f"IVF {row['ivf_ms']:.2f} ms, exact {row['exact_ms']:.2f} ms; "
                f"{row['lists']} lists, nprobe {row['nprobe']}",
                **common,
            ),
            Figure(
                f"{key}.recall_at_10",
                name=f"IVF recall@10 against exact, {setting}",
                value=row["recall_at_10"],
                unit="",
                statistic=f"over {queries_text(row['queries'])}",
                note="nprobe tuned at build to reach 0.95 on 64 bank queries",
                **common,
            ),
        ]
    return figures


def run(argv: list[str] | None = None) -> int:
    """:func:`main`, with an engine error (no CUDA here, no model) as one line, not a traceback."""
    from memscope.errors import MemscopeError

    try:
        return main(argv)
    except MemscopeError as error:
        print(f"bench_engine: {error.message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(run())
