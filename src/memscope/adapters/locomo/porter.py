"""The Porter stemmer as LoCoMo's F1 uses it: NLTK's ``PorterStemmer()`` in its default
``NLTK_EXTENSIONS`` mode (``task_eval/evaluation.py``: ``ps = PorterStemmer()``).

A port of ``nltk/stem/porter.py`` (NLTK 3.10, Apache-2.0; the algorithm is M. Porter's, "An
algorithm for suffix stripping", 1980) reduced to that one mode, so that memscope needs no
NLTK. Only what the default mode does is here: NLTK's table of irregular forms, its
``ies``/``ied`` rules for four-letter words, its step 1c (``y`` -> ``i`` after a consonant,
not for a one-letter stem), the ``alli`` / ``fulli`` / ``logi`` step 2 rules, and words of
at most two letters left as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

_VOWELS = frozenset("aeiou")
_IRREGULAR = {
    "sky": "sky",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}

Condition = Callable[[str], bool] | None


def _consonant_flags(word: str) -> list[bool]:
    """Per letter, whether it is a consonant: not a vowel, and a ``y`` only after a vowel
    (or at the start)."""
    flags: list[bool] = []
    for i, letter in enumerate(word):
        if letter in _VOWELS:
            flags.append(False)
        elif letter == "y":
            flags.append(True if i == 0 else not flags[i - 1])
        else:
            flags.append(True)
    return flags


def _is_consonant(word: str, i: int) -> bool:
    return _consonant_flags(word[: i + 1])[i]


def _measure(stem: str) -> int:
    """Porter's *m*: how many vowel-consonant sequences the stem has."""
    return "".join("c" if c else "v" for c in _consonant_flags(stem)).count("vc")


def _positive(stem: str) -> bool:
    return _measure(stem) > 0


def _contains_vowel(stem: str) -> bool:
    return not all(_consonant_flags(stem))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    n = len(word)
    if n >= 3:
        flags = _consonant_flags(word)
        if flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy":
            return True
    return n == 2 and not _is_consonant(word, 0) and _is_consonant(word, 1)


def _apply(word: str, rules: list[tuple[str, str, Condition]]) -> str:
    """The first rule whose suffix the word ends with decides (``*d``: a double
    consonant); when its condition fails the word is left as it is."""
    for suffix, replacement, condition in rules:
        if suffix == "*d" and _ends_double_consonant(word):
            stem = word[:-2]
            return stem + replacement if condition is None or condition(stem) else word
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)] if suffix else word
            return stem + replacement if condition is None or condition(stem) else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    return _apply(
        word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)]
    )


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        root = word[:-3]
        return root + "ee" if _measure(root) > 0 else word
    stem: str | None = None
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _contains_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            break
    if stem is None:
        return word
    last = stem[-1]
    return _apply(
        stem,
        [
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", last, lambda _s: last not in "lsz"),
            ("", "e", lambda s: _measure(s) == 1 and _ends_cvc(s)),
        ],
    )


def _step1c(word: str) -> str:
    return _apply(word, [("y", "i", lambda s: len(s) > 1 and _is_consonant(s, len(s) - 1))])


_STEP2 = [
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("fulli", "ful"),
]


def _step2(word: str) -> str:
    if word.endswith("alli") and _positive(word[:-4]):
        return _step2(word[:-4] + "al")
    rules: list[tuple[str, str, Condition]] = [(s, r, _positive) for s, r in _STEP2]
    # The 'l' of 'logi' stays with the stem, so that 'geo', 'theo' … work like 'philo'.
    rules.append(("logi", "log", lambda _s: _positive(word[:-3])))
    return _apply(word, rules)


def _step3(word: str) -> str:
    return _apply(
        word,
        [
            ("icate", "ic", _positive),
            ("ative", "", _positive),
            ("alize", "al", _positive),
            ("iciti", "ic", _positive),
            ("ical", "ic", _positive),
            ("ful", "", _positive),
            ("ness", "", _positive),
        ],
    )


_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent")
_STEP4_AFTER = ("ou", "ism", "ate", "iti", "ous", "ive", "ize")


def _step4(word: str) -> str:
    def over_one(stem: str) -> bool:
        return _measure(stem) > 1

    rules: list[tuple[str, str, Condition]] = [(s, "", over_one) for s in _STEP4]
    rules.append(("ion", "", lambda s: _measure(s) > 1 and s[-1:] in ("s", "t")))
    rules += [(s, "", over_one) for s in _STEP4_AFTER]
    return _apply(word, rules)


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        measure = _measure(stem)
        if measure > 1 or (measure == 1 and not _ends_cvc(stem)):
            return stem
    return word


def _step5b(word: str) -> str:
    return _apply(word, [("ll", "l", lambda _s: _measure(word[:-1]) > 1)])


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """``PorterStemmer().stem(word)`` of NLTK's default mode (lower-cased first)."""
    lowered = word.lower()
    if lowered in _IRREGULAR:
        return _IRREGULAR[lowered]
    if len(word) <= 2:
        return lowered
    for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5a, _step5b):
        lowered = step(lowered)
    return lowered
