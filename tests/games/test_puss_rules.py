"""Puss in the Corner rules: the book's worked example card by card, and each rule on hand-built positions."""

from __future__ import annotations

from collections import Counter
from itertools import product

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.cards import CODE, RANK, parse_card
from patience_gym.core import IllegalActionError
from patience_gym.games.puss import (
    DEAL,
    MERGE,
    MERGES,
    NUM_ACTIONS,
    TAKE,
    PussInTheCorner,
)
from tests.helpers.puss import BOOK_DEAL, BOOK_NAMED, BOOK_PLAY, end_of_first_pass, make_state

ENV_ID = "patience_gym/PussInTheCorner-v0"

# Packets (A, B, C, D, bottom first) after the moves of the named card.
BOOK_PACKETS = {
    "3D": ("QS QC JD JS JH TD", "9S 9D", "", "6D 5C 4S 3D"),
    "2D": ("QS QC JD JS JH TD", "9S 9D", "", "6D 5C 4S"),
    "7C": ("QS QC JD JS JH TD 9S 9D 7C", "", "", "6D 5C 4S"),
    "TS": ("QS QC JD JS JH TD 9S 9D 7C", "9C 8H 8D", "QD TS", "6D 5C 4S 3C"),
    "2C": ("QS QC JD JS JH TD 9S 9D 7C", "9C 8H 8D", "QD TS", "6D"),
    "JC": ("QS QC JD JS JH TD 9S 9D 7C", "9C 8H 8D", "QD TS KH JC", "6D"),
    "5D": ("QS QC JD JS JH TD 9S 9D 7C", "9C 8H 8D", "QD TS KH JC", ""),
    "6C": ("QS QC JD JS JH TD 9S 9D", "9C 8H 8D", "QD TS KH JC", ""),
    "7H": ("QS QC JD JS JH TD 9S 9C 8H", "", "QD TS KH JC", ""),
    "KD": ("QS QC JD JS JH TD 9S 9C 8H", "5H", "QD TS KH JC", "KD"),
}


def packets(state) -> tuple[str, ...]:
    return tuple(" ".join(CODE[c] for c in packet) for packet in state.corners)


def piles(state) -> list[str]:
    return [" ".join(CODE[c] for c in pile) for pile in state.foundations]


def legal_texts(game: PussInTheCorner, state) -> set[str]:
    return {game.describe_action(a) for a in game.legal_actions(state)}


def test_book_pack_is_the_48_non_aces_starting_with_the_named_cards():
    assert len(BOOK_DEAL) == 48 and len(set(BOOK_DEAL)) == 48
    assert not any(code.startswith("A") for code in BOOK_DEAL)
    assert BOOK_DEAL[: len(BOOK_NAMED)] == BOOK_NAMED


def test_book_example_replayed_card_by_card():
    env = gym.make(ENV_ID, forced_foundation=False, sevens_after_placing=True, illegal_action="raise")
    game = env.unwrapped.game
    _, info = env.reset(options={"deal": BOOK_DEAL})
    total = 0.0
    for card, moves in BOOK_PLAY:
        _, reward, terminated, _, info = env.step(DEAL)
        state = env.unwrapped.state
        assert CODE[state.hand] == card and reward == 0 and not terminated
        assert bool(state.seven) == (RANK[state.hand] == 7)
        for move in moves:
            action = env.unwrapped.action_from_description(move)
            assert info["action_mask"][action] == 1, f"{card}: {move} not legal; legal {legal_texts(game, state)}"
            _, reward, terminated, _, info = env.step(action)
            total += reward
            assert reward == (1 if ">f" in move else 0) and not terminated
        if card in BOOK_PACKETS:
            assert packets(env.unwrapped.state) == BOOK_PACKETS[card], f"after {card}"
    state = env.unwrapped.state
    assert piles(state) == ["AC 2C 3C 4S 5C 6C 7C 8C", "AD 2D 3D 4H 5D 6D 7H 8D 9D", "AH", "AS 2S"]
    assert info["score"] == 4 + total == 20 and not info["won"]
    assert state.pack_left == 48 - len(BOOK_PLAY) and state.pass_no == 1


def test_book_example_ambiguities_were_real_choices():
    """Where the text names no foundation, both piles of the colour were legal."""
    game = PussInTheCorner(forced_foundation=False, sevens_after_placing=True)
    state = game.from_deal(BOOK_DEAL)
    for card, moves in BOOK_PLAY:
        game.apply(state, DEAL)
        if card == "2D":
            assert {"dealt>f2", "dealt>f3"} <= legal_texts(game, state)
        if card == "2S":
            assert {"dealt>f1", "dealt>f4"} <= legal_texts(game, state)
        for move in moves:
            if card == "2C" and move == "D>f1" and CODE[state.corners[3][-1]] == "3C":
                assert {"D>f1", "D>f4"} <= legal_texts(game, state)
            game.apply(state, game.action_from_description(move))


