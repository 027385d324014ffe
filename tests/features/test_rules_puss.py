"""Puss in the Corner's ``rules_moves``: each field of the rows of known moves on hand-built positions,
the remembered pack order, the position values, overflow, the hidden cards never read, and the batched
engine's rows the same."""

from __future__ import annotations

import ast
import dataclasses
import inspect

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.cards import parse_card
from patience_gym.features.puss import MovesObserver
from patience_gym.features.rules import layout as rl
from patience_gym.features.rules import puss as rules_puss
from patience_gym.features.rules.puss import (
    FOUNDATION_KIND,
    HAND_KIND,
    ORDER_END,
    PACK_KIND,
    PACKET_KIND,
    PAIRS_KIND,
    SLOTS,
    RulesMovesObserver,
)
from patience_gym.games.puss import DEAL, NUM_ACTIONS, PLANES_SIZE, PussInTheCorner
from patience_gym.vector.puss import BatchedPuss, _planes_kernel, _rules_kernel

ENV_ID = "patience_gym/PussInTheCorner-v0"
ROWS_AT = ORDER_END + rl.POSITION_VALUES


def card(code: str) -> int:
    """The card field of ``code`` (card id + 1)."""
    return parse_card(code) + 1


def rows_of(observer: RulesMovesObserver, state) -> dict[int, np.ndarray]:
    """The observation's rows by action (asserting the unused rows are all zero)."""
    obs = observer.observe(state)
    rows = obs[ROWS_AT:].reshape(observer.slots, rl.ROW)
    used = rows[rows[:, rl.ACTION] > 0]
    assert not rows[len(used) :].any()
    return {round(float(r[rl.ACTION]) * NUM_ACTIONS) - 1: r for r in used}


def assert_row(row: np.ndarray, **fields: float | list[float]) -> None:
    """Every field of ``row`` is as named (float32 of the value), the unnamed ones 0."""
    want = np.zeros(rl.ROW, dtype=np.float32)
    for name, value in fields.items():
        at = getattr(rl, name)
        if isinstance(value, list):
            want[at : at + len(value)] = value
        else:
            want[at] = value
    np.testing.assert_array_equal(row, want)


def row_for(game: PussInTheCorner, state, text: str, slots: int = SLOTS) -> tuple[int, np.ndarray]:
    action = game.action_from_description(text)
    return action, rows_of(RulesMovesObserver(game, slots), state)[action]


def test_the_env_offers_rules_moves_with_the_shared_layout():
    env = gym.make(ENV_ID, obs_encoding="rules_moves")
    observer = env.unwrapped.observer
    assert isinstance(observer, RulesMovesObserver) and observer.slots == SLOTS == 36
    assert ORDER_END == PLANES_SIZE + 52
    assert env.observation_space.shape == (rl.size(ORDER_END, SLOTS),) == (1440,)
    assert dict(observer.layout) == rl.layout(ORDER_END, SLOTS, NUM_ACTIONS)
    assert observer.layout["global_size"] == PLANES_SIZE + 52 + 2
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs[:PLANES_SIZE], env.unwrapped.game.observe_planes(env.unwrapped.state))
    for bad in (0, -3, 2.5, True, "36"):
        with pytest.raises(ValueError, match=f"slots must be a positive integer, got {bad!r}"):
            RulesMovesObserver(env.unwrapped.game, bad)  # type: ignore[arg-type]


def test_the_module_imports_nothing_from_the_heuristics():
    tree = ast.parse(inspect.getsource(rules_puss))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert "patience_gym.games.puss" in names
    assert not [n for n in names if "heuristics" in n]


def test_the_deal_turns_a_hidden_card(puss_make_state):
    game, state = puss_make_state()  # the start: all 48 cards in the pack
    observer = RulesMovesObserver(game)
    obs = observer.observe(state)
    np.testing.assert_array_equal(obs[ORDER_END:ROWS_AT], np.float32([0.0, 1 / 36]))
    assert_row(
        rows_of(observer, state)[DEAL],
        ACTION=1 / 53,
        SOURCE_KIND=PACK_KIND,
        DEST_KIND=HAND_KIND,
        MOVED=rl.HIDDEN_CARD,
        MOVED_TOP=rl.HIDDEN_CARD,
        UNCOVERS=rl.HIDDEN_CARD,
        SOURCE_NEXT=[rl.HIDDEN_CARD] * 4,
        COUNT=1 / 52,
        SOURCE_LEFT=47 / 52,
        DEST_AFTER=1 / 52,
        REVEALS=1.0,
        GAME_VALUE=47 / 48,
    )


