"""``memscope plot``: every figure on the demo runs, deterministic bytes, clear errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.errors import InputError, MemscopeError
from memscope.store import Store
from memscope.usecases.figures.plots import render
from memscope.usecases.labels.events import record_label

RUNS = Path(__file__).resolve().parents[2] / "runs"
runner = CliRunner()


@pytest.fixture
def demo(store: Store, ingested_store) -> Store:
    ingested_store(*(RUNS / name for name in ("srag_v", "srag_t", "dmv_f2_demo", "cue_mm")))
    for qid, code in (("q3", "USE-EVID"), ("q4", "USE-EVID"), ("q10", "SEL-STALE")):
        record_label(store, "srag_v", qid, codes=[code], annotator="alice")
    for qid, code in (("q6", "USE-EVID"), ("q8", "RET-PART"), ("q12", "RET-LATEST")):
        record_label(store, "srag_v", qid, codes=[code], annotator="alice")
    return store


@pytest.mark.parametrize(
    ("kind", "runs", "words"),
    [
        ("heatmap", ["srag_t", "srag_v"], ["srag_t: EM", "n=8"]),
        ("recency", ["srag_v", "srag_t"], ["Rank-Inversion", "Stale-Dominance", "srag_t"]),
        (
            "retention",
            ["dmv_f2_demo:TextOnly", "dmv_f2_demo:DualMem-a75"],
            ["TSR", "DualMem-a75"],
        ),
        ("cue", ["cue_mm:p0"], ["explicit", "implicit", "EI-Gap"]),
        ("codes", ["srag_v"], ["USE-EVID", "6/17"]),
    ],
)
def test_every_figure_is_drawn_and_deterministic(
    demo: Store, tmp_path: Path, kind: str, runs: list[str], words: list[str]
) -> None:
    first = render(demo, kind, runs, tmp_path / "a.svg").path.read_text()
    second = render(demo, kind, runs, tmp_path / "b.svg").path.read_text()
    assert first == second
    assert "<dc:date>" not in first
    for word in words:
        assert word in first
    if kind != "heatmap":  # the heatmap's scale is cividis, also colour-blind safe
        assert "#0072b2" in first.lower()  # the Okabe-Ito palette
    png = render(demo, kind, runs, tmp_path / "a.png").path.read_bytes()
    assert (
        png[:4] == b"\x89PNG"
        and png == render(demo, kind, runs, tmp_path / "b.png").path.read_bytes()
    )
    pdf = render(demo, kind, runs, tmp_path / "a.pdf").path.read_bytes()
    assert pdf == render(demo, kind, runs, tmp_path / "b.pdf").path.read_bytes()


def test_errors_are_one_message(demo: Store, tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(InputError, match="unknown figure"):
        render(demo, "pie", ["srag_v"], tmp_path / "a.svg")
    with pytest.raises(InputError, match=r"End --out in \.svg, \.png or \.pdf"):
        render(demo, "heatmap", ["srag_v"], tmp_path / "a.jpg")
    with pytest.raises(InputError, match="no TSR by reach|no per-cell|DMV"):
        render(demo, "retention", ["cue_mm:p0"], tmp_path / "a.svg")
    result = runner.invoke(
        cli, ["plot", "heatmap", "srag_v", "--out", str(tmp_path / "x" / "a.svg")]
    )
    assert result.exit_code == 1 and "folder of --out does not exist" in result.output
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(MemscopeError, match=r"pip install 'memscope-triage\[plot\]'"):
        render(demo, "heatmap", ["srag_v"], tmp_path / "a.svg")


def test_only_the_plot_module_imports_matplotlib() -> None:
    import ast
    import subprocess

    src = Path(__file__).resolve().parents[2] / "src" / "memscope"
    importers = []
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name.split(".")[0] == "matplotlib" for name in names):
                importers.append(str(path.relative_to(src)))
    assert sorted(set(importers)) == ["usecases/figures/plots.py"]
    code = "import sys, memscope.cli, memscope.usecases.figures.plots; print('matplotlib' in sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "False"  # imported only when a figure is drawn


def test_every_code_of_the_codes_figure_looks_different(demo: Store) -> None:
    """ENC-PERC and USE-CALIB were both Okabe-Ito blue (eight colours, nine codes): every
    code now has its own colour or colour and pattern, in the bars and the legend."""
    from matplotlib.colors import to_hex

    from memscope.usecases.figures.plots import BUILDERS, _matplotlib

    extra = ("ENC-PERC", "ENC-TEXT", "INJ-LOSS", "EVAL-JUDGE", "EVAL-GOLD", "USE-CALIB")
    for qid, code in zip(("q14", "q21", "q24", "q31", "q33", "q35"), extra, strict=True):
        record_label(demo, "srag_v", qid, codes=[code], annotator="alice")
    plt = _matplotlib()
    fig = BUILDERS["codes"](plt, demo, ["srag_v"], None)
    try:
        legend = fig.axes[0].get_legend()
        looks = {
            text.get_text(): (to_hex(handle.get_facecolor()), handle.get_hatch() or "")
            for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)
        }
        bars = {
            container.get_label(): {
                (to_hex(patch.get_facecolor()), patch.get_hatch() or "") for patch in container
            }
            for container in fig.axes[0].containers
            if container.get_label() in looks
        }
    finally:
        plt.close(fig)
    assert {"ENC-PERC", "USE-CALIB"} <= set(looks) and len(looks) > 8
    assert len(set(looks.values())) == len(looks), looks
    assert looks["ENC-PERC"] != looks["USE-CALIB"]
    assert all(found == {looks[code]} for code, found in bars.items())  # bars as the legend


def test_series_styles_tell_every_code_of_the_taxonomy_apart() -> None:
    from memscope.taxonomy import load_taxonomy
    from memscope.usecases.figures.data import OKABE_ITO, series_styles

    names = [*load_taxonomy().names, *(f"MY-{n}" for n in range(40))]
    styles = series_styles(names)
    assert len({(style.colour, style.hatch) for style in styles.values()}) == len(names)
    first = list(styles.values())[: len(OKABE_ITO)]
    assert [style.colour for style in first] == list(OKABE_ITO)  # plain colours first
    assert all(style.hatch == "" for style in first)
    with pytest.raises(InputError, match="too many"):
        series_styles([f"C{n}" for n in range(81)])