def test_book_example_under_the_default_forced_rule_differs_only_at_the_3_of_clubs():
    """With forced_foundation (default) the 3C must go on the 2S; the rest of the example plays as written.

    (The 7H merge after placing is the book's, so sevens_after_placing=True here; the next test shows it is needed.)
    """
    env = gym.make(ENV_ID, illegal_action="raise", sevens_after_placing=True)
    game = env.unwrapped.game
    env.reset(options={"deal": BOOK_DEAL})
    for card, moves in BOOK_PLAY:
        env.step(DEAL)
        state = env.unwrapped.state
        if card == "3C":
            assert legal_texts(game, state) == {"dealt>f4"}
            with pytest.raises(IllegalActionError, match="dealt>D"):
                env.step(game.action_from_description("dealt>D"))
            moves = ["dealt>f4"]
        if card == "2C":
            moves = ["dealt>f1", "D>f4", "D>f4"]  # 3C already sits on the 2S; 4S and 5C follow it
        if card in ("6C", "8C"):
            moves = [m.replace("f1", "f4") for m in moves]
        for move in moves:
            env.step(game.action_from_description(move))
        if card in BOOK_PACKETS and card not in ("TS",):
            assert packets(env.unwrapped.state) == BOOK_PACKETS[card], f"after {card}"
    state = env.unwrapped.state
    assert piles(state) == ["AC 2C", "AD 2D 3D 4H 5D 6D 7H 8D 9D", "AH", "AS 2S 3C 4S 5C 6C 7C 8C"]
    assert state.score == 20


def test_book_merge_after_placing_needs_the_option():
    """Under sevens_after_placing=False the privilege ends when the 7 is placed (RULES.md's wording)."""
    game = PussInTheCorner(forced_foundation=False, sevens_after_placing=False)
    state = game.from_deal(BOOK_DEAL)
    for card, moves in BOOK_PLAY:
        game.apply(state, DEAL)
        if card == "7H":
            assert "B on A" in legal_texts(game, state)  # still offered with the 7 in hand
            for move in moves[:-1]:
                game.apply(state, game.action_from_description(move))
            assert not state.seven and "B on A" not in legal_texts(game, state)
            return
        for move in moves:
            game.apply(state, game.action_from_description(move))
    raise AssertionError("the 7H was never dealt")


# --- hand-built positions --------------------------------------------------------


def test_foundations_build_by_colour_not_suit():
    game, state = make_state(hand="2H")
    assert legal_texts(game, state) == {"dealt>f2", "dealt>f3"}  # on AD or AH
    game, state = make_state(hand="2C")
    assert legal_texts(game, state) == {"dealt>f1", "dealt>f4"}  # on AC or AS
    game, state = make_state(foundations=("AC 2S 3C", "AD", "AH 2D", "AS"), hand="4S")
    assert legal_texts(game, state) == {"dealt>f1"}
    game, state = make_state(foundations=("AC 2S 3C", "AD", "AH 2D", "AS"), hand="3H")
    assert legal_texts(game, state) == {"dealt>f3"}
    game, state = make_state(foundations=("AC 2S 3C", "AD", "AH 2D", "AS"), hand="4D")
    assert "dealt>f3" not in legal_texts(game, state) and "dealt>A" in legal_texts(game, state)


def test_foundations_only_take_the_next_rank_up_to_the_king():
    game, state = make_state(hand="3D")
    assert legal_texts(game, state) == {"dealt>A", "dealt>B", "dealt>C", "dealt>D"}
    full = "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"
    game, state = make_state(foundations=("AC", full, "AH", "AS"), hand="2H")
    assert legal_texts(game, state) == {"dealt>f3"}


def test_forced_foundation_option():
    game, state = make_state(hand="2D", corners=("5C", "", "", ""))
    assert legal_texts(game, state) == {"dealt>f2", "dealt>f3"}
    game, state = make_state(hand="2D", corners=("5C", "", "", ""), forced_foundation=False)
    assert legal_texts(game, state) == {"dealt>f2", "dealt>f3", "dealt>A", "dealt>B", "dealt>C", "dealt>D"}