@pytest.mark.parametrize(("left", "below"), [(3, [rl.HIDDEN_CARD]), (2, []), (1, None)])
def test_the_first_pass_deal_near_the_end_of_the_pack(puss_make_state, left, below):
    pack = "2C 3C 4C"[: 3 * left - 1]
    game, state = puss_make_state(pack=pack, rest="D")
    row = rows_of(RulesMovesObserver(game), state)[DEAL]
    assert row[rl.UNCOVERS] == (rl.NO_CARD if below is None else rl.HIDDEN_CARD)
    assert list(row[rl.SOURCE_NEXT : rl.SOURCE_NEXT + 4]) == (below or []) + [0] * (4 - len(below or []))
    assert (row[rl.SOURCE_LEFT], row[rl.GAME_VALUE]) == (np.float32((left - 1) / 52), np.float32((left - 1) / 48))
    assert (row[rl.REVEALS], row[rl.AFTER_LEGAL]) == (1.0, 0.0)
    assert (row[rl.MOVED], row[rl.MOVED_TOP], row[rl.WAIT]) == (rl.HIDDEN_CARD, rl.HIDDEN_CARD, 0.0)


def test_the_second_pass_deal_shows_the_remembered_cards(puss_make_state):
    # the second pass: the pack is the packets taken up, whose order the player remembers
    game, state = puss_make_state(corners=("KS 3S", "", "", "QC"), pack="9H 2D 5D 2H 3C 4C 6S", rest="D", pass_no=2)
    observer = RulesMovesObserver(game)
    rows = rows_of(observer, state)
    assert sorted(rows) == [DEAL]  # no packet top fits a foundation
    # after the deal the 9H waits for a packet (it fits no foundation): dealt>A..D
    assert_row(
        rows[DEAL],
        ACTION=1 / 53,
        SOURCE_KIND=PACK_KIND,
        DEST_KIND=HAND_KIND,
        MOVED=card("9H"),
        MOVED_TOP=card("9H"),
        UNCOVERS=card("2D"),
        SOURCE_NEXT=[card("5D"), card("2H"), card("3C"), card("4C")],
        COUNT=1 / 52,
        WAIT=7 / 13,  # both red piles need a 2 first
        SOURCE_LEFT=6 / 52,
        DEST_AFTER=1 / 52,
        AFTER_LEGAL=4 / 36,
        GAME_VALUE=6 / 48,
    )
    # the last two cards, once the 2D is placed: the 3C uncovers the 4C, with nothing under it
    game, state = puss_make_state(corners=("KS 3S", "", "", "QC"), hand="2D", pack="3C 4C", rest="D", pass_no=2)
    game.apply(state, game.action_from_description("dealt>f2"))
    row = rows_of(RulesMovesObserver(game), state)[DEAL]
    assert list(row[rl.MOVED : rl.SOURCE_NEXT + 4]) == [card("3C"), card("3C"), 0, card("4C"), 0, 0, 0, 0]
    assert (row[rl.REVEALS], row[rl.SOURCE_LEFT], row[rl.GAME_VALUE]) == (0.0, np.float32(1 / 52), np.float32(1 / 48))
    assert row[rl.AFTER_LEGAL] == np.float32(4 / 36)  # the 3C fits no pile (AC has no 2): dealt>A..D


def test_placing_the_dealt_card_on_a_packet(puss_make_state):
    game, state = puss_make_state(corners=("9H 6D", "", "", ""), hand="5C", pack="2D 3D", rest="D")
    rows = rows_of(RulesMovesObserver(game), state)
    assert sorted(rows) == [1, 2, 3, 4]  # dealt>A..D: the 5C fits no foundation
    common = dict(SOURCE_KIND=HAND_KIND, DEST_KIND=PACKET_KIND, MOVED=card("5C"), MOVED_TOP=card("5C"))
    # 5C waits for the 2, 3, 4 of a black pile; after it only the deal (2D is face down) is legal
    common |= dict(COUNT=1 / 52, WAIT=3 / 13, AFTER_LEGAL=1 / 36, GAME_VALUE=2 / 48)
    assert_row(rows[1], ACTION=2 / 53, DEST_INDEX=0, ONTO=card("6D"), DEST_AFTER=3 / 52, **common)
    assert_row(rows[2], ACTION=3 / 53, DEST_INDEX=1, DEST_AFTER=1 / 52, **common)


