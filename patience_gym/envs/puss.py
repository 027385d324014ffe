"""Puss in the Corner env."""

from __future__ import annotations

from patience_gym.env import PatienceEnv


class PussInTheCornerEnv(PatienceEnv):
    """Puss in the Corner patience, one deal per episode (``patience_gym/PussInTheCorner-v0``).

    ## Description
    The four Aces are the foundations f1..f4 (started by AC, AD, AH, AS),
    built up *by colour* to the King: any red card on a red pile, any black
    on a black one. The other 48 cards are the pack, dealt one at a time. A
    dealt card that fits a foundation goes there (``forced_foundation``);
    otherwise it goes on one of four corner packets A, B, C, D. The top card
    of any packet may be played to a foundation between deals. When a 7 is
    dealt the player may pair the packets and, in each pair, put one packet
    on the other (the sevens privilege). When the pack is out, the packets are
    taken up in the player's order and dealt through once more: the first
    packet taken up deals first, each packet's cards in the order they were
    put on it. Rules: ``docs/pages/rules.md`` and
    *puss_in_the_corner__book.txt*.

    ## Action Space
    ``Discrete(53)``, written as ``describe_action`` writes them (and read
    back by ``action_from_description``):

    * ``0`` ``deal``: deal the next card of the pack;
    * ``1..4`` ``dealt>A`` .. ``dealt>D``: the dealt card onto packet A..D;
    * ``5..8`` ``dealt>f1`` .. ``dealt>f4``: the dealt card onto foundation
      f1..f4 (where two piles of its colour take it, both are offered);
    * ``9 + 4k + f`` ``A>f1`` .. ``D>f4``: the top card of packet ``k`` onto
      foundation ``f``;
    * ``25..48`` the sevens privilege, one action per distinct outcome: 12
      single merges ``X on Y`` (packet X put on packet Y, in order; Y keeps
      its corner, X's corner is left empty), then the 12 double merges
      ``A on B, C on D`` ... (the three pairings times the two orientations
      of each pair). A merge needs both packets of each pair non-empty (with
      an empty packet it would be a no-op or a mere change of corner, and
      the four corners are interchangeable). Declining is no action: the
      privilege lapses when the 7 is placed (``sevens_after_placing=False``)
      or at the next deal or take-up;
    * ``49..52`` ``take A`` .. ``take D``: take up that packet next for the
      redeal. The first take-up starts the redeal; when one non-empty packet
      is left it follows at once and the second pass begins.

    Decisions come in phases: with a dealt card in hand only placements
    (and merges, after a 7) are legal; between deals, plays from the packets,
    ``deal`` (or, when the pack is out on the first pass, ``take``), and
    merges while a 7's privilege is open; during the redeal only ``take``.
    ``action_masks()`` gives the legal actions (bool), as does
    ``info["action_mask"]`` (int8); never all-False while the game is live.

    ## Observation Space
    ``obs_encoding="ids"`` (default): ``Box(0, 52, (249,), int8)``; card
    slots hold card + 1 (0 = empty), cards being ``suit*13 + rank-1`` with
    suits ``C D H S``:

    * ``0..51``: foundation ``f`` at ``13f + rank - 1`` (the whole pile);
    * ``52..243``: packet ``k``'s cards at ``52 + 48k + i``, bottom (first
      placed) first: every packet whole, not only its top;
    * ``244``: the dealt card awaiting placement (0: none);
    * ``245``: cards left in the pack (during the redeal: cards taken up);
    * ``246``: the pass, 1 or 2;
    * ``247``: the pending decision: 0 deal / play from the packets / start
      the redeal, 1 place the dealt card, 2 take up the next packet;
    * ``248``: 1 while a dealt 7's merge privilege is open.

    The first 245 slots are card slots (``agents.training.networks.CardEmbedding``
    with ``card_slots=245``). ``obs_encoding="planes"``: ``Box(0, 1, (630,),
    float32)``, card-centric: for each of the 52 cards 12 values (in the
    pack, in hand, on foundation f1..f4, in packet A..D, top of its packet,
    position in its packet from the bottom / 47), then pack count / 48,
    second pass, the pending decision one-hot (3) and the sevens flag.
    Neither shows the order of the face-down pack (also in the second pass,
    though a player who remembers the packets knows it).
    ``obs_encoding="moves"``: ``Box(-1, 1, (2223,), float32)``: the planes;
    for each card its place in the pack on the second pass (the remembered
    order of the packets taken up; 0 on the first pass, which stays hidden);
    the foundations' next ranks; then 29 features for each of the 53 actions
    (what a player weighs before that move: how long the dealt card and each
    packet's top must wait for their foundations, what a play uncovers, a
    merge's margins, each packet in dealing order for the take-up; all 0 for
    an illegal action), as :mod:`patience_gym.heuristics.puss_moves` documents.
    For ``agents.training.networks.MoveScorer`` (``global_size=686,
    move_features=29``).
    ``obs_encoding="moves_replay"``: ``Box(-1, 1, (2329,), float32)``: the
    ``moves`` encoding with 31 features per action. The two new ones are set
    on the take-up actions only: the greedy's mental replay of the second
    pass (:func:`patience_gym.heuristics.puss_greedy.redeal_values`, the
    computation the greedy baseline chooses its take-up order by) for the
    best order that starts with that packet, as cards on the foundations /
    52, and its shortfall from the best packet / 8. Once the packets are
    taken up nothing is face down, so the replay reads only what a player
    sees. For ``MoveScorer`` with ``global_size=686, move_features=31``.
    ``obs_encoding="moves_replay_all"``: the ``moves_replay`` layout and
    values, and in the second pass the same two features on every legal
    action: the greedy's replay of the rest of the game after that action
    (:class:`patience_gym.heuristics.puss_greedy.SecondPassReplay`), as cards on
    the foundations / 52, and its shortfall from the best legal action / 8.
    The second pass's pack is the packets taken up in view, so this reads
    only what a player sees; in the first pass the observation equals
    ``moves_replay``. Replays are remembered along each replayed line, so a
    step costs a fraction of a millisecond (``benchmarks/env_speed.py``).
    ``obs_encoding="rules_moves"``: ``Box(0, 53, (1440,), float32)``: the
    planes, the remembered pack order (52 values, as in ``moves``: the
    packets are taken up face up, so the redeal's cards and the second pass's
    pack are known), then the shared rules-only move rows
    (:mod:`patience_gym.features.rules.layout`: an overflow flag, legal moves
    / 36, 36 rows of 21 values, one per legal move), computed from what the
    player sees and remembers and the rules alone, as
    :mod:`patience_gym.features.rules.puss` documents; the batched engine
    produces it too.

    ## Rewards
    +1 per card onto a foundation; a game returns ``score - 4``. An illegal
    action (``illegal_action="penalize"``) gives -1 and changes nothing.

    ## Starting State
    The Aces on the foundations, the packets empty, the 48 other cards in a
    pack shuffled by the env's RNG (``reset(seed=s)`` reproduces it), or
    ``reset(options={"deal": [48 codes]})`` (the non-Ace cards, top of the
    pack first), or ``reset(options={"state": env.unwrapped.state_dict()})``.

    ## Episode End
    Terminates when all four foundations reach their King (won), or when the
    second pass is dealt out, no card is in hand and no packet's top card
    fits a foundation. Registered with ``max_episode_steps=1000`` as a safety
    net only (a game has fewer than 260 moves). ``info["score"]`` is the
    number of cards on the foundations (4..52), ``info["won"]`` whether all
    52 are there.

    ## Arguments
    ``forced_foundation=True``: a dealt card that fits a foundation must go
    there (the book); False lets the player put it on a packet instead.
    ``sevens_after_placing=False``: a 7's merge privilege is used before the
    7 is placed (RULES.md); True keeps it open after the 7 is placed, until
    the next deal (the book's worked example merges after placing the 7 of
    hearts and building on it). ``obs_encoding="ids"`` (or ``"planes"``, ``"moves"``,
    ``"moves_replay"``, ``"moves_replay_all"``, ``"rules_moves"``),
    ``illegal_action="penalize"`` (or ``"raise"``), ``render_mode=None`` (or
    ``"ansi"``, ``"human"``, or ``"rgb_array"`` for a card-table picture).

    ## Version History
    * v0: initial release. (The ``moves``, ``moves_replay``,
      ``moves_replay_all`` and ``rules_moves`` encodings were added later as new options; the
      rules and the other encodings are unchanged.)
    * v0 (later, no change to rules, observations or rewards): ``render_mode="rgb_array"``;
      non-integer actions are a TypeError; richer encodings served by :mod:`patience_gym.features`.
    """

    game_name = "puss_in_the_corner"
