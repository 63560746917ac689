#!/usr/bin/env python3
"""Generate memscope's demo benchmark and its simulated MemEye runs.

Usage::

    python scripts/demo/make_memeye_demo.py [--out DIR]

DIR defaults to the repository root. The script writes

- ``DIR/fixtures/memeye/dialog/Community_Garden.json``: a MemEye dialog file (eight
  sessions, MCQ and open-ended QAs in one file);
- ``DIR/fixtures/memeye/image/Community_Garden/*.png``: the images, drawn with Pillow;
- ``DIR/fixtures/memeye/design.json``: which failure each run shows on which question;
- ``DIR/runs/{srag_v,srag_t,fc_v,oracle_v,qonly}/``: simulated run directories in
  MemEye's layout (``config.json``, ``metrics.json``, ``predictions.jsonl``);
- ``DIR/runs/README.md``: what the runs are and what each one shows.

The output is byte-for-byte reproducible: no clock, no unseeded randomness, fixed JSON
formatting and fixed PNG encoder settings. Only the standard library, Pillow and numpy
are used, and memscope itself is not imported: ``srag_t``'s all-MiniLM-L6-v2 similarities
come from ``srag_t_minilm.json``, computed once by ``minilm_scores.py`` with the model.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import design
import outcomes
import scenes
import simulate
import story

REPO_ROOT = Path(__file__).resolve().parents[2]
DATASET_DIR = Path("fixtures") / "memeye"
# Run dirs sit at runs/<name>/, so the dataset is two levels up from each of them.
DATASET_DIR_FROM_RUN = "../../fixtures/memeye"


def dump_upstream_json(payload, path: Path, indent: int) -> None:
    """JSON the way MemEye writes it: UTF-8, fixed indent, no trailing newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=indent), encoding="utf-8")


def write_jsonl(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in rows]
    path.write_text("".join(lines), encoding="utf-8")


def write_images(image_dir: Path) -> None:
    image_dir.mkdir(parents=True, exist_ok=True)
    for image_id in sorted(scenes.SCENES):
        # Fixed encoder settings and no metadata chunks keep the bytes reproducible.
        scenes.render(image_id).save(
            image_dir / f"{image_id}.png", format="PNG", optimize=False, compress_level=9
        )


def clear_previous_output(out: Path) -> None:
    """Remove only what this script writes, so renamed images cannot linger."""
    targets = [
        out / DATASET_DIR / "image" / story.TASK_NAME,
        out / DATASET_DIR / "dialog" / f"{story.TASK_NAME}.json",
        out / DATASET_DIR / "design.json",
        out / "runs" / "README.md",
    ]
    targets += [out / "runs" / run for run in outcomes.RUN_NAMES]
    for target in targets:
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()