def test_placing_the_dealt_card_on_a_foundation(puss_make_state):
    game, state = puss_make_state(foundations=("AC", "AD 2D", "AH", "AS"), corners=("3H", "", "", ""), hand="2H")
    rows = rows_of(RulesMovesObserver(game), state)
    assert sorted(rows) == [7]  # forced: only dealt>f3 (the 2H fits the AH; the AD pile needs a 3)
    # after it, the 3H on packet A fits f2 and f3 and the deal is legal: 3 moves
    assert_row(
        rows[7],
        ACTION=8 / 53,
        SOURCE_KIND=HAND_KIND,
        DEST_KIND=FOUNDATION_KIND,
        DEST_INDEX=2,
        MOVED=card("2H"),
        MOVED_TOP=card("2H"),
        ONTO=card("AH"),
        COUNT=1 / 52,
        FOUNDATION=2 / 13,
        DEST_AFTER=2 / 52,
        AFTER_LEGAL=3 / 36,
        GAME_VALUE=state.pack_left / 48,
    )


def test_a_packet_top_onto_a_foundation_uncovers_the_next_cards(puss_make_state):
    game, state = puss_make_state(corners=("KS QD JH TS 9C 3H 2C", "", "", ""))
    action, row = row_for(game, state, "A>f1")
    assert action == 9
    assert_row(
        row,
        ACTION=10 / 53,
        SOURCE_KIND=PACKET_KIND,
        SOURCE_INDEX=0,
        DEST_KIND=FOUNDATION_KIND,
        DEST_INDEX=0,
        MOVED=card("2C"),
        MOVED_TOP=card("2C"),
        ONTO=card("AC"),
        UNCOVERS=card("3H"),
        SOURCE_NEXT=[card("9C"), card("TS"), card("JH"), card("QD")],
        COUNT=1 / 52,
        FOUNDATION=2 / 13,
        SOURCE_LEFT=6 / 52,
        DEST_AFTER=2 / 52,
        AFTER_LEGAL=1 / 36,  # the 3H fits no red pile yet: only the deal
        GAME_VALUE=state.pack_left / 48,
    )
    # the same card to the spade pile; fewer cards under it than NEXT_CARDS
    game, state = puss_make_state(corners=("", "", "", "4D 3H 2C"))
    _, row = row_for(game, state, "D>f4")
    assert (row[rl.SOURCE_INDEX], row[rl.DEST_INDEX], row[rl.ONTO]) == (3, 3, card("AS"))
    assert list(row[rl.UNCOVERS : rl.SOURCE_NEXT + 4]) == [card("3H"), card("4D"), 0, 0, 0]


def test_merges_of_the_sevens_privilege(puss_make_state):
    game, state = puss_make_state(corners=("QS JD", "9C 8H", "KH 4S", "8D"), hand="7C", seven=True)
    observer = RulesMovesObserver(game)
    obs = observer.observe(state)
    assert len(rows_of(observer, state)) == 28  # dealt>A..D and the 24 merges
    np.testing.assert_array_equal(obs[ORDER_END:ROWS_AT], np.float32([0.0, 28 / 36]))
    action, row = row_for(game, state, "B on A")
    # after the merge the 7C is still to place: dealt>A..D
    assert_row(
        row,
        ACTION=(action + 1) / 53,
        SOURCE_KIND=PACKET_KIND,
        SOURCE_INDEX=1,
        DEST_KIND=PACKET_KIND,
        DEST_INDEX=0,
        MOVED=card("9C"),
        MOVED_TOP=card("8H"),
        ONTO=card("JD"),
        COUNT=2 / 52,
        WAIT=7 / 13,
        DEST_AFTER=4 / 52,
        AFTER_LEGAL=4 / 36,
        GAME_VALUE=state.pack_left / 48,
    )
    action, row = row_for(game, state, "B on A, D on C")
    assert_row(
        row,
        ACTION=(action + 1) / 53,
        SOURCE_KIND=PAIRS_KIND,
        SOURCE_INDEX=1,
        DEST_KIND=PAIRS_KIND,
        DEST_INDEX=0,
        MOVED=card("9C"),
        MOVED_TOP=card("8H"),
        ONTO=card("JD"),
        COUNT=3 / 52,  # both pairs: 9C 8H, and 8D
        WAIT=7 / 13,
        DEST_AFTER=4 / 52,
        AFTER_LEGAL=4 / 36,
        GAME_VALUE=state.pack_left / 48,
    )


