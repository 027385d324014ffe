"""Puss in the Corner `moves`, `moves_replay` and `moves_replay_all` encodings: per-action features, hand-built
positions, no leak."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest

from agents.baselines.greedy_puss import PussGreedy
from patience_gym.cards import parse_card
from patience_gym.features import observe
from patience_gym.features.puss import MOVES_GLOBAL, MOVES_REPLAY_SIZE, MOVES_SIZE, REPLAY_FEATURES
from patience_gym.games.puss import DEAL, MERGE, MERGES, PLANES_SIZE, TAKE, TO_CORNER, PussInTheCorner, PussState
from patience_gym.heuristics.puss_greedy import SecondPassReplay, choose_move
from patience_gym.heuristics.puss_moves import MOVE_FEATURES, card_waits, chain_to_foundations

ENV_ID = "patience_gym/PussInTheCorner-v0"
ACES_ONLY = [["AC"], ["AD"], ["AH"], ["AS"]]


def _state(game: PussInTheCorner, corners, hand=None, pack=(), seven=False, redeal=(), pass_no=1, foundations=None):
    """A position from a few named cards; the rest of the 52 go into the pack (or the redeal) unseen."""
    foundations = foundations or ACES_ONLY
    named = [c for pile in foundations for c in pile] + [c for k in corners for c in k] + list(pack) + list(redeal)
    if hand:
        named.append(hand)
    rest = [c for c in _all_codes() if c not in named]
    data = {
        "pass": pass_no,
        "foundations": foundations,
        "corners": corners,
        "hand": hand,
        "pack": list(pack) + (rest if not redeal else []),
        "seven": seven,
        "redeal": list(redeal) + (rest if redeal else []),
    }
    return game.from_dict(data)


def _all_codes() -> list[str]:
    from patience_gym.cards import CODE

    return [CODE[c] for c in range(52)]


def _random_playouts(game: PussInTheCorner, seeds: range, rng: np.random.Generator) -> Iterator[PussState]:
    """Each seed's deal played by masked-random moves; yields the live state before each move (read it only)."""
    for seed in seeds:
        state = game.init(np.random.default_rng(seed))
        while not game.is_over(state):
            yield state
            game.apply(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))


def _features(game: PussInTheCorner, state) -> np.ndarray:
    obs = observe(game, state, "moves")
    assert obs.shape == (MOVES_SIZE,) and obs.dtype == np.float32
    return obs[MOVES_GLOBAL:].reshape(-1, MOVE_FEATURES)


def test_waits_count_the_ranks_a_foundation_must_still_climb():
    w = card_waits([2, 2, 2, 2])
    assert w[parse_card("2H")] == 0 and w[parse_card("5H")] == 3 and w[parse_card("KC")] == 11
    # Two red piles at 4 and 7: a red 6 waits for the lower pile, a red 9 for the higher one.
    w = card_waits([2, 4, 7, 2])
    assert w[parse_card("6D")] == 2 and w[parse_card("9H")] == 2 and w[parse_card("7D")] == 0
    assert chain_to_foundations([parse_card(c) for c in ("2C", "3S", "9D", "4C")], [2, 2, 2, 2], True) == 2
    assert chain_to_foundations([parse_card(c) for c in ("2C", "9D", "3S")], [2, 2, 2, 2], False) == 2


def test_placing_features_compare_the_card_with_each_packet_top():
    game = PussInTheCorner()
    state = _state(game, [["9S", "3D"], ["KC"], [], ["4C", "2S"]], hand="5H", pack=["6C"])
    rows = _features(game, state)
    a, b, c = rows[TO_CORNER], rows[TO_CORNER + 1], rows[TO_CORNER + 2]
    # 5H waits 3; packet A's top 3D waits 1 (the card would bury it), B's KC waits 11.
    assert a[0] == 1 and a[1] == pytest.approx(3 / 12) and a[3] == pytest.approx(1 / 12) and a[4] == 0
    assert a[5] == pytest.approx(-2 / 12) and a[6] == pytest.approx(2 / 24) and a[7] == pytest.approx(1 / 12)
    assert a[8] == pytest.approx(1 / 8)
    assert b[4] == 1 and b[5] == pytest.approx(8 / 12) and b[8] == 0
    assert c[2] == 1 and c[4] == 1 and c[3] == 1
    # Only the legal actions have features; playing from the packets waits until the card is placed.
    assert not rows[DEAL].any() and not rows[9:25].any() and not rows[TAKE:].any()


def test_play_features_see_the_run_that_comes_off_a_packet():
    game = PussInTheCorner()
    state = _state(game, [["4S", "3C", "2C"], ["QH"], [], []], pack=["6C"])
    rows = _features(game, state)
    play = rows[9 + 4 * 0 + 0]  # A>f1: 2C onto the clubs Ace
    assert play[0] == 1 and play[9] == pytest.approx(3 / 8)  # 2C, 3C, 4S come off in a row
    assert play[3] == 0 and play[4] == 1  # 3C fits once 2C is up
    assert rows[DEAL, 0] == 1 and rows[DEAL, 6] == pytest.approx(1 / 48 * len(state.pack))


