"""Golf rules on hand-built positions, the book's worked example, and the envs' I/O."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.cards import CODE, parse_card
from patience_gym.core import IllegalActionError
from patience_gym.features import observe
from patience_gym.games.golf import DEAL, Golf, GolfRound
from patience_gym.games.golf_board import format_board, parse_board
from tests.helpers.golf import BOOK_DEAL

BOOK_PLAYS = [
    ("7H", "8H 9S TC JC QH JH QC KD"),
    ("4C", "5H"),
    ("TD", "9D 8D 7D 6H"),
    ("9H", ""),
    ("KH", ""),
    ("4H", "3H 2D AC 2S 3C 2H AD"),
    ("3S", "4S"),
] + [(card, "") for card in ["6D", "5S", "5D", "9C", "6S", "7C", "7S", "8C", "5C", "6C"]]


def column_of(game: Golf, state, code: str) -> int:
    return next(i for i, col in enumerate(state.columns) if col and CODE[col[-1]] == code)


def test_book_example_scores_14_by_exactly_those_plays():
    env = gym.make("patience_gym/Golf-v0", illegal_action="raise")
    game = env.unwrapped.game
    _, info = env.reset(options={"deal": BOOK_DEAL})
    total = 0.0
    for i, (turned, plays) in enumerate(BOOK_PLAYS):
        state = env.unwrapped.state
        if i > 0:
            _, reward, terminated, _, info = env.step(env.unwrapped.action_from_description("deal"))
            total += reward
            assert reward == 0 and terminated == (i == len(BOOK_PLAYS) - 1)
        assert CODE[env.unwrapped.state.waste[-1]] == turned
        for card in plays.split():
            action = column_of(game, env.unwrapped.state, card)
            assert info["action_mask"][action] == 1
            _, reward, _, _, info = env.step(action)
            total += reward
            assert reward == 1
        # A stoppage: no exposed card can be played on the waste card.
        state = env.unwrapped.state
        assert not info["action_mask"][:DEAL].any(), f"after {turned}: {state}"
    assert env.unwrapped.state.stock_left == 0
    assert info["score"] == 14 and not info["won"]
    assert env.unwrapped.game.is_over(env.unwrapped.state)
    assert total == 35 - 14


def full_state(columns: list[str], waste: str, stock: str = "") -> dict:
    """A 52-card state from the named cards; unnamed cards go to the waste pile's bottom."""
    named = " ".join(columns).split() + waste.split() + stock.split()
    rest = [c for c in CODE if c not in named]
    return {"tableau": [c.split() for c in columns], "waste": rest + waste.split(), "stock": stock.split()}


def legal_plays(game: Golf, state_dict: dict) -> list[str]:
    state = game.from_dict(state_dict)
    return [game.describe_action(a) for a in game.legal_actions(state)]


def test_adjacent_ranks_either_way_suit_ignored():
    game = Golf()
    assert legal_plays(game, full_state(["6S", "8D", "7C", "5H", "", "", ""], "7H")) == ["c1>w", "c2>w"]


def test_nothing_on_a_king_by_default_but_king_on_queen():
    game = Golf()
    assert legal_plays(game, full_state(["QS", "AC", "", "", "", "", ""], "KH", "2D")) == ["deal"]
    assert legal_plays(game, full_state(["KS", "", "", "", "", "", ""], "QH")) == ["c1>w"]


def test_no_wrapping_by_default():
    game = Golf()
    assert legal_plays(game, full_state(["KS", "", "", "", "", "", ""], "AH")) == []
    assert legal_plays(game, full_state(["AS", "", "", "", "", "", ""], "KH")) == []


def test_queens_on_kings_option():
    game = Golf(queens_on_kings=True)
    assert legal_plays(game, full_state(["QS", "AC", "", "", "", "", ""], "KH")) == ["c1>w"]
    assert legal_plays(game, full_state(["AS", "", "", "", "", "", ""], "KH")) == []


def test_wrap_ranks_option_implies_queens_on_kings():
    game = Golf(wrap_ranks=True)
    assert legal_plays(game, full_state(["AS", "QD", "2C", "", "", "", ""], "KH")) == ["c1>w", "c2>w"]
    assert legal_plays(game, full_state(["KS", "2C", "", "", "", "", ""], "AH")) == ["c1>w", "c2>w"]


