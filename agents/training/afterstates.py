"""``MilliganAfterstates``: the Miss Milligan family's legal moves scored by the position each one leads to.

TD-Gammon's and the 2048 agents' way, by the rules alone (research notes, sections 36 and 37). The
network reads the ``rules_moves`` observation and nothing else. From its planes it rebuilds the position as
the player sees it: the columns from their exposed ends, the reserve, the two foundation heights of each
suit. Each listed move's action id (``ACTION``) says what the move does, and the network applies it
in place to a copy of the position (:func:`afterstates`). A deal turns hidden cards, so its
afterstate is the position itself with a flag. Every face-up card of an afterstate becomes a token:
its rank and suit, the card beneath it, whether it is built on that card by the rules, how many
ranks its suit's foundations need before it, its depth from the exposed end. The tokens are summed
and max-pooled, and a small MLP maps them, with the foundation heights and counts, to one value. A
move's logit is its afterstate's value. The critic reads the same pooled tokens of the position itself.
A move changes only the tokens of the piles it takes from and adds to, and of the suit whose foundation it
changes (:class:`Change`), so only those are embedded again for its afterstate: the others' sums and
maxima are the position's, pooled per (pile, suit) cell, and the values equal those of embedding every
token (tested). No evaluation, lookahead or replay of a heuristic is read: :func:`afterstates` is tested against the
game's own ``apply``.

Use it with :class:`agents.training.networks.LogitsPolicy`, ``critic_reads_logits: false`` and
``share_features_extractor: false``.
"""

from __future__ import annotations

from typing import NamedTuple

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from patience_gym.features.rules import layout as L
from patience_gym.games.milligan import _P_FOUND as P_FOUND
from patience_gym.games.milligan import _P_RESERVE as P_RESERVE
from patience_gym.games.milligan import _P_ROW as P_ROW
from patience_gym.games.milligan import PLANE_WIDTH, PLANES_SIZE
from patience_gym.games.milligan_tables import (
    COLUMN_TO_RESERVE,
    FITS,
    FOUNDATION_TO_COLUMN,
    MAX_COLUMN,
    MAX_RUN,
    NUM_ACTIONS,
    NUM_COLUMNS,
    RESERVE_TO_COLUMN,
    TO_FOUNDATION,
    TOTAL_CARDS,
    decode_action,
)

#: Column cards a token is made for, from the exposed end (deeper ones are left out).
DEPTH = 40
#: Column cards kept while a move is applied (a move adds or takes at most ``MAX_RUN``).
WORK = DEPTH + MAX_RUN
RESERVE_PILE = NUM_COLUMNS
CARD_PILE = NUM_COLUMNS + 1  # a foundation's top card coming down
PILES = NUM_COLUMNS + 2
TOKEN_PILES = NUM_COLUMNS + 1  # the columns and the reserve
SUITS = 4
CELLS = TOKEN_PILES * SUITS  # tokens are pooled per (pile, suit) before the afterstates reuse them
GLOBALS = 5  # stock left, idle moves left, the deal flag, reserve size / 13, cards on the foundations / 104


class Position(NamedTuple):
    """Positions as the player sees them (``n`` of them)."""

    piles: torch.Tensor  # (n, PILES, WORK + 1) int16: card + 1 from the exposed end (0: none); the last entry 0
    found: torch.Tensor  # (n, 4, 2) each suit's foundation heights, lower first
    glob: torch.Tensor  # (n, GLOBALS)


