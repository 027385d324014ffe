"""Miss Milligan family envs: Miss Milligan (waiving), Giant (worrying back), the pocket version.

The three share one rules module (:mod:`patience_gym.games.milligan`), one
action layout, one move notation and two observation encodings, described
once here and referred to by each env's docstring.
"""

from __future__ import annotations

from patience_gym.env import PatienceEnv

_SHARED = """
    ## Action Space
    ``Discrete(1010)``, the same layout in all three games; every legal move
    is exactly one action, and actions a game has no use for are never
    legal. ``action_masks()`` gives the legal ones (bool), as does
    ``info["action_mask"]`` (int8); never all-False while the game is live.
    Columns ``c1..c8`` and foundations ``f1..f8`` are numbered from 1 in the
    notation (shared with game records; ``describe_action(a)`` writes it,
    ``action_from_description(text)`` reads it):

    ===========  =====  =============================================  ==========
    first index  count  move                                           notation
    ===========  =====  =============================================  ==========
    0            728    ``k`` = 1..13 cards, column ``i`` to ``j``     ``c3>c5x2``
    728          104    ``k`` cards, reserve to column ``j``           ``w>c1``
    832          104    ``k`` cards, column ``i`` to the reserve       ``c3>w``
    936          8      exposed card of column ``i`` to a foundation   ``c3>f``
    944          1      the reserve's exposed card to a foundation     ``w>f``
    945          64     top of foundation ``f`` to column ``j``        ``f2>c4``
    1009         1      deal eight stock cards                         ``deal``
    ===========  =====  =============================================  ==========

    Index of a column move: ``(i * 7 + (j if j < i else j - 1)) * 13 + k - 1``
    (0-based ``i``, ``j``). The reserve is written ``w`` (waived cards) in
    Miss Milligan and Giant, ``p`` (pocket) in the pocket version. A count of
    one is not written (``c3>c5``); ``x1`` is accepted on input.
    Foundations have fixed slots per suit: ``f1 f2`` clubs, ``f3 f4``
    diamonds, ``f5 f6`` hearts, ``f7 f8`` spades; the odd slot of a suit is
    never lower than the even one (a card goes to the odd slot when both
    fit; between two equal piles only the even slot's top comes down), so
    no two actions make the same move.

    ## Observation Space
    ``obs_encoding="ids"`` (default): ``Box(0, 104, (857,), int8)``, the
    visible position exactly:

    * ``[0, 832)``: column ``j`` (0..7), row ``r`` (0 = deepest) at
      ``j * 104 + r``: card + 1, 0 = empty. A column never holds more than
      the 104 cards of the game, so no legal position is truncated.
    * ``[832, 840)``: top card + 1 of foundations ``f1..f8`` (0 = empty).
    * ``[840, 853)``: the reserve (waived cards, or the pocket card), card + 1,
      deepest first.
    * ``853``: the column the waived cards came from + 1 (0: none).
    * ``854``: cards left in the stock (0..96).
    * ``855``: idle moves left before the next progress event (0..50).
    * ``856``: the highest number of cards the foundations have held.

    Cards are ``suit * 13 + rank - 1`` with suits ``C D H S``.

    ``obs_encoding="planes"``: ``Box(0, 1, (1468,), float32)``, one-hot per
    card instance, for MLP policies. For each of the 104 instances (card
    ``c``'s two copies are ``2c`` and ``2c + 1``, the copy met first in the
    order columns 1..8 top to foot, foundations, reserve, stock being ``2c``),
    14 features: location one-hot (column 1..8, foundation, reserve, stock),
    row (column row / 103, reserve row / 12), exposed, part of the movable
    sequence at its foot. Then: stock cards / 96, idle moves left / 50,
    highest foundation count / 104, and the waived cards' column one-hot
    (none, 1..8). The rows and instance order make it exact too.

    ``obs_encoding="moves"``: ``Box(-1, 1, (4805,), float32)``, for
    move-scoring networks (``agents.training.networks.MoveListScorer``): the planes;
    9 position values (cards on the foundations, the cover of the next
    needed cards, breaks, vacancies, legal moves, the best change of the
    greedy baseline's evaluation, stock out, reserve held, more legal moves
    than rows); then the legal moves in action order, 128 rows of 26: the
    action as ``(action + 1) / 1010`` (0: empty row) and 25 features of the
    move, read from the position it leads to (its kind, cards moved,
    progress, what it changes on the foundations, in the cover, breaks,
    vacancies, reserve and evaluation, what it uncovers, where it goes).
    Layout: :mod:`patience_gym.heuristics.milligan_moves`. No move is tried past a
    deal, so it reads no face-down card.

    ``obs_encoding="moves_search"``: ``Box(-1, 1, (5061,), float32)``, as
    ``"moves"`` with 128 rows of 28: each row has two more values, from a
    short lookahead. Where no move makes a new foundation high or raises the
    greedy baseline's evaluation, the lines of up to three moves (no deal)
    are searched for one that ends better than now; the first move of the
    best line is marked (with the line's gain / 200), or the deal when there
    is none. It is the search the greedy makes before dealing, read from the
    face-up cards only, and it costs under a millisecond a step in the pocket
    version and Miss Milligan, a few in Giant.

    ``obs_encoding="moves_endgame"``: ``Box(-1, 1, (5317,), float32)``, as
    ``"moves_search"`` with 128 rows of 30: once the stock is out (nothing
    is face down then) each row has two more values: the cards on the
    foundations at the end of the greedy baseline's game after the move
    (/104), and its shortfall from the best such outcome among the legal
    moves (/10, capped at -1; 0 for the best). Before that both are 0.
    Outcomes are remembered at progress events
    (:mod:`patience_gym.heuristics.milligan_endgame`); a step costs a few
    milliseconds on average in the pocket version once the stock is out,
    more far off the greedy's lines.
    ``obs_encoding="rules_moves"``: ``Box(0, 53, (4158,), float32)``: the
    planes, an overflow flag and the legal-move count / 128, then 128 rows of
    21 values, one per legal move, saying what it does by the rules alone
    (cards moved, landed on and uncovered, the column beneath, pile sizes, the
    legal moves after it; :mod:`patience_gym.features.rules.milligan`, no
    heuristic).

    No encoding shows the order of the face-down stock (the "planes"
    encoding marks which cards are still in it, which a player can count).
    The positions seen since the last progress event also decide legality
    (see Episode End); the mask carries that.

    ## Rewards
    +1 for each card that reaches a foundation, -1 for each card that leaves
    one. ``info["score"]`` is the number of cards on the foundations (of
    104), ``info["won"]`` whether all 104 are there; ``info["stock_left"]``
    and ``info["idle_moves_left"]`` are given too. An illegal action
    (``illegal_action="penalize"``) gives -1 and changes nothing.

    ## Starting State
    A deal shuffled by the env's RNG (``reset(seed=s)`` reproduces it), or
    ``reset(options={"deal": [104 codes]})``: the first row (columns 1..8),
    then each later deal of eight in column order; each card exactly twice.
    Or ``reset(options={"state": env.unwrapped.state_dict()})``: a dict with
    ``tableau`` (8 lists, deepest first), ``foundations`` (8 lists, each
    from its Ace), ``stock`` (in dealing order), ``waived`` and
    ``waived_from`` (Miss Milligan) or ``pocket`` (pocket version), and the
    progress bookkeeping ``best``, ``idle_moves`` and ``seen`` (16-digit hex
    fingerprints of the positions seen since the last progress event;
    optional). A bad deal or state raises ValueError naming the problem.

    ## Episode End
    **Progress rule.** A *progress event* is a deal, or a move that brings
    the foundations above the most cards they have held so far. Between two
    progress events at most 50 other (idle) moves may be made, and no move
    may recreate a position seen since the last progress event (a position:
    columns, foundations, reserve and the waived cards' column). Moves
    these limits forbid are masked out. The episode terminates when all 104
    cards are on the foundations (won) or when no legal move is left (lost:
    "no move can make progress"), which happens within 50 moves of the last
    progress event. So every episode ends, whatever the policy, within
    ``116 * 51 + 50 = 5,966`` moves (12 deals, at most 104 new foundation
    highs); ``max_episode_steps=10,000`` is registered only as a safety net
    and is never reached.
"""


