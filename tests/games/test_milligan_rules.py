"""Each rule of the Miss Milligan family on hand-built positions, and the book's worked example."""

from __future__ import annotations

from collections import Counter

from patience_gym.cards import CODE, parse_cards
from patience_gym.games.milligan import IDLE_LIMIT, Giant, MilliganGame, MilliganState, MissMilligan, MissMilliganPocket
from patience_gym.games.milligan_tables import CR, DEAL, FC, RC, RF
from tests.helpers.milligan import position

# --- building positions ---------------------------------------------------------


def legal(game: MilliganGame, state: MilliganState) -> set[str]:
    return {game.describe_action(a) for a in game.legal_actions(state)}


def play(game: MilliganGame, state: MilliganState, move: str) -> float:
    action = game.action_from_description(move)
    assert game.legal_mask(state)[action], f"{move} is not legal here:\n{game.render_text(state)}"
    return game.apply(state, action)


# --- vacancies --------------------------------------------------------------------

# A late position: every foundation at 9 (72 cards), the T J Q K of the two packs left.
HIGH = (9,) * 8


def test_miss_milligan_vacancy_takes_only_a_king_or_king_sequence():
    game = MissMilligan()
    # c1: KH QS JD (a King-headed sequence of 3), c2: QC JH, c3 vacancy, c8 the rest.
    s = position(game, ["KH QS JD", "QC JH", ""], HIGH, heap=7)
    moves = legal(game, s)
    assert "c1>c3x3" in moves  # the whole King sequence
    assert not {"c1>c3", "c1>c3x2", "c2>c3", "c2>c3x2"} & moves  # not headed by a King
    play(game, s, "c1>c3x3")
    assert s.columns[2] == parse_cards("KH QS JD") and s.columns[0] == []


def test_pocket_version_vacancy_takes_only_a_king():
    game = MissMilliganPocket()
    s = position(game, ["KH QS JD", "QC JH", ""], HIGH, heap=7)
    moves = legal(game, s)
    assert "c1>c3x3" in moves and not {"c1>c3", "c1>c3x2", "c2>c3", "c2>c3x2"} & moves


def test_giant_vacancy_takes_any_card_or_any_part_of_a_sequence():
    game = Giant()
    s = position(game, ["KH QS JD", "QC JH", ""], HIGH, heap=7)
    moves = legal(game, s)
    assert {"c1>c3", "c1>c3x2", "c1>c3x3", "c2>c3", "c2>c3x2"} <= moves
    play(game, s, "c2>c3")
    assert s.columns[2] == parse_cards("JH") and s.columns[1] == parse_cards("QC")


# --- sequences ----------------------------------------------------------------------


def test_partial_sequence_moves_onto_the_one_card_that_fits():
    game = MissMilligan()
    # c1 foot sequence: QD JS TH 9C (4 cards) under a non-fitting 3C; c2: KC; c3: JD; c4: TD.
    s = position(game, ["3C QD JS TH 9C", "KC", "JD", "TD", "QH"], (2, 2, 0, 0, 0, 0, 0, 0), stock=8, heap=7)
    moves = legal(game, s)
    assert {"c1>c2x4", "c1>c4"} <= moves  # QD..9C onto KC, 9C alone onto TD
    assert "c1>c3x2" not in moves  # TH 9C: TH is red like JD
    assert "c1>c5x3" in moves  # JS TH 9C onto QH
    assert "c1>c2x5" not in moves  # 3C is not part of the sequence
    play(game, s, "c1>c2x4")
    assert s.columns[1] == parse_cards("KC QD JS TH 9C") and s.columns[0][-1] == parse_cards("3C")[0]
    assert s.runs[1] == 5


def test_a_sequence_moves_only_from_the_foot_and_only_if_built():
    game = Giant()
    # c1: 9H 8C 5D: only 5D is a sequence; 8C 5D is not.
    s = position(game, ["9H 8C 5D", "9D", "6C"], stock=8, heap=7)
    moves = legal(game, s)
    assert "c1>c3" in moves  # 5D on 6C
    assert not any(m.startswith("c1>c2") for m in moves)  # 8C is not exposed


# --- dealing -----------------------------------------------------------------------


