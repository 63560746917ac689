"""Hostile LoCoMo input (issue 41, items 11 and 14): an ``img_url`` never resolves outside
``--images``; a dataset with malformed categories is refused naming the categories."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders_locomo import PNG, layout, photo, run_output, small_dataset, write_json
from builders_locomo_harness import mem0_file
from memscope.adapters.base import ReadOptions
from memscope.adapters.locomo.dataset import image_file_name, read_locomo_dataset
from memscope.adapters.locomo.run import read_locomo_runs
from memscope.errors import DatasetError


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://x/a/..%2F..%2Fsecret.png", "secret.png"),
        ("https://x/%2Fabs%2Fpath.png", "path.png"),
        ("https://x/a/..%5C..%5Csecret.png", "secret.png"),
        ("https://x/a/%2E%2E", ""),
        ("https://i.redd.it/abc.jpg?x=1", "abc.jpg"),
    ],
)
def test_an_image_url_names_a_file_never_a_path(url: str, name: str) -> None:
    assert image_file_name(url) == name


@pytest.mark.parametrize(
    "url", ["https://x/a/..%2F..%2Fsecret.png", "https://x/%2F{outside}%2Fsecret.png"]
)
def test_an_image_url_never_resolves_outside_the_images_folder(tmp_path: Path, url: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(PNG)  # what an escaping URL would reach
    images = tmp_path / "box" / "images"
    images.mkdir(parents=True)
    data = small_dataset()
    data[1]["conversation"]["session_2"].append(
        photo(
            "Ana",
            "D2:3",
            "Look.",
            url.format(outside=str(outside).strip("/").replace("/", "%2F")),
            "x",
        )
    )
    record = read_locomo_dataset(write_json(tmp_path / "d.json", data), images=images).record
    rounds = {r.round_id: r for r in record.rounds}
    assert rounds["conv-b:D2:3"].image_files == [None]


def test_a_link_inside_the_images_folder_that_leads_out_is_no_local_copy(tmp_path: Path) -> None:
    (tmp_path / "secret.png").write_bytes(PNG)
    images = tmp_path / "images"
    images.mkdir()
    (images / "cat.png").symlink_to(tmp_path / "secret.png")
    data = small_dataset()
    data[1]["conversation"]["session_2"].append(
        photo("Ana", "D2:3", "Look.", "https://x/cat.png", "x")
    )
    record = read_locomo_dataset(write_json(tmp_path / "d.json", data), images=images).record
    assert {r.round_id: r for r in record.rounds}["conv-b:D2:3"].image_files == [None]


@pytest.mark.parametrize("category", [0, 6, "2", None, 1e9])
@pytest.mark.parametrize("harness", [False, True])
def test_malformed_categories_are_named_not_a_mismatch(
    tmp_path: Path, category: object, harness: bool
) -> None:
    good = small_dataset()
    bad = small_dataset()
    for sample in bad:
        for item in sample["qa"]:
            item["category"] = category
    if harness:
        write_json(tmp_path / "data" / "locomo10.json", bad)
        folder = tmp_path / "outputs" / "model"
        write_json(folder / "mem0_results.json", mem0_file(good))
    else:
        run = run_output(
            good,
            {s["sample_id"]: {f"q{n}": {"m_prediction": "x"} for n in range(1, 8)} for s in good},
        )
        folder = layout(tmp_path, bad, run)
    with pytest.raises(DatasetError) as caught:
        read_locomo_runs(folder, ReadOptions())
    message = caught.value.message
    assert "malformed category" in message and repr(category) in message
    assert "does not match this run file" not in message
