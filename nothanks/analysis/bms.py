"""Random-effects Bayesian model selection for a group (Stephan et al. 2009; Rigoux et
al. 2014), from the papers' equations.

Each participant n has a log model evidence ``L[n, k]`` for every model k. The group is
a mixture: participant n uses model k with probability r_k, and r ~ Dirichlet(α0). The
variational scheme of Stephan et al. (2009, eqs. 12-14; Rigoux et al. 2014, eq. A21)
alternates

    g[n, k] = softmax_k( L[n, k] + ψ(α_k) − ψ(Σ α) )    (posterior model of participant n)
    α_k     = α0_k + Σ_n g[n, k]                          (posterior Dirichlet over r)

to its fixed point. From α: the expected model frequencies α/Σα, the exceedance
probability of each model (the posterior probability that its frequency is the largest,
computed by one-dimensional quadrature of the Dirichlet's gamma representation, Soch &
Allefeld 2016; for two models the regularised incomplete beta function), the free
energies of the random-effects model (F1, Rigoux et al. eq. A20) and of the null that
every frequency is 1/K (F0, eq. A17 with r = 1/K), the Bayesian omnibus risk
BOR = 1 / (1 + exp(F1 − F0)) and the protected exceedance probabilities
pxp = (1 − BOR)·ep + BOR/K (Rigoux et al. eq. 7).

Pure functions of the evidence table: no model is run here. The evidence (BIC or any
other log-evidence approximation) is the caller's (docs/fitting.md).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import integrate
from scipy.special import betainc, digamma, gammainc, gammaln, logsumexp, softmax

from .frames import AnalysisInputError

#: Fixed-point iteration: stop when no α moves by more than this, or after MAX_ITERATIONS.
TOLERANCE = 1e-13
MAX_ITERATIONS = 100_000


@dataclass(frozen=True)
class GroupBMS:
    """The result of :func:`group_bms` (arrays in the order of ``models``).

    ``alpha``: posterior Dirichlet parameters; ``frequency``: expected model frequencies
    α/Σα; ``attribution``: g[n, k], each participant's posterior over the models;
    ``exceedance``: exceedance probabilities; ``protected``: protected exceedance
    probabilities; ``bor``: Bayesian omnibus risk; ``f1``/``f0``: free energies of the
    random-effects and null models; ``iterations``: of the fixed point.
    """

    models: tuple[str, ...]
    participants: tuple[str, ...]
    alpha: np.ndarray
    frequency: np.ndarray
    attribution: np.ndarray
    exceedance: np.ndarray
    protected: np.ndarray
    bor: float
    f1: float
    f0: float
    iterations: int

    def table(self) -> pd.DataFrame:
        """One row per model: α, expected frequency, exceedance and protected exceedance
        probability, and the BOR (the same on every row)."""
        return pd.DataFrame({"model": list(self.models), "alpha": self.alpha,
                             "frequency": self.frequency, "exceedance": self.exceedance,
                             "protected_exceedance": self.protected, "bor": self.bor,
                             "participants": len(self.participants)})


def dirichlet_exceedance(alpha: Sequence[float]) -> np.ndarray:
    """P(r_k is the largest) for r ~ Dirichlet(alpha), for every k.

    Two models: 1 − I_{1/2}(α1, α2) (the regularised incomplete beta function).
    More: r_k = X_k / Σ X with X_k ~ Gamma(α_k) independent, so
    P(r_k max) = ∫ f_Γ(x; α_k) Π_{j≠k} P(α_j, x) dx (P the regularised lower incomplete
    gamma function), integrated by adaptive quadrature (Soch & Allefeld 2016).
    """
    alpha = np.asarray(alpha, float)
    if alpha.ndim != 1 or len(alpha) < 2 or not (alpha > 0).all():
        raise AnalysisInputError(f"Dirichlet parameters {alpha.tolist()}: valid: two or more "
                                 "positive numbers")
    if len(alpha) == 2:
        first = float(betainc(alpha[1], alpha[0], 0.5))  # P(r1 > 1/2) = I_{1/2}(α2, α1)
        return np.array([first, 1.0 - first])
    out = np.empty(len(alpha))
    for k, a in enumerate(alpha):
        others = np.delete(alpha, k)

        def density(x: float, a: float = a, others: np.ndarray = others) -> float:
            if x <= 0:
                return 0.0
            log_gamma = (a - 1.0) * np.log(x) - x - gammaln(a)
            return float(np.exp(log_gamma) * np.prod(gammainc(others, x)))

        # the mass of Gamma(a) lies well inside [0, a + 40 sqrt(a) + 40]
        upper = float(alpha.max() + 40.0 * np.sqrt(alpha.max()) + 40.0)
        out[k] = integrate.quad(density, 0.0, upper, epsabs=1e-13, epsrel=1e-12,
                                limit=500)[0]
    return out / out.sum()


def _free_energy_h1(log_evidence: np.ndarray, alpha0: np.ndarray, alpha: np.ndarray,
                    g: np.ndarray) -> float:
    """F1 of the random-effects model at (α, g) (Rigoux et al. 2014, eq. A20)."""
    e_log_r = digamma(alpha) - digamma(alpha.sum())
    joint = float((g * (log_evidence + e_log_r)).sum() + ((alpha0 - 1.0) * e_log_r).sum()
                  + gammaln(alpha0.sum()) - gammaln(alpha0).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy_g = -float(np.where(g > 0, g * np.log(g), 0.0).sum())
    entropy_r = float(gammaln(alpha).sum() - gammaln(alpha.sum())
                      - ((alpha - 1.0) * e_log_r).sum())
    return joint + entropy_g + entropy_r


def _free_energy_h0(log_evidence: np.ndarray) -> float:
    """F0: every frequency 1/K, so it is the exact log evidence Σ_n log Σ_k e^{L_nk}/K."""
    k = log_evidence.shape[1]
    return float((logsumexp(log_evidence, axis=1) - np.log(k)).sum())


def group_bms(log_evidence: np.ndarray | pd.DataFrame, models: Sequence[str] | None = None,
              alpha0: Sequence[float] | None = None) -> GroupBMS:
    """Random-effects BMS of a participants x models table of log evidences.

    Args:
        log_evidence: N x K log evidences (a DataFrame: index = participants, columns =
            models), finite.
        models: model names (default: the DataFrame's columns, else ``m1`` ...).
        alpha0: prior Dirichlet parameters (default 1 for every model, Stephan et al.).

    Raises:
        AnalysisInputError: fewer than two models, no participant, a non-finite evidence
            or a non-positive prior; the message says which.
    """
    participants: tuple[str, ...]
    if isinstance(log_evidence, pd.DataFrame):
        models = tuple(models or map(str, log_evidence.columns))
        participants = tuple(map(str, log_evidence.index))
        values = log_evidence.to_numpy(float)
    else:
        values = np.asarray(log_evidence, float)
        participants = tuple(f"p{n + 1}" for n in range(values.shape[0] if values.ndim else 0))
    if values.ndim != 2 or values.shape[0] < 1 or values.shape[1] < 2:
        raise AnalysisInputError(f"log evidence of shape {values.shape}: valid: participants "
                                 "x models, at least 1 x 2")
    if not np.isfinite(values).all():
        bad = np.argwhere(~np.isfinite(values))[0]
        raise AnalysisInputError(f"log evidence of participant {participants[bad[0]]} is not "
                                 f"finite ({values[tuple(bad)]}); valid: finite numbers")
    n, k = values.shape
    models = tuple(models or (f"m{i + 1}" for i in range(k)))
    if len(models) != k:
        raise AnalysisInputError(f"{len(models)} model names for {k} evidence columns")
    prior = np.ones(k) if alpha0 is None else np.asarray(alpha0, float)
    if prior.shape != (k,) or not (prior > 0).all():
        raise AnalysisInputError(f"alpha0={prior.tolist()}: valid: {k} positive numbers")
    alpha = prior.copy()
    iteration = 0
    while iteration < MAX_ITERATIONS:
        iteration += 1
        g = softmax(values + digamma(alpha) - digamma(alpha.sum()), axis=1)
        updated = prior + g.sum(axis=0)
        moved = float(np.abs(updated - alpha).max())
        alpha = updated
        if moved < TOLERANCE:
            break
    g = softmax(values + digamma(alpha) - digamma(alpha.sum()), axis=1)
    f1 = _free_energy_h1(values, prior, alpha, g)
    f0 = _free_energy_h0(values)
    bor = float(1.0 / (1.0 + np.exp(f1 - f0)))
    exceedance = dirichlet_exceedance(alpha)
    protected = (1.0 - bor) * exceedance + bor / k
    return GroupBMS(models, participants, alpha, alpha / alpha.sum(), g, exceedance,
                    protected, bor, f1, f0, iteration)


def bic_evidence(loglik: float, parameters: int, observations: int) -> float:
    """Log evidence by BIC: log p(y|m) ≈ LL − (p/2)·ln n (= −BIC/2)."""
    if observations < 1:
        raise AnalysisInputError(f"observations={observations}; valid: >= 1")
    return float(loglik - 0.5 * parameters * np.log(observations))


__all__ = ["MAX_ITERATIONS", "TOLERANCE", "GroupBMS", "bic_evidence",
           "dirichlet_exceedance", "group_bms"]
