"""Study (issue 34, items 1-3; research notes section 36): can a network that values the position each move
leads to (an afterstate, TD-Gammon's and the 2048 agents' way) copy the Miss Milligan greedy where the
rules-only move rows could not?

Cloning the greedy into ``MoveRows`` on ``rules_moves`` agrees with it on about 83% of decisions (research
notes, sections 10 and 26), and its ending stays behind the greedy's. The greedy plays the move whose
resulting position scores best (``patience_gym.heuristics.milligan_greedy``, rule 2): a function of the
position a move leads to, which the move rows describe only by the move. Issue 34 allows the encoding to
give "the plain observation of the position it leads to before any hidden card turns"; this study gives a
network that, and nothing else: for each legal move but the deal, the position after it, as the player
sees it (columns top first, foundation heights, the reserve, the stock count); the deal is the position
before it, flagged. The network (``AfterstateValue``) embeds every face-up card as a token (its rank and
suit, the rank and suit of the card beneath it, whether it is built on that card by the rules, how many
cards its suit's foundations need before it, its depth from the column's exposed end), sums and max-pools
the tokens, and maps them with the position's counts to one value; a move's logit is its position's value.
Nothing here reads the greedy's evaluation, its lookahead or a replay; the greedy is only the teacher.

Both networks are fitted to the same greedy games (cross-entropy over the legal moves, Adam, the same
batch) and measured on the same held-out games' decisions (the greedy's move agrees with the network's
most likely move, or leads to a position the greedy's evaluation scores the same: measurement only),
decisions with one legal move left out; then each plays, its most likely move every time, the report's
first 200 deals beside the greedy, and ``pair`` gives two players' difference deal by deal. The runs of
research notes section 36 (Miss Milligan; Giant the same with ``--env patience_gym/Giant-v0``):

    python -m benchmarks.milligan_afterstate_study record --seeds 0 600 --out train.npz --jobs 2
    python -m benchmarks.milligan_afterstate_study record --seeds 1000000 1000100 --out held.npz --jobs 2
    python -m benchmarks.milligan_afterstate_study fit --net afterstate --lr 3e-3 --epochs 6 \
        --train train.npz --held held.npz --save after.pt
    python -m benchmarks.milligan_afterstate_study fit --net move_rows --train train.npz --held held.npz --save rows.pt
    python -m benchmarks.milligan_afterstate_study play --net afterstate --weights after.pt --seeds 0 200 --json a.json
    python -m benchmarks.milligan_afterstate_study play --net move_rows --weights rows.pt --seeds 0 200 --json r.json
    python -m benchmarks.milligan_afterstate_study pair a.json r.json

(``fit`` defaults: 8 epochs, learning rate 1e-3, batch 512, width 64.)
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import time
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import patience_gym  # noqa: F401 - registers the envs
from patience_gym.cards import RANK, SUIT
from patience_gym.games.milligan import MilliganGame, MilliganState
from patience_gym.games.milligan_tables import DEAL, FITS, MAX_STOCK, NUM_COLUMNS
from patience_gym.heuristics.milligan_greedy import GreedyRules
from patience_gym.heuristics.milligan_moves import evaluation

DEPTH = 40  #: column cards kept, from the exposed end (deeper cards are counted as truncated)
RESERVE = 13
GLOBALS = 4  # stock left / 96, deal flag, reserve size / 13, cards on the foundations / 104


def describe(state: MilliganState, deal: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The position as the player sees it: columns (8, DEPTH) of card + 1 from the exposed end, foundation
    heights (8), reserve cards + 1 from its exposed end (13), globals; and how many column cards were cut."""
    cols = np.zeros((NUM_COLUMNS, DEPTH), np.int8)
    cut = 0
    for j, col in enumerate(state.columns):
        top = col[::-1][:DEPTH]
        cut += max(len(col) - DEPTH, 0)
        cols[j, : len(top)] = np.asarray(top, np.int16) + 1
    found = np.asarray(state.found, np.int8)
    reserve = np.zeros(RESERVE, np.int8)
    res = state.reserve[::-1][:RESERVE]
    reserve[: len(res)] = np.asarray(res, np.int16) + 1
    glob = np.array(
        [(len(state.stock) - state.pos) / MAX_STOCK, float(deal), len(state.reserve) / RESERVE, state.total / 104],
        np.float32,
    )
    return cols, found, reserve, glob, cut


