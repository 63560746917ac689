"""``runs/README_cuemem_dmv.md``: one section per demo generator (CUE-Mem, DMV-Bench).

Both ``make_cuemem_demo.py`` and ``make_dmv_demo.py`` write their own section and keep the
other's, so either can be re-run alone and the file stays byte-for-byte reproducible.
"""

from __future__ import annotations

import re
from pathlib import Path

ORDER = ("cuemem", "dmv")
TITLE = [
    "# Simulated CUE-Mem and DMV-Bench demo runs",
    "",
    "The run directories described here are **simulated** by the scripts in `scripts/demo/`;",
    "no model or agent produced them. They exist so that memscope's CUE-Mem and DMV-Bench",
    "support can be tried on a fresh checkout. Regenerate them with",
    "`python scripts/demo/make_cuemem_demo.py` and `python scripts/demo/make_dmv_demo.py`.",
    "",
]
MARKER = re.compile(r"^<!-- (cuemem|dmv) -->$", re.MULTILINE)


def write_section(path: Path, key: str, section: str) -> None:
    """Replace (or add) the section ``key`` of the README at ``path``."""
    existing = path.read_text(encoding="utf-8") if path.is_file() else ""
    sections: dict[str, str] = {}
    matches = list(MARKER.finditer(existing))
    for number, match in enumerate(matches):
        end = matches[number + 1].start() if number + 1 < len(matches) else len(existing)
        sections[match.group(1)] = existing[match.end() : end].strip("\n")
    sections[key] = section.strip("\n")
    body: list[str] = []
    for name in ORDER:
        if name in sections:
            body += [f"<!-- {name} -->", sections[name], ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(TITLE + body), encoding="utf-8")
