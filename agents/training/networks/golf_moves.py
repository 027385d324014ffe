"""Golf's move network: each column scored as a move by shared weights, from the ``runs`` or ``rules_moves``
encoding, with an optional graph network over the link cards.

This module imports nothing that reaches :mod:`patience_gym.heuristics` (an import-linter
contract checks it): the ``runs`` layout comes from :mod:`patience_gym.features.golf_layout`.
"""

from __future__ import annotations

from typing import NamedTuple

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from patience_gym.features.golf_layout import RUNS_SIZE
from patience_gym.features.rules import layout as L
from patience_gym.games.golf import PLANE_WIDTH, PLANES_SIZE


class GolfMoves(BaseFeaturesExtractor):
    """Golf policy features from the ``runs`` encoding: each column scored as a move, by shared weights.

    Each column becomes a token of what a player weighs before playing its
    exposed card: the ranks in every row, the exposed rank, and the run that
    card starts (length, openness after it, height; see
    :mod:`patience_gym.heuristics.golf_runs`), and for every card in it how many
    unseen cards lie one rank below and one above (its chances to play later). A global token holds the waste rank,
    the count of still-unseen cards of each rank and the stock count (and, for
    ``GolfRound-v0``, the hole number). Two rounds of "each column, then the
    mean of all columns" let a move be judged against the others. The same
    weights score every column (a permutation of the columns permutes the
    logits), a head on the pooled state scores ``deal``, and the pooled state
    with the global token is the value features. Output: the 8 action logits
    followed by ``2 * hidden`` value features; pair it with :class:`LogitsPolicy`.

    ``encoding="rules_moves"`` reads Golf's rules-only move rows instead of the
    runs (no heuristic): a playable column's three values are the legal moves
    after playing it, the unseen cards that would fit the card it plays, and the
    cards left in it; an unplayable column's are 0.

    ``chain_rounds > 0`` adds a graph network over the link cards with that
    many rounds of messages (:class:`_LinkChains`, ``chain_width`` values per
    card): a node per link card (its rank, row, exposed flag and chances), an
    edge from a card to each card a player could play next after it (another
    column's exposed card, or the card beneath it), weighted by a learned
    rank-to-rank table started at "one rank apart"; each column token reads
    its exposed card's node, so the network can learn how far a play leads.
    It reads the planes only.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        hidden: int = 64,
        encoding: str = "runs",
        chain_rounds: int = 0,
        chain_width: int = 16,
    ):
        n = int(observation_space.shape[0])
        sizes = {"runs": RUNS_SIZE, "rules_moves": L.size(PLANES_SIZE, 8)}
        if encoding not in sizes or n - sizes[encoding] not in (0, 1):
            raise ValueError(
                f"GolfMoves reads Golf's or GolfRound's 'runs' or 'rules_moves' encoding (encoding= one of "
                f"{sorted(sizes)}); got encoding {encoding!r} with {n} values"
            )
        super().__init__(observation_space, features_dim=8 + 2 * hidden)
        self.encoding = encoding
        self.extra = n - sizes[encoding]
        rank = torch.zeros(52, 13)
        rank[torch.arange(52), torch.arange(52) % 13] = 1.0
        self.register_buffer("card_rank", rank)  # unused by forward; kept so that saved models load
        # The run values arrive as fractions (length/35, openness/52, height/5); one run card,
        # a few open cards and one link should each move the input by about a unit.
        self.register_buffer("run_scale", torch.tensor([35.0 / 2, 52.0 / 8, 5.0]))
        self.register_buffer("column_of", torch.arange(1.0, 8.0), persistent=False)
        self.register_buffer("row_of", torch.arange(5.0), persistent=False)
        self.register_buffer("card_rank_index", torch.arange(52) % 13, persistent=False)
        if chain_rounds < 0 or chain_width < 1:
            raise ValueError(f"chain_rounds must be >= 0 and chain_width >= 1, got {chain_rounds} and {chain_width}")
        self.chain_rounds = chain_rounds
        chain_out = 0
        if chain_rounds:
            chain_out = chain_width
            self.chain = _LinkChains(chain_rounds, chain_width)
        column_in = 5 * 13 + 5 * 2 + 13 + 3 + chain_out
        global_in = 13 + 13 + 1 + self.extra
        self.glob = nn.Sequential(nn.Linear(global_in, hidden), nn.ReLU())
        self.column = nn.Sequential(
            nn.Linear(column_in + hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.mix = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU())
        self.play = nn.Linear(hidden, 1)
        self.deal = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        cards = obs[:, : 52 * PLANE_WIDTH].view(b, 52, PLANE_WIDTH)
        planes = cards.view(b, 4, 13, PLANE_WIDTH)  # suit, rank, plane
        column = planes[..., :7]
        exposed, waste_top, in_waste = planes[..., 12], planes[..., 13], planes[..., 14]
        with torch.no_grad():  # the observation's one-hots rearranged: nothing to learn here
            grid = self._grid(cards[:, :, :7], cards[:, :, 7:12])  # (b, 7 * 5, 13)
            exposed_rank = (column * exposed.unsqueeze(-1)).sum(dim=1).transpose(1, 2)  # (b, 7, 13)
            unseen = (4.0 - column.sum(dim=-1).sum(dim=1) - in_waste.sum(dim=1)) / 4.0  # (b, 13)
            # For every link card: the unseen cards one rank below and one above it (its chances to play later).
            padded = nn.functional.pad(unseen, (1, 1))
            neighbours = torch.stack([padded[:, :-2], padded[:, 2:]], dim=2)  # (b, 13, 2)
            chances = torch.bmm(grid, neighbours).view(b, 7, 10)
            runs, extra = self._column_values(obs)
            stock = obs[:, 52 * PLANE_WIDTH : 52 * PLANE_WIDTH + 1]
            column_in = torch.cat([grid.view(b, 7, 65), chances, exposed_rank, runs], dim=2)
        if self.chain_rounds:
            column_in = torch.cat([column_in, self.chain(grid, chances.view(b, 35, 2))], dim=2)
        g = self.glob(torch.cat([waste_top.sum(dim=1), unseen, stock, extra], dim=1))
        # The column net's first layer reads [column token, g]: g's share is computed once, not per column.
        first = self.column[0]
        assert isinstance(first, nn.Linear)
        split = column_in.shape[2]
        tokens = nn.functional.linear(column_in, first.weight[:, :split])
        tokens = tokens + nn.functional.linear(g, first.weight[:, split:], first.bias).unsqueeze(1)
        tokens = self.column[1:](tokens)
        pooled = tokens.mean(dim=1, keepdim=True).expand(-1, 7, -1)
        tokens = self.mix(torch.cat([tokens, pooled], dim=2))
        state = torch.cat([tokens.mean(dim=1), g], dim=1)
        logits = torch.cat([self.play(tokens).squeeze(-1), self.deal(state)], dim=1)
        return torch.cat([logits, state], dim=1)

    def _column_values(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Three values per column (b, 7, 3), about a unit each, and the global extra (a round's hole)."""
        b = obs.shape[0]
        if self.encoding == "runs":
            run_scale: torch.Tensor = self.run_scale  # type: ignore[assignment]
            return obs[:, 52 * PLANE_WIDTH + 1 : RUNS_SIZE].view(b, 7, 3) * run_scale, obs[:, RUNS_SIZE:]
        planes = PLANES_SIZE + self.extra
        rows = obs[:, planes + L.POSITION_VALUES :].view(b, 8, L.ROW)
        batch, slot = torch.nonzero((rows[:, :, L.ACTION] > 0) & (rows[:, :, L.SOURCE_KIND] == 1), as_tuple=True)
        picked = rows[batch, slot]
        # legal moves after it (0..8) / 2, unseen cards fitting it (0..8) / 2, cards left in the column (0..4)
        values = picked[:, [L.AFTER_LEGAL, L.GAME_VALUE, L.SOURCE_LEFT]] * picked.new_tensor([4.0, 4.0, 52.0])
        column = picked[:, L.SOURCE_INDEX].long()
        runs = obs.new_zeros(b, 7, 3).index_put((batch, column), values)
        return runs, obs[:, PLANES_SIZE:planes]

    def _grid(self, column: torch.Tensor, row: torch.Tensor) -> torch.Tensor:
        """One-hot rank of the card at each (column, row) link slot, (b, 35, 13), from the cards' places."""
        b = column.shape[0]
        column_of: torch.Tensor = self.column_of  # type: ignore[assignment]
        row_of: torch.Tensor = self.row_of  # type: ignore[assignment]
        card_rank_index: torch.Tensor = self.card_rank_index  # type: ignore[assignment]
        col, r = column @ column_of, row @ row_of  # column 1..7 (0: not on the links), row 0..4
        spare = 35 * 13  # cards not on the links land in one extra cell, dropped below
        cell = torch.where(col > 0, ((col - 1) * 5 + r).long() * 13 + card_rank_index, spare)
        grid = torch.zeros(b, spare + 1, dtype=column.dtype, device=column.device).scatter_(1, cell, 1.0)
        return grid[:, :spare].view(b, 35, 13)


