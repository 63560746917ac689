"""The question view's re-ranking parameters: alpha, lambda, K, and whether they carry
across questions (the keys that change them: ``view_keys``)."""

from __future__ import annotations

from dataclasses import dataclass

from memscope.usecases.rerun.defaults import DEFAULT_LAMBDA

RerankParams = dict[str, float]
"""``{"alpha", "lambda", "k"}``: what the run-level numbers are computed for."""


@dataclass
class ViewParams:
    """The re-ranking parameters of the question view."""

    alpha: float = 1.0
    lam: float = DEFAULT_LAMBDA
    k: int = 10
    scope: str = "carry"
    """``carry``: the parameters carry across questions; ``question``: each question opens
    with the run's own order (alpha 1, the run's lambda and K). Remembered with the session."""

    def reset(self, defaults: ViewParams) -> bool:
        """Back to ``defaults``' alpha, lambda and K; False when already there."""
        changed = (self.alpha, self.lam, self.k) != (defaults.alpha, defaults.lam, defaults.k)
        self.alpha, self.lam, self.k = defaults.alpha, defaults.lam, defaults.k
        return changed

    def as_json(self) -> RerankParams:
        """``{"alpha", "lambda", "k"}`` (labels record it, the store remembers it)."""
        return {"alpha": round(self.alpha, 3), "lambda": round(self.lam, 4), "k": self.k}