_OPTIONS = """``obs_encoding="ids"`` (or ``"planes"``, ``"moves"``, ``"moves_search"``,
    ``"moves_endgame"``, ``"rules_moves"``), ``illegal_action="penalize"``
    (or ``"raise"``), ``render_mode=None`` (or ``"ansi"``, ``"human"``, or ``"rgb_array"`` for a card-table picture)."""

_VERSION_HISTORY = """
    ## Version History
    * v0: initial release. (The ``moves``, ``moves_search`` and
      ``moves_endgame`` encodings were added later as new options; the rules
      and the other encodings are unchanged.)
    * v0 (later, no change to rules, observations or rewards): ``render_mode="rgb_array"``;
      non-integer actions are a TypeError; richer encodings served by :mod:`patience_gym.features`.
    * v0 (later, opt-in only): the ``rules_moves`` encoding.
    """


def _docstring(title: str, description: str, rule_options: str) -> str:
    """One env's docstring: its title and description, the shared sections, its arguments, the version history.

    ``rule_options`` is the text of the Arguments section before the options all three share.
    """
    return (
        f"{title}\n\n    ## Description\n{description}"
        + _SHARED
        + f"\n    ## Arguments\n    {rule_options}\n    {_OPTIONS}\n"
        + _VERSION_HISTORY
    )