def test_hole_over_when_stock_empty_and_no_play():
    game = Golf()
    blocked = game.from_dict(full_state(["9S", "", "", "", "", "", ""], "2H"))
    assert game.is_over(blocked) and game.score(blocked) == 1 and not game.is_won(blocked)
    live = game.from_dict(full_state(["9S", "", "", "", "", "", ""], "2H", "8C"))
    assert not game.is_over(live)


def test_clearing_with_stock_left_scores_minus_k_and_rewards_it():
    env = gym.make("patience_gym/Golf-v0")
    env.reset(options={"state": full_state(["3S", "", "", "", "", "", ""], "2H", "8C 9C TC")})
    _, reward, terminated, _, info = env.step(0)
    assert terminated and info["won"] and info["score"] == -3
    assert reward == 1 + 3


def test_last_card_dealt_clearing_scores_zero():
    game = Golf()
    state = game.from_dict(full_state(["3S", "", "", "", "", "", ""], "JH", "2H"))
    game.apply(state, DEAL)
    game.apply(state, 0)
    assert game.is_over(state) and game.score(state) == 0


def test_return_is_35_minus_score_on_random_holes():
    env = gym.make("patience_gym/Golf-v0")
    rng = np.random.default_rng(5)
    for seed in range(30):
        _, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, reward, done, _, info = env.step(int(rng.choice(legal)))
            total += reward
        assert total == 35 - info["score"]


def test_deal_layout_rows_then_stock():
    game = Golf()
    state = game.from_deal(BOOK_DEAL)
    assert [CODE[c] for c in state.columns[0]] == [BOOK_DEAL[r * 7] for r in range(5)]
    assert CODE[state.waste[-1]] == "7H" and state.stock_left == 16


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (BOOK_DEAL[:-1], "got 51 cards"),
        (BOOK_DEAL[:-1] + ["AS"], "too many: ASx2"),
        (BOOK_DEAL[:-1] + ["1X"], "unknown card code '1X'"),
    ],
)
def test_bad_deals_raise_naming_the_problem(deal, message):
    env = gym.make("patience_gym/Golf-v0")
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})


GOLF_DEAL_IS = r"a Golf deal is the 52 card codes in dealing order \(the links row by row, then the stock\)"
ROUND_DEAL_IS = r"a GolfRound deal is a list of 9 deals, one per hole, each a Golf deal: the 52 card codes"


@pytest.mark.parametrize(
    ("env_id", "deal", "message"),
    [
        ("patience_gym/Golf-v0", None, rf"{GOLF_DEAL_IS}.*got NoneType"),
        ("patience_gym/Golf-v0", 5, rf"{GOLF_DEAL_IS}.*got int"),
        ("patience_gym/Golf-v0", [None] * 52, rf"{GOLF_DEAL_IS}.*card code must be a string, got None"),
        ("patience_gym/GolfRound-v0", None, rf"{ROUND_DEAL_IS}.*; got NoneType"),
        ("patience_gym/GolfRound-v0", 5, rf"{ROUND_DEAL_IS}.*; got int"),
        ("patience_gym/GolfRound-v0", {"a": 1}, rf"{ROUND_DEAL_IS}.*; got dict"),
        ("patience_gym/GolfRound-v0", "AS 2S", rf"{ROUND_DEAL_IS}.*; got str"),
        ("patience_gym/GolfRound-v0", [BOOK_DEAL] * 8, rf"{ROUND_DEAL_IS}.*; got 8 items"),
        ("patience_gym/GolfRound-v0", BOOK_DEAL, rf"{ROUND_DEAL_IS}.*; got 52 items"),
        ("patience_gym/GolfRound-v0", [None] * 9, rf"the deal of hole 1: {GOLF_DEAL_IS}.*got NoneType"),
        ("patience_gym/GolfRound-v0", [BOOK_DEAL] * 8 + [[1, 2]], r"the deal of hole 9: .*card code must be a string"),
        ("patience_gym/GolfRound-v0", [BOOK_DEAL] * 8 + [BOOK_DEAL[:-1]], "the deal of hole 9 must hold each"),
    ],
)
def test_a_deal_of_the_wrong_shape_says_what_a_deal_is(env_id, deal, message):
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})


