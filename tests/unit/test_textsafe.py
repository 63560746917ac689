"""The sanitiser's two levels: prose (:func:`printable`) and names (:func:`printable_id`).

A name never prints like a different name (the printed form reads back to the name, for any
string hypothesis finds), the printed form needs no further sanitising, and names that
differ only in what a reader cannot see share a :func:`lookalike_key`.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memscope.textsafe import is_printable, lookalike_key, parse_id, printable, printable_id

LOOKALIKES = [
    ["srag_v", "srag_v\u200b", "srag_v\u2060", "srag_v\ufeff", "srag_v\u00ad", "\ufeffsrag_v"],
    ["caf\u00e9", "cafe\u0301"],
    [
        "\u00c5ngstr\u00f6m",
        "\u212bngstr\u00f6m",
        "A\u030angstro\u0308m",
    ],  # Å, ANGSTROM SIGN, A + ring
    ["\uac00", "\u1100\u1161"],  # Hangul GA, composed and as jamo
    ["q\u0307\u0323", "q\u0323\u0307"],  # marks in canonical order, and not
    ["run", "run\u3164", "run\u115f", "run\u034f", "run\ufe0f", "run\U000e0100", "run\U000e0041"],
    ["a b", "a\u00a0b", "a\u2009b", "a\u3000b", " a b", "a b "],
]
"""Groups of names that look alike on a terminal."""

names = st.text(
    alphabet=st.one_of(
        st.characters(),  # every code point, surrogates included
        st.sampled_from(["\\", "x", "u", "U", "0", "2", "b", " ", "\u0301", "\u200b", "e"]),
    ),
    max_size=12,
)


@pytest.mark.parametrize("group", LOOKALIKES, ids=lambda group: ascii(group[0]))
def test_lookalike_names_print_distinctly_and_share_a_key(group: list[str]) -> None:
    shown = [printable_id(name) for name in group]
    assert len(set(shown)) == len(group), shown
    assert len({lookalike_key(name) for name in group}) == 1
    assert [parse_id(text) for text in shown] == group


def test_how_names_are_printed() -> None:
    assert printable_id("srag_v\u200b") == "srag_v\\u200b"
    assert printable_id("cafe\u0301") == "cafe\\u0301"
    assert printable_id("caf\u00e9") == "caf\u00e9"  # NFC: shown as it is
    assert printable_id("\u212b") == "\\u212b"  # NFC turns it into U+00C5
    assert printable_id("run\U000e0100") == "run\\U000e0100"
    assert printable_id("a\\u200b") == "a\\\\u200b"
    assert printable_id(" a\tb ") == "\\x20a\\x09b\\x20"
    assert printable_id("dmv_f2_demo:TextOnly") == "dmv_f2_demo:TextOnly"
    assert printable_id("gpt-5.4-mini/MMMemory") == "gpt-5.4-mini/MMMemory"
    assert printable_id("日本語のラン") == "日本語のラン"  # other scripts in NFC stay readable
    assert printable_id("\udcff") == "\\udcff"  # an undecodable byte of a file name


def test_prose_keeps_what_shapes_text_but_not_controls() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert printable(family) == family  # the joiners of an emoji sequence stay
    assert printable("cafe\u0301 \u200b") == "cafe\u0301 \u200b"
    assert printable("bad \udcff byte") == "bad \\udcff byte"
    assert printable("\x1b[31m") == "\\x1b[31m"


@settings(max_examples=2000, deadline=None)
@given(name=names)
def test_a_printed_name_reads_back_to_that_name(name: str) -> None:
    shown = printable_id(name)
    assert parse_id(shown) == name  # so no two different names print the same
    assert printable(shown) == shown and is_printable(shown)
    hidden = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
    assert not any(unicodedata.category(char) in hidden for char in shown)
    assert shown == shown.strip(" ")  # an outer space is shown as \x20
    if not unicodedata.is_normalized("NFC", name):
        assert not any(unicodedata.combining(char) for char in shown)


@settings(max_examples=500, deadline=None)
@given(name=names, noise=st.lists(st.sampled_from(["\u200b", "\u2060", "\ufeff", "\u00ad"])))
def test_invisible_characters_do_not_change_the_key(name: str, noise: list[str]) -> None:
    noisy = "".join(noise) + unicodedata.normalize("NFD", name) + "".join(noise)
    assert lookalike_key(noisy) == lookalike_key(name)
