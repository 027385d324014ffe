"""``rules_moves`` of the Miss Milligan family: each field of a row on hand-built positions, the overflow
flag, the hidden stock, and the batched engine's rows against the single env's on the same positions.

(Whole games, the batched engine against the single env: tests/vector/test_vector_agreement.py.)
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401 - registers the envs
import patience_gym.features.rules.layout as L
from patience_gym.cards import parse_card
from patience_gym.features.milligan import ENCODINGS
from patience_gym.features.rules.milligan import (
    KIND_COLUMN,
    KIND_EMPTY_COLUMN,
    KIND_EVERY_COLUMN,
    KIND_FOUNDATION,
    KIND_POCKET,
    KIND_STOCK,
    KIND_WAIVER,
    SLOTS,
    RulesMovesObserver,
)
from patience_gym.games.golf import Golf
from patience_gym.games.milligan import (
    PLANES_SIZE,
    Giant,
    MilliganGame,
    MilliganState,
    MissMilligan,
    MissMilliganPocket,
)
from patience_gym.games.milligan_tables import NUM_ACTIONS
from patience_gym.vector.milligan import BatchedGiant, BatchedMilligan, BatchedMissMilligan, BatchedMissMilliganPocket

HIGH = (9,) * 8  # every foundation at 9: only the Tens to Kings are left
FIRST_ROW = PLANES_SIZE + L.POSITION_VALUES
ENGINES: dict[type[MilliganGame], type[BatchedMilligan]] = {
    MissMilligan: BatchedMissMilligan,
    Giant: BatchedGiant,
    MissMilliganPocket: BatchedMissMilliganPocket,
}


def c(code: str) -> int:
    """A card's value in a card field (card + 1)."""
    return parse_card(code) + 1


def observe(game: MilliganGame, state: MilliganState, slots: int = SLOTS) -> np.ndarray:
    return RulesMovesObserver(game, slots).observe(state)


def row(game: MilliganGame, state: MilliganState, move: str) -> np.ndarray:
    """The row of ``move`` (its notation) in the observation of ``state``."""
    action = game.action_from_description(move)
    rows = observe(game, state)[FIRST_ROW:].reshape(SLOTS, L.ROW)
    found = np.flatnonzero(rows[:, L.ACTION] == np.float32((action + 1) / NUM_ACTIONS))
    assert len(found) == 1, f"{move} has no row"
    return rows[found[0]]


def assert_row(values: np.ndarray, **want: float | list[int]) -> None:
    """Every field of the row: those named in ``want`` (layout names, lower case) as given, the rest 0."""
    expected = np.zeros(L.ROW, dtype=np.float32)
    for name, value in want.items():
        if name == "source_next":
            expected[L.SOURCE_NEXT : L.SOURCE_NEXT + L.NEXT_CARDS] = value
        else:
            expected[getattr(L, name.upper())] = value
    assert values.tolist() == expected.tolist(), [
        (i, float(a), float(b)) for i, (a, b) in enumerate(zip(values, expected)) if a != b
    ]


@pytest.fixture
def packet_position(milligan_position: Any) -> tuple[MissMilligan, MilliganState]:
    """Miss Milligan, two deals left: c1 KD 9S 8H 7C, c2 5D 9C, hearts foundations at 5 and 3."""
    game = MissMilligan()
    return game, milligan_position(
        game, ["KD 9S 8H 7C", "5D 9C", "", "", "", "", "", "2S"], (0, 0, 0, 0, 5, 3, 0, 0), 16
    )


@pytest.fixture
def late_giant(milligan_position: Any) -> tuple[Giant, MilliganState]:
    """Giant, the stock out, every foundation at 9: c1 KC QD, c2 JS, c3 TH, c4-c7 empty, c8 ending in KS."""
    game = Giant()
    return game, milligan_position(game, ["KC QD", "JS", "TH", "", "", "", "", "KS"], HIGH)


# --- the rows ------------------------------------------------------------------------------------------------
def test_a_packet_move_row(packet_position: tuple[MissMilligan, MilliganState]) -> None:
    game, state = packet_position
    assert [game.describe_action(a) for a in game.legal_actions(state)] == ["c1>c2x2", "deal"]
    # After it, only the deal: moving 8H 7C back onto 9S would recreate the position just left (progress rule).
    assert_row(
        row(game, state, "c1>c2x2"),
        action=(game.action_from_description("c1>c2x2") + 1) / NUM_ACTIONS,
        source_kind=KIND_COLUMN,
        dest_kind=KIND_COLUMN,
        source_index=0,
        dest_index=1,
        moved=c("8H"),
        moved_top=c("7C"),
        onto=c("9C"),
        uncovers=c("9S"),
        source_next=[c("KD"), 0, 0, 0],
        count=2 / 52,
        wait=2 / 13,  # 8H: the hearts piles need a 6 and a 4 next
        source_left=2 / 52,
        dest_after=4 / 52,
        after_legal=1 / SLOTS,
        game_value=16 / 96,
    )