def test_a_round_deal_may_give_each_hole_as_a_list_or_a_string():
    game = GolfRound()
    as_text = game.from_deal([" ".join(BOOK_DEAL)] * 9)
    assert as_text == game.from_deal([BOOK_DEAL] * 9) == game.from_deal(tuple(tuple(BOOK_DEAL) for _ in range(9)))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("waste"), "lacks waste"),
        (lambda d: d.update(tableau=d["tableau"][:6]), "7 columns"),
        (lambda d: d["tableau"][0].append(d["stock"].pop()), "at most 5"),
        (lambda d: d.update(extra=1), "unknown keys: extra"),
        (lambda d: d["stock"].append("AS"), "too many"),
    ],
)
def test_bad_states_raise_naming_the_problem(mutate, message):
    env = gym.make("patience_gym/Golf-v0")
    env.reset(seed=3)
    data = env.unwrapped.state_dict()
    mutate(data)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"state": data})


def test_state_dict_round_trip_mid_game():
    env = gym.make("patience_gym/Golf-v0")
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    data = env.unwrapped.state_dict()
    other = gym.make("patience_gym/Golf-v0")
    obs, _ = other.reset(options={"state": data})
    assert other.unwrapped.state == env.unwrapped.state
    assert other.unwrapped.state_dict() == data
    np.testing.assert_array_equal(obs, env.unwrapped.game.observe(env.unwrapped.state, "ids"))


GOLF1_BOARD = """Talon: 8H 2C JH 7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H
Foundations: TH
JD 5H KH AS 4H
2D KD 3H AH AC
9H KC 2S 3C 4D
JC 9S KS 4C 7S
5D 5S 9D 5C 3S
7H AD QD TS TD
7C QC JS QH 4S
"""


def test_board_text_import_export_round_trip():
    env = gym.make("patience_gym/Golf-v0")
    env.reset(options={"board": GOLF1_BOARD})
    state = env.unwrapped.state
    assert CODE[state.waste[-1]] == "TH" and CODE[state.stock[state.pos]] == "8H"
    assert [CODE[c] for c in state.columns[6]] == ["7C", "QC", "JS", "QH", "4S"]
    assert env.unwrapped.legal_actions() == [6, DEAL] or 6 not in env.unwrapped.legal_actions()
    assert format_board(env.unwrapped.state_dict()) == GOLF1_BOARD
    # A fresh deal exported and imported again is the same position.
    env.reset(seed=4)
    text = format_board(env.unwrapped.state_dict())
    assert Golf().from_text(text) == env.unwrapped.state


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOLF1_BOARD.replace("Talon:", "Stock:"), "unexpected label"),
        ("\n".join(GOLF1_BOARD.splitlines()[1:]), "no 'Talon:' line"),
        (GOLF1_BOARD.replace("Foundations: TH", "Foundations: TH 9H"), "exactly one card"),
        ("\n".join(GOLF1_BOARD.splitlines()[:-1]), "7 column lines"),
        (GOLF1_BOARD.replace("4S", "5S"), "too many: 5Sx2"),
    ],
)
def test_bad_board_text(text, message):
    with pytest.raises(ValueError, match=message):
        Golf().from_text(text)


@pytest.mark.parametrize(("env_id", "playouts"), [("patience_gym/Golf-v0", 40), ("patience_gym/GolfRound-v0", 4)])
def test_board_text_of_every_position_in_play_round_trips(env_id, playouts):
    """Seeded random playouts: each position's (each hole in play's) board text resets Golf to that hole.

    The text keeps the waste's top card only; the cards it does not name are the played ones under it.
    """
    rng = np.random.default_rng(7)
    env = gym.make(env_id)
    encodings = env.unwrapped.obs_encodings
    boards = {enc: gym.make("patience_gym/Golf-v0", obs_encoding=enc) for enc in encodings}
    states = {enc: gym.make("patience_gym/Golf-v0", obs_encoding=enc) for enc in encodings}
    checked = 0
    for seed in range(playouts):
        _, info = env.reset(seed=seed)
        done = False
        while True:
            full = env.unwrapped.state_dict()
            hole = full.get("hole_state", full)  # a round's board is its hole in play
            text = format_board(full)
            assert text == format_board(hole)
            for enc in encodings:
                obs, board_info = boards[enc].reset(options={"board": text})
                expected, expected_info = states[enc].reset(options={"state": hole})
                np.testing.assert_array_equal(obs, expected)
                np.testing.assert_array_equal(board_info["action_mask"], expected_info["action_mask"])
            read = boards["ids"].unwrapped.state_dict()
            assert {k: read[k] for k in ("tableau", "stock")} == {k: hole[k] for k in ("tableau", "stock")}
            assert read["waste"][-1] == hole["waste"][-1] and sorted(read["waste"]) == sorted(hole["waste"])
            assert format_board(read) == text
            checked += 1
            if done:
                break
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
            done = terminated or truncated
    assert checked > playouts * 20  # every position of every playout, not only the deals