def test_deal_puts_one_card_on_each_column_in_order_filling_vacancies():
    game = MissMilligan()
    deal = [CODE[c] for c in range(52)] * 2
    s = game.from_deal(deal)
    assert [col for col in s.columns] == [[c] for c in range(8)]
    assert s.stock_left == 96
    s.columns[3].clear()
    game.refresh(s)
    play(game, s, "deal")
    assert s.columns[0] == [0, 8] and s.columns[3] == [11] and s.columns[7] == [7, 15]
    for _ in range(11):
        play(game, s, "deal")
    assert s.stock_left == 0 and not game.legal_mask(s)[DEAL]
    assert sum(len(c) for c in s.columns) == 103


# --- foundations ----------------------------------------------------------------------


def test_foundations_build_up_in_suit_and_keep_canonical_slots():
    game = MissMilligan()
    s = position(game, ["AC", "AC", "2C", "2D"], stock=8, heap=7)
    assert "c4>f" not in legal(game, s)  # no diamond Ace out
    assert "c3>f" not in legal(game, s)
    assert play(game, s, "c1>f") == 1.0
    assert s.found[:2] == [1, 0]
    play(game, s, "c2>f")
    assert s.found[:2] == [1, 1]
    play(game, s, "c3>f")
    assert s.found[:2] == [2, 1]  # the odd slot (f1) takes it and stays the higher


def test_foundation_slots_equal_piles_come_down_from_the_even_slot_only():
    game = MissMilliganPocket()
    s = position(game, ["KH", "3D", "4S"], (2, 2, 0, 0, 0, 0, 0, 0), stock=8, heap=7)
    moves = legal(game, s)
    assert "f2>c2" in moves and "f1>c2" not in moves  # 2C on 3D, from f2 while f1 == f2
    assert play(game, s, "f2>c2") == -1.0
    assert s.found[:2] == [2, 1]
    moves = legal(game, s)
    assert "f1>c3" not in moves  # 2C on 4S? no: 2C goes on a red 3 only
    assert "f1>c2" not in moves  # c2's foot is now 2C


def test_cards_never_leave_the_foundations_in_miss_milligan():
    game = MissMilligan()
    s = position(game, ["KH", "3D", ""], (2, 2, 0, 0, 0, 0, 0, 0), heap=7)
    assert not any(FC <= a < DEAL for a in game.legal_actions(s))


# --- waiving (Miss Milligan) ------------------------------------------------------------


def test_waiving_only_once_the_stock_is_exhausted():
    game = MissMilligan()
    with_stock = position(game, ["9H", "5S"], HIGH[:4] + (0,) * 4, stock=8, heap=7)
    assert not any(CR <= a < CR + 104 for a in game.legal_actions(with_stock))
    out = position(game, ["9H", "5S"], HIGH[:4] + (0,) * 4, heap=7)
    assert {"c1>w", "c2>w"} <= legal(game, out)


def test_one_waived_card_at_a_time_and_its_ways_back():
    game = MissMilligan()
    # c1: 8S 7D (7D blocks 8S), c2: 9D, c3: 8C, c4 vacancy; clubs and spades up to 6.
    s = position(game, ["8S 7D", "9D", "8C", ""], (6, 6, 0, 0, 0, 0, 6, 6), heap=7)
    assert "c1>wx2" not in legal(game, s)  # single cards only without waive_sequences
    play(game, s, "c1>w")
    assert s.reserve == parse_cards("7D") and s.origin == 0
    moves = legal(game, s)
    assert not any(CR <= a < CR + 104 for a in game.legal_actions(s))  # one waived card at a time
    assert "c1>c2" in moves  # 8S, freed, packs on 9D
    assert "w>c3" in moves  # 7D fits on 8C
    assert "w>c4" not in moves  # a vacancy takes only a King
    assert "w>c1" not in moves  # restoring would recreate the position before the waive (progress rule)
    play(game, s, "c1>c2")
    assert "w>c1" in legal(game, s)  # restored to its column, though nothing fits there now
    play(game, s, "w>c1")
    assert s.columns[0] == parse_cards("7D") and s.reserve == [] and s.origin == -1
    assert any(CR <= a < CR + 104 for a in game.legal_actions(s))  # waiving is possible again


def test_waived_card_to_a_foundation():
    game = MissMilligan()
    s = position(game, ["7C 9S"], (6, 6, 0, 0, 0, 0, 8, 8), heap=7)
    play(game, s, "c1>w")
    assert "w>f" in legal(game, s)
    assert play(game, s, "w>f") == 1.0
    assert s.reserve == [] and s.origin == -1 and s.found[6] == 9


