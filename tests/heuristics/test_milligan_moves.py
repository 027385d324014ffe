"""Miss Milligan family ``moves`` and ``moves_search`` encodings: position terms, per-move features, the move list,
the lookahead, no leak."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest
import torch

import patience_gym.heuristics.milligan_moves as milligan_moves
from agents.training.networks import MoveListScorer
from patience_gym.cards import CODE, parse_card
from patience_gym.features import observe
from patience_gym.features.milligan import MOVES_GLOBAL, MOVES_SEARCH_SIZE, MOVES_SIZE
from patience_gym.games.milligan import PLANES_SIZE, Giant, MilliganState, MissMilligan, MissMilliganPocket
from patience_gym.games.milligan_tables import CF, DEAL, NUM_ACTIONS, RF
from patience_gym.heuristics.milligan_moves import (
    EXTRA,
    MOVE_FEATURES,
    MOVE_SLOTS,
    ROW,
    SEARCH_ROW,
    card_wait,
    evaluation,
    fits_now,
    lookahead,
    move_rows,
    position_terms,
    remembered_terms,
)
from tests.helpers import masked_random_action

IDS = ["patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"]


def row_of(game, state, move: str) -> np.ndarray:
    """The features of ``move`` in the move list of ``state``."""
    rows, _ = move_rows(game, state, game.legal_actions(state))
    action = game.action_from_description(move)
    (slot,) = np.flatnonzero(np.round(rows[:, 0] * NUM_ACTIONS).astype(int) - 1 == action)
    return rows[slot, 1:]


def test_card_wait_counts_the_ranks_its_lower_foundation_pile_must_climb():
    found = [3, 1, 0, 0, 0, 0, 0, 0]  # clubs piles at 3C and AC
    assert card_wait(parse_card("4C"), found) == 0  # on the 3C pile
    assert card_wait(parse_card("2C"), found) == 0  # on the AC pile
    assert card_wait(parse_card("5C"), found) == 1
    assert card_wait(parse_card("AD"), found) == 0
    assert card_wait(parse_card("KS"), found) == 12


def test_card_wait_and_fits_now_agree_with_their_definition_on_every_card_and_pile_pair():
    """The branchy hot-path forms equal "the least climb over the piles not already past the card"."""
    from itertools import product

    from patience_gym.cards import RANK, SUIT

    for card, a, b in product(range(52), range(14), range(14)):
        found = [0] * 8
        found[2 * SUIT[card]], found[2 * SUIT[card] + 1] = a, b
        r = RANK[card] - 1
        climbs = [r - h for h in (a, b) if h <= r]
        if not climbs:
            continue  # both piles past the card: both copies are on the foundations
        assert card_wait(card, found) == min(climbs)
        assert fits_now(card, found) == (min(climbs) == 0)


# Every foundation at Queen: only the eight Kings are left, all of them needed.
KINGS = ["KC KS", "KH KD", "", "KC", "KD", "KH", "KS"]


def test_position_terms_count_cover_breaks_and_vacancies(milligan_position):
    s = milligan_position(MissMilligan(), KINGS, (12,) * 8, heap=7)
    # Cover: KS lies on a KC, KD on a KH (each copy of a King is needed, so both count).
    # Breaks: KS on KC and KD on KH. Vacancies: c3 and c8.
    assert position_terms(s) == (2, 2, 2)


@pytest.mark.parametrize("env_id", IDS)
def test_remembered_terms_are_the_position_terms_and_the_lookahead_is_the_same_without_the_memo(env_id, monkeypatch):
    """Over random playouts, with a memo small enough to be emptied several times: every child's memoised
    terms equal a fresh count, and the lookahead finds the same line when every position is counted afresh."""
    monkeypatch.setattr(milligan_moves, "_TERMS", {})  # earlier tests may have filled the memo past 500
    monkeypatch.setattr(milligan_moves, "TERMS_KEPT", 500)
    env = gym.make(env_id)
    game = env.unwrapped.game
    rng = np.random.default_rng(5)
    searched = 0
    for step, _ in enumerate(random_positions(env, range(2), rng)):
        state = env.unwrapped.state
        for a in game.legal_actions(state):
            child = _after(game, state, a)
            assert remembered_terms(child) == position_terms(child)
            assert len(milligan_moves._TERMS) <= 500
        if step % 10 == 0:
            now = evaluation(state)
            memoised = lookahead(game, state, now)
            with monkeypatch.context() as m:
                m.setattr(milligan_moves, "remembered_terms", position_terms)
                assert lookahead(game, state, now) == memoised
            searched += 1
    assert searched > 5


def random_positions(env: gym.Env, seeds: range, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, dict]]:
    """Play masked-random moves on each seed's deal; before each move yield the observation and info.
    ``env.unwrapped.state`` is the position meanwhile."""
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            yield obs, info
            obs, _, terminated, truncated, info = env.step(masked_random_action(rng, info["action_mask"]))
            done = terminated or truncated


def test_features_of_a_foundation_move_and_a_packing_move(milligan_position):
    game = MissMilligan()
    s = milligan_position(game, ["5C 9H", "4C", "TS", "8H"], (3, 3, 0, 0, 0, 0, 0, 0), heap=7)
    up = row_of(game, s, "c2>f")
    assert up[0] == 1 and up[1:6].sum() == 0  # a foundation move
    assert up[6] == pytest.approx(1 / 13) and up[7] == 1  # one card; a new high
    assert up[8] == 1 and up[13] > 0 and up[14] == 1  # one more card up; the evaluation gains
    assert up[15] == 1 and up[16] == 0  # c2 empties
    assert up[23] == pytest.approx(4 / 13)
    pack = row_of(game, s, "c1>c3")  # 9H onto TS uncovers 5C, which waits for the other 4C
    assert pack[1] == 1 and pack[8] == 0 and pack[7] == 0
    assert pack[10] < 0  # the break 5C-9H goes
    assert pack[17] == 0 and pack[18] == pytest.approx(1 / 12)  # 5C waits one rank
    assert pack[20] == 0 and pack[21] == pytest.approx(1 / 20)  # TS was alone in c3
    assert pack[23] == pytest.approx(9 / 13)
    deal_free = row_of(game, milligan_position(game, ["5C", "4C"], heap=7, stock=8), "deal")
    assert deal_free[5] == 1 and deal_free[7] == 1 and np.count_nonzero(deal_free) == 2


def test_restoring_a_waived_card_is_flagged(milligan_position):
    game = MissMilligan()
    s = milligan_position(game, ["8S 7D", "9D", "8C", ""], (6, 6, 0, 0, 0, 0, 6, 6), heap=7)
    game.apply(s, game.action_from_description("c1>w"))
    game.apply(s, game.action_from_description("c1>c2"))  # 8S onto 9D empties c1
    assert row_of(game, s, "w>c1")[24] == 1 and row_of(game, s, "w>c1")[2] == 1
    assert row_of(game, s, "w>c3")[24] == 0


@pytest.mark.parametrize("env_id", IDS)
def test_move_list_is_the_legal_moves_in_order_over_random_playouts(env_id):
    env = gym.make(env_id, obs_encoding="moves")
    game = env.unwrapped.game
    rng = np.random.default_rng(5)
    for obs, info in random_positions(env, range(3), rng):
        assert obs.shape == (MOVES_SIZE,) and obs.min() >= -1 and obs.max() <= 1
        rows = obs[MOVES_GLOBAL:].reshape(MOVE_SLOTS, ROW)
        listed = np.round(rows[:, 0] * NUM_ACTIONS).astype(int) - 1
        legal = np.flatnonzero(info["action_mask"])
        n = min(len(legal), MOVE_SLOTS)
        assert listed[:n].tolist() == legal[:n].tolist()
        assert not rows[n:].any()
        assert obs[PLANES_SIZE + EXTRA - 1] == (len(legal) > MOVE_SLOTS)
        assert np.array_equal(obs[:PLANES_SIZE], game.observe(env.unwrapped.state, "planes"))


@pytest.mark.parametrize("encoding", ["moves", "moves_search"])
def test_the_stock_order_never_shows(encoding):
    deal = [CODE[c] for c in range(52)] * 2
    other = deal[:8] + deal[8:][::-1]
    env = gym.make("patience_gym/MissMilligan-v0", obs_encoding=encoding)
    a, _ = env.reset(options={"deal": deal})
    b, _ = env.reset(options={"deal": other})
    assert np.array_equal(a, b)


def greedy_positions(env: gym.Env, seeds: range) -> Iterator[tuple[np.ndarray, bool, int]]:
    """Play the greedy baseline on each seed's deal; before each of its moves yield the observation, whether
    it had resigned (step 5) at that point, and its move. ``env.unwrapped.state`` is the position meanwhile."""
    from agents.baselines.greedy_milligan import MilliganGreedy

    greedy = MilliganGreedy()
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        greedy.reset(seed)
        done = False
        while not done:
            state = env.unwrapped.state
            resigned = greedy.resigned(state)
            action = greedy.act(env.unwrapped, obs, info["action_mask"].astype(bool))
            yield obs, resigned, action
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated


def test_the_lookahead_never_reads_the_stock_order():
    """Where the lookahead marks a move (not the deal) with cards still in the stock, the same position with
    its stock reversed gives the same observation."""
    env = gym.make("patience_gym/MissMilliganPocket-v0", obs_encoding="moves_search")
    probe = gym.make("patience_gym/MissMilliganPocket-v0", obs_encoding="moves_search")
    compared = 0
    for obs, _, _ in greedy_positions(env, range(3)):
        rows = obs[MOVES_GLOBAL:].reshape(MOVE_SLOTS, SEARCH_ROW)
        marked = np.flatnonzero(rows[:, ROW])
        if marked.size and rows[marked[0], 0] != (DEAL + 1) / NUM_ACTIONS and env.unwrapped.state.stock_left > 8:
            data = env.unwrapped.state_dict()
            data["stock"] = data["stock"][::-1]
            other, _ = probe.reset(options={"state": data})
            assert np.array_equal(obs, other)
            compared += 1
    assert compared >= 3


@pytest.mark.parametrize("env_id", IDS)
def test_moves_search_is_the_moves_encoding_plus_the_lookahead(env_id):
    """Over random playouts: the same planes, position values and move features as ``moves``; the lookahead
    marks at most one move, only where no move makes a new foundation high or raises the evaluation, and
    then it marks the first move of :func:`lookahead`'s line with that line's gain, or the deal."""
    env = gym.make(env_id, obs_encoding="moves_search")
    game = env.unwrapped.game
    rng = np.random.default_rng(11)
    marked = 0
    for obs, _ in random_positions(env, range(2), rng):
        state = env.unwrapped.state
        assert obs.shape == (MOVES_SEARCH_SIZE,) and obs.min() >= -1 and obs.max() <= 1
        plain = observe(game, state, "moves")
        assert np.array_equal(obs[:MOVES_GLOBAL], plain[:MOVES_GLOBAL])
        rows = obs[MOVES_GLOBAL:].reshape(MOVE_SLOTS, SEARCH_ROW)
        assert np.array_equal(rows[:, :ROW], plain[MOVES_GLOBAL:].reshape(MOVE_SLOTS, ROW))
        flags = np.flatnonzero(rows[:, ROW])
        legal = game.legal_actions(state)
        now = evaluation(state)
        improves = any(CF <= a <= RF and game.is_progress(state, a) for a in legal) or any(
            evaluation(_after(game, state, a)) > now for a in legal if a != DEAL
        )
        if improves or len(legal) > MOVE_SLOTS:
            assert not flags.size and not rows[:, ROW + 1].any()
        else:
            found = lookahead(game, state, now)
            expected = DEAL if found is None else found[0]
            if expected in legal:
                assert flags.tolist() == [legal.index(expected)]
                gain = 0.0 if found is None else min((found[1] - now) / 200, 1.0)
                assert rows[flags[0], ROW + 1] == pytest.approx(gain)
                assert (found is None) or gain > 0
                marked += 1
            else:  # no line, and no deal left: nothing to mark
                assert not flags.size
    assert marked > 0


def _after(game: MissMilligan, state: MilliganState, action: int) -> MilliganState:
    """The position after ``action`` (``state`` is left as it was)."""
    child = state.copy()
    game.apply(child, action)
    return child


@pytest.mark.parametrize("env_id", IDS)
def test_the_lookahead_mark_is_the_greedys_move_whenever_the_greedy_searches(env_id):
    """The greedy baseline's steps 3-4 (search, else deal) are what the mark shows; only once it has
    resigned (step 5) may it play another move."""
    env = gym.make(env_id, obs_encoding="moves_search")
    searched = 0
    for obs, resigned, action in greedy_positions(env, range(2)):
        rows = obs[MOVES_GLOBAL:].reshape(MOVE_SLOTS, SEARCH_ROW)
        flags = np.flatnonzero(rows[:, ROW])
        if flags.size and not resigned:
            listed = round(rows[flags[0], 0] * NUM_ACTIONS) - 1
            assert listed == action
            searched += 1
    assert searched > 0


def test_lookahead_marks_the_pocket_move_that_frees_a_needed_card(milligan_position):
    """Every needed 2 lies under one card, and no single move gains (a card pocketed costs its -4, less the
    break and the cover it ends). Two moves do: pocket the card, then play the 2 up. The first such line
    is marked, with its gain, and it is the greedy's move."""
    from agents.baselines.greedy_milligan import MilliganGreedy

    game = MissMilliganPocket()
    columns = ["2C 9H", "2C 8H", "2D 7H", "2D 6H", "2H 5H", "2H 4H", "TH", "JH"]
    s = milligan_position(game, columns, (1, 1, 1, 1, 1, 1, 13, 13), heap=7, stock=16)
    now = evaluation(s)
    legal = game.legal_actions(s)
    assert all(evaluation(_after(game, s, a)) <= now for a in legal if a != DEAL)
    first, value = lookahead(game, s, now)
    assert game.describe_action(first) == "c1>p" and value - now == 100
    rows, _ = move_rows(game, s, legal, search=True)
    assert rows.shape == (MOVE_SLOTS, SEARCH_ROW)
    (marked,) = np.flatnonzero(rows[:, ROW])
    assert legal[marked] == first and rows[marked, ROW + 1] == pytest.approx(0.5)
    assert not rows[:, :ROW].any(axis=1)[len(legal) :].any()
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    mask[legal] = True
    assert MilliganGreedy().choose(game, s, mask) == first
    plain, _ = move_rows(game, s, legal)
    assert np.array_equal(rows[:, :ROW], plain)


