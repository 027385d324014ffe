"""The Miss Milligan family's greedy, as rules: shared by the baseline agent and the endgame replays.

How a careful player plays these games by eye, as a deterministic rule. It
looks only at the visible position (columns, foundations, reserve, stock
count) and tries moves on copies of it, never dealing on a copy, so the
face-down stock is never read. Positions are scored by
:func:`patience_gym.heuristics.milligan_moves.evaluation`:

* +100 per card on the foundations;
* -1 per card covering one of the *next needed* cards (for each foundation
  pile, the card that would go on it next), so that digging for them pays;
* -3 per *break* in a column (a card lying on one it is not built on), so
  that packing cards where they belong pays;
* +6 per vacancy once the stock is out (a deal fills vacancies, so before
  that they count for nothing); -4 while the waiver or pocket holds a card.

The weights were chosen on 150 deals (seeds 1000-1149) among a handful of
settings; the numbers reported elsewhere use other seeds.

Each move, in order:

1. Play a card to a foundation when that raises the foundations to a new
   high (a progress move); the lowest such column first.
2. Otherwise play the move (not a deal) whose resulting position scores
   best, if it scores strictly better than the present one. Strict
   improvement means these moves can never cycle.
3. Otherwise search up to three moves ahead (two first), through waiving
   (Miss Milligan), worrying back (Giant) or the pocket as well as ordinary
   moves, for a line that ends strictly better than now
   (:func:`patience_gym.heuristics.milligan_moves.lookahead`, at most ``SEARCH_NODES``
   positions per depth, shared with the ``moves_search`` encoding), and play its first move. Every
   deal buries cards, so a good player looks for such lines before dealing.
4. Otherwise deal, while the stock lasts.
5. Otherwise the game is lost for this player: it plays the best-scoring
   legal move without searching again until the next progress event, and
   the progress rule soon ends the game. (Step 3 is likewise not repeated
   between two progress events once it has failed.)

The only memory between moves is that last rule's mark, and a progress event
always makes it stale; so right after a progress event the greedy's move
depends on the position alone (:mod:`patience_gym.heuristics.milligan_endgame`
relies on this).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from patience_gym.games.milligan_tables import CF, DEAL, RF
from patience_gym.heuristics.milligan_moves import evaluation, lookahead

if TYPE_CHECKING:
    from patience_gym.games.milligan import MilliganGame, MilliganState


class GreedyRules:
    """Foundation first, then strictly improving moves, short search, deal, resign (see module docstring)."""

    def __init__(self) -> None:
        self._resigned_at: tuple[int, int] | None = None

    def reset(self) -> None:
        """Forget the resignation mark (a new game)."""
        self._resigned_at = None

    def resigned(self, state: MilliganState) -> bool:
        """Whether rule 5 holds: the search failed since the last progress event."""
        return self._resigned_at == (state.best, state.stock_left)

    def choose(self, game: MilliganGame, state: MilliganState, mask: np.ndarray) -> int:
        """The greedy's move in ``state`` (``mask``: its legal moves)."""
        legal = np.flatnonzero(mask).tolist()
        # 1. progress to the foundations
        for a in legal:
            if CF <= a <= RF and game.is_progress(state, a):
                return int(a)
        others = [a for a in legal if a != DEAL]
        now = evaluation(state)
        # 2. the best strictly improving move
        best_a, best_v = -1, None
        for a in others:
            child = state.copy()
            game.apply(child, a)
            v = evaluation(child)
            if best_v is None or v > best_v:
                best_a, best_v = a, v
        if best_v is not None and best_v > now:
            return int(best_a)
        # 3. a short search for a line that ends better than now (once per progress event when it fails)
        progress_mark = (state.best, state.stock_left)
        if self._resigned_at != progress_mark:
            line = lookahead(game, state, now)
            if line is not None:
                return line[0]
            self._resigned_at = progress_mark
        # 4. deal
        if mask[DEAL]:
            return DEAL
        # 5. resigned until the next progress event
        return int(best_a)


def greedy_move(game: MilliganGame, state: MilliganState, mask: np.ndarray) -> int:
    """The greedy baseline's move as a fresh player makes it (no resignation mark): the game table's
    ``greedy_move``, what ``MilliganGreedy`` plays right after its ``reset``."""
    return GreedyRules().choose(game, state, mask)