class MissMilliganEnv(PatienceEnv):
    __doc__ = _docstring(
        "Miss Milligan patience (``patience_gym/MissMilligan-v0``).",
        """    Two packs. Eight cards are dealt face up in a row: the eight columns.
    Aces go up to eight foundations, built up in suit to the King. Columns
    build down in alternating colours; any built sequence at a column's
    foot moves whole or in part onto a fitting exposed card. A vacancy takes
    only a King or a King-headed sequence. At any time, deal eight more
    cards, one onto each column in order (filling vacancies): twelve deals.
    Once the stock is exhausted, the exposed card of a column may be
    *waived* (lifted aside, one at a time): it may then go to a foundation
    or onto a fitting exposed card (a vacancy only if a King), or be
    restored to the foot of its own column, fitting or not; only then may
    another be waived. Rules: ``docs/pages/rules.md`` and
    *miss_milligan_and_giant__book.txt*.
""",
        """``waive_sequences=False``: a whole built sequence (any part at a
    column's foot) may be waived, and its cards leave the waiver like a
    column's (PySolFC, Morehead & Mott-Smith).""",
    )

    game_name = "miss_milligan"


class GiantEnv(PatienceEnv):
    __doc__ = _docstring(
        "Giant patience (``patience_gym/Giant-v0``).",
        """    As Miss Milligan (two packs, eight columns built down in alternating
    colours, eight foundations up in suit, twelve deals of eight), except:
    any card or any built sequence (whole or part) may move into a vacancy,
    and there is no waiving. Instead, once the stock is exhausted, the
    player may *worry back*: move the top card of a foundation to the foot
    of a column where it fits by the packing rule, or into a vacancy. Rules:
    ``docs/pages/rules.md`` and the last paragraph of
    *miss_milligan_and_giant__book.txt*. The reserve actions are never legal.
""",
        """``worry_back_anytime=False``: worry back at any time, not only once the
    stock is exhausted (Aisleriot).""",
    )

    game_name = "giant"


class MissMilliganPocketEnv(PatienceEnv):
    __doc__ = _docstring(
        "Miss Milligan, pocket version (``patience_gym/MissMilliganPocket-v0``).",
        """    As Miss Milligan (two packs, eight columns built down in alternating
    colours, King-only vacancies, eight foundations up in suit, twelve
    deals of eight), except: no waiving; instead a one-card *pocket*, usable
    at any time: the exposed card of a column may go into the empty pocket,
    and the pocket card may leave only onto a foundation or a fitting
    exposed card (a vacancy only if it is a King). The top card of a
    foundation may move back onto a fitting exposed card (a King into a
    vacancy) at any time. Rules: ``docs/pages/rules.md`` and
    *miss_milligan__pocket_version.txt*; the reserve is written ``p``.
""",
        "No rule options.",
    )

    game_name = "miss_milligan_pocket"
