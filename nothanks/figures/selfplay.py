"""The self-play training curve: losses and evaluation strength by iteration.

Drawn from the curve table ``nothanks train`` writes (:func:`nothanks.studies.selfplay.
train.curve_frame`, ``curve.csv``): left, the training losses (total, policy, value);
right, the network's first-place share against each panel opponent at the iterations
with an evaluation (shaded: 95% intervals resampling deals, where the table has them),
with the chance level 1/players dashed.
"""
from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ..analysis import require_columns, require_rows
from ..files import atomic_write_bytes
from .plots import PALETTE, parity_line, styled

#: The loss columns and how they are drawn.
LOSSES = (("loss", "total", "-"), ("policy_loss", "policy", "--"), ("value_loss", "value", ":"))


@styled
def training_curve(curve: pd.DataFrame, players: int, title: str = "Self-play training"
                   ) -> Figure:
    """Left: the mean loss of each iteration's training steps. Right: first-place share
    (ties included) against each opponent (columns ``first_vs_<opponent>``, games in
    ``n_vs_<opponent>``), only where an evaluation was run; 1/``players`` dashed."""
    require_columns(curve, ["iteration", *(name for name, _, _ in LOSSES)], "training curve")
    require_rows(curve, "training curve")
    opponents = [c[len("first_vs_"):] for c in curve.columns if c.startswith("first_vs_")]
    fig = Figure(figsize=(10, 4))
    left, right = fig.subplots(1, 2)
    for name, label, style in LOSSES:
        left.plot(curve["iteration"], curve[name], linestyle=style, color="0.2", label=label)
    left.set_xlabel("iteration")
    left.set_ylabel("training loss")
    left.legend(loc="best", fontsize="small")
    for k, opponent in enumerate(opponents):
        rows = curve.dropna(subset=[f"first_vs_{opponent}"])
        if rows.empty:
            continue
        n = int(rows[f"n_vs_{opponent}"].iloc[-1])
        right.plot(rows["iteration"], rows[f"first_vs_{opponent}"], marker="o",
                   color=PALETTE[k % len(PALETTE)],
                   label=f"vs {players - 1} × {opponent} ({n} games each)")
        if f"first_low_vs_{opponent}" in rows:  # 95% intervals resampling deals
            right.fill_between(rows["iteration"].astype(float),
                               rows[f"first_low_vs_{opponent}"].astype(float),
                               rows[f"first_high_vs_{opponent}"].astype(float),
                               color=PALETTE[k % len(PALETTE)], alpha=0.15, linewidth=0)
    parity_line(right, 1 / players, f"chance 1/{players}")
    right.set_ylim(-0.02, 1.02)
    right.set_xlabel("iteration")
    right.set_ylabel("network's first-place share")
    if right.get_legend_handles_labels()[0]:
        right.legend(loc="best", fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def save_training_curve(curve: pd.DataFrame, players: int, path: Path,
                        title: str = "Self-play training") -> Path:
    """Draw :func:`training_curve` and write it to ``path`` (PNG, atomically)."""
    buffer = io.BytesIO()
    training_curve(curve, players, title).savefig(buffer, format="png",
                                                  metadata={"Software": "nothanks"})
    atomic_write_bytes(buffer.getvalue(), Path(path))
    return Path(path)