def test_waive_sequences_option_waives_and_plays_sequences():
    game = MissMilligan(waive_sequences=True)
    s = position(game, ["QC JD TS", "JH", "KS"], HIGH[:2] + (0,) * 6, heap=7)
    moves = legal(game, s)
    assert {"c1>w", "c1>wx2", "c1>wx3"} <= moves
    play(game, s, "c1>wx3")
    assert s.reserve == parse_cards("QC JD TS") and s.origin == 0
    moves = legal(game, s)
    assert "w>c3x3" not in moves  # QC on KS: both black
    assert "w>c2" in moves  # TS on JH
    play(game, s, "w>c2")
    assert s.reserve == parse_cards("QC JD") and s.origin == 0
    assert "w>c1x2" in legal(game, s)  # what is left goes back to its column


def test_default_waives_only_single_cards():
    game = MissMilligan()
    s = position(game, ["QC JD TS"], HIGH[:2] + (0,) * 6, heap=7)
    moves = legal(game, s)
    assert "c1>w" in moves and "c1>wx2" not in moves


# --- worrying back (Giant) ---------------------------------------------------------------


def test_giant_worry_back_only_once_the_stock_is_exhausted_onto_a_fitting_card_or_vacancy():
    game = Giant()
    heights = (5, 5, 4, 0, 0, 0, 0, 0)
    during = position(game, ["6D", "6S", "5S", ""], heights, stock=8, heap=7)
    assert not any(FC <= a < DEAL for a in game.legal_actions(during))
    after = position(game, ["6D", "6S", "5S", ""], heights, heap=7)
    moves = legal(game, after)
    assert {"f2>c1", "f2>c4", "f3>c3", "f3>c4"} <= moves  # 5C on 6D; 4D on 5S; anything into the vacancy
    assert "f2>c2" not in moves  # 5C on 6S: both black
    assert "f1>c1" not in moves  # equal piles: the card comes from f2
    assert not any(CR <= a <= RF for a in game.legal_actions(after))  # no waiving in Giant
    assert play(game, after, "f3>c3") == -1.0
    assert after.columns[2] == parse_cards("5S 4D") and after.found[2] == 3


def test_giant_worry_back_anytime_option():
    game = Giant(worry_back_anytime=True)
    s = position(game, ["6D"], (5, 5, 0, 0, 0, 0, 0, 0), stock=8, heap=7)
    assert "f2>c1" in legal(game, s)


# --- the pocket ---------------------------------------------------------------------------


def test_pocket_takes_one_card_any_time_and_lets_it_out_only_to_a_legal_place():
    game = MissMilliganPocket()
    s = position(game, ["9C 5D", "7H", "6C", "", "QD"], (4, 0, 3, 0, 0, 0, 0, 0), stock=16, heap=7)
    assert {"c1>p", "c2>p", "c3>p"} <= legal(game, s)  # any time, stock or not
    play(game, s, "c2>p")
    assert s.reserve == parse_cards("7H") and s.origin == -1
    moves = legal(game, s)
    assert not any(CR <= a < CR + 104 for a in game.legal_actions(s))  # one card in the pocket
    assert "p>c2" not in moves  # the pocket card does not go back to a vacancy unless a King
    assert "p>c4" not in moves
    assert "p>f" not in moves  # hearts are at 3
    assert "deal" in moves  # dealing goes on with a card in the pocket


def test_pocket_card_to_a_fitting_card_and_to_a_foundation():
    game = MissMilliganPocket()
    s = position(game, ["8S 4H", "8C"], (0, 0, 0, 0, 3, 0, 0, 0), stock=8, heap=7)
    play(game, s, "c1>p")
    moves = legal(game, s)
    assert "p>f" in moves  # 4H on the hearts' 3
    assert "p>c2" not in moves  # 4H on 8C: does not fit
    assert play(game, s, "p>f") == 1.0 and s.reserve == []
    s2 = position(game, ["8S 7H", "8C"], stock=8, heap=7)
    play(game, s2, "c1>p")
    moves = legal(game, s2)
    assert "p>c2" in moves  # 7H on 8C
    assert "p>c1" not in moves  # back on 8S would recreate the position before (progress rule)
    s3 = position(game, ["8S KH", ""], stock=8, heap=7)
    play(game, s3, "c1>p")
    assert "p>c2" in legal(game, s3)  # a King into a vacancy