def test_a_round_is_not_played_from_board_text():
    env = gym.make("patience_gym/GolfRound-v0")
    env.reset(seed=1)
    text = format_board(env.unwrapped.state_dict())
    with pytest.raises(ValueError, match="board text holds one Golf hole.*patience_gym/Golf-v0.*'state'"):
        env.reset(options={"board": text})


def test_parse_board_reads_columns_exposed_last():
    data = parse_board(GOLF1_BOARD)
    assert data["tableau"][0] == ["JD", "5H", "KH", "AS", "4H"] and data["waste"] == ["TH"]


def test_action_descriptions_are_a_bijection():
    game = Golf()
    texts = [game.describe_action(a) for a in range(game.num_actions)]
    assert texts == ["c1>w", "c2>w", "c3>w", "c4>w", "c5>w", "c6>w", "c7>w", "deal"]
    for a in range(game.num_actions):
        assert game.action_from_description(game.describe_action(a)) == a
    with pytest.raises(ValueError, match="unknown move 'c8>w'"):
        game.action_from_description("c8>w")


def test_illegal_action_penalize_and_raise():
    env = gym.make("patience_gym/Golf-v0")
    obs, info = env.reset(options={"deal": BOOK_DEAL})
    before = env.unwrapped.state.copy()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert reward == -1 and info2["illegal_action"] and not terminated
    assert env.unwrapped.state == before
    np.testing.assert_array_equal(obs, obs2)
    strict = gym.make("patience_gym/Golf-v0", illegal_action="raise")
    strict.reset(options={"deal": BOOK_DEAL})
    with pytest.raises(IllegalActionError, match=rf"illegal action {illegal} \(c{illegal + 1}>w\).*legal:"):
        strict.step(illegal)


def test_unknown_kwargs_and_options_are_named():
    with pytest.raises(TypeError, match="unknown option 'queen_on_kings'.*queens_on_kings"):
        gym.make("patience_gym/Golf-v0", queen_on_kings=True)
    with pytest.raises(TypeError, match="must be True or False"):
        gym.make("patience_gym/Golf-v0", wrap_ranks="yes")
    with pytest.raises(ValueError, match="unknown obs_encoding 'pixels'"):
        gym.make("patience_gym/Golf-v0", obs_encoding="pixels")
    with pytest.raises(ValueError, match="unknown illegal_action"):
        gym.make("patience_gym/Golf-v0", illegal_action="ignore")
    env = gym.make("patience_gym/Golf-v0")
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"deals": BOOK_DEAL})


def test_observation_shows_links_waste_and_stock_count_only():
    env = gym.make("patience_gym/Golf-v0")
    obs, _ = env.reset(options={"deal": BOOK_DEAL})
    assert obs.shape == (37,) and obs.dtype == np.int8
    assert list(obs[:35]) == [parse_card(c) + 1 for c in BOOK_DEAL[:35]]
    assert obs[35] == parse_card("7H") + 1 and obs[36] == 16
    # Two deals that differ only in the face-down stock order look the same.
    shuffled = BOOK_DEAL[:36] + BOOK_DEAL[36:][::-1]
    obs_b, _ = env.reset(options={"deal": shuffled})
    np.testing.assert_array_equal(obs, obs_b)
    planes = gym.make("patience_gym/Golf-v0", obs_encoding="planes")
    pa, _ = planes.reset(options={"deal": BOOK_DEAL})
    pb, _ = planes.reset(options={"deal": shuffled})
    np.testing.assert_array_equal(pa, pb)
    assert planes.observation_space.contains(pa)


def test_planes_encode_each_card_location():
    game = Golf()
    state = game.from_deal(BOOK_DEAL)
    obs = game.observe(state, "planes").reshape(-1)[:-1].reshape(52, 15)
    card = parse_card(BOOK_DEAL[4 * 7 + 2])  # exposed card of column 3
    assert obs[card, 2] == 1 and obs[card, 7 + 4] == 1 and obs[card, 12] == 1
    waste = parse_card("7H")
    assert obs[waste, 13] == 1 and obs[waste, 14] == 1
    assert obs[parse_card("4C")].sum() == 0  # still face down


