"""Puss in the Corner env: Gymnasium API, determinism, observation, state dicts and bad input."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from patience_gym.cards import CODE, parse_card
from patience_gym.games.puss import DEAL, OBS_SIZE, PLANE_WIDTH, PLANES_SIZE, PussInTheCorner
from tests.helpers import masked_random_action
from tests.helpers.puss import BOOK_DEAL, BOOK_PLAY

ENV_ID = "patience_gym/PussInTheCorner-v0"
OPTION_SETS = [
    {},
    {"forced_foundation": False},
    {"sevens_after_placing": False},
    {"obs_encoding": "planes"},
    {"obs_encoding": "moves"},
    {"obs_encoding": "moves_replay"},
    {"obs_encoding": "moves_replay_all"},
    {"obs_encoding": "moves_replay_all", "sevens_after_placing": True, "forced_foundation": False},
]


@pytest.mark.parametrize("kwargs", OPTION_SETS)
def test_check_env(kwargs):
    env = gym.make(ENV_ID, **kwargs)
    check_env(env.unwrapped, skip_render_check=True)
    assert env.spec.max_episode_steps == 1000
    assert env.action_space.n == 53


def rollout(kwargs, seed, steps=400):
    env = gym.make(ENV_ID, **kwargs)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = [obs.tobytes()]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(masked_random_action(rng, info["action_mask"]))
        trace.append((obs.tobytes(), reward, terminated, info["score"]))
        if terminated or truncated:
            break
    return trace


@pytest.mark.parametrize("kwargs", OPTION_SETS)
def test_same_seed_same_rollout(kwargs):
    assert rollout(kwargs, 7) == rollout(kwargs, 7)
    assert rollout(kwargs, 7) != rollout(kwargs, 8)


def test_ids_observation_layout_and_no_leak():
    env = gym.make(ENV_ID)
    obs, info = env.reset(options={"deal": BOOK_DEAL})
    assert obs.shape == (OBS_SIZE,) and obs.dtype == np.int8 and env.observation_space.contains(obs)
    assert [obs[13 * f] - 1 for f in range(4)] == [parse_card(a) for a in ("AC", "AD", "AH", "AS")]
    assert obs[244] == 0 and obs[245] == 48 and obs[246] == 1 and obs[247] == 0 and obs[248] == 0
    assert not obs[52:244].any()
    obs, *_ = env.step(DEAL)
    assert obs[244] == parse_card("6D") + 1 and obs[245] == 47 and obs[247] == 1
    obs, *_ = env.step(env.unwrapped.action_from_description("dealt>D"))
    assert obs[52 + 3 * 48] == parse_card("6D") + 1 and obs[244] == 0 and obs[247] == 0
    # Deals that differ only in the order of the undealt cards look the same until those cards are dealt.
    other = BOOK_DEAL[:1] + BOOK_DEAL[1:][::-1]
    a, _ = env.reset(options={"deal": BOOK_DEAL})
    b, _ = env.reset(options={"deal": other})
    np.testing.assert_array_equal(a, b)
    for encoding in ("ids", "planes"):
        e = gym.make(ENV_ID, obs_encoding=encoding)
        for deal in (BOOK_DEAL, other):
            obs, _ = e.reset(options={"deal": deal})
            obs, *_ = e.step(DEAL)
            obs, *_ = e.step(1)
            if deal is BOOK_DEAL:
                first = obs
        np.testing.assert_array_equal(first, obs)


def test_observation_shows_whole_packets_and_foundations_through_the_book_example():
    env = gym.make(ENV_ID, forced_foundation=False, sevens_after_placing=True)
    game = env.unwrapped.game
    env.reset(options={"deal": BOOK_DEAL})
    for _, moves in BOOK_PLAY:
        obs, *_ = env.step(DEAL)
        for move in moves:
            obs, *_ = env.step(game.action_from_description(move))
    state = env.unwrapped.state
    for k, packet in enumerate(state.corners):
        assert list(obs[52 + 48 * k : 52 + 48 * k + len(packet)] - 1) == packet
        assert not obs[52 + 48 * k + len(packet) : 52 + 48 * (k + 1)].any()
    for f, pile in enumerate(state.foundations):
        assert [int(x) - 1 for x in obs[13 * f : 13 * f + len(pile)]] == pile
    assert obs[245] == 48 - len(BOOK_PLAY)


def test_planes_observation_encodes_each_card_location():
    game = PussInTheCorner(forced_foundation=False, sevens_after_placing=True)
    state = game.from_deal(BOOK_DEAL)
    for card, moves in BOOK_PLAY:
        game.apply(state, DEAL)
        if card == "KD":
            break
        for move in moves:
            game.apply(state, game.action_from_description(move))
    planes = game.observe(state, "planes")
    assert planes.shape == (PLANES_SIZE,) and planes.dtype == np.float32
    per_card = planes[: 52 * PLANE_WIDTH].reshape(52, PLANE_WIDTH)
    kd, jc, qd, c7, c2h = (parse_card(x) for x in ("KD", "JC", "QD", "7C", "2H"))
    assert per_card[kd, 1] == 1 and per_card[kd].sum() == 1  # in hand
    assert per_card[jc, 6 + 2] == 1 and per_card[jc, 10] == 1 and per_card[jc, 11] == pytest.approx(3 / 47)
    assert per_card[qd, 6 + 2] == 1 and per_card[qd, 10] == 0 and per_card[qd, 11] == 0
    assert per_card[c7, 2 + 0] == 1  # on foundation f1
    assert per_card[c2h, 0] == 1 and per_card[c2h].sum() == 1  # still in the pack
    assert per_card.sum(axis=1)[:, None].min() >= 1
    tail = planes[52 * PLANE_WIDTH :]
    assert tail[0] == pytest.approx(17 / 48) and tail[1] == 0 and tail[2 + 1] == 1 and tail[5] == 0


@pytest.mark.parametrize("sevens_after_placing", [False, True])
def test_state_dict_round_trip_in_every_phase(sevens_after_placing):
    env = gym.make(ENV_ID, sevens_after_placing=sevens_after_placing)
    other = gym.make(ENV_ID, sevens_after_placing=sevens_after_placing)
    rng = np.random.default_rng(3)
    phases_seen = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            data = env.unwrapped.state_dict()
            obs, _ = other.reset(options={"state": data})
            state = env.unwrapped.state
            phases_seen.add((state.phase, state.pass_no, bool(state.seven)))
            assert other.unwrapped.state == state and other.unwrapped.state_dict() == data
            np.testing.assert_array_equal(obs, state.obs)
            np.testing.assert_array_equal(other.unwrapped.action_masks(), env.unwrapped.action_masks())
            _, _, done, _, info = env.step(masked_random_action(rng, info["action_mask"]))
    expected = {(0, 1, False), (1, 1, False), (1, 1, True), (2, 1, False), (0, 2, False)}
    if sevens_after_placing:
        expected.add((0, 1, True))  # between deals with a 7's privilege still open
    assert expected <= phases_seen


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (BOOK_DEAL[:-1], "got 47 cards"),
        (BOOK_DEAL[:-1] + ["6D"], "duplicated: 6D"),
        (BOOK_DEAL[:-1] + ["AS"], "Aces are the foundations.*AS"),
        (BOOK_DEAL[:-1] + ["1X"], "unknown card code '1X'"),
        (" ".join(BOOK_DEAL), "list of the 48 non-Ace"),
    ],
)
def test_bad_deals_raise_naming_the_problem(deal, message):
    env = gym.make(ENV_ID)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})


def mid_game_dict(seed=0, steps=30):
    env = gym.make(ENV_ID)
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        _, _, done, _, info = env.step(masked_random_action(rng, info["action_mask"]))
        assert not done
    return env.unwrapped.state_dict()


def hand_not_seven(d):
    card = next(c for c in d["pack"] if not c.startswith("7"))
    d["pack"].remove(card)
    d.update(hand=card, seven=True)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("pack"), "lacks pack"),
        (lambda d: d.update(extra=1), "unknown keys: extra"),
        (lambda d: d.update(game="golf"), "state is for game 'golf'"),
        (lambda d: d.update(corners=d["corners"][:3]), "list of 4 lists"),
        (lambda d: d.update(pass_no=2), "unknown keys: pass_no"),
        (lambda d: d.update({"pass": 3}), "'pass' must be 1 or 2"),
        (lambda d: d.update(seven="yes"), "'seven' must be True or False"),
        (lambda d: d["foundations"].reverse(), "foundation f1 must start with AC"),
        (lambda d: d["pack"].append("KS"), "duplicated: KS"),
        (lambda d: d["pack"].append("ZZ"), "unknown card code 'ZZ'"),
        (lambda d: d.update(pack=d["pack"][1:]), "got 51 cards"),
        (lambda d: d.update(pack="2C 3C"), "must be a list of card codes"),
        (hand_not_seven, "not a 7"),
    ],
)
def test_bad_states_raise_naming_the_problem(mutate, message):
    data = mid_game_dict()
    mutate(data)
    with pytest.raises(ValueError, match=message):
        gym.make(ENV_ID).reset(options={"state": data})


def test_bad_foundation_builds_and_redeal_states_are_named():
    game = PussInTheCorner()
    state = game.from_deal(BOOK_DEAL)
    data = game.to_dict(state)
    data["foundations"][0].append("2D")
    data["pack"].remove("2D")
    with pytest.raises(ValueError, match="foundation f1 builds up in black: 2D cannot lie on AC"):
        game.from_dict(data)
    data = game.to_dict(state)
    data["redeal"], data["pack"] = data["pack"][:10], data["pack"][10:]
    with pytest.raises(ValueError, match="redeal in progress needs pass 1, an empty pack"):
        game.from_dict(data)
    data = game.to_dict(state)
    data.update(hand="7S", seven=False)
    data["pack"].remove("7S")
    assert game.from_dict(data).hand == parse_card("7S")
    data.update(hand=None, seven=True)
    data["pack"].append("7S")
    with pytest.raises(ValueError, match="sevens_after_placing is off"):
        PussInTheCorner(sevens_after_placing=False).from_dict(data)


def test_unknown_options_and_kwargs_are_named():
    with pytest.raises(TypeError, match="unknown option 'forced'.*forced_foundation, sevens_after_placing"):
        gym.make(ENV_ID, forced=True)
    with pytest.raises(TypeError, match="must be True or False"):
        gym.make(ENV_ID, forced_foundation="no")
    with pytest.raises(ValueError, match="unknown obs_encoding 'pixels'"):
        gym.make(ENV_ID, obs_encoding="pixels")
    with pytest.raises(ValueError, match="unknown reset option"):
        gym.make(ENV_ID).reset(options={"pack": BOOK_DEAL})


def test_illegal_action_penalized_leaves_state_unchanged():
    env = gym.make(ENV_ID)
    obs, info = env.reset(options={"deal": BOOK_DEAL})
    before = env.unwrapped.state.copy()
    for action in (1, 52, 60, -1):
        obs2, reward, terminated, truncated, info2 = env.step(action)
        assert reward == -1 and info2["illegal_action"] and not terminated
        assert env.unwrapped.state == before
        np.testing.assert_array_equal(obs, obs2)


def test_render_ansi_shows_packets_dealt_card_and_moves():
    env = gym.make(ENV_ID, render_mode="ansi", forced_foundation=False, sevens_after_placing=True)
    env.reset(options={"deal": BOOK_DEAL})
    game = env.unwrapped.game
    for _, moves in BOOK_PLAY[:15]:
        env.step(DEAL)
        for move in moves:
            env.step(game.action_from_description(move))
    env.step(DEAL)
    text = env.render()
    assert "A: QS QC JD JS JH TD 9S 9D 7C" in text and "B: -" in text
    assert "dealt: 3C" in text and "pass 1" in text and "pack: 32 cards" in text
    assert "moves: " in text and "'dealt>f4'" in text and "'dealt>D'" in text
    assert "f2 (red): AD 2D 3D" in text and CODE[parse_card("2S")] in text
