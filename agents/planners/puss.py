"""Puss in the Corner planner: greedy rollouts on sampled orders of the undealt pack.

In the first pass the undealt pack is face down: each sampled world deals the
unseen cards (the 52 minus the foundations, the packets and the dealt card)
in a random order. Each candidate move is scored by playing the greedy
baseline (:mod:`agents.baselines.greedy_puss`, which reads only what a player sees)
from the position after the move to the end of the game (or for ``depth``
moves), the value being the cards on the foundations.

The packets taken up for the redeal were face up, so the player knows the
second pass's pack in order (the rules count it as seen: see
:meth:`~patience_gym.games.puss.PussInTheCorner.visible_cards`): in the second
pass one world is searched. The take-up order itself
is chosen by the greedy's search over every order of the packets on that
known world. Placements equivalent by symmetry (two empty corners, two piles
of one colour needing the same rank, merges leaving the same packets) are
searched once.

Budget per move (defaults): 6 sampled packs, full rollouts, and no new world
once 0.5 s has gone; a game takes a few seconds.

``first_pass=False`` plays the greedy's move throughout the first pass and
searches only the second, whose pack is known: each legal second-pass move is
then scored by one greedy replay of the rest of the game, the values the
``moves_replay_all`` observation encoding shows a policy. Every legal move is
scored there, the duplicates by symmetry too: the greedy breaks its ties by
corner, so two placements equal up to a swap of corners can replay to
different ends.
"""

from __future__ import annotations

from typing import Any

from agents.baselines.greedy_puss import choose_move
from agents.planners.base import DeterminizationPlanner
from patience_gym.env import PatienceEnv
from patience_gym.games.puss import DEAL, TAKE, PussInTheCorner, PussState

SAMPLES = 6
MAX_SECONDS = 0.5
DEPTH: int | None = None


class PussPlanner(DeterminizationPlanner):
    """Greedy rollouts over sampled packs (see module docstring)."""

    def __init__(
        self,
        samples: int = SAMPLES,
        max_seconds: float | None = MAX_SECONDS,
        depth: int | None = DEPTH,
        margin: float = 0.0,
        first_pass: bool = True,
    ):
        super().__init__(samples, max_seconds, margin)
        self.depth = depth
        self.first_pass = first_pass

    def position(self, env: PatienceEnv) -> tuple[PussInTheCorner, PussState]:
        assert isinstance(env.game, PussInTheCorner), "PussPlanner plays Puss in the Corner only"
        return env.game, env.state

    def shortcut(self, game: PussInTheCorner, state: PussState, legal: list[int]) -> int | None:
        if all(a >= TAKE for a in legal):
            return choose_move(game, self.determinize(game, state), plan_redeal=True)
        if not self.first_pass and state.pass_no == 1:
            return choose_move(game, state, plan_redeal=False)  # reads no face-down card
        return None

    def candidates(self, game: PussInTheCorner, state: PussState, legal: list[int]) -> list[int]:
        if not self.first_pass:
            return legal  # only the second pass is searched, every move as the replay features show it
        kept: list[int] = []
        keys: set[Any] = set()
        for action in legal:
            if action == DEAL or action >= TAKE:
                kept.append(action)  # these read the pack or redeal: never tried on the real state
                continue
            after = state.copy()
            game.apply(after, action)
            key = _symmetric_key(after)
            if key not in keys:
                keys.add(key)
                kept.append(action)
        return kept

    def preferred(self, game: PussInTheCorner, world: PussState) -> int:
        return choose_move(game, world, plan_redeal=False)

    def value(self, game: PussInTheCorner, world: PussState, action: int) -> float:
        state = world.copy()
        game.apply(state, action)
        steps = 0
        while not game.is_over(state) and (self.depth is None or steps < self.depth):
            game.apply(state, choose_move(game, state, plan_redeal=False))
            steps += 1
        return game.score(state)


def _symmetric_key(state: PussState) -> tuple[Any, ...]:
    """The position up to swapping corners and swapping the two piles of a colour (placements only)."""
    need = state.need
    return (
        tuple(sorted(tuple(p) for p in state.corners)),
        tuple(sorted((need[0], need[3]))),
        tuple(sorted((need[1], need[2]))),
        state.hand,
        state.seven,
    )
