"""Answer-scoring functions that behave like MemEye's ``benchmark/evaluator.py``.

The demo runs must carry the same per-row numbers the real MemEye runner would have
written for the same predictions, without depending on NLTK. This module provides
independent re-implementations (stdlib only) of:

- ``normalize``: MemEye's answer normalisation (lower case, articles and punctuation
  removed, decimal points and underscores kept);
- ``score_open``: open-ended exact match and "contains the gold answer";
- ``f1_score``: token F1 over Porter-stemmed tokens (NLTK's default Porter mode);
- ``bleu_score``: NLTK ``sentence_bleu`` with smoothing method 1, including its quirk of
  returning the *integer* 0 when no unigram matches (real rows show ``"bleu": 0``);
- ``summarize_results``: the ``summary`` block of ``metrics.json``.
"""

from __future__ import annotations

import math
import re
import statistics
import string
from collections import Counter
from fractions import Fraction
from itertools import product

# --------------------------------------------------------------------------------------
# Normalisation and open-ended matching
# --------------------------------------------------------------------------------------

_ARTICLE_BEFORE_WORD = re.compile(r"\b(a|an|the)\s+(?=\w)")


def normalize(text: str) -> str:
    """Lower-case, drop articles, turn punctuation into spaces, collapse whitespace."""
    text = str(text).lower()
    # Decimal points and underscores survive normalisation upstream; protect them.
    text = re.sub(r"(?<=\d)\.(?=\d)", "DOTPLACEHOLDER", text)
    text = text.replace("_", "UNDERSCOREPLACEHOLDER")
    text = _ARTICLE_BEFORE_WORD.sub(" ", text)
    text = "".join(" " if ch in string.punctuation else ch for ch in text)
    text = text.replace("DOTPLACEHOLDER", ".").replace("UNDERSCOREPLACEHOLDER", "_")
    return " ".join(text.split())


def score_open(pred: str, gold: str) -> tuple[bool, bool]:
    """Return (exact match, normalised gold is a substring of the normalised prediction)."""
    norm_pred, norm_gold = normalize(pred), normalize(gold)
    exact = norm_pred == norm_gold and norm_pred != ""
    contains = norm_gold in norm_pred if norm_gold else False
    return exact, contains


# --------------------------------------------------------------------------------------
# Porter stemmer (NLTK_EXTENSIONS mode, the NLTK default that MemEye uses)
# --------------------------------------------------------------------------------------

_VOWELS = frozenset("aeiou")

