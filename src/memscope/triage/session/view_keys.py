"""The keys that change the question view's re-ranking parameters, within their bounds."""

from __future__ import annotations

from memscope.triage.session.state import SessionState
from memscope.triage.session.view_params import ViewParams

ALPHA_STEP = 0.1
LAMBDA_STEP = 0.01
MAX_K = 100


class ViewControls(SessionState):
    """alpha, lambda and K nudged by a key, and the run's own starting values."""

    def default_view(self) -> ViewParams:
        """The re-ranking parameters the run starts with (alpha 1, the default lambda, its K)."""
        return ViewParams(k=self.run.k if self.run is not None else 10)

    def nudge_alpha(self, direction: int) -> bool:
        """alpha ± 0.1 within [0, 1]; False when already at the bound."""
        alpha = round(min(1.0, max(0.0, self.view.alpha + direction * ALPHA_STEP)), 2)
        changed = alpha != self.view.alpha
        self.view.alpha = alpha
        return changed

    def nudge_lambda(self, direction: int) -> bool:
        """lambda ± 0.01, not below 0."""
        lam = round(max(0.0, self.view.lam + direction * LAMBDA_STEP), 4)
        changed = lam != self.view.lam
        self.view.lam = lam
        return changed

    def nudge_k(self, direction: int) -> bool:
        """K ± 1 within [1, MAX_K]."""
        k = min(MAX_K, max(1, self.view.k + direction))
        changed = k != self.view.k
        self.view.k = k
        return changed