def test_overflowing_move_list_lists_the_first_moves_and_the_network_leaves_the_rest_unlisted(milligan_position):
    game = Giant()
    spades = "KS QH JS TH 9S 8H 7S 6H 5S 4H 3S 2H AS"
    clubs = "KC QD JC TD 9C 8D 7C 6D 5C 4D 3C 2D AC"
    s = milligan_position(game, [spades, spades, clubs, clubs], heap=4)
    legal = game.legal_actions(s)
    assert len(legal) > MOVE_SLOTS  # every part of four 13-card sequences into three vacancies
    obs = observe(game, s, "moves")
    rows = obs[MOVES_GLOBAL:].reshape(MOVE_SLOTS, ROW)
    listed = np.round(rows[:, 0] * NUM_ACTIONS).astype(int) - 1
    assert listed.tolist() == legal[:MOVE_SLOTS]
    assert obs[PLANES_SIZE + EXTRA - 1] == 1
    space = gym.spaces.Box(-1.0, 1.0, (MOVES_SIZE,), np.float32)
    net = MoveListScorer(space, MOVES_GLOBAL, MOVE_FEATURES, NUM_ACTIONS, hidden=8, unlisted=-7.0)
    logits = net(torch.as_tensor(obs[None]))[0, :NUM_ACTIONS]
    assert torch.all(logits[legal[MOVE_SLOTS:]] == -7.0)
    assert torch.all(logits[legal[:MOVE_SLOTS]] != -7.0)


