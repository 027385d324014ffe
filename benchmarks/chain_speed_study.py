"""Study (issue 34): can GolfMoves' graph network over the link cards run faster with the same arithmetic?

Times a forward and backward pass of ``GolfMoves(encoding="rules_moves", chain_rounds=3)`` (the
nine-hole Golf recipe's network) on 2,048 positions from random play, in three forms: as it is; with
each round's messages as one batched product with a (35, 35) successor matrix built once per position;
and with the graph network under ``torch.compile``. The dense form is checked to give the same outputs
and gradients. Prints milliseconds per pass (best of three repeats of ten).

    python -m benchmarks.chain_speed_study [--threads 2]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch

import patience_gym  # noqa: F401 - registers the envs
from agents.training.networks import GolfMoves, _LinkChains, _Links


class _DenseLinks(_LinkChains):
    """The same graph network, each round's messages one product with a (35, 35) successor matrix."""

    def links(self, grid: torch.Tensor) -> _Links:
        links = super().links(grid)
        b = grid.shape[0]
        successors = (links.to_tops.view(b, 35, 7, 1) * links.exposed.view(b, 1, 7, 5)).view(b, 35, 35)
        beneath = links.to_beneath.view(b, 35)[:, 1:]
        return links._replace(to_tops=successors + torch.diag_embed(beneath, offset=-1))

    @staticmethod
    def message(h: torch.Tensor, links: _Links) -> torch.Tensor:
        return links.to_tops @ h


def positions(n: int) -> torch.Tensor:
    env = gym.make("patience_gym/Golf-v0", obs_encoding="rules_moves")
    rng = np.random.default_rng(0)
    obs: list[np.ndarray] = []
    seed = 0
    while len(obs) < n:
        o, info = env.reset(seed=seed)
        seed += 1
        for _ in range(int(rng.integers(0, 30))):
            o, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if done:
                break
        obs.append(o)
    return torch.as_tensor(np.array(obs), dtype=torch.float32)


def timed(net: torch.nn.Module, batch: torch.Tensor) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(10):
            net.zero_grad()
            net(batch).square().sum().backward()
        best = min(best, (time.perf_counter() - start) / 10 * 1e3)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    batch = positions(2048)
    space = gym.make("patience_gym/Golf-v0", obs_encoding="rules_moves").observation_space
    assert isinstance(space, gym.spaces.Box)
    torch.manual_seed(0)
    plain = GolfMoves(space, hidden=64, encoding="rules_moves", chain_rounds=3)
    dense = GolfMoves(space, hidden=64, encoding="rules_moves", chain_rounds=3)
    dense.chain.__class__ = _DenseLinks
    dense.load_state_dict(plain.state_dict())
    for net in (plain, dense):
        net.zero_grad()
        net(batch).square().sum().backward()
    torch.testing.assert_close(dense(batch), plain(batch))
    torch.testing.assert_close(dense.chain.fit.grad, plain.chain.fit.grad)
    print(f"as it is:        {timed(plain, batch):6.1f} ms")
    print(f"dense (35, 35):  {timed(dense, batch):6.1f} ms")
    start = time.perf_counter()
    plain.chain.forward = torch.compile(plain.chain.forward, dynamic=True)  # type: ignore[method-assign]
    plain(batch).square().sum().backward()
    print(f"torch.compile:   {timed(plain, batch):6.1f} ms (compiled in {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