def _record(task: tuple[str, int, int]) -> dict[str, Any]:
    env_id, first, last = task
    env = gym.make(env_id, obs_encoding="rules_moves")
    core: Any = env.unwrapped
    game: MilliganGame = core.game
    rules = GreedyRules()
    keys = ("obs", "mask", "action", "chosen", "moves", "cols", "found", "res", "glob", "geval")
    out: dict[str, list[Any]] = {k: [] for k in keys}
    cut = 0
    scores = []
    for seed in range(first, last):
        obs, info = env.reset(seed=seed)
        rules.reset()
        done = False
        while not done:
            state: MilliganState = core.state
            mask = info["action_mask"]
            action = rules.choose(game, state, mask)
            legal = np.flatnonzero(mask)
            if len(legal) >= 2:
                out["obs"].append(obs.astype(np.float32))
                out["mask"].append(np.packbits(mask))
                out["action"].append(action)
                out["chosen"].append(int(np.flatnonzero(legal == action)[0]))
                out["moves"].append(len(legal))
                for a in legal:
                    if a == DEAL:
                        d = describe(state, True)
                        out["geval"].append(-1e9)  # measurement only: a deal matches only a deal
                    else:
                        child = state.copy()
                        game.apply(child, int(a))
                        d = describe(child, False)
                        out["geval"].append(float(evaluation(child)))
                    out["cols"].append(d[0])
                    out["found"].append(d[1])
                    out["res"].append(d[2])
                    out["glob"].append(d[3])
                    cut += d[4]
            obs, _, term, trunc, info = env.step(action)
            done = term or trunc
        scores.append(core.state.total)
    env.close()
    arrays = {
        k: np.stack(v) if k in ("obs", "mask", "cols", "found", "res", "glob") else np.asarray(v)
        for k, v in out.items()
    }
    arrays["cut"] = np.asarray([cut])
    arrays["scores"] = np.asarray(scores)
    return arrays


def record(env_id: str, first: int, last: int, out: str, jobs: int) -> None:
    start = time.perf_counter()
    bounds = np.linspace(first, last, 4 * jobs + 1).astype(int)
    tasks = [(env_id, int(a), int(b)) for a, b in itertools.pairwise(bounds) if b > a]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        parts = pool.map(_record, tasks)
    joined = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    np.savez(out, **cast(dict[str, Any], joined))
    print(
        f"{out}: {last - first} games (greedy {joined['scores'].mean():.2f} cards), {len(joined['action'])} decisions "
        f"with a choice, {int(joined['moves'].sum())} moves, {int(joined['cut'].sum())} column cards cut; "
        f"{time.perf_counter() - start:.0f} s"
    )


_RANK_OF = torch.tensor([0, *RANK])  # card + 1 -> rank (0: none)
_SUIT_OF = torch.tensor([0, *(s + 1 for s in SUIT)])  # card + 1 -> suit 1..4 (0: none)
_FITS = torch.tensor(FITS, dtype=torch.bool).view(52, 52)  # FITS[under, over]: over is built on under


def _wait(cards: torch.Tensor, found: torch.Tensor) -> torch.Tensor:
    """How many ranks ``cards`` (card + 1, > 0) wait for their suit's foundations (13: neither takes it)."""
    rank = _RANK_OF[cards]
    suit = _SUIT_OF[cards] - 1
    a = found.gather(1, 2 * suit).long()
    b = found.gather(1, 2 * suit + 1).long()
    big = torch.full_like(rank, 13)
    wa = torch.where(a < rank, rank - 1 - a, big)
    wb = torch.where(b < rank, rank - 1 - b, big)
    return torch.minimum(wa, wb)