def test_evaluation_is_the_greedy_baselines(milligan_position):
    from agents.baselines.greedy_milligan import evaluate

    s = milligan_position(MissMilligan(), KINGS, (12,) * 8, heap=7)
    # 96 cards up, cover 2, breaks 2, two vacancies that count (the stock is out).
    assert evaluate(s) == evaluation(s) == 100 * 96 - 2 - 3 * 2 + 6 * 2


@pytest.mark.parametrize(
    ("env_id", "model"),
    [
        ("patience_gym/MissMilligan-v0", "models/miss_milligan_moves_critic.zip"),
        ("patience_gym/MissMilliganPocket-v0", "models/miss_milligan_pocket_moves_endgame.zip"),
        ("patience_gym/Giant-v0", "models/giant_moves_critic_lr3e4_1m.zip"),
    ],
)
def test_shipped_models_play_their_env_on_the_moves_encoding(env_id, model):
    from agents.evaluation.evaluate import play_episodes
    from agents.ppo import PPOAgent

    encoding = {"_search.zip": "moves_search", "_endgame.zip": "moves_endgame"}.get(model[model.rindex("_") :], "moves")
    summary = play_episodes(env_id, PPOAgent(model), [0], {"obs_encoding": encoding})
    assert summary.episodes == 1 and summary.mean_moves > 20 and all(s > 4 for s in summary.scores)