def test_merge_features_measure_the_margin_of_each_pair():
    game = PussInTheCorner()
    state = _state(game, [["3C"], ["QH"], [], []], hand="7S", seven=True, pack=["6C"])
    rows = _features(game, state)
    a_on_b = MERGE + MERGES.index(((0, 1),))
    b_on_a = MERGE + MERGES.index(((1, 0),))
    # 3C (wait 1) on QH (wait 10) is harmless; QH on 3C buries a card wanted soon.
    assert rows[a_on_b, 0] == 1 and rows[a_on_b, 11] == pytest.approx(9 / 12) and rows[a_on_b, 12] == 0.5
    assert rows[b_on_a, 11] == pytest.approx(-9 / 12) and rows[b_on_a, 12] == 0 and rows[b_on_a, 13] == 1 / 8


def test_take_features_read_each_packet_in_dealing_order():
    game = PussInTheCorner()
    state = _state(game, [["2H", "5D", "3D"], ["KC", "QS"], [], []], pack=[])
    state.pack, state.pos = (), 0  # the first pass is dealt out: take-up time
    rows = _features(game, state)
    take_a = rows[TAKE]
    assert take_a[0] == 1 and take_a[14] == pytest.approx(2 / 12) and take_a[15] == pytest.approx(2 / 3)
    assert list(take_a[17:20]) == pytest.approx([1 / 13, 4 / 13, 2 / 13]) and take_a[20] == 0
    assert rows[TAKE + 1, 14] == 0


@pytest.mark.parametrize("encoding", ["moves", "moves_replay", "moves_replay_all"])
def test_moves_encoding_hides_the_first_pass_pack_and_shows_the_remembered_second_pass(
    encoding, puss_book_deal, masked_random_action
):
    env = gym.make(ENV_ID, obs_encoding=encoding)
    other = puss_book_deal[:1] + puss_book_deal[1:][::-1]
    seen = []
    for deal in (puss_book_deal, other):
        obs, _ = env.reset(options={"deal": deal})
        obs, *_ = env.step(DEAL)
        obs, *_ = env.step(1)
        seen.append(obs)
        assert not obs[PLANES_SIZE : PLANES_SIZE + 52].any()
    np.testing.assert_array_equal(*seen)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=4)
    while env.unwrapped.state.pass_no == 1:
        obs, _, terminated, _, info = env.step(masked_random_action(rng, info["action_mask"]))
        assert not terminated
    state = env.unwrapped.state
    order = obs[PLANES_SIZE : PLANES_SIZE + 52]
    rest = state.pack[state.pos :]
    assert np.argsort(-order)[: len(rest)].tolist() == list(rest)  # the next card to be dealt ranks first
    assert (order > 0).sum() == len(rest)


def test_move_features_are_given_exactly_for_the_legal_actions(masked_random_action):
    env = gym.make(ENV_ID, obs_encoding="moves", sevens_after_placing=True)
    rng = np.random.default_rng(1)
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            rows = obs[MOVES_GLOBAL:].reshape(-1, MOVE_FEATURES)
            np.testing.assert_array_equal(rows[:, 0] == 1, info["action_mask"].astype(bool))
            assert not rows[info["action_mask"] == 0].any()
            assert env.observation_space.contains(obs)
            obs, _, terminated, truncated, info = env.step(masked_random_action(rng, info["action_mask"]))
            done = terminated or truncated


def test_moves_replay_adds_the_take_up_replay_to_the_moves_features():
    """The first 29 features are the ``moves`` ones; the two new ones are set on legal take-ups only."""
    game = PussInTheCorner()
    take_ups = 0
    for state in _random_playouts(game, range(6), np.random.default_rng(2)):
        replay = observe(game, state, "moves_replay")
        assert replay.shape == (MOVES_REPLAY_SIZE,) and replay.dtype == np.float32
        plain = observe(game, state, "moves")
        np.testing.assert_array_equal(replay[:MOVES_GLOBAL], plain[:MOVES_GLOBAL])
        rows = replay[MOVES_GLOBAL:].reshape(-1, REPLAY_FEATURES)
        np.testing.assert_array_equal(rows[:, :MOVE_FEATURES], plain[MOVES_GLOBAL:].reshape(-1, MOVE_FEATURES))
        mask = game.legal_mask(state)
        takes = mask[TAKE : TAKE + 4]
        assert not rows[:TAKE, MOVE_FEATURES:].any()
        assert (rows[TAKE : TAKE + 4, MOVE_FEATURES] > 0).tolist() == takes.tolist()
        if takes.any():
            take_ups += 1
            assert rows[TAKE : TAKE + 4, MOVE_FEATURES + 1].max() == 0  # the best packet's shortfall
    assert take_ups >= 6