def test_pocket_version_foundation_cards_come_down_any_time():
    game = MissMilliganPocket()
    s = position(game, ["4S", "KH"], (0, 0, 3, 3, 0, 0, 0, 0), stock=8, heap=7)
    assert "f4>c1" in legal(game, s)  # 3D on 4S, stock or not
    assert "f4>c2" not in legal(game, s)


# --- the progress rule -----------------------------------------------------------------------


def test_repetition_is_masked_and_idle_moves_are_capped():
    game = Giant()
    # Two fitting places for one card: 5D shuttles between 6C (c1) and 6S (c2); c3 holds 5D.
    s = position(game, ["6C", "6S", "7H 5D"], stock=8, heap=7)
    play(game, s, "c3>c1")
    assert "c1>c3" not in legal(game, s)  # back to 7H? it does not fit anyway
    play(game, s, "c1>c2")
    assert "c2>c1" not in legal(game, s)  # recreates the position after the first move
    assert s.idle == 2 and "deal" in legal(game, s)
    play(game, s, "deal")
    assert s.idle == 0 and len(s.seen) == 1


def test_idle_budget_runs_out_then_only_progress_moves_remain():
    game = Giant()
    s = position(game, ["6C", "6S", "7H 5D"], stock=8, heap=7)
    s.idle = IDLE_LIMIT - 1
    game.refresh(s)
    play(game, s, "c3>c1")
    assert legal(game, s) == {"deal"}
    play(game, s, "deal")
    assert s.idle == 0 and len(legal(game, s)) > 1


def test_game_lost_when_no_progress_move_is_left():
    game = MissMilligan()
    s = position(game, ["8S 7D", "9D"], (6, 6, 0, 0, 0, 0, 6, 6), heap=7)
    s.idle = IDLE_LIMIT
    game.refresh(s)
    assert game.is_over(s) and not game.is_won(s) and not game.legal_mask(s).any()


def test_won_when_all_104_cards_are_on_the_foundations():
    game = Giant()
    s = position(game, ["KS"], (13, 13, 13, 13, 13, 13, 13, 12), heap=0)
    assert not game.is_won(s) and "c1>f" in legal(game, s)
    assert play(game, s, "c1>f") == 1.0
    assert game.is_won(s) and game.is_over(s) and game.score(s) == 104.0
    assert not game.legal_mask(s).any()


# --- the worked example of miss_milligan_and_giant__book.txt ---------------------------------

BOOK_DEALS = [
    "6C 5D KH AD 3C 7C 2C 3H",
    "3D KC 4H 6H TH 2D 4C 6S",
    "8S 6S 6C TS 4D JS QS JS",
    "JC JD AC 9H 4C 3S 3H 9H",
    "4H 7C 8C TS 2C KC 9C 3C",
    "AH QH 2H 5C 7D TH 9S 3S",
]


def book_deal() -> list[str]:
    """The six rows the text names, then the 56 cards it never names (in card order)."""
    named = [c for row in BOOK_DEALS for c in parse_cards(row)]
    counts = Counter(named)
    # The named cards respect the two packs: each at most twice (the two knaves of
    # spades are both in the third row, the two 9s of hearts both in the fourth).
    assert max(counts.values()) == 2
    rest = [c for c in range(52) for _ in range(2 - counts[c])]
    return [CODE[c] for c in named + rest]


def cols(state: MilliganState) -> list[str]:
    return [" ".join(CODE[c] for c in col) for col in state.columns]


