"""SVG snapshots of the main screens at fixed sizes, on the demo run ``srag_v``.

Each docstring says what a person should see in the SVG. Update them after an intended
change with ``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at the
report before committing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ready, settle, until

from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest


def app_on(demo: Path, **options):
    return make_app(OpenRequest([str(demo / "runs" / "srag_v")], annotator="alice", **options))


async def loaded(pilot) -> None:
    await ready(pilot)


def run_line_computed(app):
    """Whether the re-rank panel's run-level line shows a result (not "computing …")."""

    def shown() -> bool:
        lines = app.screen.query("#rerank-run")
        text = str(getattr(lines.first(), "content", "")) if lines else ""
        return bool(text) and "computing" not in text

    return shown


def test_queue_wide(demo: Path, snap_compare) -> None:
    """The failing queue of srag_v: status bar on top (srag_v · queue failing · 17
    questions · labelled 0/17 · alice), a hint line with the keys, the column header, 17
    rows q3 … q47 each with X, Y, its mode (MCQ / open), a red ✗, a score, a yellow suggested code and the
    question text; the first row highlighted; the footer lists Open, Filter, Sort …"""
    assert snap_compare(app_on(demo), terminal_size=(120, 40), run_before=loaded)


def test_question_y3_stale_dominance(demo: Path, snap_compare) -> None:
    """q37 (Y3, stale dominance), alpha lowered to 0.5 and the suggestion accepted.

    Top left: the question "Where is the compost bin now?", gold vs the model's wrong
    answer and the judge's reasoning. Top right: the timeline by session with ◆ D2:2 (the
    stale clue, retrieved #1 before re-ranking) and ★ D5:1 (the latest clue, highlighted).
    Bottom left: the selected round D5:1 with its markers and its image drawn in half
    blocks. Bottom right: α=0.5, this question's Rank-Inv 1→0 and the run-level Y3 line, and
    the candidate table re-ranked (ranks with ←old rank in yellow). Label bar: SEL-STALE
    suggested with its rule, the codes 1–9 with SEL-STALE highlighted, and "label
    SEL-STALE saved ✓ by alice"."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        for _ in range(5):
            await pilot.press("left_square_bracket")
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(
        app_on(demo, question="q37"), terminal_size=(120, 40), run_before=run_before
    )


def test_question_caption_view_small_terminal(demo: Path, snap_compare) -> None:
    """q37 at 80×24 in caption view: the panes stacked in one column starting with the
    question and answers, then the timeline; the label bar (suggestion cut to one line,
    the codes with their keys on two lines, "label none") and the footer stay visible."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("c")
        await settle(pilot)

    assert snap_compare(app_on(demo, question="q37"), terminal_size=(80, 24), run_before=run_before)


def test_matrix(demo: Path, snap_compare) -> None:
    """The matrix of srag_v coloured by EM: rows X1 scene … X4 pixel, columns Y1 atomic …
    Y3 evolutionary, each cell "0.xx  n=N" on a red/orange/yellow/green background, the
    title "Matrix EM (1/N)   MemEye: visual granularity × reasoning depth" and a legend
    line with the keys."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)

    assert snap_compare(app_on(demo), terminal_size=(100, 30), run_before=run_before)


def test_matrix_cuemem(demo: Path, snap_compare) -> None:
    """The matrix of the CUE-Mem demo (cue_text) coloured by accuracy: rows Entity Recall,
    Long Pattern, Personalized Recommendation, Answer Refusal; columns explicit, implicit,
    all and EI-gap (explicit − implicit, red/green/grey); the title "Matrix accuracy (1/N)
    CUE-Mem: task × evidence (view 1/2)" and a legend naming the metrics and the v key."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)

    app = make_app(
        OpenRequest(
            [f"{demo / 'runs' / 'cue_text'}:history_with_qa_p0"], annotator="alice", queue="all"
        )
    )
    assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)