def read_position(obs: torch.Tensor) -> Position:
    """The positions of ``rules_moves`` observations of the Miss Milligan family, from their planes."""
    n = obs.shape[0]
    planes = obs[:, : TOTAL_CARDS * PLANE_WIDTH].view(n, TOTAL_CARDS, PLANE_WIDTH)
    card = torch.arange(TOTAL_CARDS, device=obs.device) // 2 + 1  # instance 2c and 2c + 1 are card c
    piles = torch.zeros(n, PILES, WORK + 1, dtype=torch.int16, device=obs.device)
    columns = planes[:, :, :NUM_COLUMNS]
    in_column = columns.amax(dim=2) > 0.5
    pile = torch.where(in_column, columns.argmax(dim=2), RESERVE_PILE)
    in_pile = in_column | (planes[:, :, P_RESERVE] > 0.5)
    scale = torch.where(in_column, MAX_COLUMN - 1, MAX_RUN - 1)
    row = torch.round(planes[:, :, P_ROW] * scale).long()
    b, inst = torch.nonzero(in_pile, as_tuple=True)
    p = pile[b, inst]
    lengths = torch.zeros(n, PILES, dtype=torch.long, device=obs.device)
    lengths.index_put_((b, p), torch.ones_like(p), accumulate=True)
    depth = lengths[b, p] - 1 - row[b, inst]
    keep = depth < WORK
    piles[b[keep], p[keep], depth[keep]] = card[inst[keep]].to(piles.dtype)
    on_found = (planes[:, :, P_FOUND] > 0.5).long()
    copies = torch.zeros(n, TOTAL_CARDS // 2, dtype=torch.long, device=obs.device)
    copies.index_add_(1, card - 1, on_found)
    copies = copies.view(n, SUITS, 13)
    found = torch.stack([(copies >= 2).sum(dim=2), (copies >= 1).sum(dim=2)], dim=2)
    g = obs[:, TOTAL_CARDS * PLANE_WIDTH :]
    glob = torch.stack(
        [
            g[:, 0],
            g[:, 1],
            torch.zeros_like(g[:, 0]),
            lengths[:, RESERVE_PILE].to(obs.dtype) / MAX_RUN,
            found.sum(dim=(1, 2)).to(obs.dtype) / TOTAL_CARDS,
        ],
        dim=1,
    )
    return Position(piles, found, glob)


def _action_tables() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per action id: its kind, the pile it takes from, the pile it adds to (-1: none) and the cards moved."""
    kinds, sources, dests, counts = [], [], [], []
    for action in range(NUM_ACTIONS):
        kind, src, dst, k = decode_action(action)
        source = {FOUNDATION_TO_COLUMN: CARD_PILE, RESERVE_TO_COLUMN: RESERVE_PILE}.get(kind, src)
        dest = {COLUMN_TO_RESERVE: RESERVE_PILE, TO_FOUNDATION: -1}.get(kind, dst)
        kinds.append(kind)
        sources.append(source if source >= 0 else RESERVE_PILE)  # TO_FOUNDATION from the reserve: -1
        dests.append(dest)
        counts.append(k)
    return tuple(torch.tensor(v) for v in (kinds, sources, dests, counts))  # type: ignore[return-value]


_KIND, _SOURCE, _DEST, _COUNT = _action_tables()


def _decoded(actions: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Each action's kind, source pile, destination pile (-1: none) and cards moved (:func:`_action_tables`)."""
    return tuple(t.to(actions.device)[actions] for t in (_KIND, _SOURCE, _DEST, _COUNT))


def afterstates(position: Position, owner: torch.Tensor, actions: torch.Tensor, moved: torch.Tensor) -> Position:
    """The positions the legal ``actions`` lead to, before a deal's cards turn (a deal: the position, flagged).

    ``owner[m]`` is the position of move ``m``; ``moved[m]`` its row's ``MOVED`` field (card + 1), read
    only for a foundation's top card coming down.
    """
    device = actions.device
    kind, source, dest, count = _decoded(actions)
    piles = position.piles[owner]  # a copy
    m = torch.arange(len(actions), device=device)
    down = kind == FOUNDATION_TO_COLUMN
    piles[m[down], CARD_PILE, 0] = moved[down].to(piles.dtype)
    taken = piles[m, source]  # (moves, WORK + 1); its last entry, always 0, pads the shifts
    d = torch.arange(WORK, device=device)
    left = taken.gather(1, (d + count.unsqueeze(1)).clamp(max=WORK))
    onto = piles[m, dest.clamp(min=0)].gather(1, (d - count.unsqueeze(1)).clamp(min=0))
    landed = torch.where(d < count.unsqueeze(1), taken[:, :WORK], onto)
    piles[m, source, :WORK] = left
    adds = dest >= 0
    piles[m[adds], dest[adds], :WORK] = landed[adds]
    piles[:, CARD_PILE] = 0
    # The foundations: a card up raises the pile one below it, a top card down lowers the pile it tops.
    card = taken[:, 0].long() - 1
    suit = (card // 13).clamp(min=0)
    rank = card % 13 + 1
    found = position.found[owner].clone()
    heights = found[m, suit]
    up = kind == TO_FOUNDATION
    lower = torch.where(up, heights[:, 0] != rank - 1, heights[:, 1] == rank).long()
    step = up.long() - down.long()
    found[m, suit] += nn.functional.one_hot(lower, 2) * step.unsqueeze(1)
    found = found.sort(dim=2).values
    glob = position.glob[owner].clone()
    glob[:, 2] = (count == 0).to(glob.dtype)
    glob[:, 3] = (piles[:, RESERVE_PILE] > 0).sum(dim=1).to(glob.dtype) / MAX_RUN
    glob[:, 4] = found.sum(dim=(1, 2)).to(glob.dtype) / TOTAL_CARDS
    return Position(piles, found, glob)


class Change(NamedTuple):
    """What a move may change of its position's tokens; every other token of its afterstate is the position's own.

    A move rewrites the piles it takes from and adds to (their cards' depths shift), and a move to or from a
    foundation changes how long every card of that suit waits.
    """

    source: torch.Tensor  # (moves,) the token pile it takes from (TOKEN_PILES: none)
    dest: torch.Tensor  # (moves,) the token pile it adds to (TOKEN_PILES: none)
    suit: torch.Tensor  # (moves,) the suit whose foundation it changes (SUITS: none)


def change(position: Position, owner: torch.Tensor, actions: torch.Tensor, moved: torch.Tensor) -> Change:
    """The :class:`Change` of each move (arguments as for :func:`afterstates`)."""
    kind, source, dest, count = _decoded(actions)
    none = torch.full_like(source, TOKEN_PILES)
    source_pile = torch.where((count > 0) & (source < TOKEN_PILES), source, none)
    dest_pile = torch.where((count > 0) & (dest >= 0), dest, none)
    top = position.piles[owner, source, 0]
    card = torch.where(kind == FOUNDATION_TO_COLUMN, moved.long(), top) - 1
    foundation = (kind == TO_FOUNDATION) | (kind == FOUNDATION_TO_COLUMN)
    suit = torch.where(foundation, card // 13, SUITS)
    return Change(source_pile, dest_pile, suit)


class PositionValue(nn.Module):
    """Pooled card tokens of positions (:class:`Position`), and one value each.

    :meth:`forward` embeds every token of every position. :meth:`afterstate_values` gives the same values
    for the positions moves lead to, but embeds only the tokens a move may change (:class:`Change`):
    the others are the position's own, pooled once per (pile, suit) cell.
    """

    fits: torch.Tensor  # FITS[under, over]: ``over`` is built on ``under`` by the rules
    slot_depth: torch.Tensor  # each token slot's depth (the reserve's: DEPTH)
    slot_pile: torch.Tensor  # each token slot's pile

    def __init__(self, width: int = 64, dim: int = 16) -> None:
        super().__init__()
        self.width = width
        self.rank = nn.Embedding(14, dim)
        self.suit = nn.Embedding(5, dim)
        self.under_rank = nn.Embedding(14, dim)
        self.under_suit = nn.Embedding(5, dim)
        self.wait = nn.Embedding(14, dim)
        self.depth = nn.Embedding(DEPTH + 1, dim)  # the reserve's cards have depth DEPTH
        self.token = nn.Sequential(nn.Linear(6 * dim + 2, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.heights = nn.Embedding(14, 4)
        self.features_dim = 2 * width + GLOBALS + 2 * SUITS * 4 + 1
        self.head = nn.Sequential(nn.Linear(self.features_dim, width), nn.ReLU(), nn.Linear(width, 1))
        self.register_buffer("fits", torch.tensor(FITS, dtype=torch.bool).view(52, 52), persistent=False)
        depth = torch.cat([torch.arange(DEPTH).repeat(NUM_COLUMNS), torch.full((MAX_RUN,), DEPTH)])
        self.register_buffer("slot_depth", depth, persistent=False)
        pile = torch.cat([torch.arange(NUM_COLUMNS).repeat_interleave(DEPTH), torch.full((MAX_RUN,), RESERVE_PILE)])
        self.register_buffer("slot_pile", pile, persistent=False)

    def tokens(self, position: Position, only: Change | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Each face-up card's token ``(tokens, width)``, its position and its (pile, suit) cell; with a
        :class:`Change` of each position (``only``), only the cards it may change."""
        piles = position.piles
        n = piles.shape[0]
        columns = piles[:, :NUM_COLUMNS, : DEPTH + 1]
        reserve = piles[:, RESERVE_PILE, : MAX_RUN + 1]
        cards = torch.cat([columns[:, :, :DEPTH].reshape(n, -1), reserve[:, :MAX_RUN]], dim=1)
        unders = torch.cat([columns[:, :, 1:].reshape(n, -1), reserve[:, 1:]], dim=1)
        present = cards > 0
        if only is not None:
            pile = self.slot_pile.unsqueeze(0)
            suit = torch.div(cards - 1, 13, rounding_mode="floor")
            present &= (
                (pile == only.source.unsqueeze(1)) | (pile == only.dest.unsqueeze(1)) | (suit == only.suit.unsqueeze(1))
            )
        owner, slot = torch.nonzero(present, as_tuple=True)
        c = cards[owner, slot].long() - 1
        u = unders[owner, slot].long() - 1
        built = (u >= 0) & self.fits[u.clamp(min=0), c]
        rank = c % 13 + 1
        heights = position.found[owner, c // 13]
        waits = torch.where(heights < rank.unsqueeze(1), rank.unsqueeze(1) - 1 - heights, 13)
        under_known = u >= 0
        x = torch.cat(
            [
                self.rank(rank),
                self.suit(c // 13 + 1),
                self.under_rank(torch.where(under_known, u % 13 + 1, 0)),
                self.under_suit(torch.where(under_known, u // 13 + 1, 0)),
                self.wait(waits.amin(dim=1)),
                self.depth(self.slot_depth[slot]),
                built.float().unsqueeze(1),
                (self.slot_depth[slot] == DEPTH).float().unsqueeze(1),
            ],
            dim=1,
        )
        return self.token(x), owner, self.slot_pile[slot] * SUITS + c // 13

    def pooled(self, tokens: torch.Tensor, index: torch.Tensor, rows: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The tokens summed and max-pooled into ``rows`` rows by ``index`` (an empty row: zeros)."""
        summed = tokens.new_zeros(rows, self.width).index_add(0, index, tokens)
        expanded = index.unsqueeze(1).expand(-1, self.width)
        maxed = tokens.new_zeros(rows, self.width).scatter_reduce(0, expanded, tokens, reduce="amax")
        return summed, maxed

    def cells(self, position: Position) -> tuple[torch.Tensor, torch.Tensor]:
        """``(n, CELLS, width)`` each: the tokens summed and max-pooled per (pile, suit) cell."""
        n = position.piles.shape[0]
        tokens, owner, cell = self.tokens(position)
        summed, maxed = self.pooled(tokens, owner * CELLS + cell, n * CELLS)
        return summed.view(n, CELLS, -1), maxed.view(n, CELLS, -1)

    def head_features(self, position: Position, summed: torch.Tensor, maxed: torch.Tensor) -> torch.Tensor:
        """``(n, features_dim)`` from the pooled tokens: with the globals, the heights, the vacancies."""
        vacancies = (position.piles[:, :NUM_COLUMNS, 0] == 0).float().sum(dim=1, keepdim=True) / NUM_COLUMNS
        heights_all = self.heights(position.found.flatten(1)).flatten(1)
        return torch.cat([summed / 16.0, maxed, position.glob.float(), heights_all, vacancies], dim=1)

    def features(self, position: Position) -> torch.Tensor:
        """``(n, features_dim)``: the summed and max-pooled tokens, the globals, the heights, the vacancies."""
        tokens, owner, _ = self.tokens(position)
        summed, maxed = self.pooled(tokens, owner, position.piles.shape[0])
        return self.head_features(position, summed, maxed)

    def forward(self, position: Position) -> torch.Tensor:
        out: torch.Tensor = self.head(self.features(position)).squeeze(1)
        return out

    def afterstate_values(
        self,
        position: Position,
        cells: tuple[torch.Tensor, torch.Tensor],
        owner: torch.Tensor,
        actions: torch.Tensor,
        moved: torch.Tensor,
    ) -> torch.Tensor:
        """``forward(afterstates(position, owner, actions, moved))``, re-embedding only the tokens a move may
        change (:class:`Change`); ``cells`` is :meth:`cells` of ``position``."""
        after = afterstates(position, owner, actions, moved)
        moves = change(position, owner, actions, moved)
        n = position.piles.shape[0]
        # Sums: the position's, less the changed piles and suit (inclusion-exclusion; index "none" pads zeros).
        cell_sums = nn.functional.pad(cells[0].view(n, TOKEN_PILES, SUITS, -1), (0, 0, 0, 1, 0, 1))
        pile_sums, suit_sums = cell_sums.sum(dim=2), cell_sums.sum(dim=1)
        a, b, s = moves.source, moves.dest, moves.suit
        summed = (
            pile_sums.sum(dim=1)[owner]
            - pile_sums[owner, a]
            - pile_sums[owner, b]
            - suit_sums[owner, s]
            + cell_sums[owner, a, s]
            + cell_sums[owner, b, s]
        )
        # Maxima: per pile, over the suits but one (or all), then over the piles the move leaves alone.
        cell_max = cells[1].view(n, TOKEN_PILES, SUITS, -1)
        others = [cell_max[:, :, [j for j in range(SUITS) if j != i]].amax(dim=2) for i in range(SUITS)]
        but_one = torch.stack([*others, cell_max.amax(dim=2)], dim=2)  # (n, TOKEN_PILES, SUITS + 1, width)
        piles = torch.arange(TOKEN_PILES, device=actions.device)
        kept = ((piles != a.unsqueeze(1)) & (piles != b.unsqueeze(1))).unsqueeze(2).to(cell_max.dtype)
        maxed = (but_one[owner, :, s] * kept).amax(dim=1)  # tokens are never negative (ReLU)
        tokens, move, _ = self.tokens(after, moves)
        new_summed, new_maxed = self.pooled(tokens, move, len(actions))
        features = self.head_features(after, summed + new_summed, torch.maximum(maxed, new_maxed))
        out: torch.Tensor = self.head(features).squeeze(1)
        return out


class MilliganAfterstates(BaseFeaturesExtractor):
    """Each listed move's logit is the value of the position it leads to (module docstring).

    Output: the ``num_actions`` logits (``unlisted`` for actions without a row), then the position's
    own pooled features for the critic. With ``critic_only`` (set by :class:`LogitsPolicy` on a separate
    critic's extractor) every logit is ``unlisted`` and no afterstate is made.
    """

    critic_only: bool

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        global_size: int,
        move_features: int,
        num_actions: int,
        width: int = 64,
        unlisted: float = -10.0,
    ) -> None:
        n = int(observation_space.shape[0])
        if (
            global_size != PLANES_SIZE + L.POSITION_VALUES
            or move_features != L.ROW - 1
            or num_actions != NUM_ACTIONS
            or (n - global_size) % L.ROW
        ):
            raise ValueError(
                "MilliganAfterstates reads the Miss Milligan family's 'rules_moves' observation "
                f"({PLANES_SIZE + L.POSITION_VALUES} global values, {NUM_ACTIONS} actions); got {n} values, "
                f"global_size {global_size}, {num_actions} actions"
            )
        value = PositionValue(width)
        super().__init__(observation_space, features_dim=num_actions + value.features_dim)
        self.value = value
        self.global_size = global_size
        self.num_actions = num_actions
        self.slots = (n - global_size) // L.ROW
        self.unlisted = unlisted
        self.critic_only = False

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        position = read_position(obs[:, :PLANES_SIZE])
        logits = torch.full((b, self.num_actions), self.unlisted, device=obs.device, dtype=obs.dtype)
        if self.critic_only:
            return torch.cat([logits, self.value.features(position).to(obs.dtype)], dim=1)
        cells = self.value.cells(position)
        own = self.value.head_features(position, cells[0].sum(dim=1), cells[1].amax(dim=1))
        rows = obs[:, self.global_size :].view(b, self.slots, L.ROW)
        listed = rows[:, :, L.ACTION] > 0
        owner, slot = torch.nonzero(listed, as_tuple=True)
        picked = rows[owner, slot]
        actions = torch.round(picked[:, L.ACTION] * self.num_actions).long() - 1
        scores = self.value.afterstate_values(position, cells, owner, actions, picked[:, L.MOVED])
        logits = logits.index_put((owner, actions), scores.to(obs.dtype))
        return torch.cat([logits, own.to(obs.dtype)], dim=1)