def test_taking_up_the_packets_for_the_redeal(puss_end_of_first_pass):
    game, state = puss_end_of_first_pass()  # A: KS 3S, B: 9H 5D 2H, D: the 40 other cards under the QC
    d = len(state.corners[3])
    observer = RulesMovesObserver(game)
    action, row = row_for(game, state, "take A")
    assert_row(
        row,
        ACTION=(action + 1) / 53,
        SOURCE_KIND=PACKET_KIND,
        SOURCE_INDEX=0,
        DEST_KIND=PACK_KIND,
        MOVED=card("KS"),
        MOVED_TOP=card("3S"),
        SOURCE_NEXT=[card("KS"), card("3S"), 0, 0],  # dealt in this order on the second pass
        COUNT=2 / 52,
        WAIT=10 / 13,  # the AS pile needs 2..Q first (the clubs pile is at 3)
        DEST_AFTER=2 / 52,
        AFTER_LEGAL=2 / 36,  # take B, take D
        GAME_VALUE=2 / 48,
    )
    game.apply(state, action)
    rows = rows_of(observer, state)
    assert sorted(rows) == [50, 52]
    # B taken up: D, the last packet, follows at once; the second pass starts with only the deal legal
    assert_row(
        rows[50],
        ACTION=51 / 53,
        SOURCE_KIND=PACKET_KIND,
        SOURCE_INDEX=1,
        DEST_KIND=PACK_KIND,
        MOVED=card("9H"),
        MOVED_TOP=card("2H"),
        ONTO=card("3S"),  # the last card taken up before: the player saw it go
        SOURCE_NEXT=[card("9H"), card("5D"), card("2H"), 0],
        COUNT=(3 + d) / 52,
        WAIT=7 / 13,
        DEST_AFTER=(5 + d) / 52,
        AFTER_LEGAL=1 / 36,
        GAME_VALUE=(5 + d) / 48,
    )
    assert rows[52][rl.SOURCE_NEXT] == rows[52][rl.MOVED] == card(game.to_dict(state)["corners"][3][0])


def test_overflow_keeps_the_first_moves_and_sets_the_flag(puss_make_state):
    game, state = puss_make_state(
        corners=("QS JD", "9C 8H", "KH 4S", "8D"), hand="7C", seven=True, sevens_after_placing=True
    )
    small = RulesMovesObserver(game, slots=4)
    obs = small.observe(state)
    assert obs.shape == (rl.size(ORDER_END, 4),)
    np.testing.assert_array_equal(obs[ORDER_END:ROWS_AT], np.float32([1.0, 1.0]))
    assert sorted(rows_of(small, state)) == [1, 2, 3, 4]  # 28 legal, the first 4 in action order
    # after dealt>A the privilege stays open: the deal and 24 merges, 25 / 4 capped at 1
    assert rows_of(small, state)[1][rl.AFTER_LEGAL] == 1.0
    assert rows_of(RulesMovesObserver(game), state)[1][rl.AFTER_LEGAL] == np.float32(25 / 36)
    full = RulesMovesObserver(game).observe(state)
    assert full[ORDER_END] == 0.0
    np.testing.assert_array_equal(obs[ROWS_AT:][rl.ACTION :: rl.ROW], full[ROWS_AT:][rl.ACTION :: rl.ROW][:4])
    # the batched kernel: the same rows, the same flag, for a narrower observation
    batched = BatchedPuss(1, obs_encoding="rules_moves", sevens_after_placing=True)
    batched.load_state(0, state)
    out = np.empty((1, obs.shape[0]), dtype=np.float32)
    _planes_kernel(batched._g, out)
    _rules_kernel(batched._g, batched._bits, out, True, True)
    np.testing.assert_array_equal(out[0], obs)


LEAKS = {
    "first pass": dict(corners=("KS 3S", "9H", "", "QC")),
    "first pass, a card in hand": dict(corners=("KS 3S", "9H", "", "QC"), hand="2D"),
    "first pass, merges open": dict(corners=("KS 3S", "9H", "5C", "QC"), hand="7D", seven=True),
    "first pass, merges open after placing": dict(
        corners=("KS 3S", "9H", "5C", "QC 7D"), seven=True, sevens_after_placing=True
    ),
}


