"""Golf envs: one hole, and a nine-hole round."""

from __future__ import annotations

from patience_gym.env import PatienceEnv


class GolfEnv(PatienceEnv):
    """Golf patience, one hole per episode (``patience_gym/Golf-v0``).

    ## Description
    Thirty-five cards lie face up in seven columns of five (the "links"); the
    other seventeen are the stock, whose first card is turned up at once as
    the waste card. Play the exposed (lowest) card of any column onto the
    waste card when its rank is one above or below (suit ignored, no
    wrapping, nothing on a King), or turn the next stock card. Rules:
    ``docs/pages/rules.md`` and *golf__book.txt*.

    ## Action Space
    ``Discrete(8)``: action ``i`` in ``0..6`` plays the exposed card of column
    ``i`` (written ``c{i+1}>w``); action ``7`` turns the next stock card
    (``deal``). ``action_masks()`` gives the legal ones (bool), as does
    ``info["action_mask"]`` (int8); never all-False while the hole is live.

    ## Observation Space
    ``obs_encoding="ids"`` (default): ``Box(0, 52, (37,), int8)``. Slot
    ``row * 7 + col`` (row 0 deepest, 4 the dealt exposed row) holds card+1
    of that link position, 0 once cleared; slot 35 the waste card + 1; slot
    36 the number of cards still in the stock. Cards are ``suit*13 + rank-1``
    with suits ``C D H S``.
    ``obs_encoding="planes"``: ``Box(0, 1, (781,), float32)``: for each of
    the 52 cards, 15 flags (column one-hot 7, row one-hot 5, exposed, waste
    top, in the waste pile), then the stock count / 16.
    ``obs_encoding="ranks"``: ``Box(0, 1, (573,), float32)``: suits dropped;
    every link slot's rank, each column's exposed rank, the waste rank, the
    count of unseen cards per rank, the stock count.
    ``obs_encoding="runs"``: ``Box(0, 1, (802,), float32)``: the planes, then
    per column what a player sees at a glance: the longest run of plays that
    starts with its exposed card (/35; 0 if it cannot play), how many unseen
    cards could play after that run (/52), and its height (/5)
    (``patience_gym.heuristics.golf_runs``: it reads greedy's run search).
    ``obs_encoding="rules_moves"``: ``Box(0, 53, (951,), float32)``: the
    planes, an overflow flag and the legal-move count / 8, then one 21-value row
    per legal move saying what it does by the rules alone: cards moved, landed
    on and uncovered, the column beneath, pile sizes, the legal moves after it
    (``patience_gym.features.rules``; no heuristic). No encoding shows the order
    (or, in "ids", the identity) of the face-down stock.

    ## Rewards
    +1 per card cleared from the links; when the links clear with ``k`` stock
    cards left, +``k`` more. A hole's return is therefore 35 minus its score.
    An illegal action (``illegal_action="penalize"``) gives -1.

    ## Starting State
    A deal shuffled by the env's RNG (``reset(seed=s)`` reproduces it), or
    ``reset(options={"deal": [52 codes]})`` (35 link cards row by row, the
    last row exposed, then the 17 stock cards in turning order),
    ``reset(options={"state": env.unwrapped.state_dict()})``, or
    ``reset(options={"board": text})`` in the PySolFC / black-hole-solver
    board format (``golf_board.format_board`` writes it for any position in
    play; it keeps the waste's top card, the unnamed cards lie under it).

    ## Episode End
    Terminates when the links are cleared, or when the stock is empty and no
    card can be played. Registered with ``max_episode_steps=500`` as a safety
    net only (a hole has at most 51 legal moves). ``info["score"]`` is the
    hole's score (cards left, or ``-k``), ``info["won"]`` whether the links
    cleared.

    ## Arguments
    ``queens_on_kings=False``: a Queen may go on a King.
    ``wrap_ranks=False``: Ace and King are adjacent (implies queens on kings).
    ``obs_encoding="ids"``, ``illegal_action="penalize"`` (or ``"raise"``),
    ``render_mode=None`` (or ``"ansi"``, ``"human"``, or ``"rgb_array"`` for a card-table picture).

    ## Version History
    * v0: initial release; the opt-in ``runs`` encoding was added later
      without changing any other behaviour.
    * v0 (later, no change to rules, observations or rewards): ``render_mode="rgb_array"``;
      non-integer actions are a TypeError; richer encodings served by :mod:`patience_gym.features`.
    * v0 (later, opt-in only): the ``rules_moves`` encoding.
    """

    game_name = "golf"


class GolfRoundEnv(PatienceEnv):
    """Golf patience, a nine-hole round per episode (``patience_gym/GolfRound-v0``).

    ## Description
    Nine holes of Golf (see ``GolfEnv``), each a fresh deal; the round's
    score is the sum of the hole scores. The book's bogey for a round is 40.

    ## Action Space
    As ``GolfEnv``: ``Discrete(8)``, masks in ``action_masks()`` and
    ``info["action_mask"]``.

    ## Observation Space
    ``GolfEnv``'s observation with one slot appended: the hole being played,
    ``0..8`` (in "planes": ``hole / 8``). Shapes ``(38,)`` int8 or ``(782,)``
    float32. In ``rules_moves`` (952,) the hole / 8 closes the planes, before
    the move rows (which describe the hole in play).

    ## Rewards
    As ``GolfEnv``, summed over the holes: a round returns 315 minus the round
    score. When a hole ends, the next hole is dealt at once.

    ## Starting State
    Nine deals shuffled by the env's RNG, or ``reset(options={"deal": [nine
    lists of 52 codes]})``, or a ``state_dict()``. Board text holds one hole,
    so it starts ``GolfEnv``, not a round.

    ## Episode End
    Terminates when the ninth hole ends; ``max_episode_steps=4500`` only as a
    safety net. ``info["hole_scores"]`` lists the finished holes' scores,
    ``info["hole"]`` the hole in play (1..9), ``info["score"]`` the round
    score so far (finished holes plus the current hole's cards left);
    ``info["won"]`` is True when the round ends at or under bogey (40).

    ## Arguments
    As ``GolfEnv``.

    ## Version History
    * v0: initial release.
    * v0 (later, no change to rules, observations or rewards): ``render_mode="rgb_array"``;
      non-integer actions are a TypeError; richer encodings served by :mod:`patience_gym.features`.
    * v0 (later, opt-in only): the ``rules_moves`` encoding.
    """

    game_name = "golf_round"