def test_a_deal_shows_hidden_cards_and_reveals(packet_position: tuple[MissMilligan, MilliganState]) -> None:
    game, state = packet_position
    assert_row(
        row(game, state, "deal"),
        action=1.0,
        source_kind=KIND_STOCK,
        dest_kind=KIND_EVERY_COLUMN,
        moved=L.HIDDEN_CARD,
        moved_top=L.HIDDEN_CARD,
        uncovers=L.HIDDEN_CARD,
        source_next=[L.HIDDEN_CARD] * 4,
        count=8 / 52,
        wait=1.0,
        source_left=8 / 52,
        dest_after=1.0,  # the longest column (the rest of the cards) after the deal, capped
        reveals=1.0,
        game_value=8 / 96,
    )


def test_the_last_deal_uncovers_nothing(milligan_position: Any) -> None:
    game = MissMilligan()
    state = milligan_position(game, ["KC QD", "JS", "TH", "", "", "", "", "KS"], HIGH, stock=8)
    assert len(state.columns[7]) == 20  # 32 cards left, 8 in the stock, 4 placed in c1-c3
    assert_row(
        row(game, state, "deal"),
        action=1.0,
        source_kind=KIND_STOCK,
        dest_kind=KIND_EVERY_COLUMN,
        moved=L.HIDDEN_CARD,
        moved_top=L.HIDDEN_CARD,
        count=8 / 52,
        wait=1.0,
        dest_after=21 / 52,
        reveals=1.0,
    )


def test_to_a_foundation_and_a_repeat_left_out_of_after_legal(late_giant: tuple[Giant, MilliganState]) -> None:
    game, state = late_giant
    assert_row(
        row(game, state, "c3>f"),
        action=(game.action_from_description("c3>f") + 1) / NUM_ACTIONS,
        source_kind=KIND_COLUMN,
        dest_kind=KIND_FOUNDATION,
        source_index=2,
        dest_index=4,  # both hearts piles at 9: the odd slot f5 takes it
        moved=c("TH"),
        moved_top=c("TH"),
        onto=c("9H"),
        count=1 / 52,
        foundation=10 / 13,
        dest_after=10 / 52,
        after_legal=len(game.legal_actions(played(game, state, "c3>f"))) / SLOTS,
    )
    # JS onto QD: 49 moves after it, not 50: JS back into the vacancy would recreate this position.
    after = played(game, state, "c2>c1")
    moves = [game.describe_action(a) for a in game.legal_actions(after)]
    assert len(moves) == 49 and "c1>c2" not in moves and {"c1>c2x2", "c1>c2x3"} <= set(moves)
    fresh = after.copy()
    fresh.seen, fresh.mask, fresh.acts = {after.hash}, None, None
    assert len(game.legal_actions(fresh)) == 50
    assert row(game, state, "c2>c1")[L.AFTER_LEGAL] == np.float32(49 / SLOTS)


def test_a_foundation_top_coming_down(late_giant: tuple[Giant, MilliganState]) -> None:
    game, state = late_giant
    common = {
        "action": 0.0,
        "source_kind": KIND_FOUNDATION,
        "source_index": 1,  # f2: with both clubs piles at 9 only the even slot comes down
        "moved": c("9C"),
        "moved_top": c("9C"),
        "uncovers": c("8C"),
        "source_next": [c("7C"), c("6C"), c("5C"), c("4C")],
        "count": 1 / 52,
        "wait": 1.0,  # no clubs pile is below a 9
        "source_left": 8 / 52,
    }
    for move, dest in (("f2>c3", {"dest_kind": KIND_COLUMN, "dest_index": 2, "onto": c("TH"), "dest_after": 2 / 52}),
                       ("f2>c4", {"dest_kind": KIND_EMPTY_COLUMN, "dest_index": 3, "dest_after": 1 / 52})):  # fmt: skip
        action = game.action_from_description(move)
        after_legal = len(game.legal_actions(played(game, state, move))) / SLOTS
        want = {**common, **dest, "action": (action + 1) / NUM_ACTIONS, "after_legal": after_legal}
        assert_row(row(game, state, move), **want)


