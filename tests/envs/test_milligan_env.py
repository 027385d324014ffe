"""The Miss Milligan family as envs: API, options, determinism, reset inputs, observations, notation."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from patience_gym.cards import CODE, parse_cards
from patience_gym.features import observe
from patience_gym.features.milligan import MOVES_ENDGAME_SIZE, MOVES_SEARCH_SIZE, MOVES_SIZE
from patience_gym.games.milligan import (
    MAX_EPISODE_MOVES,
    OBS_FOUNDATIONS,
    OBS_RESERVE,
    OBS_SIZE,
    OBS_STOCK,
    PLANE_WIDTH,
    PLANES_SIZE,
    Giant,
    MilliganGame,
    MilliganState,
    MissMilligan,
    MissMilliganPocket,
)
from patience_gym.games.milligan_tables import NUM_ACTIONS
from tests.helpers import masked_random_action

IDS = ["patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"]
OPTIONS: dict[str, list[dict[str, bool]]] = {
    "patience_gym/MissMilligan-v0": [{}, {"waive_sequences": True}],
    "patience_gym/Giant-v0": [{}, {"worry_back_anytime": True}],
    "patience_gym/MissMilliganPocket-v0": [{}],
}
CASES = [(env_id, opts) for env_id in IDS for opts in OPTIONS[env_id]]


def play_random(env: gym.Env, seed: int, steps: int) -> tuple[dict, list]:
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    trace = []
    for _ in range(steps):
        action = masked_random_action(rng, info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((action, reward, obs.tobytes()))
        if terminated or truncated:
            break
    return info, trace


@pytest.mark.parametrize(("env_id", "options"), CASES)
@pytest.mark.parametrize("encoding", ["ids", "planes", "moves", "moves_search", "moves_endgame"])
def test_check_env_each_option_and_encoding(env_id, options, encoding):
    env = gym.make(env_id, obs_encoding=encoding, render_mode="ansi", **options)
    check_env(env.unwrapped)
    assert env.action_space.n == NUM_ACTIONS
    sizes = {
        "ids": OBS_SIZE,
        "planes": PLANES_SIZE,
        "moves": MOVES_SIZE,
        "moves_search": MOVES_SEARCH_SIZE,
        "moves_endgame": MOVES_ENDGAME_SIZE,
    }
    assert env.observation_space.shape == (sizes[encoding],)


@pytest.mark.parametrize(("env_id", "options"), CASES)
def test_same_seed_same_rollout_and_observations_in_bounds(env_id, options):
    a = gym.make(env_id, **options)
    b = gym.make(env_id, **options)
    _, trace_a = play_random(a, 17, 400)
    _, trace_b = play_random(b, 17, 400)
    assert trace_a == trace_b and len(trace_a) > 20
    assert a.unwrapped.state_dict() == b.unwrapped.state_dict()
    for _, _, obs in trace_a:
        assert a.observation_space.contains(np.frombuffer(obs, dtype=np.int8))


def test_registered_limit_is_a_safety_net_only():
    for env_id in IDS:
        env = gym.make(env_id)
        assert env.spec.max_episode_steps > MAX_EPISODE_MOVES
        assert env.unwrapped.game.max_episode_steps == env.spec.max_episode_steps


def test_rule_options_belong_to_their_game():
    with pytest.raises(TypeError, match="worry_back_anytime"):
        gym.make("patience_gym/MissMilligan-v0", worry_back_anytime=True)
    with pytest.raises(TypeError, match="waive_sequences"):
        gym.make("patience_gym/Giant-v0", waive_sequences=True)
    with pytest.raises(TypeError, match="waive_sequences"):
        gym.make("patience_gym/MissMilliganPocket-v0", waive_sequences=True)
    with pytest.raises(TypeError, match="True or False"):
        gym.make("patience_gym/Giant-v0", worry_back_anytime="yes")
    with pytest.raises(ValueError, match="obs_encoding"):
        gym.make("patience_gym/Giant-v0", obs_encoding="pixels")


# --- rewards and info -----------------------------------------------------------------------


@pytest.mark.parametrize("env_id", IDS)
def test_rewards_sum_to_the_cards_on_the_foundations(env_id):
    env = gym.make(env_id)
    rng = np.random.default_rng(3)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        total = 0.0
        done = False
        while not done:
            _, reward, terminated, truncated, info = env.step(masked_random_action(rng, info["action_mask"]))
            total += reward
            assert info["score"] == total == env.unwrapped.state.total
            done = terminated or truncated
        assert terminated and not truncated
        assert info["won"] == (info["score"] == 104.0)


# --- reset inputs ----------------------------------------------------------------------------


def two_packs() -> list[str]:
    return [CODE[c] for c in range(52)] * 2


def test_reset_with_a_deal_lays_the_first_row_and_keeps_the_stock_order():
    env = gym.make("patience_gym/MissMilligan-v0")
    deal = two_packs()
    obs, _ = env.reset(options={"deal": deal})
    state = env.unwrapped.state
    assert [col for col in state.columns] == [[c] for c in range(8)]
    assert obs[OBS_STOCK] == 96
    data = env.unwrapped.state_dict()
    assert data["stock"] == deal[8:] and data["tableau"] == [[code] for code in deal[:8]]
    assert data["waived"] == [] and data["waived_from"] is None


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (two_packs()[:-1], "103 cards"),
        (two_packs()[:-1] + ["AS"], "too many: ASx3"),
        (two_packs()[:-1] + ["ZZ"], "unknown card code 'ZZ'"),
        ("AS 2S", "list of 104 card codes"),
    ],
)
def test_bad_deals_are_named(deal, message):
    env = gym.make("patience_gym/Giant-v0")
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})


def a_state_dict(env_id: str, steps: int = 60) -> dict:
    env = gym.make(env_id)
    play_random(env, 4, steps)
    return env.unwrapped.state_dict()  # type: ignore[attr-defined]


@pytest.mark.parametrize("env_id", IDS)
def test_state_dict_round_trip_keeps_legality(env_id):
    env = gym.make(env_id)
    rng = np.random.default_rng(8)
    _, info = env.reset(seed=8)
    other = gym.make(env_id)
    for _ in range(150):
        data = env.unwrapped.state_dict()
        obs, other_info = other.reset(options={"state": data})
        assert other.unwrapped.state == env.unwrapped.state
        np.testing.assert_array_equal(other_info["action_mask"], info["action_mask"])
        np.testing.assert_array_equal(obs, env.unwrapped.game.observe(env.unwrapped.state, "ids"))
        _, _, terminated, truncated, info = env.step(masked_random_action(rng, info["action_mask"]))
        if terminated or truncated:
            break


def test_state_dict_stock_out_with_waived_card_round_trips():
    env = gym.make("patience_gym/MissMilligan-v0", waive_sequences=True)
    game = env.unwrapped.game
    rng = np.random.default_rng(0)
    for seed in range(50):
        _, info = env.reset(seed=seed)
        done = False
        while not done and not env.unwrapped.state.reserve:
            _, _, done, _, info = env.step(masked_random_action(rng, info["action_mask"]))
        if env.unwrapped.state.reserve:
            break
    data = env.unwrapped.state_dict()
    assert data["waived"] and data["stock"] == [] and isinstance(data["waived_from"], int)
    assert game.from_dict(data) == env.unwrapped.state


@pytest.mark.parametrize(
    ("env_id", "change", "message"),
    [
        ("patience_gym/Giant-v0", {"tableau": [["AS"]] * 8}, "exactly 2 times"),
        ("patience_gym/Giant-v0", {"tableau": "AS"}, "8 lists"),
        ("patience_gym/Giant-v0", {"colour": "red"}, "unknown keys: colour"),
        ("patience_gym/Giant-v0", {"waived": ["AS"]}, "unknown keys: waived"),
        ("patience_gym/MissMilligan-v0", {"pocket": "AS"}, "unknown keys: pocket"),
        ("patience_gym/Giant-v0", {"foundations": [["2C"]] + [[]] * 7}, "must run up in one suit from its Ace"),
        ("patience_gym/Giant-v0", {"foundations": [["AC"]] * 3 + [[]] * 5}, "at most two"),
        ("patience_gym/Giant-v0", {"stock": ["AS"]}, "multiple of 8"),
        ("patience_gym/Giant-v0", {"idle_moves": 51}, "idle_moves"),
        ("patience_gym/Giant-v0", {"best": 200}, "best"),
        ("patience_gym/Giant-v0", {"seen": ["xyz"]}, "fingerprint"),
        ("patience_gym/Giant-v0", {"game": "golf"}, "not 'giant'"),
        ("patience_gym/MissMilligan-v0", {"waived": ["KS"], "waived_from": 0}, "only once the stock is exhausted"),
        ("patience_gym/MissMilligan-v0", {"waived": [], "waived_from": 3}, "waived_from must be None"),
    ],
)
def test_bad_state_dicts_are_named(env_id, change, message):
    data = a_state_dict(env_id, steps=5)
    data.update(change)
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"state": data})
    with pytest.raises(ValueError, match="must be a dict"):
        env.reset(options={"state": [1, 2]})


def test_waived_state_checks():
    game = MissMilligan()
    base = stock_out_dict(game)
    top = base["tableau"][0].pop()
    for waived, origin, message in [
        ([top], 9, "waived_from must be the column"),
        ([top], None, "waived_from must be the column"),
    ]:
        data = dict(base, waived=waived, waived_from=origin)
        with pytest.raises(ValueError, match=message):
            game.from_dict(data)
    data = dict(base, waived=[top], waived_from=0)
    assert game.from_dict(data).reserve == parse_cards([top])
    # two waived cards need waive_sequences, and must be a built sequence
    two = lift(stock_out_dict(game), ["QC", "JD"])
    with pytest.raises(ValueError, match="one may be waived at a time"):
        game.from_dict(two)
    assert MissMilligan(waive_sequences=True).from_dict(two).reserve == parse_cards("QC JD")
    with pytest.raises(ValueError, match="not a built sequence"):
        MissMilligan(waive_sequences=True).from_dict(lift(stock_out_dict(game), ["QC", "JC"]))


def lift(data: dict, waived: list[str]) -> dict:
    """``data`` with ``waived`` taken out of the tableau (first copies) and waived from column 1."""
    for code in waived:
        col = next(col for col in data["tableau"] if code in col)
        col.remove(code)
    return dict(data, waived=waived, waived_from=0)


def stock_out_dict(game: MilliganGame) -> dict:
    """A position with the stock dealt out: the deal in card order, all dealt."""
    state = game.from_deal([CODE[c] for c in range(52)] * 2)
    for _ in range(12):
        game.apply(state, game.action_from_description("deal"))
    data = game.to_dict(state)
    del data["seen"], data["options"]  # read by the rule options it is given to
    return data


# --- observations --------------------------------------------------------------------------


def test_ids_observation_shows_long_columns_whole():
    game = MissMilligan()
    data = stock_out_dict(game)
    # Pile every card of the tableau into column 1: 104 cards in one column.
    data["tableau"] = [[code for col in data["tableau"] for code in col]] + [[]] * 7
    state = game.from_dict(data)
    obs = game.observe(state, "ids")
    assert len(state.columns[0]) == 104
    assert (obs[:104] == np.array(state.columns[0]) + 1).all()
    assert obs[OBS_STOCK] == 0


def test_observations_hide_the_stock_order():
    game = Giant()
    deal = two_packs()
    other = deal[:8] + deal[8:][::-1]
    a, b = game.from_deal(deal), game.from_deal(other)
    for encoding in ("ids", "planes"):
        np.testing.assert_array_equal(observe(game, a, encoding), observe(game, b, encoding))


def test_observations_differ_when_any_visible_card_differs():
    game = MissMilliganPocket()
    rng = np.random.default_rng(2)
    seen_ids: dict[bytes, tuple] = {}
    seen_planes: dict[bytes, tuple] = {}
    for _ in range(40):
        state = game.init(rng)
        for _ in range(int(rng.integers(0, 60))):
            acts = game.legal_actions(state)
            if not acts:
                break
            game.apply(state, acts[int(rng.integers(len(acts)))])
        visible = visible_position(state)
        for table, encoding in ((seen_ids, "ids"), (seen_planes, "planes")):
            key = observe(game, state, encoding).tobytes()
            assert table.setdefault(key, visible) == visible


def visible_position(state: MilliganState) -> tuple:
    return (
        tuple(map(tuple, state.columns)),
        tuple(state.found),
        tuple(state.reserve),
        state.origin,
        state.stock_left,
        state.idle,
        state.best,
    )


def decode_planes(obs: np.ndarray) -> tuple:
    """Columns, foundation heights per suit and reserve, read back from the planes encoding."""
    inst = obs[: 104 * PLANE_WIDTH].reshape(104, PLANE_WIDTH)
    columns: list[list[tuple[float, int]]] = [[] for _ in range(8)]
    reserve = []
    on_found = [0] * 52
    for i, feats in enumerate(inst):
        card = i // 2
        where = int(np.argmax(feats[:11]))
        assert feats[:11].sum() == 1.0
        if where < 8:
            columns[where].append((feats[11], card))
        elif where == 8:
            on_found[card] += 1
        elif where == 9:
            reserve.append((feats[11], card))
    cols = [[c for _, c in sorted(col)] for col in columns]
    heights = []
    for suit in range(4):
        counts = [on_found[suit * 13 + r] for r in range(13)]
        heights.append((sum(n >= 1 for n in counts), sum(n >= 2 for n in counts)))
    return cols, heights, [c for _, c in sorted(reserve)]


@pytest.mark.parametrize("cls", [MissMilligan, Giant, MissMilliganPocket])
def test_planes_encoding_is_exact(cls):
    game = cls()
    rng = np.random.default_rng(6)
    for _ in range(15):
        state = game.init(rng)
        for _ in range(int(rng.integers(0, 120))):
            acts = game.legal_actions(state)
            if not acts:
                break
            game.apply(state, acts[int(rng.integers(len(acts)))])
        obs = game.observe(state, "planes")
        cols, heights, reserve = decode_planes(obs)
        assert cols == state.columns and reserve == state.reserve
        assert heights == [(state.found[2 * s], state.found[2 * s + 1]) for s in range(4)]
        assert round(float(obs[104 * PLANE_WIDTH]) * 96) == state.stock_left


def test_ids_observation_layout_of_foundations_and_reserve():
    game = MissMilliganPocket()
    state = game.from_dict(dict(stock_out_dict(game)))
    acts = [a for a in game.legal_actions(state) if game.describe_action(a).endswith(">p")]
    game.apply(state, acts[0])
    obs = game.observe(state, "ids")
    assert obs[OBS_RESERVE] == state.reserve[0] + 1
    assert list(obs[OBS_FOUNDATIONS : OBS_FOUNDATIONS + 8]) == [
        (s // 2) * 13 + h if h else 0 for s, h in enumerate(state.found)
    ]


# --- notation --------------------------------------------------------------------------------


def test_notation_examples_and_inverse():
    mm, giant, pocket = MissMilligan(), Giant(), MissMilliganPocket()
    for text in ("c3>c5x2", "c3>f", "f2>c4", "deal", "c3>w", "w>c1", "w>f", "c1>wx3", "w>c2x2"):
        assert mm.describe_action(mm.action_from_description(text)) == text
    for text in ("c3>p", "p>c5", "p>f", "f8>c1"):
        assert pocket.describe_action(pocket.action_from_description(text)) == text
    assert giant.action_from_description("c3>c5x1") == giant.action_from_description("c3>c5")
    assert {mm.describe_action(a) for a in range(NUM_ACTIONS)} != {
        pocket.describe_action(a) for a in range(NUM_ACTIONS)
    }
    for game in (mm, pocket):
        texts = [game.describe_action(a) for a in range(NUM_ACTIONS)]
        assert len(set(texts)) == NUM_ACTIONS
    with pytest.raises(ValueError, match="unknown move"):
        mm.action_from_description("c9>c1")
    with pytest.raises(ValueError, match="outside"):
        mm.describe_action(NUM_ACTIONS)


def test_render_shows_the_position_and_the_moves():
    env = gym.make("patience_gym/MissMilligan-v0", render_mode="ansi")
    env.reset(options={"deal": two_packs()})
    text = env.render()
    assert "c1: AC" in text and "c8: 8C" in text and "stock: 96 cards" in text
    assert "moves: " in text and "c1>f" in text and "deal" in text


def test_decode_action_inverts_the_layout():
    from patience_gym.games.milligan_tables import (
        CF,
        COLUMN_TO_COLUMN,
        CR,
        DEAL,
        DEAL_MOVE,
        FC,
        FOUNDATION_TO_COLUMN,
        RC,
        RESERVE_TO_COLUMN,
        RF,
        TO_FOUNDATION,
        cc_action,
        decode_action,
    )

    def encode(kind: int, src: int, dst: int, k: int) -> int:
        if kind == COLUMN_TO_COLUMN:
            return cc_action(src, dst, k)
        if kind == RESERVE_TO_COLUMN:
            return RC + dst * 13 + k - 1
        if kind == TO_FOUNDATION:
            return CF + src if src >= 0 else RF
        if kind == FOUNDATION_TO_COLUMN:
            return FC + src * 8 + dst
        if kind == DEAL_MOVE:
            return DEAL
        return CR + src * 13 + k - 1

    decoded = [decode_action(a) for a in range(NUM_ACTIONS)]
    assert [encode(*d) for d in decoded] == list(range(NUM_ACTIONS))
    assert len(set(decoded)) == NUM_ACTIONS
    assert decode_action(cc_action(2, 4, 2)) == (COLUMN_TO_COLUMN, 2, 4, 2)
