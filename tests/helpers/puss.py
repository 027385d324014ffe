"""Puss in the Corner test data and positions: the book's worked example, hand-built states."""

from __future__ import annotations

import gymnasium as gym

from agents.baselines.greedy_puss import choose_move
from patience_gym.cards import CODE
from patience_gym.games.puss import NON_ACES, PussInTheCorner

# The cards the book's example deals, in order; the rest of the 48-card pack
# (never reached by the example) follows in card order.
BOOK_NAMED = "6D 9S QS 5C QC JD JS JH 9D 4S TD 3D 2D 2S 7C 3C 9C 8H 8D QD TS 2C 4H KH JC 5D 6C 7H 5H 8C KD".split()
BOOK_DEAL = BOOK_NAMED + [CODE[c] for c in NON_ACES if CODE[c] not in BOOK_NAMED]

# The example move by move. "deal" turns the next card; the card dealt is
# checked against the text. Where the text names no foundation (2D and 2S "go
# on the ace", and 3C, 4S, 5C are "built" when two black piles take them), the
# choice is ours and noted; either is legal and the packets come out the same.
# Packet contents are asserted wherever the text fixes them (bottom first).
BOOK_PLAY = [
    ("6D", ["dealt>D"]),
    ("9S", ["dealt>B"]),
    ("QS", ["dealt>A"]),
    ("5C", ["dealt>D"]),
    ("QC", ["dealt>A"]),
    ("JD", ["dealt>A"]),
    ("JS", ["dealt>A"]),
    ("JH", ["dealt>A"]),
    ("9D", ["dealt>B"]),
    ("4S", ["dealt>D"]),
    ("TD", ["dealt>A"]),
    ("3D", ["dealt>D"]),
    # "2 of diamonds (goes on the ace; build the 3 on the 2)": either red Ace (f2 = AD's pile chosen).
    ("2D", ["dealt>f2", "D>f2"]),
    # "2 of spades (goes on the ace)": either black Ace (f4 = AS's pile chosen).
    ("2S", ["dealt>f4"]),
    # "7 of clubs (put packet B on packet A; place the 7 on top of both)": the merge with the 7 in hand.
    ("7C", ["B on A", "dealt>A"]),
    # "3 of clubs (D)": the 3C fits the 2S pile, so the book's own play needs forced_foundation=False here.
    ("3C", ["dealt>D"]),
    ("9C", ["dealt>B"]),
    ("8H", ["dealt>B"]),
    ("8D", ["dealt>B"]),
    ("QD", ["dealt>C"]),
    ("TS", ["dealt>C"]),
    # "2 of clubs (goes on ace; build 3 of clubs, 4 of spades, 5 of clubs)": 3C may go on 2C or 2S (2C's chosen).
    ("2C", ["dealt>f1", "D>f1", "D>f1", "D>f1"]),
    ("4H", ["dealt>f2"]),  # "goes on 3 of diamonds"
    ("KH", ["dealt>C"]),
    ("JC", ["dealt>C"]),
    ("5D", ["dealt>f2", "D>f2"]),  # "goes on 4 of hearts; build 6 of diamonds"
    ("6C", ["dealt>f1", "A>f1"]),  # "goes on 5 of clubs; build 7 of clubs"
    # "7 of hearts goes on 6 of diamonds; build the 8 and 9 of diamonds; put packet B on packet A":
    # the privilege used after placing the 7 and building (needs sevens_after_placing=True).
    ("7H", ["dealt>f2", "B>f2", "A>f2", "B on A"]),
    ("5H", ["dealt>B"]),
    ("8C", ["dealt>f1"]),  # "goes on 7 of clubs"
    ("KD", ["dealt>D"]),
]


def make_state(
    foundations=("AC", "AD", "AH", "AS"),
    corners=("", "", "", ""),
    hand=None,
    pack="",
    pass_no=1,
    seven=False,
    redeal="",
    rest="pack",
    **options,
):
    """A state from the named cards. The unnamed ones (in card order) go to the end of the pack, or with
    ``rest="D"`` under the named cards of packet D."""
    named = " ".join([*foundations, *corners, hand or "", pack, redeal]).split()
    others = [CODE[c] for c in range(52) if CODE[c] not in named]
    corner_lists = [c.split() for c in corners]
    pack_list = pack.split()
    if rest == "pack":
        pack_list += others
    else:
        k = "ABCD".index(rest)
        corner_lists[k] = others + corner_lists[k]
    game = PussInTheCorner(**options)
    data = {
        "pass": pass_no,
        "foundations": [f.split() for f in foundations],
        "corners": corner_lists,
        "hand": hand,
        "pack": pack_list,
        "seven": seven,
        "redeal": redeal.split(),
    }
    return game, game.from_dict(data)


def end_of_first_pass(**options):
    """Pack out on the first pass; the cards not named lie under the QC in packet D."""
    return make_state(
        foundations=("AC 2C", "AD", "AH", "AS"), corners=("KS 3S", "9H 5D 2H", "", "QC"), rest="D", **options
    )


def greedy_loses(seed: int) -> bool:
    """Whether the greedy baseline loses Puss in the Corner's deal ``seed`` (default rules)."""
    env = gym.make("patience_gym/PussInTheCorner-v0")
    env.reset(seed=seed)
    game, state = env.unwrapped.game, env.unwrapped.state.copy()
    while not game.is_over(state):
        game.apply(state, choose_move(game, state))
    return not game.is_won(state)