def test_waived_cards_out_and_back(milligan_position: Any) -> None:
    game = MissMilligan(waive_sequences=True)
    state = milligan_position(game, ["KC", "QD", "", "", "", "", "", "KS"], HIGH, reserve="JS TH", origin=0)
    common = {"source_kind": KIND_WAIVER, "moved": c("JS"), "moved_top": c("TH"), "count": 2 / 52, "wait": 1 / 13}
    common |= {"dest_kind": KIND_COLUMN, "dest_after": 3 / 52}
    for move, onto, index in (("w>c2x2", "QD", 1), ("w>c1x2", "KC", 0)):  # onto QD; restored onto KC, not fitting
        action = game.action_from_description(move)
        after_legal = len(game.legal_actions(played(game, state, move))) / SLOTS
        assert_row(row(game, state, move), action=(action + 1) / NUM_ACTIONS, onto=c(onto), dest_index=index,
                   after_legal=after_legal, **common)  # fmt: skip
    values = row(game, state, "w>f")
    assert values[[L.SOURCE_KIND, L.MOVED, L.UNCOVERS, L.DEST_KIND, L.DEST_INDEX]].tolist() == [
        KIND_WAIVER, c("TH"), c("JS"), KIND_FOUNDATION, 4
    ]  # fmt: skip
    assert values[L.SOURCE_LEFT] == np.float32(1 / 52)
    waived = milligan_position(game, ["KC", "QD JS", "", "", "", "", "", "KS"], HIGH)
    values = row(game, waived, "c2>w")
    assert values[[L.SOURCE_KIND, L.SOURCE_INDEX, L.DEST_KIND, L.MOVED, L.UNCOVERS]].tolist() == [
        KIND_COLUMN, 1, KIND_WAIVER, c("JS"), c("QD")
    ]  # fmt: skip
    assert values[L.DEST_AFTER] == np.float32(1 / 52)


def test_the_pocket(milligan_position: Any) -> None:
    game = MissMilliganPocket()
    held = milligan_position(game, ["KC", "QD", "JS", "", "", "", "", "KS"], HIGH, reserve="TH")
    values = row(game, held, "p>c3")
    assert values[[L.SOURCE_KIND, L.DEST_KIND, L.DEST_INDEX, L.MOVED, L.ONTO, L.UNCOVERS]].tolist() == [
        KIND_POCKET, KIND_COLUMN, 2, c("TH"), c("JS"), 0
    ]  # fmt: skip
    empty = milligan_position(game, ["KC", "QD", "JS", "", "", "", "", "KS"], HIGH)
    values = row(game, empty, "c3>p")
    assert values[[L.SOURCE_KIND, L.SOURCE_INDEX, L.DEST_KIND, L.MOVED, L.UNCOVERS]].tolist() == [
        KIND_COLUMN, 2, KIND_POCKET, c("JS"), 0
    ]  # fmt: skip


def played(game: MilliganGame, state: MilliganState, move: str) -> MilliganState:
    child = state.copy()
    game.apply(child, game.action_from_description(move))
    return child


# --- the position values and the overflow flag -------------------------------------------------------------
def test_rows_follow_action_order_and_the_planes_come_first(late_giant: tuple[Giant, MilliganState]) -> None:
    game, state = late_giant
    obs = observe(game, state)
    legal = game.legal_actions(state)
    assert np.array_equal(obs[:PLANES_SIZE], game.observe(state, "planes"))
    assert obs[PLANES_SIZE:FIRST_ROW].tolist() == [0.0, np.float32(len(legal) / SLOTS)]
    rows = obs[FIRST_ROW:].reshape(SLOTS, L.ROW)
    assert rows[: len(legal), L.ACTION].tolist() == [np.float32((a + 1) / NUM_ACTIONS) for a in legal]
    assert not rows[len(legal) :].any()


def test_overflow_sets_the_flag_and_lists_the_first_moves(packet_position: tuple[MissMilligan, MilliganState]) -> None:
    game, state = packet_position
    full = observe(game, state, slots=2)
    assert full[PLANES_SIZE:FIRST_ROW].tolist() == [0.0, 1.0]
    over = observe(game, state, slots=1)
    assert over[PLANES_SIZE:FIRST_ROW].tolist() == [1.0, 1.0]
    assert over.shape == (L.size(PLANES_SIZE, 1),)
    assert over[FIRST_ROW + L.ACTION] == np.float32((game.action_from_description("c1>c2x2") + 1) / NUM_ACTIONS)


