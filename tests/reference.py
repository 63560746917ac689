"""The reference libraries memscope's statistics are checked against (ppi-python,
scikit-learn, scipy, statsmodels), imported when a test first calls one.

Every xdist worker collects every test module, so a module importing these at its top made
each worker pay about 4 s of CPU for them (ppi-python brings statsmodels, scikit-learn,
scipy and pandas), whether or not it ran such a test. The tests that use them are marked
``reference``; ``tests/parallel.py`` sends them all to one worker, which imports them once.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


def ppi() -> ModuleType:
    """``ppi_py`` (ppi-python): prediction-powered inference."""
    import ppi_py

    return ppi_py


def cohen_kappa_score(*args: Any, **kwargs: Any) -> float:
    """scikit-learn's Cohen's kappa."""
    from sklearn.metrics import cohen_kappa_score as kappa

    return float(kappa(*args, **kwargs))


def scipy_stats() -> ModuleType:
    """``scipy.stats``."""
    from scipy import stats

    return stats


def statsmodels_api() -> ModuleType:
    """``statsmodels.api``."""
    import statsmodels.api

    return statsmodels.api


def proportion_confint(*args: Any, **kwargs: Any) -> tuple[float, float]:
    """statsmodels' interval for a binomial proportion."""
    from statsmodels.stats.proportion import proportion_confint as interval

    low, high = interval(*args, **kwargs)
    return low, high