def test_replay_value_of_greedys_take_up_is_the_score_greedy_then_reaches():
    """Once the packets are in view the rest of the game is known: the greedy, which picks the
    packet with the best replay and plays the second pass by the same rules, ends exactly there."""
    env = gym.make(ENV_ID, obs_encoding="moves_replay")
    greedy = PussGreedy()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        predicted = None
        done = False
        while not done:
            action = greedy.act(env.unwrapped, obs, info["action_mask"])
            if predicted is None and action >= TAKE:
                rows = obs[MOVES_GLOBAL:].reshape(-1, REPLAY_FEATURES)
                assert rows[action, MOVE_FEATURES + 1] == 0  # greedy takes a packet with the best replay
                predicted = rows[action, MOVE_FEATURES] * 52
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert predicted is not None
        assert info["score"] == pytest.approx(predicted, abs=1e-4)


def _greedy_to_the_end(game: PussInTheCorner, state) -> int:
    """The greedy's final score from ``state``, replayed from scratch (no memo)."""
    trial = state.copy()
    while not game.is_over(trial):
        game.apply(trial, choose_move(game, trial, plan_redeal=False))
    return trial.score


def test_moves_replay_all_adds_the_greedy_replay_after_every_second_pass_action():
    """First pass and take-up: exactly ``moves_replay``. Second pass: every legal action carries the greedy's
    replay of the rest of the game after it (and the shortfall from the best), illegal ones nothing."""
    game = PussInTheCorner(sevens_after_placing=True)
    second_pass_rows = 0
    for state in _random_playouts(game, range(8), np.random.default_rng(5)):
        every = observe(game, state, "moves_replay_all")
        take_only = observe(game, state, "moves_replay")
        assert every.shape == take_only.shape == (MOVES_REPLAY_SIZE,)
        mask = game.legal_mask(state)
        if state.pass_no == 1:
            np.testing.assert_array_equal(every, take_only)
        else:
            np.testing.assert_array_equal(every[:MOVES_GLOBAL], take_only[:MOVES_GLOBAL])
            rows = every[MOVES_GLOBAL:].reshape(-1, REPLAY_FEATURES)
            plain = take_only[MOVES_GLOBAL:].reshape(-1, REPLAY_FEATURES)
            np.testing.assert_array_equal(rows[:, :MOVE_FEATURES], plain[:, :MOVE_FEATURES])
            assert not rows[~mask].any()
            values = {}
            for action in np.flatnonzero(mask):
                after = state.copy()
                game.apply(after, int(action))
                values[action] = _greedy_to_the_end(game, after)
                assert rows[action, MOVE_FEATURES] * 52 == pytest.approx(values[action], abs=1e-4)
            top = max(values.values())
            for action, value in values.items():
                assert rows[action, MOVE_FEATURES + 1] == pytest.approx(max(-1.0, (value - top) / 8))
            second_pass_rows += 1
    assert second_pass_rows > 200


def test_second_pass_replay_memo_matches_a_fresh_replay_and_follows_the_pack():
    """The memo gives what a replay from scratch gives, also emptied mid-game; a new pack empties it."""
    game = PussInTheCorner()
    replay = SecondPassReplay(limit=50)
    packs = set()
    for seed in range(6):
        state = game.init(np.random.default_rng(seed))
        while not game.is_over(state):
            if state.pass_no == 2:
                packs.add(state.pack)
                assert replay.outcome(game, state) == _greedy_to_the_end(game, state)
                assert all(len(key) == 5 for key in replay._memo)
            game.apply(state, choose_move(game, state))
    assert len(packs) == 6


def test_greedy_follows_its_own_second_pass_replay():
    """Along the greedy's own second pass, its move's replay value is the score it ends with, and no move
    is shown a better one than the best (the greedy is where a policy reading these features starts)."""
    env = gym.make(ENV_ID, obs_encoding="moves_replay_all")
    greedy = PussGreedy()
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        predictions = []
        done = False
        while not done:
            action = greedy.act(env.unwrapped, obs, info["action_mask"])
            if env.unwrapped.state.pass_no == 2:
                rows = obs[MOVES_GLOBAL:].reshape(-1, REPLAY_FEATURES)
                predictions.append(rows[action, MOVE_FEATURES] * 52)
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert predictions and predictions == pytest.approx([info["score"]] * len(predictions), abs=1e-4)


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("models/puss_moves_replay_all.zip", "moves_replay_all"),
    ],
)
def test_shipped_models_play_their_encoding(model, encoding):
    from agents.evaluation.evaluate import play_episodes
    from agents.ppo import PPOAgent

    summary = play_episodes(ENV_ID, PPOAgent(model), [0, 1], {"obs_encoding": encoding})
    assert summary.episodes == 2 and summary.mean_moves > 100 and all(s > 30 for s in summary.scores)