def test_round_plays_nine_holes_and_reports_scores():
    env = gym.make("patience_gym/GolfRound-v0")
    obs, info = env.reset(seed=2)
    assert obs.shape == (38,) and obs[-1] == 0 and info["hole"] == 1
    rng = np.random.default_rng(0)
    done, total, holes_seen = False, 0.0, set()
    while not done:
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        total += reward
        holes_seen.add(int(obs[-1]))
        game, state = env.unwrapped.game, env.unwrapped.state
        assert game.part(state) == info["hole"] - 1  # the part in play: the hole, from 0
        assert game.stage(state)[0].part(game.stage(state)[1]) == 0  # a hole is a game of one part
        assert not truncated
    assert holes_seen == set(range(9))
    assert len(info["hole_scores"]) == 9 and info["score"] == sum(info["hole_scores"])
    assert total == 9 * 35 - info["score"]
    assert info["won"] == (info["score"] <= 40)


def test_round_deal_option_and_state_round_trip():
    game = GolfRound()
    deals = [BOOK_DEAL] * 9
    state = game.from_deal(deals)
    for _ in range(3):
        game.apply(state, DEAL)
    restored = game.from_dict(game.to_dict(state))
    assert restored == state and game.to_dict(restored) == game.to_dict(state)
    with pytest.raises(ValueError, match="list of 9 deals"):
        game.from_deal(BOOK_DEAL)


def test_round_replays_book_hole_nine_times():
    env = gym.make("patience_gym/GolfRound-v0")
    _, info = env.reset(options={"deal": [BOOK_DEAL] * 9})
    game = env.unwrapped.game.hole_game
    for _hole in range(9):
        for i, (_, plays) in enumerate(BOOK_PLAYS):
            if i > 0:
                _, _, done, _, info = env.step(DEAL)
            for card in plays.split():
                _, _, done, _, info = env.step(column_of(game, env.unwrapped.state.hole_state, card))
    assert done and info["hole_scores"] == [14] * 9 and info["score"] == 126


def test_ansi_render_shows_cards_and_moves():
    env = gym.make("patience_gym/Golf-v0", render_mode="ansi")
    env.reset(options={"deal": BOOK_DEAL})
    text = env.render()
    assert "waste: 7H" in text and "stock: 16" in text and "moves: " in text
    assert text.splitlines()[5].split()[0] == BOOK_DEAL[28]


def _longest_run_by_brute_force(game: Golf, state, first: int) -> int:
    """Plays in a row (no deal) starting with column ``first``, by trying every sequence through ``step``."""
    if not game.legal_mask(state)[first]:
        return 0
    after = state.copy()
    game.apply(after, first)
    rest = [_longest_run_by_brute_force(game, after, c) for c in range(DEAL)]
    return 1 + max(rest)


def test_runs_encoding_gives_each_columns_longest_run_and_hides_the_stock():
    game = Golf()
    rng = np.random.default_rng(7)
    checked = 0
    for seed in range(40):
        state = game.init(np.random.default_rng(seed))
        for _ in range(int(rng.integers(0, 25))):
            if game.is_over(state):
                break
            game.apply(state, int(rng.choice(game.legal_actions(state))))
        if game.is_over(state):
            continue
        obs = observe(game, state, "runs")
        assert obs[: 52 * 15 + 1].tolist() == game.observe(state, "planes").tolist()
        features = obs[52 * 15 + 1 :].reshape(7, 3)
        for c in range(7):
            assert round(features[c, 0] * 35) == _longest_run_by_brute_force(game, state, c)
            assert features[c, 2] == pytest.approx(len(state.columns[c]) / 5)
        checked += 1
    assert checked > 30
    # Only visible cards count: the face-down stock order changes nothing.
    env = gym.make("patience_gym/Golf-v0", obs_encoding="runs")
    a, _ = env.reset(options={"deal": BOOK_DEAL})
    b, _ = env.reset(options={"deal": BOOK_DEAL[:36] + BOOK_DEAL[36:][::-1]})
    np.testing.assert_array_equal(a, b)
    assert env.observation_space.contains(a)
