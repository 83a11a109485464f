"""Random-effects Bayesian model selection (nothanks.analysis.bms): closed-form cases and
the outputs of an independent public implementation on recorded inputs."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from nothanks.analysis import AnalysisInputError
from nothanks.analysis.bms import bic_evidence, dirichlet_exceedance, group_bms

#: Inputs (log evidences, participants x models) and outputs of groupBMC 1.0 (PyPI
#: ``groupBMC``, Sichao Yang's Python port of the VBA toolbox's VBA_groupBMC, Rigoux et
#: al. 2014), computed on 2026-11-28 in a separate environment (Python 3.11.7, numpy
#: 1.23.5, scipy 1.10.1: groupBMC uses ``np.bool``) by
#:
#:     g = GroupBMC(L.T, α_0=np.ones(K), max_iter=100000, tolerance=1e-15, min_iter=50)
#:     r = g.get_result()                    # alpha = g.α, attribution = r.attribution.T,
#:                                           # frequency = r.frequency_mean, f1 = g.F1(),
#:                                           # exceedance = r.exceedance_probability
#:     f0 = GroupBMC(L.T, max_iter=1).F0()   # its default prior 1/K enters F0 as
#:                                           # log(1/K), the null's frequencies (VBA's F0)
#:     bor = 1 / (1 + exp(f1 - f0)); protected = exceedance * (1 - bor) + bor / K
#:
#: groupBMC's exceedance probabilities are its numerical integration (Soch & Allefeld
#: 2016). Its get_result() takes F0 with the prior it was given (log 1 = 0 for α0 = 1
#: instead of log 1/K), so the protected values are formed from its F1 and F0 as above.
GROUPBMC = {
    'k3_n6': {'L': [[-120.3, -118.9, -125.0], [-98.1, -99.4, -97.0],
                     [-110.0, -104.2, -104.9], [-87.5, -90.1, -89.9],
                     [-130.2, -126.7, -129.4], [-101.0, -100.6, -103.3]],
               'alpha': [2.4438710640996986, 4.786103919290213, 1.770025016610089],
               'frequency': [0.27154122934441094, 0.5317893243655791, 0.1966694462900099],
               'exceedance': [0.15710270251031605, 0.7674225846486139, 0.07547471284106998],
               'protected': [0.2726133508769163, 0.48289809174842074, 0.2444885573746629],
               'bor': 0.6554515967352115,
               'f1': -640.3560382562641,
               'f0': -639.712948381063,
               'attribution': [[0.10128302159077589, 0.8981072086129879,
                                0.0006097697962363111],
                               [0.2789801039674177, 0.16625306617276817, 0.5547668298598142],
                               [0.0012021819479113088, 0.8682753178310032,
                                0.13052250022108558],
                               [0.8180230618490365, 0.13285538214755838,
                                0.049121556003405106],
                               [0.013353799024478365, 0.9669739640774238,
                                0.019672236898097866],
                               [0.23102889572007906, 0.7536389804484708,
                                0.015332123831450122]]},
     'k2_n8': {'L': [[-50.0, -52.3], [-61.2, -58.8], [-45.5, -47.0], [-70.1, -69.9],
                     [-55.0, -58.5], [-48.2, -49.0], [-66.6, -62.1], [-59.9, -60.4]],
               'alpha': [5.997775258920038, 4.002224741079962],
               'frequency': [0.5997775258920038, 0.40022247410799616],
               'exceedance': [0.7456176228431468, 0.2543823771568532],
               'protected': [0.5774075622367765, 0.42259243776322347],
               'bor': 0.6848452430214685,
               'f1': -453.8533969470791,
               'f0': -453.0772678671142,
               'attribution': [[0.9398548865495892, 0.06014511345041078],
                               [0.1244405771586765, 0.8755594228413236],
                               [0.8753337731236095, 0.1246662268763905],
                               [0.5619218065377694, 0.43807819346223076],
                               [0.9810898510570207, 0.01891014894297925],
                               [0.777120696115738, 0.2228793038842619],
                               [0.0171066269760226, 0.9828933730239774],
                               [0.7209070414016124, 0.2790929585983877]]}
}


@pytest.mark.parametrize("case", sorted(GROUPBMC))
def test_agrees_with_groupbmc_to_1e_6(case):
    ref = GROUPBMC[case]
    result = group_bms(np.array(ref["L"]))
    for key in ("alpha", "frequency", "exceedance", "protected", "attribution"):
        np.testing.assert_allclose(getattr(result, key), ref[key], rtol=0, atol=1e-6,
                                   err_msg=f"{case}: {key}")
    for key in ("bor", "f1", "f0"):
        assert getattr(result, key) == pytest.approx(ref[key], rel=0, abs=1e-6), key


def test_decisive_evidence_gives_the_counts_and_the_beta_exceedance():
    """Closed form: when each participant's evidence singles out one model (differences of
    1000 nats), g is one-hot, α = α0 + counts, and for two models the exceedance
    probability of model 1 is P(Beta(α1, α2) > 1/2)."""
    evidence = np.array([[0.0, -1000.0]] * 7 + [[-1000.0, 0.0]] * 3)
    result = group_bms(evidence, ["a", "b"])
    np.testing.assert_allclose(result.alpha, [8.0, 4.0], atol=1e-12)
    np.testing.assert_allclose(result.frequency, [8 / 12, 4 / 12], atol=1e-12)
    beta = stats.beta(8.0, 4.0).sf(0.5)
    np.testing.assert_allclose(result.exceedance, [beta, 1 - beta], atol=1e-12)
    # F0 is the exact log evidence of the null: each participant's best model, times 1/2
    assert result.f0 == pytest.approx(10 * (np.log1p(np.exp(-1000.0)) - np.log(2)))
    assert 0.0 < result.bor < 1.0
    np.testing.assert_allclose(result.protected,
                               (1 - result.bor) * result.exceedance + result.bor / 2)


def test_equal_evidence_is_symmetric_and_fully_at_risk():
    """Identical evidence for every model: α = α0 + N/K, every probability 1/K."""
    result = group_bms(np.zeros((9, 3)))
    np.testing.assert_allclose(result.alpha, [4.0, 4.0, 4.0], atol=1e-12)
    np.testing.assert_allclose(result.exceedance, [1 / 3] * 3, atol=1e-9)
    np.testing.assert_allclose(result.protected, [1 / 3] * 3, atol=1e-9)
    assert result.bor > 0.5  # the null explains equal evidences better


def test_exceedance_by_quadrature_matches_the_beta_for_two_and_sampling_for_three():
    """The quadrature used for K > 2 agrees with the exact K = 2 formula when a third
    model has (almost) no mass, and with 400,000 Dirichlet draws for K = 3 (Monte Carlo
    standard error < 0.0008, tolerance 0.004)."""
    alpha = np.array([3.5, 6.0, 2.0])
    draws = np.random.default_rng(1).dirichlet(alpha, 400_000)
    sampled = np.bincount(draws.argmax(axis=1), minlength=3) / len(draws)
    np.testing.assert_allclose(dirichlet_exceedance(alpha), sampled, atol=0.004)
    nearly_two = dirichlet_exceedance([4.0, 7.0, 1e-3])
    np.testing.assert_allclose(nearly_two[:2], dirichlet_exceedance([4.0, 7.0]), atol=1e-3)


def test_bic_evidence_and_bad_input():
    assert bic_evidence(-100.0, 2, 400) == pytest.approx(-100.0 - np.log(400))
    with pytest.raises(AnalysisInputError, match="not finite"):
        group_bms(np.array([[0.0, np.nan]]))
    with pytest.raises(AnalysisInputError, match="at least 1 x 2"):
        group_bms(np.zeros((3, 1)))
    with pytest.raises(AnalysisInputError, match="alpha0"):
        group_bms(np.zeros((3, 2)), alpha0=[1.0, 0.0])
