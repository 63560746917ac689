"""The failure taxonomy: the shipped codes (package data) plus the user's extra codes.

``load_taxonomy`` reads ``memscope/data/taxonomy.toml`` and appends the codes of the
config file's ``[[taxonomy.codes]]`` tables. The version every label records is the
shipped version, suffixed with a short hash of the extra codes when there are any, so a
label says exactly which set of codes it was chosen from.

Default keys (the app's ``1``-``9``): ENC-TEXT 1, ENC-PERC 2, RET-MISS 3, RET-PART 4,
RET-LATEST 5, SEL-STALE 6, SEL-CTX 7, USE-EVID 8, USE-STATE 9 - the MemEye failure modes,
in pipeline order. Extra codes may bring their own key (e.g. ``"0"``).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

from memscope.errors import ConfigError, NotFoundError

if TYPE_CHECKING:
    from memscope.config import Config

TAXONOMY_FILE = "taxonomy.toml"


@dataclass(frozen=True)
class FailureCode:
    """One failure code of the taxonomy."""

    code: str
    name: str
    stage: str
    definition: str = ""
    source: str = ""
    key: str | None = None
    """The key that toggles it in the app (None: reachable from the code list only)."""
    evidence: str = ""
    """What in the data suggests it (docs/taxonomy.md §4, last column)."""
    extra: bool = False
    """Whether it comes from the user's config file rather than the shipped taxonomy."""


@dataclass(frozen=True)
class Taxonomy:
    """The codes a label may use, in pipeline order, and the version labels record."""

    version: str
    codes: list[FailureCode]
    stages: tuple[str, ...]

    def get(self, code: str) -> FailureCode | None:
        """The code named ``code`` (case-insensitive), or None."""
        wanted = code.strip().upper()
        return next((item for item in self.codes if item.code.upper() == wanted), None)

    def by_key(self, key: str) -> FailureCode | None:
        """The code bound to ``key``, or None."""
        return next((item for item in self.codes if item.key == key), None)

    @property
    def names(self) -> list[str]:
        """Every code, in order."""
        return [item.code for item in self.codes]

    def require(self, code: str) -> FailureCode:
        """The code named ``code``.

        Raises:
            NotFoundError: listing the valid codes (and the closest ones).
        """
        found = self.get(code)
        if found is not None:
            return found
        close = difflib.get_close_matches(code.strip().upper(), self.names, n=3, cutoff=0.5)
        hint = f"Did you mean {', '.join(close)}? " if close else ""
        raise NotFoundError(
            f"unknown failure code {code!r}",
            fix=f"{hint}Valid codes: {', '.join(self.names)}.",
        )


class _ShippedCode(TypedDict):
    code: str
    name: str
    stage: str
    definition: NotRequired[str]
    source: NotRequired[str]
    key: NotRequired[str]
    evidence: NotRequired[str]


class _Shipped(TypedDict):
    """The shape of the packaged ``taxonomy.toml`` (memscope's own file)."""

    version: str
    stages: list[str]
    codes: list[_ShippedCode]


@functools.lru_cache(maxsize=1)
def _shipped() -> _Shipped:
    text = resources.files("memscope").joinpath("data", TAXONOMY_FILE).read_text(encoding="utf-8")
    # The file ships with memscope and test_taxonomy reads it whole: its shape is known.
    return cast(_Shipped, tomllib.loads(text))


def load_taxonomy(config: Config | None = None) -> Taxonomy:
    """The shipped taxonomy plus the extra codes of ``config`` (the user's config when None).

    Raises:
        ConfigError: an extra code repeats a shipped code or key, or names an unknown stage.
    """
    if config is None:
        from memscope.config import load_config

        config = load_config()
    raw = _shipped()
    stages = tuple(raw["stages"])
    codes = [
        FailureCode(
            code=item["code"],
            name=item["name"],
            stage=item["stage"],
            definition=item.get("definition", ""),
            source=item.get("source", ""),
            key=item.get("key"),
            evidence=item.get("evidence", ""),
        )
        for item in raw["codes"]
    ]
    version = str(raw["version"])
    if config.extra_codes:
        for number, item in enumerate(config.extra_codes, start=1):
            codes.append(_extra_code(item, number, codes, stages, config))
        digest = hashlib.sha1(json.dumps(config.extra_codes, sort_keys=True).encode()).hexdigest()[
            :8
        ]
        version = f"{version}+{digest}"
    return Taxonomy(version=version, codes=codes, stages=stages)


def _extra_code(
    item: dict[str, str],
    number: int,
    known: list[FailureCode],
    stages: tuple[str, ...],
    config: Config,
) -> FailureCode:
    where = str(config.path)
    code = item["code"].strip().upper()
    setting = f"taxonomy.codes[{number}]"
    if any(existing.code == code for existing in known):
        raise ConfigError(
            f"{setting}: code {code!r} already exists", where=where, fix="Pick another code name."
        )
    if item["stage"] not in stages:
        raise ConfigError(
            f"{setting}: unknown stage {item['stage']!r}",
            where=where,
            fix=f"Valid stages: {', '.join(stages)}.",
        )
    key = item.get("key") or None
    clash = next((existing for existing in known if key is not None and existing.key == key), None)
    if clash is not None:
        raise ConfigError(
            f"{setting}: key {key!r} is already bound to {clash.code}",
            where=where,
            fix="Pick a free key (0 is free by default), or leave the key out.",
        )
    return FailureCode(
        code=code,
        name=item["name"],
        stage=item["stage"],
        definition=item.get("definition", ""),
        source=item.get("source", "user config"),
        key=key,
        extra=True,
    )