def test_book_worked_example_move_by_move():
    game = MissMilligan()
    s = game.from_deal(book_deal())
    assert cols(s) == "6C 5D KH AD 3C 7C 2C 3H".split()
    # "The ace of diamonds is put out for a foundation. This leaves a vacancy in the fourth place."
    play(game, s, "c4>f")
    assert s.columns[3] == [] and s.found[2] == 1
    play(game, s, "c2>c1")  # "Put the 5 of diamonds on the 6 of clubs."
    play(game, s, "c7>c8")  # "Put the 2 of clubs on the 3 of hearts."
    assert cols(s) == ["6C 5D", "", "KH", "", "3C", "7C", "", "3H 2C"]
    # "If there be a vacancy, the new card fills it."
    play(game, s, "deal")
    assert cols(s) == ["6C 5D 3D", "KC", "KH 4H", "6H", "3C TH", "7C 2D", "4C", "3H 2C 6S"]
    play(game, s, "c6>f")  # "Put out the 2 and 3 of diamonds on the ace."
    play(game, s, "c1>f")
    play(game, s, "c7>c1")  # "Put the 4 of clubs on the 5 of diamonds."
    play(game, s, "c4>c6")  # "Put the 6 of hearts on the 7 of clubs."
    assert cols(s) == ["6C 5D 4C", "KC", "KH 4H", "", "3C TH", "7C 6H", "", "3H 2C 6S"]
    assert s.found[2] == 3
    play(game, s, "deal")
    # "No packing can here be done": true of packing; the text does not take up the
    # 4 of diamonds, which could go to its foundation (legal, not compulsory).
    assert "c5>f" in legal(game, s)
    assert not any(a < RC for a in game.legal_actions(s))
    play(game, s, "deal")
    play(game, s, "c3>f")  # "The ace of clubs is put out for a second foundation."
    # "Pack the 9 of hearts on the 10 of spades standing immediately above." The text
    # contradicts itself here: the fourth card of this row, a 9 of hearts, was dealt
    # straight under the 10 of spades in column 4, so there is nothing to pack; the other
    # 9 of hearts (column 8) cannot go there. The next paragraph packs it on the 10 of
    # spades dealt next, which is consistent. No move is made.
    assert cols(s)[3] == "TS 9H" and "c8>c4" not in legal(game, s)
    play(game, s, "deal")
    assert cols(s) == [
        "6C 5D 4C 8S JC 4H",
        "KC 6S JD 7C",
        "KH 4H 6C 8C",
        "TS 9H TS",
        "3C TH 4D 4C 2C",
        "7C 6H JS 3S KC",
        "QS 3H 9C",
        "3H 2C 6S JS 9H 3C",
    ]
    # "Put out 2 of clubs on the ace; 3 of clubs on the 2; 4 of clubs on the 3."
    for move in ("c5>f", "c8>f", "c5>f"):
        play(game, s, move)
    assert s.found[0] == 4
    play(game, s, "c8>c4")  # "Pack the 9 of hearts on 10 of spades,
    play(game, s, "c3>c4")  # and the 8 of clubs on 9 of hearts."
    assert cols(s)[3] == "TS 9H TS 9H 8C"
    play(game, s, "deal")
    play(game, s, "c1>f")  # "Put out the ace of hearts,
    play(game, s, "c3>f")  # and upon this the 2 of hearts."
    play(game, s, "c8>c1")  # "Pack 3 of spades on 4 of hearts;
    play(game, s, "c6>c8")  # 10 of hearts on knave of spades;
    play(game, s, "c7>c8")  # 9 of spades on 10 of hearts;
    play(game, s, "c2>c6")  # queen of hearts on king of clubs."
    # "Move the knave of spades sequence (at foot of the eighth column) on to the queen of hearts."
    play(game, s, "c8>c6x3")
    assert cols(s)[5] == "7C 6H JS 3S KC QH JS TH 9S" and cols(s)[7] == "3H 2C 6S"
    # "Build up in succession (on the club foundation packet) the 5, 6, 7, 8, 9 of clubs."
    for move in ("c4>f", "c3>f", "c2>f", "c4>f", "c7>f"):
        play(game, s, move)
    assert s.found[0] == 9
    play(game, s, "c7>f")  # "Put out 3 of hearts on the 2;
    play(game, s, "c3>f")  # then the 4 of hearts (at foot of third column) on the 3."
    play(game, s, "c7>c3")  # "Put queen of spades on king of hearts;
    play(game, s, "c2>c3")  # knave of diamonds on queen of spades;
    play(game, s, "c4>c3x2")  # 10 of spades and 9 of hearts on the knave of diamonds;
    play(game, s, "c2>c5")  # 6 of spades on 7 of diamonds."
    # "Move the king sequence (at foot of sixth column) into the vacancy of the seventh column."
    play(game, s, "c6>c7x5")
    # "The cards are now as diagrammed on p. 118."
    assert cols(s) == [
        "6C 5D 4C 8S JC 4H 3S",
        "KC",
        "KH QS JD TS 9H",
        "TS 9H",
        "3C TH 4D 7D 6S",
        "7C 6H JS 3S",
        "KC QH JS TH 9S",
        "3H 2C 6S",
    ]
    assert s.found == [9, 0, 3, 0, 4, 0, 0, 0] and s.total == 16 and s.stock_left == 56
    # "Eight more cards must now be dealt": the stock is not out, so no waiving yet.
    assert "deal" in legal(game, s) and not any(CR <= a <= RF for a in game.legal_actions(s))