def test_matrix_dmv(demo: Path, snap_compare) -> None:
    """The matrix of the DMV-Bench demo (TextOnly) coloured by TSR: rows reach 1, 2, 3;
    columns bank size 6, 9, 12 and all (TSR by reach, the retention curve); dashes where
    no probe has that reach and bank size; the title "Matrix TSR (1/N)  DMV-Bench: reach ×
    bank size (view 1/2)"; the legend lists TSR, target in top-K at R1, target seen in any
    step."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)

    app = make_app(
        OpenRequest([f"{demo / 'runs' / 'dmv_f2_demo'}:TextOnly"], annotator="alice", queue="all")
    )
    assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)


def test_help(demo: Path, snap_compare, monkeypatch) -> None:
    """The help dialog over the queue: a table of keys, what they do and their binding ids,
    the queue's first ("This screen: Queue"), then Everywhere / Question / Matrix / Runs /
    dialogs, with the config file named in its title; then the Symbols legend."""
    monkeypatch.setenv("MEMSCOPE_CONFIG", "/home/alice/.config/memscope/config.toml")

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(app_on(demo), terminal_size=(120, 50), run_before=run_before)


SIZES = [(80, 24), (100, 30), (160, 48)]


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_queue_at_every_size(demo: Path, snap_compare, size) -> None:
    """The failing queue at 80×24, 100×30 and 160×48: the hint line keeps whole hints
    (? all keys first), the columns qid X Y mode ok EM|J suggested label question, the
    question text cut with "…" at a word; the footer ends with q Quit and ? Help."""
    assert snap_compare(app_on(demo), terminal_size=size, run_before=loaded)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_question_after_rerank_at_every_size(demo: Path, snap_compare, size) -> None:
    """q37 after [ three times (alpha 0.7). Below 110 columns the panes are stacked, the
    "▼ panes stacked" hint shows above the label bar and the re-rank panel is scrolled up:
    its α=0.7 line ("· carries over g"), "this question: … Rank-Inv 1→0" and the
    run's Y3 line on screen. At 160×48 the 2×2 grid shows all four panes. The footer keeps
    q Quit and ? Help at every size."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        for _ in range(3):
            await pilot.press("left_square_bracket")
        # the run-level line is computed by a worker a short timer after the last key
        await until(pilot, run_line_computed(pilot.app), "the run-level re-rank line")
        await settle(pilot)

    assert snap_compare(app_on(demo, question="q37"), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_matrix_at_every_size(demo: Path, snap_compare, size) -> None:
    """The EM matrix at each size, with the yellow note that the queue's filter does not
    apply, the m/M legend, and q Quit, ? Help in the footer."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)

    assert snap_compare(app_on(demo), terminal_size=size, run_before=run_before)


def test_matrix_figure_dmv_compared(demo: Path, snap_compare) -> None:
    """Two DMV-Bench systems compared (TextOnly vs DualMem-a75), f on the matrix at
    100×30: the TSR grid without its blank margins, then "● TextOnly ● DualMem-a75" in
    blue and orange, the plot "Retention: TSR by reach (95% trunk-cluster CI)" with a
    line and dots per system over reach 1, 2, 3, a │ whisker beside each dot (its
    interval), y from 0 to 1; under it "│ = 95% interval · n per reach: …" and the keys
    line ending "f: figure off · esc: back."."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)

    runs = [f"{demo / 'runs' / 'dmv_f2_demo'}:{system}" for system in ("TextOnly", "DualMem-a75")]
    app = make_app(OpenRequest(runs, annotator="alice", queue="all"))
    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_matrix_figure_memeye_80x24(demo: Path, snap_compare) -> None:
    """srag_v's EM matrix at 80×24 with f pressed: the 4×3 grid, "● Y1 ● Y2 ● Y3", the
    plot "EM by X level, one line per Y" over X1 … X4 (dotted lines, a dot per cell),
    the note "the grid above as lines; …" and the keys line; the footer stays."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)

    assert snap_compare(app_on(demo), terminal_size=(80, 24), run_before=run_before)
