"""The advisor: the expected value of take and of pass for the decision on the table.

It asks the search (:mod:`nothanks.search`) from the view of the player to move, with
perfect recall of the public moves (every token count tallied from the history), so
its advice is what a player who remembered every move could know. It is for the play
app and the step-through explorer only: the experiment session apps
(:mod:`nothanks.ui.session`, :mod:`nothanks.ui.lab`) have no advisor, because advice
would change what the participants' decisions mean.
"""
from __future__ import annotations

import html

from ..rules import View

#: Search budget (iterations) of one piece of advice; its cost: docs/ismcts.md, "The advisor".
ADVISOR_ITERATIONS = 2000


class Advisor:
    """Expected rank points and scores of take and pass for a view, cached per moment."""

    def __init__(self, iterations: int = ADVISOR_ITERATIONS, seed: int = 0) -> None:
        self.iterations = iterations
        self.seed = seed
        self._cache: dict[tuple, object] = {}

    def evaluate(self, view: View):
        """The :class:`~nothanks.search.SearchResult` of an even search from ``view``
        (both moves get half the budget, so their standard errors are comparable)."""
        from ..search import root_state, search

        key = (view.seat, len(view.history), view.card, view.tokens_on_card)
        if key not in self._cache:
            self._cache = {key: search(root_state(view), iterations=self.iterations,
                                       seed=self.seed + len(view.history), root="even")}
        return self._cache[key]

    def html(self, view: View, whose: str = "your") -> str:
        """The advice as a small HTML table (empty when there is no decision)."""
        if view.card is None:
            return ""
        result = self.evaluate(view)
        rows = []
        for action in ("take", "pass"):
            value = result.value(action)
            if value is None:
                rows.append(f"<tr><td>{action}</td><td colspan='2'>not allowed (no tokens)"
                            "</td></tr>")
                continue
            best = "font-weight:bold" if action == str(result.action) else ""
            rows.append(
                f"<tr style='{best}'><td>{action}</td>"
                f"<td>{value.rank_points:.2f} ± {1.96 * value.rank_points_se:.2f}</td>"
                f"<td>{value.score:.1f} ± {1.96 * value.score_se:.1f}</td></tr>")
        return (
            "<div class='nt-advice'><b>Advisor</b> "
            f"<span style='color:#555'>(search from {html.escape(whose)} view, "
            f"{result.iterations} iterations; ± = 95% interval; assumes every move so far "
            "is remembered)</span><table><tr><th></th><th>expected rank points</th>"
            f"<th>expected score</th></tr>{''.join(rows)}</table></div>")