@pytest.mark.parametrize("where", LEAKS)
def test_the_first_pass_pack_order_is_never_read(puss_make_state, where):
    """The first pass's face-down pack is all the player cannot know: its order changes nothing."""
    kwargs = LEAKS[where]
    one = puss_make_state(pack="2C 3C 4C 5H 6H", **kwargs)
    two = puss_make_state(pack="6H 4C 5H 2C 3C", **kwargs)
    assert one[1] != two[1]
    _assert_same_observations(one[0], one[1], two[1])


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(corners=("KS 3S", "9H 5D", "", "QC"), rest="D", redeal="2C 3C 4C 5H"),
        dict(corners=("KS 3S", "9H", "", "QC"), pack="2C 3C 4C 5H", rest="D", pass_no=2),
    ],
    ids=["redeal", "second pass"],
)
def test_the_remembered_order_is_shown(puss_make_state, kwargs):
    """The cards taken up (the redeal) and the second pass's pack: the order after the planes, as the
    ``moves`` encoding's; a different order is a different observation."""
    game, state = puss_make_state(**kwargs)
    order = RulesMovesObserver(game).observe(state)[PLANES_SIZE:ORDER_END]
    want = np.zeros(52, dtype=np.float32)
    for j, code in enumerate("2C 3C 4C 5H".split()):
        want[parse_card(code)] = np.float32((48 - j) / 48)
    if kwargs.get("pass_no") == 2:  # the packets' cards under the 5H follow
        for j, c in enumerate(state.pack[4:], 4):
            want[c] = np.float32((48 - j) / 48)
    np.testing.assert_array_equal(order, want)
    np.testing.assert_array_equal(order, MovesObserver(game).observe(state)[PLANES_SIZE:ORDER_END])
    swapped = dict(kwargs)
    swapped["redeal" if "redeal" in kwargs else "pack"] = "5H 2C 4C 3C"
    _, other = puss_make_state(**swapped)
    assert (RulesMovesObserver(game).observe(other) != RulesMovesObserver(game).observe(state)).any()
    _assert_same_observations(game, state, state)


def test_the_take_up_lands_on_the_last_card_taken_up(puss_make_state):
    game, state = puss_make_state(corners=("KS 3S", "9H 5D", "", "QC"), rest="D", redeal="2C 3C 4C 5H")
    rows = rows_of(RulesMovesObserver(game), state)
    assert {a: r[rl.ONTO] for a, r in rows.items()} == {49: card("5H"), 50: card("5H"), 52: card("5H")}
    game.apply(state, game.action_from_description("take B"))
    rows = rows_of(RulesMovesObserver(game), state)
    assert {a: r[rl.ONTO] for a, r in rows.items()} == {49: card("5D"), 52: card("5D")}


def _assert_same_observations(game: PussInTheCorner, one, two) -> None:
    """Single env and batched engine: ``one`` and ``two`` look the same, and the engine agrees with the env."""
    observer = RulesMovesObserver(game)
    single = observer.observe(one)
    assert (single[ROWS_AT:] != 0).any()
    np.testing.assert_array_equal(single, observer.observe(two))
    batched = BatchedPuss(2, obs_encoding="rules_moves", **dataclasses.asdict(game.options))
    batched.load_state(0, one)
    batched.load_state(1, two)
    obs = batched.observe()
    np.testing.assert_array_equal(obs[0], single)
    np.testing.assert_array_equal(obs[1], single)


@pytest.mark.parametrize("options", [{}, {"forced_foundation": False, "sevens_after_placing": True}])
def test_the_batched_engine_writes_the_single_envs_rows_on_built_positions(puss_make_state, options):
    positions = [
        dict(),
        dict(corners=("9H 6D", "", "", ""), hand="5C", pack="2D 3D"),
        dict(foundations=("AC", "AD 2D", "AH", "AS"), corners=("3H", "", "", ""), hand="2H"),
        dict(corners=("KS QD JH TS 9C 3H 2C", "", "", "4D 3S 2S")),
        dict(corners=("QS JD", "9C 8H", "KH 4S", "8D"), hand="7C", seven=True),
        dict(corners=("KS 3S", "9H 5D 2H", "", "QC"), rest="D"),
        dict(corners=("KS 3S", "9H 5D", "", "QC"), rest="D", redeal="2C 3C 4C 5H"),
        dict(corners=("KS 3S", "", "", "QC"), pack="9H 2D 5D 2H 3C 4C 6S", rest="D", pass_no=2),
        dict(corners=("KS 3S", "", "", "QC"), pack="2C 3C", rest="D", pass_no=2),
        dict(corners=("KS 3S", "9H", "5C", "QC"), hand="7D", seven=True, pack="2C 3C 4C", rest="D", pass_no=2),
    ]
    for kwargs in positions:
        game, state = puss_make_state(**kwargs, **options)
        batched = BatchedPuss(1, obs_encoding="rules_moves", **options)
        batched.load_state(0, state)
        np.testing.assert_array_equal(batched.observe()[0], RulesMovesObserver(game).observe(state), str(kwargs))
