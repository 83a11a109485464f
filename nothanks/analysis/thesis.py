"""The numbers the thesis reports in §5, for putting ours beside them.

Keys name a statistic; each value is (the thesis's value as printed, where it is stated).
Figures whose values the text does not print (most of Figures 11-14) have no entry.
"""
from __future__ import annotations

THESIS: dict[str, tuple[str, str]] = {
    # §5.1.2, Figure 8: participants' places against each model order (21 games each)
    "participants 1st vs ToM0": ("36.2%", "§5.1.2, Fig. 8"),
    "participants 1st vs ToM1": ("17.7%", "§5.1.2, Fig. 8"),
    "participants 2nd vs ToM1": ("20.5%", "§5.1.2, Fig. 8"),
    "participants 3rd vs ToM1": ("23.3%", "§5.1.2, Fig. 8"),
    "participants 4th vs ToM1": ("38.5%", "§5.1.2, Fig. 8"),
    "participants 1st vs ToM2": ("14.8%", "§5.1.2, Fig. 8"),
    # §5.1.2, Figure 9: paired t-tests of participants' mean rank points
    "paired t ToM0 vs ToM1": ("t(29) = 4.63, p < 0.005", "§5.1.2, Fig. 9"),
    "paired t ToM0 vs ToM2": ("t(29) = 5.28, p < 0.005", "§5.1.2, Fig. 9"),
    "paired t ToM1 vs ToM2": ("t(29) = 1.55, p = 0.16", "§5.1.2, Fig. 9"),
    # §5.1.2, Figure 10: prediction accuracy about the participants' actions
    "accuracy ToM1 all": ("77.0%", "§5.1.2, Fig. 10"),
    "accuracy ToM2 all": ("77.9%", "§5.1.2, Fig. 10"),
    "accuracy ToM1 take": ("67.1%", "§5.1.2, Fig. 10"),
    "accuracy ToM2 take": ("58.0%", "§5.1.2, Fig. 10"),
    "accuracy ToM1 pass": ("79.8%", "§5.1.2, Fig. 10"),
    "accuracy ToM2 pass": ("83.5%", "§5.1.2, Fig. 10"),
    "participants' pass share": ("about 80%", "§5.1.2"),
    # §5.1.2: bad-move feedback
    "marked bad ToM0": ("1.18%", "§5.1.2"),
    "marked bad ToM1": ("1.36%", "§5.1.2"),
    "marked bad ToM2": ("1.20%", "§5.1.2"),
    "marks from the top 10% of participants": ("38%", "§5.1.2"),
    "participants with < 10 marks": ("43%", "§5.1.2"),
    # §5.2.2, Figures 11-13: Welch t-tests over 500 games per pairing
    "Welch t ToM0 vs ToM1": ("t(909.8) = -15.8, p < 0.005", "§5.2.2, Fig. 11"),
    "Welch t ToM0 vs ToM2": ("t(854.3) = -14.2, p < 0.005", "§5.2.2, Fig. 12"),
    "Welch t ToM1 vs ToM2": ("t(865.0) = -2.0, p = 0.04", "§5.2.2, Fig. 13"),
    "ToM1 1st vs ToM0": ("over 48%", "§5.2.2, Fig. 11"),
    "ToM2 1st vs ToM0": ("over 48%", "§5.2.2, Fig. 12"),
    # §5.3, Figure 14 (qualitative)
    "rt sweep ToM1 vs ToM0": ("slight downward trend over RT", "§5.3, Fig. 14"),
    "rt sweep ToM2 vs ToM0": ("decreases until RT -15, then rises", "§5.3, Fig. 14"),
    "rt sweep ToM2 vs ToM1": ("clearest downward trend; n.s. at RT -13 and -11",
                              "§5.3, Fig. 14"),
}
