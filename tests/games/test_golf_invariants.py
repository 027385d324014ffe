"""Invariants of Golf over 1,000 random playouts."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.cards import RANK
from patience_gym.core import IllegalActionError
from patience_gym.games.golf import DEAL, Golf


def reference_legal(game: Golf, state) -> list[bool]:
    """Legality straight from RULES.md, independent of the rules module's tables."""
    w = RANK[state.waste[-1]]
    o = game.options

    def fits(r: int) -> bool:
        if w == 13 and not (o.queens_on_kings or o.wrap_ranks):
            return False
        return abs(w - r) == 1 or (o.wrap_ranks and {w, r} == {1, 13})

    return [bool(col) and fits(RANK[col[-1]]) for col in state.columns] + [state.pos < len(state.stock)]


@pytest.mark.parametrize("options", [{}, {"queens_on_kings": True}, {"wrap_ranks": True}])
def test_random_playouts_conserve_cards_agree_with_rules_and_end(options):
    game = Golf(**options)
    rng = np.random.default_rng(len(options))
    for _ in range(1000 // 3 + 1):
        state = game.init(rng)
        for _move in range(52):
            cards = [c for col in state.columns for c in col] + state.waste + list(state.stock[state.pos :])
            assert sorted(cards) == list(range(52))
            if game.is_over(state):
                break
            mask = game.legal_mask(state)
            assert mask.tolist() == reference_legal(game, state)
            assert mask.any()
            game.apply(state, int(rng.choice(np.flatnonzero(mask))))
        else:
            pytest.fail("a hole outlasted 51 moves")
        assert game.is_over(state)
        assert game.score(state) == (state.links_left or -state.stock_left)
        assert len(state.waste) == 52 - state.links_left - state.stock_left


def test_env_accepts_exactly_the_masked_actions():
    env = gym.make("patience_gym/Golf-v0", illegal_action="raise")
    rng = np.random.default_rng(3)
    for seed in range(200):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            mask = info["action_mask"].astype(bool)
            for action in np.flatnonzero(~mask):
                with pytest.raises(IllegalActionError):
                    env.step(int(action))
            legal = np.flatnonzero(mask)
            # Every masked-in action is accepted (checked on copies of the position).
            data = env.unwrapped.state_dict()
            probe = gym.make("patience_gym/Golf-v0", illegal_action="raise")
            for action in legal:
                probe.reset(options={"state": data})
                probe.step(int(action))
            _, _, done, truncated, info = env.step(int(rng.choice(legal)))
            assert not truncated
        assert info["action_mask"].sum() == 0


def test_deal_is_legal_exactly_while_stock_remains():
    game = Golf()
    state = game.init(np.random.default_rng(0))
    for left in range(16, 0, -1):
        assert state.stock_left == left and game.legal_mask(state)[DEAL]
        game.apply(state, DEAL)
    assert not game.legal_mask(state)[DEAL]
