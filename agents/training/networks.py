"""Feature extractors for card-game observations (Stable-Baselines3 ``features_extractor_class``).

``CardEmbedding`` reads an ``ids`` observation whose first ``card_slots``
entries are card ids (0 = empty, 1..52 = card + 1) and the rest plain
numbers. Every card slot is embedded with one card table shared by all slots
(rank and suit embeddings summed, so the net sees that a 7 is a 7 wherever it
lies) plus a learned slot embedding; a small self-attention layer lets each
slot look at the others, and the flattened result, with the scaled numbers,
is the feature vector. Use it in a config as::

    policy_kwargs:
      features_extractor_class: agents.training.networks.CardEmbedding
      features_extractor_kwargs: {card_slots: 36, embed_dim: 32}
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, NamedTuple

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from patience_gym.features.golf import RUNS_SIZE
from patience_gym.features.rules import layout as L
from patience_gym.games.golf import PLANE_WIDTH, PLANES_SIZE


class CardEmbedding(BaseFeaturesExtractor):
    """Shared card embeddings + slot embeddings + one attention layer over the slots."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        card_slots: int,
        embed_dim: int = 32,
        attention: bool = True,
        heads: int = 4,
    ) -> None:
        n = int(observation_space.shape[0])
        if not 0 < card_slots <= n:
            raise ValueError(f"card_slots must be in 1..{n}, got {card_slots}")
        extra = n - card_slots
        super().__init__(observation_space, features_dim=card_slots * embed_dim + extra)
        self.card_slots = card_slots
        high = torch.as_tensor(observation_space.high[card_slots:], dtype=torch.float32)
        self.register_buffer("extra_scale", 1.0 / torch.clamp(high, min=1.0))
        self.rank = nn.Embedding(14, embed_dim)  # 0 = empty slot
        self.suit = nn.Embedding(5, embed_dim)
        self.slot = nn.Parameter(torch.zeros(card_slots, embed_dim))
        nn.init.normal_(self.slot, std=0.02)
        self.attention = (
            nn.TransformerEncoderLayer(embed_dim, heads, dim_feedforward=2 * embed_dim, dropout=0.0, batch_first=True)
            if attention
            else None
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        ids = obs[:, : self.card_slots].long()
        card = (ids - 1).clamp(min=0)
        present = ids > 0
        rank = torch.where(present, card % 13 + 1, torch.zeros_like(card))
        suit = torch.where(present, card // 13 + 1, torch.zeros_like(card))
        x = self.rank(rank) + self.suit(suit) + self.slot
        if self.attention is not None:
            x = self.attention(x)
        scale: torch.Tensor = self.extra_scale  # type: ignore[assignment]
        extra = obs[:, self.card_slots :] * scale
        return torch.cat([x.flatten(1), extra], dim=1)


class GolfColumns(BaseFeaturesExtractor):
    """Golf policy features from the ``ids`` encoding: one token per column, scored by shared weights.

    Column ``c`` becomes a token from its ranks read from the exposed card
    upward (the order they can be played in), each rank embedded by one
    table and position; a global token holds the waste rank and the stock
    count. A small transformer lets every column see the others and the
    waste, so "play this card, then that one" can be judged. The same
    weights score every column (moving a column to another place moves its
    logit with it), a global head scores ``deal``, and the global token's
    state is the value features. Output: the 8 action logits followed by
    ``embed_dim`` value features; pair it with :class:`LogitsPolicy`, which
    reads the first 8 as the logits.
    """

    def __init__(self, observation_space: gym.spaces.Box, embed_dim: int = 64, layers: int = 2, heads: int = 4):
        if tuple(observation_space.shape) != (37,):
            raise ValueError(f"GolfColumns reads Golf-v0's 'ids' observation (37,), got {observation_space.shape}")
        super().__init__(observation_space, features_dim=8 + embed_dim)
        self.rank = nn.Embedding(14, embed_dim)  # 0 = no card
        self.depth = nn.Parameter(torch.zeros(5, embed_dim))  # 0 = exposed
        self.waste = nn.Embedding(14, embed_dim)
        self.stock = nn.Linear(1, embed_dim)
        self.kind = nn.Parameter(torch.zeros(2, embed_dim))  # column token, global token
        nn.init.normal_(self.depth, std=0.02)
        nn.init.normal_(self.kind, std=0.02)
        layer = nn.TransformerEncoderLayer(
            embed_dim, heads, dim_feedforward=2 * embed_dim, dropout=0.0, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.play = nn.Sequential(nn.Linear(embed_dim, embed_dim), nn.ReLU(), nn.Linear(embed_dim, 1))
        self.deal = nn.Sequential(nn.Linear(embed_dim, embed_dim), nn.ReLU(), nn.Linear(embed_dim, 1))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        ids = obs[:, :35].long().view(-1, 5, 7).transpose(1, 2)  # (batch, column, row), row 0 deepest
        rank = torch.where(ids > 0, (ids - 1) % 13 + 1, torch.zeros_like(ids))
        height = (ids > 0).sum(dim=2, keepdim=True)
        # Read each column from its exposed card upward: position p holds row height-1-p.
        position = torch.arange(5, device=obs.device)
        upward = rank.gather(2, (height - 1 - position).clamp(min=0))
        upward = torch.where(position < height, upward, torch.zeros_like(upward))
        columns = (self.rank(upward) + self.depth).sum(dim=2) + self.kind[0]
        waste = (obs[:, 35].long() - 1) % 13 + 1
        glob = self.waste(waste) + self.stock(obs[:, 36:37] / 16.0) + self.kind[1]
        x = self.encoder(torch.cat([columns, glob.unsqueeze(1)], dim=1))
        logits = torch.cat([self.play(x[:, :7]).squeeze(-1), self.deal(x[:, 7])], dim=1)
        return torch.cat([logits, x[:, 7]], dim=1)


class FirstLogits(nn.Module):
    """The first ``n`` features, as action logits."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return latent[:, : self.n]


class ValueFromFeatures(MlpExtractor):
    """SB3's ``MlpExtractor`` whose actor latent is all the features and whose critic reads those after the logits."""

    def __init__(
        self, features_dim: int, num_logits: int, vf_arch: list[int], activation_fn: type[nn.Module], device: Any
    ) -> None:
        super().__init__(features_dim - num_logits, {"pi": [], "vf": vf_arch}, activation_fn, device)
        self.num_logits = num_logits
        self.latent_dim_pi = features_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, self.num_logits :])  # type: ignore[no-any-return]


class LogitsPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose features extractor gives the action logits itself (its first ``n`` outputs).

    ``critic_reads_logits=False`` gives the value MLP only the features after the
    logits (the extractor's value features). With the default ``True`` it reads
    them all, as the models trained before this option did; for
    :class:`MoveListScorer`, whose unlisted actions' logits sit at -10, that
    saturates the value MLP's tanh units, and the critic's output stops depending
    on the position (see ``docs/pages/research.md``). Then a separate critic
    extractor with a ``critic_only`` attribute has it set, so that it may skip the logits.
    """

    def __init__(self, *args: Any, critic_reads_logits: bool = True, **kwargs: Any) -> None:
        self.critic_reads_logits = critic_reads_logits
        kwargs.setdefault("net_arch", {"pi": [], "vf": [64]})
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if self.critic_reads_logits:
            super()._build_mlp_extractor()
            return
        arch = self.net_arch
        if not isinstance(arch, dict) or arch.get("pi", []):
            raise ValueError(
                f"LogitsPolicy(critic_reads_logits=False) takes net_arch {{'pi': [], 'vf': [...]}}, got {arch!r}"
            )
        num_logits = int(self.action_space.n)  # type: ignore[attr-defined]
        self.mlp_extractor = ValueFromFeatures(
            self.features_dim, num_logits, list(arch.get("vf", [])), self.activation_fn, self.device
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "critic_reads_logits": self.critic_reads_logits}

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = FirstLogits(int(self.action_space.n))  # type: ignore[attr-defined]
        critic = self.vf_features_extractor
        if not self.share_features_extractor and not self.critic_reads_logits and hasattr(critic, "critic_only"):
            setattr(critic, "critic_only", True)  # noqa: B010 - its logits are never read: it may skip them
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


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


def _state_net(global_size: int, hidden: int) -> nn.Module:
    """The state MLP: the global values to a state vector."""
    return nn.Sequential(nn.Linear(global_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())


def _move_net(move_features: int, action_embed: int, hidden: int) -> nn.Module:
    """The move MLP: a move's features, its action embedding and the state vector to one score."""
    return nn.Sequential(nn.Linear(move_features + action_embed + hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))


def _score_moves(score: nn.Module, moves: torch.Tensor, embedded: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """One score per move, shape (batch, moves), from its features, its action embedding and the state vector."""
    x = torch.cat([moves, embedded, g.unsqueeze(1).expand(-1, moves.shape[1], -1)], dim=2)
    return score(x).squeeze(-1)


class MoveScorer(BaseFeaturesExtractor):
    """Score every action from its own features, with one set of weights (any game with a ``moves`` encoding).

    The observation is ``global_size`` values about the whole position followed
    by ``move_features`` values for each action (for Puss in the Corner:
    :mod:`patience_gym.heuristics.puss_moves`; ``MOVES_GLOBAL`` and ``MOVE_FEATURES``).
    An MLP turns the global part into a state vector; each action's logit is a
    shared MLP of its features, a small learned embedding of the action (which
    kind of move, which packet) and the state vector, so what is learnt about
    "put the card where the top waits longer" holds for every packet. Output:
    the action logits followed by ``hidden`` value features (the state
    vector); pair it with :class:`LogitsPolicy`.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        global_size: int,
        move_features: int,
        hidden: int = 128,
        action_embed: int = 16,
    ) -> None:
        n = int(observation_space.shape[0])
        if not 0 < global_size < n or (n - global_size) % move_features:
            raise ValueError(
                f"MoveScorer: an observation of {n} values is not {global_size} global values "
                f"followed by whole rows of {move_features} move features"
            )
        num_actions = (n - global_size) // move_features
        super().__init__(observation_space, features_dim=num_actions + hidden)
        self.global_size = global_size
        self.num_actions = num_actions
        self.move_features = move_features
        # Built in this order (state net, embedding, move net) so that parameter order and
        # initialisation match the models trained before these nets were shared (optimizer state).
        self.glob = _state_net(global_size, hidden)
        self.action = nn.Parameter(torch.zeros(num_actions, action_embed))
        nn.init.normal_(self.action, std=0.1)
        self.score = _move_net(move_features, action_embed, hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        g = self.glob(obs[:, : self.global_size])
        moves = obs[:, self.global_size :].view(-1, self.num_actions, self.move_features)
        scores = _score_moves(self.score, moves, self.action.expand(obs.shape[0], -1, -1), g)
        return torch.cat([scores, g], dim=1)


class MoveListScorer(BaseFeaturesExtractor):
    """:class:`MoveScorer` for games with many possible actions, few legal at once: scores a list of moves.

    The observation is ``global_size`` values about the position followed by
    rows of ``1 + move_features`` values, one per legal move: the action's id
    as ``(action + 1) / num_actions`` (0: an empty row), then the move's
    features (for the Miss Milligan family: :mod:`patience_gym.heuristics.milligan_moves`,
    ``MOVES_GLOBAL`` and ``MOVE_FEATURES``). Each row is scored like a
    :class:`MoveScorer` action and its score written to its action's logit;
    actions without a row get the logit ``unlisted`` (illegal ones are masked
    anyway). Output: the ``num_actions`` logits followed by ``hidden`` value
    features; pair it with :class:`LogitsPolicy`.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        global_size: int,
        move_features: int,
        num_actions: int,
        hidden: int = 128,
        action_embed: int = 16,
        unlisted: float = -10.0,
    ) -> None:
        n = int(observation_space.shape[0])
        row = 1 + move_features
        if not 0 < global_size < n or (n - global_size) % row:
            raise ValueError(
                f"MoveListScorer: an observation of {n} values is not {global_size} global values "
                f"followed by whole rows of 1 + {move_features} values"
            )
        super().__init__(observation_space, features_dim=num_actions + hidden)
        self.global_size = global_size
        self.num_actions = num_actions
        self.slots = (n - global_size) // row
        self.row = row
        self.unlisted = unlisted
        self.glob = _state_net(global_size, hidden)  # in this order: see MoveScorer
        self.action = nn.Embedding(num_actions, action_embed)
        nn.init.normal_(self.action.weight, std=0.1)
        self.score = _move_net(move_features, action_embed, hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        g = self.glob(obs[:, : self.global_size])
        rows = obs[:, self.global_size :].view(-1, self.slots, self.row)
        ids = torch.round(rows[:, :, 0] * self.num_actions).long() - 1  # -1: empty row
        # Only the listed rows are scored (a few dozen of the 128 slots): gather them, score, scatter.
        batch, slot = torch.nonzero(ids >= 0, as_tuple=True)
        listed = ids[batch, slot]
        x = torch.cat([rows[batch, slot, 1:], self.action(listed), g[batch]], dim=1)
        scores = self.score(x).squeeze(-1)
        logits = torch.full((obs.shape[0], self.num_actions), self.unlisted, device=obs.device, dtype=obs.dtype)
        logits = logits.index_put((batch, listed), scores)
        return torch.cat([logits, g], dim=1)


def complete_extractor_kwargs(policy_kwargs: Mapping[str, Any], layout: Mapping[str, int]) -> dict[str, Any]:
    """``policy_kwargs`` with the feature extractor's layout arguments (``global_size``, ``move_features``,
    ``num_actions``) filled in from the observation's layout (``env.unwrapped.observer.layout``).

    Configs never write observation offsets: the network reads them from the encoding it is given.
    A value the config does give must agree with the layout.
    """
    resolved = dict(policy_kwargs)
    extractor = resolved.get("features_extractor_class")
    if not isinstance(extractor, type) or not layout:
        return resolved
    accepted = inspect.signature(extractor).parameters
    kwargs = dict(resolved.get("features_extractor_kwargs") or {})
    for key, value in layout.items():
        if key not in accepted:
            continue
        if key in kwargs and kwargs[key] != value:
            raise ValueError(
                f"features_extractor_kwargs.{key} is {kwargs[key]}, but the observation's layout has {value}; "
                "leave it out: it is read from the observation encoding"
            )
        kwargs[key] = value
    resolved["features_extractor_kwargs"] = kwargs
    return resolved


class MoveRows(BaseFeaturesExtractor):
    """One network for every game's ``rules_moves`` encoding: each legal move scored by shared weights.

    The observation is the game's plain ``planes`` and two position values
    (``global_size`` in all), then rows of ``1 + move_features`` values, one per
    legal move (:mod:`patience_gym.features.rules.layout`). An MLP turns the
    global part into a state vector. Each row becomes a token from its cards
    (every card field embedded by one rank table and one suit table, shared by
    all fields, so a 7 is a 7 wherever it lies), its kinds and indexes (small
    embeddings) and its numbers, joined with the state vector. The tokens then
    see each other (the max over the listed moves joined to each token), and a
    shared linear head scores each one into its action's logit. Actions without a row
    get ``unlisted`` (they are masked, or past the slots, which the overflow
    value shows). Output: the ``num_actions`` logits, then ``2 * hidden`` value
    features (the state vector and the mean token); pair it with
    :class:`LogitsPolicy` and ``critic_reads_logits: false``.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        global_size: int,
        move_features: int,
        num_actions: int,
        hidden: int = 128,
        card_dim: int = 16,
        kind_dim: int = 8,
        unlisted: float = -10.0,
    ) -> None:
        n = int(observation_space.shape[0])
        row = 1 + move_features
        if row != L.ROW or not 0 < global_size < n or (n - global_size) % row:
            raise ValueError(
                f"MoveRows reads a 'rules_moves' observation ({L.ROW}-value rows after the global part); "
                f"got {n} values, global_size {global_size}, rows of 1 + {move_features}"
            )
        super().__init__(observation_space, features_dim=num_actions + 2 * hidden)
        self.global_size = global_size
        self.num_actions = num_actions
        self.slots = (n - global_size) // row
        self.unlisted = unlisted
        cards = torch.arange(L.HIDDEN_CARD + 1)
        known = (cards > 0) & (cards < L.HIDDEN_CARD)
        # Card field value -> rank (0 none, 1..13, 14 hidden) and suit (0 none, 1..4, 5 hidden).
        rank = torch.where(known, (cards - 1) % 13 + 1, torch.where(cards == L.HIDDEN_CARD, 14, 0))
        suit = torch.where(known, (cards - 1) // 13 + 1, torch.where(cards == L.HIDDEN_CARD, 5, 0))
        self.register_buffer("card_rank", rank, persistent=False)
        self.register_buffer("card_suit", suit, persistent=False)
        self.register_buffer("card_fields", torch.tensor(L.CARD_FIELDS), persistent=False)
        self.register_buffer("kind_fields", torch.tensor(L.KIND_FIELDS), persistent=False)
        self.register_buffer("number_fields", torch.tensor(L.NUMBER_FIELDS), persistent=False)
        self.register_buffer("kind_offset", torch.arange(len(L.KIND_FIELDS)) * (L.MAX_INDEX + 1), persistent=False)
        self.glob = _state_net(global_size, hidden)
        self.rank = nn.Embedding(15, card_dim)
        self.suit = nn.Embedding(6, card_dim)
        self.kinds = nn.Embedding(len(L.KIND_FIELDS) * (L.MAX_INDEX + 1), kind_dim)  # one table per field
        row_in = len(L.CARD_FIELDS) * card_dim + len(L.KIND_FIELDS) * kind_dim + len(L.NUMBER_FIELDS)
        self.token_in = nn.Linear(row_in + hidden, hidden)
        self.token = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mix = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU())
        self.score = nn.Linear(hidden, 1)

    def _buffer(self, name: str) -> torch.Tensor:
        value: torch.Tensor = getattr(self, name)
        return value

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        g = self.glob(obs[:, : self.global_size])
        rows = obs[:, self.global_size :].view(b, self.slots, L.ROW)
        listed = rows[:, :, L.ACTION] > 0
        # Rows are packed from the first slot: only the longest list in the batch is read, and only
        # the listed rows are embedded (a gather, then a scatter back for the moves to see each other).
        width = max(int(listed.sum(dim=1).max().item()), 1)
        listed = listed[:, :width]
        batch, slot = torch.nonzero(listed, as_tuple=True)
        picked = rows[batch, slot]  # (moves, ROW)
        cards = picked[:, self._buffer("card_fields")].long().clamp(0, L.HIDDEN_CARD)
        table = self.rank(self._buffer("card_rank")) + self.suit(self._buffer("card_suit"))  # (54, card_dim)
        kinds = picked[:, self._buffer("kind_fields")].long().clamp(0, L.MAX_INDEX) + self._buffer("kind_offset")
        x = torch.cat(
            [table[cards].flatten(1), self.kinds(kinds).flatten(1), picked[:, self._buffer("number_fields")]], dim=1
        )
        # The first layer reads [row, g]: g's share is computed once per position, not per row.
        split = x.shape[1]
        weight = self.token_in.weight
        g_share = nn.functional.linear(g, weight[:, split:], self.token_in.bias)
        t = self.token(nn.functional.linear(x, weight[:, :split]) + g_share[batch])  # (moves, hidden), >= 0
        # Each move then reads the max over its position's moves. The tokens are ReLU outputs, so zeros
        # stand in for the unlisted slots; the mix layer's pooled half is computed once per position.
        index = batch.unsqueeze(1).expand(-1, t.shape[1])
        pooled = t.new_zeros(b, t.shape[1]).scatter_reduce(0, index, t, reduce="amax")
        mix_in = self.mix[0]
        assert isinstance(mix_in, nn.Linear)
        hidden = t.shape[1]
        pooled_share = nn.functional.linear(pooled, mix_in.weight[:, hidden:], mix_in.bias)
        mixed = torch.relu(nn.functional.linear(t, mix_in.weight[:, :hidden]) + pooled_share[batch])
        scores = self.score(mixed).squeeze(-1)
        ids = torch.round(picked[:, L.ACTION] * self.num_actions).long() - 1
        logits = torch.full((b, self.num_actions), self.unlisted, device=obs.device, dtype=obs.dtype)
        logits = logits.index_put((batch, ids), scores)
        counts = listed.sum(dim=1, keepdim=True).clamp(min=1)
        mean = t.new_zeros(b, hidden).index_add(0, batch, mixed) / counts
        return torch.cat([logits, g, mean], dim=1)
