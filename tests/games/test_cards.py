import numpy as np
import pytest

from patience_gym.cards import (
    CODE,
    RANK,
    RED,
    SUIT,
    check_cards,
    codes,
    deck,
    make_card,
    parse_card,
    parse_cards,
    shuffled_deck,
)


def test_codes_round_trip_and_layout():
    assert [parse_card(CODE[c]) for c in range(52)] == list(range(52))
    assert CODE[0] == "AC" and CODE[13] == "AD" and CODE[26] == "AH" and CODE[51] == "KS"
    assert make_card(10, 1) == parse_card("TD") == parse_card("10d")
    assert RANK[parse_card("QH")] == 12 and SUIT[parse_card("QH")] == 2


def test_colours():
    assert [RED[parse_card(c)] for c in ("AC", "AD", "AH", "AS")] == [False, True, True, False]


@pytest.mark.parametrize("bad", ["1X", "ZZ", "", "A", "AX", "11C"])
def test_bad_codes_name_the_code(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("\\", "\\\\")):
        parse_card(bad)


def test_parse_cards_string_and_list():
    assert parse_cards("AS 2S") == parse_cards(["AS", "2S"]) == [39, 40]
    assert codes([39, 40]) == ["AS", "2S"]


def test_decks():
    assert sorted(deck(2)) == sorted(list(range(52)) * 2)
    a = shuffled_deck(np.random.default_rng(1), 2)
    b = shuffled_deck(np.random.default_rng(1), 2)
    assert a == b and sorted(a) == sorted(deck(2))
    check_cards(a, 2)


def test_check_cards_names_problems():
    cards = deck(1)
    cards[0] = cards[1]  # AC missing, 2C twice
    with pytest.raises(ValueError, match=r"too many: 2Cx2.*missing: AC"):
        check_cards(cards, 1)
    with pytest.raises(ValueError, match="got 51 cards"):
        check_cards(deck(1)[:-1], 1)
    with pytest.raises(ValueError, match="exactly 2 times"):
        check_cards(deck(1), 2)