def test_dealt_card_goes_on_top_of_the_chosen_packet():
    game, state = make_state(corners=("9S", "", "KD", ""), hand="5C")
    game.apply(state, game.action_from_description("dealt>A"))
    assert packets(state) == ("9S 5C", "", "KD", "") and state.hand == -1
    assert legal_texts(game, state) == {"deal"}


def test_packet_tops_play_only_between_deals():
    game, state = make_state(corners=("9S 2H", "2C", "", "KD"), hand="7D")
    assert not any(">f" in t and not t.startswith("dealt") for t in legal_texts(game, state))
    game.apply(state, game.action_from_description("dealt>D"))
    assert legal_texts(game, state) == {"deal", "A>f2", "A>f3", "B>f1", "B>f4"}
    reward = game.apply(state, game.action_from_description("A>f3"))
    assert reward == 1 and packets(state) == ("9S", "2C", "", "KD 7D") and piles(state)[2] == "AH 2H"
    assert game.score(state) == 5


def test_deal_turns_the_top_card_of_the_pack():
    game, state = make_state(pack="9H 3S")
    reward = game.apply(state, DEAL)
    assert reward == 0 and CODE[state.hand] == "9H" and state.pack_left == 47 and state.obs[245] == 47
    assert state.pack[state.pos] == parse_card("3S")


# --- the sevens privilege ---------------------------------------------------------


def merge_outcomes_by_rules(corners: list[list[str]]) -> set[tuple[tuple[str, ...], ...]]:
    """Every outcome the privilege allows, straight from the text: pair the four packets, and in each pair put
    either packet on the other or leave them. Corners are interchangeable, so an outcome is the multiset of
    non-empty packets; the outcome 'nothing changed' is excluded (it is no move)."""

    def canon(packs):
        return tuple(sorted(tuple(p) for p in packs if p))

    before = canon(corners)
    outcomes = set()
    for (p, q), (r, s) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        for c1, c2 in product(range(3), repeat=2):
            new = [list(c) for c in corners]
            for (x, y), choice in (((p, q), c1), ((r, s), c2)):
                if choice == 1:
                    new[y] += new[x]
                    new[x] = []
                elif choice == 2:
                    new[x] += new[y]
                    new[y] = []
            if canon(new) != before:
                outcomes.add(canon(new))
    return outcomes


@pytest.mark.parametrize(
    "corners",
    [("QS JD", "9C", "KH 4S", "8D"), ("QS JD", "", "KH 4S", "8D"), ("QS", "", "KH", ""), ("", "", "KH", "")],
)
def test_merge_actions_are_a_bijection_onto_the_distinct_outcomes(corners):
    game, state = make_state(corners=corners, hand="7C", seven=True)
    legal = [a for a in game.legal_actions(state) if MERGE <= a < TAKE]
    results = []
    for a in legal:
        trial = state.copy()
        game.apply(trial, a)
        results.append(tuple(sorted(tuple(p.split()) for p in packets(trial) if p)))
        assert CODE[trial.hand] == "7C" and not trial.seven  # the 7 is still to be placed
    expected = merge_outcomes_by_rules([c.split() for c in corners])
    assert len(results) == len(set(results)) == len(expected)
    assert set(results) == expected


def test_merge_keeps_each_packet_in_order_and_empties_the_upper_corner():
    game, state = make_state(corners=("QS JD", "9C 8H", "KH 4S", "8D"), hand="7C", seven=True)
    game.apply(state, game.action_from_description("B on A, D on C"))
    assert packets(state) == ("QS JD 9C 8H", "", "KH 4S 8D", "")
    np.testing.assert_array_equal(state.obs, game.from_dict(game.to_dict(state)).obs)


def test_merges_offered_only_after_a_seven_and_once():
    game, state = make_state(corners=("QS", "9C", "", ""), hand="8C")
    assert not any(MERGE <= a < TAKE for a in game.legal_actions(state))
    game, state = make_state(corners=("QS", "9C", "", ""), pack="7S 8S")
    game.apply(state, DEAL)
    assert state.seven and legal_texts(game, state) >= {"A on B", "B on A"}
    game.apply(state, game.action_from_description("A on B"))
    assert not state.seven and not any(MERGE <= a < TAKE for a in game.legal_actions(state))