def test_a_position_past_the_default_slots_overflows(milligan_position: Any) -> None:
    """Giant: four whole King-to-Ace sequences and three vacancies, 165 legal moves."""
    game = Giant()
    runs = ["KH QS JH TS 9H 8S 7H 6S 5H 4S 3H 2S AH", "KS QH JS TH 9S 8H 7S 6H 5S 4H 3S 2H AS",
            "KD QC JD TC 9D 8C 7D 6C 5D 4C 3D 2C AD", "KC QD JC TD 9C 8D 7C 6D 5C 4D 3C 2D AC"]  # fmt: skip
    state = milligan_position(game, [*runs, "", "", "", "2S"])
    legal = game.legal_actions(state)
    assert len(legal) == 165
    obs = observe(game, state)
    assert obs[PLANES_SIZE:FIRST_ROW].tolist() == [1.0, 1.0]
    rows = obs[FIRST_ROW:].reshape(SLOTS, L.ROW)
    assert rows[:, L.ACTION].tolist() == [np.float32((a + 1) / NUM_ACTIONS) for a in legal[:SLOTS]]
    assert_same_in_the_batched_engine(game, state)


# --- hidden cards --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", [MissMilligan(), Giant(), MissMilliganPocket()], ids=lambda g: g.name)
def test_the_stock_order_is_never_read(game: MilliganGame) -> None:
    """Positions of random games, and the same with the stock shuffled, give the same observation."""
    rng = np.random.default_rng(5)
    observer = RulesMovesObserver(game)
    checked = 0
    for deal in range(3):
        state = game.init(np.random.default_rng(deal))
        for _ in range(120):
            legal = game.legal_actions(state)
            if not legal:
                break
            if state.stock_left:
                data = game.to_dict(state)
                data["stock"] = list(rng.permutation(data["stock"]))
                other = game.from_dict(data)
                assert other.stock != state.stock
                assert np.array_equal(observer.observe(other), observer.observe(state))
                checked += 1
            held = [a for a in legal if a != legal[-1]] if rng.random() > 0.2 else legal
            game.apply(state, int(rng.choice(held or legal)))
    assert checked > 100


# --- the batched engine ------------------------------------------------------------------------------------
def assert_same_in_the_batched_engine(game: MilliganGame, state: MilliganState) -> None:
    engine = ENGINES[type(game)](2, obs_encoding=L.ENCODING, **dataclasses.asdict(game.options))
    engine.load_state(1, state)
    assert np.array_equal(engine.observe()[1], observe(game, state))


def test_the_batched_engine_writes_the_same_rows_on_the_hand_built_positions(
    packet_position: tuple[MissMilligan, MilliganState], late_giant: tuple[Giant, MilliganState], milligan_position: Any
) -> None:
    positions = [packet_position, late_giant, (*late_giant[:1], played(*late_giant, "c2>c1"))]
    waiver = MissMilligan(waive_sequences=True)
    positions.append((waiver, milligan_position(waiver, ["KC", "QD", "", "", "", "", "", "KS"], HIGH, reserve="JS TH",
                                                origin=0)))  # fmt: skip
    pocket = MissMilliganPocket()
    positions.append((pocket, milligan_position(pocket, ["KC", "QD", "JS", "", "", "", "", "KS"], HIGH, reserve="TH")))
    for game, state in positions:
        assert_same_in_the_batched_engine(game, state)


# --- the encoding in the env -------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["patience_gym/MissMilligan-v0", "patience_gym/Giant-v0",
                                    "patience_gym/MissMilliganPocket-v0"])  # fmt: skip
def test_the_env_serves_rules_moves(env_id: str) -> None:
    env = gym.make(env_id, obs_encoding=L.ENCODING)
    obs, info = env.reset(seed=1)
    size = L.size(PLANES_SIZE, SLOTS)
    assert env.observation_space.shape == (size,) and env.observation_space.contains(obs)
    observer: Any = env.unwrapped.observer  # type: ignore[attr-defined]
    assert dict(observer.layout) == {
        "global_size": FIRST_ROW,
        "move_features": L.ROW - 1,
        "num_actions": NUM_ACTIONS,
    }
    legal = np.flatnonzero(info["action_mask"])
    assert obs[FIRST_ROW : FIRST_ROW + len(legal) * L.ROW : L.ROW].tolist() == [
        np.float32((a + 1) / NUM_ACTIONS) for a in legal
    ]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError, match="Miss Milligan features need a game of that family, got golf"):
        ENCODINGS[L.ENCODING](Golf())
    with pytest.raises(ValueError, match="slots must be a positive integer, got 0"):
        RulesMovesObserver(MissMilligan(), 0)
    with pytest.raises(ValueError, match="slots must be a positive integer, got True"):
        RulesMovesObserver(MissMilligan(), True)