# NLTK maps a few irregular forms directly instead of running the algorithm.
_IRREGULAR_FORMS = {
    "skies": "sky",
    "sky": "sky",
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


def _is_consonant(word: str, i: int) -> bool:
    if word[i] in _VOWELS:
        return False
    if word[i] == "y":
        return True if i == 0 else not _is_consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in the stem."""
    pattern = "".join("c" if _is_consonant(stem, i) else "v" for i in range(len(stem)))
    return pattern.count("vc")


def _has_positive_measure(stem: str) -> bool:
    return _measure(stem) > 0


def _contains_vowel(stem: str) -> bool:
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    if len(word) >= 3:
        return (
            _is_consonant(word, len(word) - 3)
            and not _is_consonant(word, len(word) - 2)
            and _is_consonant(word, len(word) - 1)
            and word[-1] not in ("w", "x", "y")
        )
    # NLTK extension: a two-letter vowel-consonant word also counts as cvc.
    return len(word) == 2 and not _is_consonant(word, 0) and _is_consonant(word, 1)


def _apply_rules(word: str, rules) -> str:
    """Apply the first rule whose suffix matches; a failed condition stops the search."""
    for suffix, replacement, condition in rules:
        if suffix == "*d" and _ends_double_consonant(word):
            stem = word[:-2]
            if condition is None or condition(stem):
                return stem + replacement
            return word
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)] if suffix else word
            if condition is None or condition(stem):
                return stem + replacement
            return word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    return _apply_rules(
        word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)]
    )


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _contains_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            break
    else:
        return word
    return _apply_rules(
        stem,
        [
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", stem[-1], lambda s: stem[-1] not in ("l", "s", "z")),
            ("", "e", lambda s: _measure(s) == 1 and _ends_cvc(s)),
        ],
    )


def _step1c(word: str) -> str:
    return _apply_rules(word, [("y", "i", lambda s: len(s) > 1 and _is_consonant(s, len(s) - 1))])


def _step2(word: str) -> str:
    if word.endswith("alli") and _has_positive_measure(word[:-4]):
        return _step2(word[:-4] + "al")
    positive = _has_positive_measure
    rules = [
        ("ational", "ate", positive),
        ("tional", "tion", positive),
        ("enci", "ence", positive),
        ("anci", "ance", positive),
        ("izer", "ize", positive),
        ("bli", "ble", positive),
        ("alli", "al", positive),
        ("entli", "ent", positive),
        ("eli", "e", positive),
        ("ousli", "ous", positive),
        ("ization", "ize", positive),
        ("ation", "ate", positive),
        ("ator", "ate", positive),
        ("alism", "al", positive),
        ("iveness", "ive", positive),
        ("fulness", "ful", positive),
        ("ousness", "ous", positive),
        ("aliti", "al", positive),
        ("iviti", "ive", positive),
        ("biliti", "ble", positive),
        ("fulli", "ful", positive),
        ("lessli", "less", positive),
        ("logi", "log", lambda s: _has_positive_measure(word[:-3])),
    ]
    return _apply_rules(word, rules)


def _step3(word: str) -> str:
    positive = _has_positive_measure
    return _apply_rules(
        word,
        [
            ("icate", "ic", positive),
            ("ative", "", positive),
            ("alize", "al", positive),
            ("iciti", "ic", positive),
            ("ical", "ic", positive),
            ("ful", "", positive),
            ("ness", "", positive),
        ],
    )


def _step4(word: str) -> str:
    def above_one(stem: str) -> bool:
        return _measure(stem) > 1

    suffixes = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent"]
    rules = [(suffix, "", above_one) for suffix in suffixes]
    rules.append(("ion", "", lambda s: _measure(s) > 1 and s[-1:] in ("s", "t")))
    rules += [
        (suffix, "", above_one) for suffix in ["ou", "ism", "ate", "iti", "ous", "ive", "ize"]
    ]
    return _apply_rules(word, rules)


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        if _measure(stem) > 1 or (_measure(stem) == 1 and not _ends_cvc(stem)):
            return stem
    return word


def _step5b(word: str) -> str:
    return _apply_rules(word, [("ll", "l", lambda s: _measure(word[:-1]) > 1)])


def porter_stem(word: str) -> str:
    """Stem one lower-case token the way ``nltk.stem.PorterStemmer()`` does."""
    word = word.lower()
    if word in _IRREGULAR_FORMS:
        return _IRREGULAR_FORMS[word]
    if len(word) <= 2:
        return word
    for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5a, _step5b):
        word = step(word)
    return word


def f1_score(pred: str, gold: str) -> float:
    """Token-level F1 over stemmed, normalised tokens."""
    pred_tokens = [porter_stem(tok) for tok in normalize(pred).split()]
    gold_tokens = [porter_stem(tok) for tok in normalize(gold).split()]
    overlap = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(pred_tokens)
    recall = overlap / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


# --------------------------------------------------------------------------------------
# BLEU (NLTK sentence_bleu, smoothing method 1)
# --------------------------------------------------------------------------------------

_SMOOTHING_EPSILON = 0.1


def _ngram_counts(tokens: list[str], n: int) -> Counter:
    if len(tokens) < n:
        return Counter()
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def bleu_score(pred: str, gold: str, weights=(0.25, 0.25, 0.25, 0.25)):
    """Sentence BLEU against one reference; ``weights=(1, 0, 0, 0)`` gives BLEU-1."""
    hypothesis = normalize(pred).split()
    reference = normalize(gold).split()
    if not hypothesis or not reference:
        return 0.0
    numerators, denominators = [], []
    for n in range(1, len(weights) + 1):
        hyp_counts = _ngram_counts(hypothesis, n)
        ref_counts = _ngram_counts(reference, n)
        numerators.append(sum(min(c, ref_counts[g]) for g, c in hyp_counts.items()))
        denominators.append(max(1, sum(hyp_counts.values())))
    if numerators[0] == 0:
        return 0  # NLTK returns the int 0 here, which is what lands in the JSON row.
    precisions = [
        (_SMOOTHING_EPSILON / den) if num == 0 else Fraction(num, den)
        for num, den in zip(numerators, denominators, strict=False)
    ]
    hyp_len, ref_len = len(hypothesis), len(reference)
    brevity = 1 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    log_sum = math.fsum(w * math.log(p) for w, p in zip(weights, precisions, strict=False))
    return brevity * math.exp(log_sum)


# --------------------------------------------------------------------------------------
# metrics.json "summary"
# --------------------------------------------------------------------------------------

SUMMARY_METRICS = ("em", "contains_gt", "f1", "bleu", "bleu_1", "bleu_2", "bert", "judge")


def _mean(values: list[float]) -> float:
    return statistics.mean(values) if values else 0.0


def _cells(point) -> list[tuple[str, str]]:
    if not isinstance(point, list) or len(point) != 2:
        return []
    xs, ys = point
    if not isinstance(xs, list) or not isinstance(ys, list):
        return []
    return list(product(xs, ys))


def summarize_results(rows: list[dict]) -> dict:
    """Build the ``summary`` block exactly as MemEye's ``summarize_results`` lays it out.

    Every row counts (MCQ rows too, despite the ``open_count`` name); null metrics are
    skipped; a multi-label point counts once per distinct X, once per distinct Y and once
    per (X, Y) cell of its Cartesian product. Bucket keys keep first-seen order.
    """
    mcq_rows = [r for r in rows if r.get("mode") == "mcq"]
    scored_rows = [r for r in rows if any(r.get(m) is not None for m in SUMMARY_METRICS)]

    def empty_bucket() -> dict:
        return {m: [] for m in SUMMARY_METRICS}

    def add(bucket: dict, row: dict) -> None:
        for metric in SUMMARY_METRICS:
            if row.get(metric) is not None:
                bucket[metric].append(float(row[metric]))

    overall = empty_bucket()
    by_x: dict[str, dict] = {}
    by_y: dict[str, dict] = {}
    by_cell: dict[str, dict] = {}
    for row in scored_rows:
        add(overall, row)
        seen_x, seen_y = set(), set()
        for x_label, y_label in _cells(row.get("point")):
            if x_label not in seen_x:
                add(by_x.setdefault(x_label, empty_bucket()), row)
                seen_x.add(x_label)
            if y_label not in seen_y:
                add(by_y.setdefault(y_label, empty_bucket()), row)
                seen_y.add(y_label)
            add(by_cell.setdefault(f"{x_label}_{y_label}", empty_bucket()), row)

    def collapse(buckets: dict) -> dict:
        return {
            key: {m: _mean(vals) for m, vals in bucket.items() if vals}
            for key, bucket in buckets.items()
        }

    summary = {
        "open_count": len(rows),
        "overall": {m: _mean(vals) for m, vals in overall.items() if vals},
        "by_x": collapse(by_x),
        "by_y": collapse(by_y),
        "by_cell": collapse(by_cell),
    }
    if mcq_rows:
        summary["mcq_count"] = len(mcq_rows)
        summary["mcq_valid_rate"] = sum(1 for r in mcq_rows if r.get("valid_choice")) / len(
            mcq_rows
        )
        mcq_overall = empty_bucket()
        for row in mcq_rows:
            add(mcq_overall, row)
        summary["mcq_overall"] = {m: _mean(vals) for m, vals in mcq_overall.items() if vals}
        per_position: dict[str, list[float]] = {}
        for row in mcq_rows:
            for rotation in row.get("rotations") or []:
                per_position.setdefault(rotation["correct_position"], []).append(
                    float(rotation["em"])
                )
        if per_position:
            summary["mcq_per_position_accuracy"] = {
                pos: _mean(vals) for pos, vals in sorted(per_position.items())
            }
    return summary