def test_privilege_after_placing_lasts_until_the_next_deal():
    game, state = make_state(corners=("QS", "9C", "", ""), pack="7S 8S", sevens_after_placing=True)
    game.apply(state, DEAL)
    game.apply(state, game.action_from_description("dealt>C"))
    assert state.seven and "C on A" in legal_texts(game, state)
    game.apply(state, DEAL)
    assert not state.seven and not any(MERGE <= a < TAKE for a in game.legal_actions(state))
    strict, state = make_state(corners=("QS", "9C", "", ""), pack="7S 8S", sevens_after_placing=False)
    strict.apply(state, DEAL)
    strict.apply(state, strict.action_from_description("dealt>C"))
    assert not state.seven and legal_texts(strict, state) == {"deal"}


def test_merge_descriptions_cover_pairings_once():
    game = PussInTheCorner()
    singles = [MERGES[i] for i in range(12)]
    doubles = [MERGES[i] for i in range(12, 24)]
    assert {p[0] for p in singles} == {(x, y) for x in range(4) for y in range(4) if x != y}
    pairings = Counter(frozenset(frozenset(p) for p in d) for d in doubles)
    assert len(pairings) == 3 and set(pairings.values()) == {4}
    assert game.action_from_description("D on C, B on A") == game.action_from_description("B on A, D on C")
    assert game.describe_action(MERGE) == "A on B"


# --- the redeal -------------------------------------------------------------------


def test_redeal_only_when_the_pack_is_out_on_the_first_pass():
    game, state = end_of_first_pass()
    assert legal_texts(game, state) == {"A>f1", "B>f2", "B>f3", "take A", "take B", "take D"}
    game, state = make_state(corners=("KS 3S", "9H", "", ""), pack="5D")
    assert not any(a >= TAKE for a in game.legal_actions(state))


def test_redeal_deals_the_first_packet_taken_up_first_each_in_placing_order():
    game, state = end_of_first_pass()
    game.apply(state, game.action_from_description("take B"))
    assert state.phase == 2 and legal_texts(game, state) == {"take A", "take D"}  # nothing else mid-redeal
    packet_d = [CODE[c] for c in state.corners[3]]
    assert packets(state)[:3] == ("KS 3S", "", "") and packet_d[-1] == "QC" and state.obs[245] == 3
    game.apply(state, game.action_from_description("take D"))  # the last packet (A) follows at once
    assert state.pass_no == 2 and packets(state) == ("", "", "", "")
    dealt = []
    while state.pack_left:
        game.apply(state, DEAL)
        dealt.append(CODE[state.hand])
        game.apply(state, game.action_from_description("dealt>A"))
    assert dealt == ["9H", "5D", "2H", *packet_d, "KS", "3S"]


def test_no_third_pass_and_game_ends_when_nothing_plays():
    game, state = make_state(
        foundations=("AC 2C", "AD", "AH", "AS"), corners=("KS 4S", "9H 5D 3H", "", "QC"), pass_no=2, rest="D"
    )
    assert game.is_over(state) and not game.is_won(state) and game.score(state) == 5
    game, state = make_state(
        foundations=("AC 2C", "AD", "AH", "AS"), corners=("KS 2S", "9H 5D 3H", "", "QC"), pass_no=2, rest="D"
    )
    assert not game.is_over(state) and legal_texts(game, state) == {"A>f4"}
    game.apply(state, game.action_from_description("A>f4"))
    assert game.is_over(state)


def test_won_when_every_card_is_on_the_foundations():
    black = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC".split()
    red = "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD".split()
    piles_ = (
        "AC " + " ".join(black),
        "AD " + " ".join(red),
        "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
        "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
    )
    game, state = make_state(foundations=piles_, corners=("", "", "KH", ""))
    assert not game.is_over(state) and legal_texts(game, state) == {"C>f3", "take C"}
    assert game.apply(state, game.action_from_description("C>f3")) == 1
    assert game.is_over(state) and game.is_won(state) and game.score(state) == 52


def test_action_texts_round_trip_and_unknown_text_is_named():
    game = PussInTheCorner()
    for a in range(NUM_ACTIONS):
        assert game.action_from_description(game.describe_action(a)) == a
        assert game.action_from_description("  " + game.describe_action(a).upper() + " ") == a
    with pytest.raises(ValueError, match="unknown move 'E>f1'"):
        game.action_from_description("E>f1")
    with pytest.raises(ValueError, match="outside 0..52"):
        game.describe_action(53)


def test_illegal_action_raises_with_legal_list():
    env = gym.make(ENV_ID, illegal_action="raise")
    env.reset(options={"deal": BOOK_DEAL})
    with pytest.raises(IllegalActionError, match=r"illegal action 1 \(dealt>A\).*legal: 0 \(deal\)"):
        env.step(1)
    assert parse_card(BOOK_DEAL[0]) == env.unwrapped.state.pack[0]