class _Links(NamedTuple):
    """Golf's link slots for :class:`_LinkChains` (b = batch; slot ``column * 5 + row``)."""

    exposed: torch.Tensor  # (b, 7, 5) 1.0 on each column's exposed card
    to_tops: torch.Tensor  # (b, 35, 7) edge weight from each card to the other columns' exposed cards
    to_beneath: torch.Tensor  # (b, 7, 5, 1) edge weight from each card to the card beneath it


class _LinkChains(nn.Module):
    """A graph network over Golf's 35 link slots: per column, a learned summary of the plays its exposed card opens.

    Slot ``column * 5 + row`` (row 4 dealt last). A card's successors are the
    exposed cards of the other columns and the card beneath it, each edge
    weighted by a learned table of (rank, next rank) started at "one rank
    apart". The edges to the exposed cards are one (35, 7) matrix per
    position, built once; each round of messages is a batched product with it
    and a shift down the column.
    """

    def __init__(self, rounds: int, width: int) -> None:
        super().__init__()
        self.register_buffer("row", nn.functional.one_hot(torch.arange(35) % 5, 5).float(), persistent=False)
        own_column = nn.functional.one_hot(torch.arange(35) // 5, 7).float()
        self.register_buffer("other_column", 1.0 - own_column, persistent=False)
        fit = torch.full((13, 13), -3.0)
        rank = torch.arange(12)
        fit[rank, rank + 1] = fit[rank + 1, rank] = 3.0
        self.fit = nn.Parameter(fit)
        self.embed = nn.Linear(13 + 5 + 2 + 1, width)  # a card's rank, row, chances below and above, exposed
        self.rounds = nn.ModuleList(nn.Linear(2 * width, width) for _ in range(rounds))

    def forward(self, grid: torch.Tensor, chances: torch.Tensor) -> torch.Tensor:
        """``grid`` (b, 35, 13) one-hot ranks, ``chances`` (b, 35, 2): the exposed cards' nodes, (b, 7, width)."""
        b = grid.shape[0]
        links = self.links(grid)
        row: torch.Tensor = self.row  # type: ignore[assignment]
        x = torch.cat([grid, row.expand(b, -1, -1), chances, links.exposed.view(b, 35, 1)], dim=2)
        first = torch.relu(self.embed(x))
        h = first
        width = first.shape[2]
        for layer in self.rounds:
            assert isinstance(layer, nn.Linear)
            # layer([first, message]) with the weight split: the first half's product is the same every round
            own = nn.functional.linear(first, layer.weight[:, :width], layer.bias)
            h = torch.relu(own + nn.functional.linear(self.message(h, links), layer.weight[:, width:]))
        return (h.view(b, 7, 5, -1) * links.exposed.unsqueeze(-1)).sum(dim=2)

    def links(self, grid: torch.Tensor) -> _Links:
        """Where the cards lie and how well one follows another (empty slots: all zero)."""
        b = grid.shape[0]
        slots = grid.view(b, 7, 5, 13)
        other_column: torch.Tensor = self.other_column  # type: ignore[assignment]
        with torch.no_grad():
            occupied = grid.sum(dim=2).view(b, 7, 5)
            exposed = occupied * (1.0 - nn.functional.pad(occupied[..., 1:], (0, 1)))
            top_rank = (slots * exposed.unsqueeze(-1)).sum(dim=2)  # (b, 7, 13)
            below_rank = nn.functional.pad(slots[:, :, :-1], (0, 0, 1, 0))  # the rank beneath each slot
        follows = (grid @ torch.sigmoid(self.fit)).view(b, 7, 5, 13)  # how well each rank follows each card
        return _Links(
            exposed=exposed,
            to_tops=(follows.view(b, 35, 13) @ top_rank.transpose(1, 2)) * other_column,
            to_beneath=(follows * below_rank).sum(dim=-1, keepdim=True),
        )

    @staticmethod
    def message(h: torch.Tensor, links: _Links) -> torch.Tensor:
        """Each card's sum of its successors' states, weighted by how well they follow it: (b, 35, width)."""
        b, _, width = h.shape
        hv = h.view(b, 7, 5, width)
        tops = (hv * links.exposed.unsqueeze(-1)).sum(dim=2)  # (b, 7, width)
        beneath = links.to_beneath * nn.functional.pad(hv[:, :, :-1], (0, 0, 1, 0))
        return (links.to_tops @ tops + beneath.view(b, 35, width)).view(b, 35, width)