class AfterstateValue(nn.Module):
    """One value per position (module docstring): card tokens, summed and max-pooled, then an MLP."""

    def __init__(self, width: int = 64, dim: int = 16) -> None:
        super().__init__()
        self.rank = nn.Embedding(14, dim)
        self.suit = nn.Embedding(5, dim)
        self.under_rank = nn.Embedding(14, dim)
        self.under_suit = nn.Embedding(5, dim)
        self.wait = nn.Embedding(14, dim)
        self.depth = nn.Embedding(DEPTH + 1, dim)  # the reserve's tokens use index DEPTH
        self.token = nn.Sequential(nn.Linear(6 * dim + 2, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.found = nn.Embedding(14, 4)
        self.head = nn.Sequential(nn.Linear(2 * width + GLOBALS + 8 * 4 + 1, width), nn.ReLU(), nn.Linear(width, 1))

    def forward(self, cols: torch.Tensor, found: torch.Tensor, res: torch.Tensor, glob: torch.Tensor) -> torch.Tensor:
        n = cols.shape[0]
        cols = cols.long()
        res = res.long()
        under = torch.cat([cols[:, :, 1:], torch.zeros_like(cols[:, :, :1])], dim=2)
        res_under = torch.cat([res[:, 1:], torch.zeros_like(res[:, :1])], dim=1)
        cards = torch.cat([cols.reshape(n, -1), res], dim=1)
        unders = torch.cat([under.reshape(n, -1), res_under], dim=1)
        depth = torch.cat(
            [torch.arange(DEPTH).repeat(NUM_COLUMNS), torch.full((RESERVE,), DEPTH, dtype=torch.long)]
        ).expand(n, -1)
        is_res = torch.cat([torch.zeros(NUM_COLUMNS * DEPTH), torch.ones(RESERVE)]).expand(n, -1)
        row, slot = torch.nonzero(cards, as_tuple=True)
        c = cards[row, slot]
        u = unders[row, slot]
        built = torch.where(u > 0, _FITS[(u - 1).clamp(min=0), c - 1], torch.zeros_like(c, dtype=torch.bool))
        wait = _wait(c.unsqueeze(1), found.long()[row]).squeeze(1)
        x = torch.cat(
            [
                self.rank(_RANK_OF[c]),
                self.suit(_SUIT_OF[c]),
                self.under_rank(_RANK_OF[u]),
                self.under_suit(_SUIT_OF[u]),
                self.wait(wait),
                self.depth(depth[row, slot]),
                built.float().unsqueeze(1),
                is_res[row, slot].unsqueeze(1),
            ],
            dim=1,
        )
        t = self.token(x)
        index = row.unsqueeze(1).expand(-1, t.shape[1])
        summed = t.new_zeros(n, t.shape[1]).index_add(0, row, t) / 16.0
        maxed = t.new_zeros(n, t.shape[1]).scatter_reduce(0, index, t, reduce="amax")
        vacancies = (cols[:, :, 0] == 0).float().sum(dim=1, keepdim=True) / NUM_COLUMNS
        f = self.found(found.long()).flatten(1)
        return self.head(torch.cat([summed, maxed, glob, f, vacancies], dim=1)).squeeze(1)


def _load(path: str) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _afterstate_logits(
    net: AfterstateValue, d: dict[str, torch.Tensor], idx: np.ndarray
) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded logits (decisions, most moves) of decisions ``idx`` and the validity mask."""
    starts, counts = d["starts"][idx], d["moves"][idx]
    flat = torch.cat([torch.arange(int(s), int(s) + int(k)) for s, k in zip(starts, counts, strict=True)])
    v = net(d["cols"][flat], d["found"][flat], d["res"][flat], d["glob"][flat])
    owner = torch.repeat_interleave(torch.arange(len(idx)), torch.as_tensor(counts))
    within = torch.cat([torch.arange(int(k)) for k in counts])
    width = int(counts.max())
    logits = torch.full((len(idx), width), -1e9)
    logits[owner, within] = v
    return logits, torch.as_tensor(d["chosen_np"][idx])


def fit(
    net_name: str,
    train_path: str,
    held_path: str,
    epochs: int,
    batch: int,
    lr: float,
    seed: int,
    env_id: str,
    save: str,
    width: int,
) -> None:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    sets = {}
    for name, path in (("train", train_path), ("held", held_path)):
        raw = _load(path)
        d: dict[str, Any] = {"moves": raw["moves"], "chosen_np": raw["chosen"], "action_np": raw["action"]}
        if "geval" in raw:
            d["geval"] = raw["geval"]
        d["starts"] = np.concatenate([[0], np.cumsum(raw["moves"])[:-1]])
        if net_name == "afterstate":
            for k in ("cols", "found", "res", "glob"):
                d[k] = torch.as_tensor(raw[k])
        else:
            d["obs"] = torch.as_tensor(raw["obs"])
            d["mask"] = torch.as_tensor(np.unpackbits(raw["mask"], axis=1)[:, : _num_actions(env_id)].astype(bool))
        sets[name] = d
    net = _make_net(net_name, env_id, width)
    params = sum(p.numel() for p in net.parameters())
    print(
        f"{net_name}: {params:,} parameters; {len(sets['train']['moves'])} training decisions, "
        f"{len(sets['held']['moves'])} held out"
    )
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    n = len(sets["train"]["moves"])
    start = time.perf_counter()
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(n)
        total = 0.0
        for s in range(0, n, batch):
            idx = order[s : s + batch]
            logits, target = _logits(net_name, net, sets["train"], idx)
            loss = nn.functional.cross_entropy(logits, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(idx)
        agree, same = _agreement(net_name, net, sets["held"])
        if save:
            torch.save(net.state_dict(), save)
        print(
            f"epoch {epoch + 1}: training loss {total / n:.4f}, held-out agreement {100 * agree:.2f}% "
            f"(the same greedy evaluation: {100 * same:.2f}%) "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


def _num_actions(env_id: str) -> int:
    return int(gym.make(env_id).action_space.n)  # type: ignore[attr-defined]


def _logits(net_name: str, net: nn.Module, d: dict[str, Any], idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded logits over each decision's legal moves (in action order) and the greedy's move's index."""
    if net_name == "afterstate":
        assert isinstance(net, AfterstateValue)
        return _afterstate_logits(net, d, idx)
    out = net(d["obs"][idx])
    mask = d["mask"][idx]
    row, col = torch.nonzero(mask, as_tuple=True)
    counts = mask.sum(dim=1)
    within = torch.arange(len(row)) - torch.repeat_interleave(torch.cumsum(counts, 0) - counts, counts)
    logits = torch.full((len(idx), int(counts.max())), -1e9)
    logits[row, within] = out[row, col]
    return logits, torch.as_tensor(d["chosen_np"][idx])


def _agreement(net_name: str, net: nn.Module, d: dict[str, Any]) -> tuple[float, float]:
    """The share of decisions where the network's most likely move is the greedy's, and where it leads to a
    position the greedy's evaluation scores the same (measurement only: the networks never read it)."""
    net.eval()
    hits = same = 0
    n = len(d["moves"])
    with torch.no_grad():
        for s in range(0, n, 2048):
            idx = np.arange(s, min(s + 2048, n))
            logits, target = _logits(net_name, net, d, idx)
            pred = logits.argmax(dim=1).numpy()
            hits += int((pred == target.numpy()).sum())
            if "geval" in d:
                g = d["geval"]
                same += int((g[d["starts"][idx] + pred] == g[d["starts"][idx] + target.numpy()]).sum())
    return hits / n, same / n


def _make_net(net_name: str, env_id: str, width: int = 64) -> nn.Module:
    if net_name == "afterstate":
        return AfterstateValue(width=width)
    from agents.training.networks import MoveRows

    layout = gym.make(env_id, obs_encoding="rules_moves").unwrapped.observer.layout  # type: ignore[attr-defined]
    size = int(gym.make(env_id, obs_encoding="rules_moves").observation_space.shape[0])  # type: ignore[index]
    return MoveRows(gym.spaces.Box(-1.0, 1.0, (size,), np.float32), hidden=128, **layout)


def play(net_name: str, weights: str, env_id: str, first: int, last: int, width: int, json_path: str) -> None:
    """Play the fitted network (its most likely move) and the greedy on the same deals; paired difference."""
    torch.set_num_threads(1)
    net = _make_net(net_name, env_id, width)
    net.load_state_dict(torch.load(weights))
    net.eval()
    env = gym.make(env_id, obs_encoding="rules_moves")
    core: Any = env.unwrapped
    game: MilliganGame = core.game
    mine: list[int] = []
    theirs: list[int] = []
    start = time.perf_counter()
    for seed in range(first, last):
        for who in ("net", "greedy"):
            obs, info = env.reset(seed=seed)
            rules = GreedyRules()
            done = False
            while not done:
                mask = info["action_mask"]
                legal = np.flatnonzero(mask)
                if who == "greedy":
                    action = rules.choose(game, core.state, mask)
                elif len(legal) == 1:
                    action = int(legal[0])
                else:
                    with torch.no_grad():
                        if net_name == "afterstate":
                            parts = []
                            for a in legal:
                                if a == DEAL:
                                    parts.append(describe(core.state, True))
                                else:
                                    child = core.state.copy()
                                    game.apply(child, int(a))
                                    parts.append(describe(child, False))
                            tensors = [torch.as_tensor(np.stack([p[k] for p in parts])) for k in range(4)]
                            action = int(legal[int(net(*tensors).argmax())])
                        else:
                            out = net(torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0))[0, : len(mask)]
                            action = int(out.masked_fill(~torch.as_tensor(mask.astype(bool)), -1e9).argmax())
                obs, _, term, trunc, info = env.step(action)
                done = term or trunc
            (mine if who == "net" else theirs).append(core.state.total)
    net_cards = np.asarray(mine, dtype=np.float64)
    greedy_cards = np.asarray(theirs, dtype=np.float64)
    diff = net_cards - greedy_cards
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    print(
        f"{net_name} on seeds {first}..{last - 1}: {net_cards.mean():.2f} cards "
        f"({100 * np.mean(net_cards == 104):.1f}% won), greedy {greedy_cards.mean():.2f} "
        f"({100 * np.mean(greedy_cards == 104):.1f}%); paired {diff.mean():+.2f} ± {half:.2f} "
        f"({time.perf_counter() - start:.0f} s)"
    )
    if json_path:
        Path(json_path).write_text(json.dumps({"seeds": [first, last], "net": mine, "greedy": theirs}))


def pair(first: str, second: str) -> None:
    """The first run's network minus the second's, deal by deal, with the 95% interval."""
    a, b = (json.loads(Path(p).read_text()) for p in (first, second))
    if a["seeds"] != b["seeds"]:
        raise SystemExit(f"{first} and {second} played other deals: {a['seeds']} and {b['seeds']}")
    diff = np.asarray(a["net"], float) - np.asarray(b["net"], float)
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    print(f"{first} minus {second}: {diff.mean():+.2f} ± {half:.2f} cards over {len(diff)} deals")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--env", default="patience_gym/MissMilligan-v0")
    rec.add_argument("--seeds", type=int, nargs=2, required=True)
    rec.add_argument("--out", required=True)
    rec.add_argument("--jobs", type=int, default=2)
    fitp = sub.add_parser("fit")
    fitp.add_argument("--env", default="patience_gym/MissMilligan-v0")
    fitp.add_argument("--net", choices=("afterstate", "move_rows"), required=True)
    fitp.add_argument("--train", required=True)
    fitp.add_argument("--held", required=True)
    fitp.add_argument("--epochs", type=int, default=8)
    fitp.add_argument("--batch", type=int, default=512)
    fitp.add_argument("--lr", type=float, default=1e-3)
    fitp.add_argument("--seed", type=int, default=0)
    fitp.add_argument("--save", default="", help="keep the weights here after every epoch")
    fitp.add_argument("--width", type=int, default=64, help="the afterstate network's width")
    playp = sub.add_parser("play")
    playp.add_argument("--env", default="patience_gym/MissMilligan-v0")
    playp.add_argument("--net", choices=("afterstate", "move_rows"), required=True)
    playp.add_argument("--weights", required=True)
    playp.add_argument("--seeds", type=int, nargs=2, required=True)
    playp.add_argument("--width", type=int, default=64)
    playp.add_argument("--json", default="", help="write every deal's score here")
    pairp = sub.add_parser("pair")
    pairp.add_argument("first")
    pairp.add_argument("second")
    args = parser.parse_args()
    if args.command == "record":
        record(args.env, args.seeds[0], args.seeds[1], args.out, args.jobs)
    elif args.command == "play":
        play(args.net, args.weights, args.env, args.seeds[0], args.seeds[1], args.width, args.json)
    elif args.command == "pair":
        pair(args.first, args.second)
    else:
        fit(
            args.net,
            args.train,
            args.held,
            args.epochs,
            args.batch,
            args.lr,
            args.seed,
            args.env,
            args.save,
            args.width,
        )


if __name__ == "__main__":
    main()