def generate(out: Path) -> dict:
    """Write every file under ``out`` and return the design payload."""
    clear_previous_output(out)
    dataset = simulate.Dataset(DATASET_DIR_FROM_RUN)
    rankings = simulate.simulate_rankings(dataset)
    simulated = {run: simulate.simulate_run(run, dataset, rankings) for run in outcomes.RUN_NAMES}
    design_payload = design.build_design(dataset, rankings, simulated)  # raises if untrue

    dump_upstream_json(
        story.build_dialog(), out / DATASET_DIR / "dialog" / f"{story.TASK_NAME}.json", indent=1
    )
    write_images(out / DATASET_DIR / "image" / story.TASK_NAME)
    for run, files in simulated.items():
        run_dir = out / "runs" / run
        dump_upstream_json(files["config"], run_dir / "config.json", indent=2)
        dump_upstream_json(files["metrics"], run_dir / "metrics.json", indent=2)
        write_jsonl(files["rows"], run_dir / "predictions.jsonl")
    design_path = out / DATASET_DIR / "design.json"
    design_path.write_text(
        json.dumps(design_payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    (out / "runs" / "README.md").write_text(
        runs_readme(design_payload, simulated), encoding="utf-8"
    )
    return design_payload


# --------------------------------------------------------------------------------------
# runs/README.md
# --------------------------------------------------------------------------------------

RUN_BLURBS = {
    "srag_v": "semantic RAG over round text + images (`semantic_rag_multimodal`, top-10, "
    "text/image weights 0.5/0.5)",
    "srag_t": "semantic RAG over round text + image captions (`semantic_rag_text_only`, top-10)",
    "fc_v": "the whole 56-round history with images (`full_context_multimodal`)",
    "oracle_v": "only the gold clue rounds, with images (`clue_only_context__multimodal`)",
    "qonly": "the question alone, no memory (`question_only`)",
}


def runs_readme(design_payload: dict, simulated: dict) -> str:
    by_code: dict[tuple[str, str], list[str]] = {}
    for question in design_payload["questions"]:
        for run, outcome in question["runs"].items():
            for code in outcome["codes"]:
                # A star marks a true cause that the data alone cannot show.
                star = "" if outcome["evidence_holds"][code] else "*"
                by_code.setdefault((code, run), []).append(question["qid"] + star)
    example = design_payload["recency_example"]
    lines = [
        "# Demo runs (simulated)",
        "",
        "These five run directories are **simulated**: no answer model was called (only",
        "`srag_t`'s retriever is real, see below). They exist so",
        "that `memscope open runs/srag_v/` works on a fresh checkout, and so that every",
        "failure kind memscope can diagnose appears at least once, on purpose.",
        "",
        (
            "- The dataset is the demo benchmark in `fixtures/memeye/`: task "
            f"`{story.TASK_NAME}`, Maya's first"
        ),
        (
            f"  season in a community garden ({len(story.SESSIONS)} weekly sessions, "
            f"{design_payload['total_rounds']} rounds, "
            f"{sum(len(r[2]) for _, rs in story.SESSIONS for r in rs)} images,"
        ),
        (
            f"  {len(design_payload['questions'])} questions: {len(story.MCQS)} four-rotation "
            f"MCQs and {len(story.OPEN_TWIN_KEYS)} open-ended twins)."
        ),
        "- `srag_t`'s retrieval is real: its ranking and logged scores are all-MiniLM-L6-v2's",
        "  cosine similarities between the question and the round text plus captions (the",
        "  model it names; `scripts/demo/minilm_scores.py` computed them once with the",
        "  packaged model), so `memscope recompute srag_t` reproduces them.",
        "- `srag_v`'s retrieval is simulated: a bag-of-words score for the round text and a",
        "  designed visual-relevance score for its images, with the rankings of its designed",
        "  retrieval failures placed by hand. It names SigLIP-2, whose weights memscope does",
        "  not ship, so its scores cannot (and need not) be recomputed.",
        "- Answers, MCQ rotation choices and judge scores were chosen by the generator to",
        "  exhibit each failure kind; EM, F1 and BLEU were then computed from them the way",
        "  MemEye's evaluator does. Latencies and token counts are made up.",
        "- The files follow the real MemEye runner's layout field for field. Dataset paths",
        "  in `config.json` / `metrics.json` are relative to the run directory.",
        "- `fixtures/memeye/design.json` lists, per question and run, the designed outcome,",
        "  failure codes and reason. It is checked against these files when they are made.",
        "",
        "Regenerate (byte-identical output) with:",
        "",
        "    python scripts/demo/make_memeye_demo.py",
        "",
        "## The runs",
        "",
        "| run | what it is | MCQ EM | open judge |",
        "|---|---|---|---|",
    ]
    for run in outcomes.RUN_NAMES:
        rows = simulated[run]["rows"]
        mcq = [r["em"] for r in rows if r["mode"] == "mcq"]
        judged = [r["judge"] for r in rows if r["mode"] == "open"]
        lines.append(
            f"| `{run}` | {RUN_BLURBS[run]} | {sum(mcq) / len(mcq):.2f} | "
            f"{sum(judged) / len(judged):.2f} |"
        )
    lines += [
        "",
        "## Which run shows what",
        "",
        "| failure code | run | questions |",
        "|---|---|---|",
    ]
    for (code, run), qids in sorted(by_code.items()):
        lines.append(f"| {code} | `{run}` | {', '.join(qids)} |")
    lines += [
        "",
        "`qonly` answers without memory; its misses carry no failure code. A star marks a",
        "designed cause whose evidence the data cannot show (a caption miss on a question",
        "the native-visual run also fails); see `evidence_holds` in design.json.",
        "",
    ]
    lines += recency_section(example, simulated["srag_v"]["rows"][example["idx"] - 1])
    return "\n".join(lines)


def recency_section(example: dict, row: dict) -> list[str]:
    """The README paragraph on q37, with the numbers taken from design.json."""
    by_round = {c["round_id"]: c for c in example["candidates"]}
    stale, latest = by_round[example["stale_clues"][0]], by_round[example["latest_clue"]]
    alpha, lam = example["alpha"], example["lambda"]
    formula = f"s = {alpha}*sim + {1 - alpha:.1f}*exp(-{lam}*age)"
    return [
        "## The recency example (q37 in `srag_v`)",
        "",
        f'q37 is the open-ended "{row["question"]}" The bin moved in week 5.',
        f"The stale clue {stale['round_id']} (rank {stale['rank']}, sim {stale['sim']}) outranks",
        f"the latest clue {latest['round_id']} (rank {latest['rank']}, sim {latest['sim']}),",
        "so the answer gives the old place.",
        f"Re-ranking the logged candidates with `{formula}`",
        f"(age = {example['total_rounds']} - position) puts {latest['round_id']} first:",
        "",
        f"- before: {', '.join(example['order_before'])}",
        f"- after:  {', '.join(example['order_after'])}",
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT, help="output root (default: the repository root)"
    )
    args = parser.parse_args(argv)
    design_payload = generate(args.out)
    print(
        f"wrote {len(design_payload['questions'])} questions, "
        f"{len(outcomes.RUN_NAMES)} runs under {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
