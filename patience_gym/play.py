"""Play a patience game in the terminal.

Usage::

    python -m patience_gym.play patience_gym/Golf-v0 --seed 3
    python -m patience_gym.play patience_gym/MissMilligan-v0 --env-kwargs '{"waive_sequences": true}'

The board is the env's text render; the legal moves are listed by number and
notation. Type a number or a move's notation to play it, ``u`` to undo, ``h``
for a hint, ``?`` for help and ``q`` to quit. A hint is a callable passed in
(:data:`Hint`); by default it is the game's greedy heuristic
(:func:`patience_gym.heuristics.greedy_move`, the moves of the greedy agent). Hints
from any agent (``--hint-agent planner``, ``ppo:PATH``) come from the agents floor:
``python -m agents.evaluation.play`` takes the same arguments and ``--hint-agent``, made at
start-up, so a bad spec or a model for another game is refused before the deal; the
library never imports ``agents``. The game's record is
saved when it ends or when you quit (``--record-out``, checked before the deal; by
default ``<Env>-seed<seed>.json`` here; if it cannot be written then, the record is
saved here or in the temporary folder instead, and the message says where) and
replays with ``patience_gym.records`` or films with ``python -m agents.evaluation.watch --record``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO, cast

import gymnasium as gym
import numpy as np

import patience_gym
from patience_gym.env import env_kwargs_from_json
from patience_gym.heuristics import greedy_move
from patience_gym.records import GameRecord, save_record

#: A hint: the move to suggest, from the unwrapped env (its game and position), its observation and legal mask.
Hint = Callable[[Any, np.ndarray, np.ndarray], int]


def greedy_hint(env: Any, obs: np.ndarray, mask: np.ndarray) -> int:
    """The default hint: the game's greedy heuristic on the visible position."""
    return greedy_move(env.game, env.state, mask)


HELP = (
    "type a move's number or its notation (as listed), u = undo the last move, h = hint, "
    "? = this help, q = quit (the record is saved)"
)


class Session:
    """One game being played: the env, the moves made so far, undo by replay, and the ``hint`` (named
    ``hint_name`` in the hint's line)."""

    def __init__(
        self,
        env_id: str,
        env_kwargs: dict[str, Any],
        seed: int,
        hint: Hint = greedy_hint,
        hint_name: str = "greedy",
    ) -> None:
        self.env_id = env_id
        self.env_kwargs = env_kwargs
        self.seed = seed
        self.hint_fn = hint
        self.hint_name = hint_name
        self.env = gym.make(env_id, render_mode="ansi", **env_kwargs)
        self.game_env: Any = cast(Any, self.env.unwrapped)
        self.obs, self.info = self.env.reset(seed=seed)
        self.initial_state: dict[str, Any] = self.game_env.state_dict()
        self.moves: list[int] = []
        self.rewards: list[float] = []
        self.over = False
        self.truncated = False

    @property
    def legal(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.info["action_mask"])]

    def board(self) -> str:
        """The text board and the numbered legal moves."""
        text = str(self.env.render())
        if self.over:
            return text
        # The numbered list below replaces the render's own line of moves.
        text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("moves:"))
        items = [f"{i}) {self.game_env.describe_action(a)}" for i, a in enumerate(self.legal, 1)]
        return text + "\n".join(textwrap.wrap("   ".join(items), 100, break_on_hyphens=False)) + "\n"

    def parse(self, text: str) -> int:
        """The action ``text`` names (a number in the list or a notation); ValueError saying why not."""
        legal = self.legal
        if text.isdigit():
            n = int(text)
            if not 1 <= n <= len(legal):
                raise ValueError(f"there is no move {n}; choose 1..{len(legal)}")
            return legal[n - 1]
        try:
            action = int(self.game_env.action_from_description(text))
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        if action not in legal:
            shown = ", ".join(map(self.game_env.describe_action, legal))
            raise ValueError(f"{text!r} is not legal now; legal: {shown}")
        return action

    def play(self, action: int) -> float:
        self.obs, reward, terminated, truncated, self.info = self.env.step(action)
        self.moves.append(action)
        self.rewards.append(float(reward))
        self.over = terminated or truncated
        self.truncated = truncated
        return float(reward)

    def undo(self) -> bool:
        """Take back the last move (by replaying the others from the start); False if there is none."""
        if not self.moves:
            return False
        moves = self.moves[:-1]
        self.obs, self.info = self.env.reset(options={"state": self.initial_state})
        self.moves, self.rewards, self.over, self.truncated = [], [], False, False
        for action in moves:
            self.play(action)
        return True

    def hint(self) -> int:
        """The hint's move in the present position (ValueError where it has none)."""
        return int(self.hint_fn(self.game_env, self.obs, self.info["action_mask"].astype(bool)))

    def score(self) -> float:
        return float(self.game_env.game.score(self.game_env.state))

    def record(self) -> GameRecord:
        game = self.game_env.game
        return GameRecord(
            env_id=self.env_id,
            initial_state=self.initial_state,
            env_kwargs=dict(self.env_kwargs),
            max_episode_steps=self.env.spec.max_episode_steps if self.env.spec else None,
            seed=self.seed,
            agent="human",
            moves=[self.game_env.describe_action(a) for a in self.moves],
            rewards=list(self.rewards),
            final_score=self.score(),
            won=bool(game.is_won(self.game_env.state)),
            terminated=self.over and not self.truncated,
            truncated=self.truncated,
        )


def default_record_path(env_id: str, seed: int, folder: Path = Path(".")) -> Path:
    """``<Env>-seed<seed>.json`` in ``folder``, numbered ``-2``, ``-3``... rather than overwrite a file."""
    stem = f"{env_id.rsplit('/', 1)[-1]}-seed{seed}"
    path = folder / f"{stem}.json"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}.json"
        n += 1
    return path


def run(session: Session, stdin: TextIO, out: TextIO) -> None:
    """The prompt loop, until the game ends, the player quits or the input runs out."""
    game_env = session.game_env
    better = "lower" if game_env.game.lower_score_is_better else "higher"
    out.write(f"{session.env_id}, deal seed {session.seed} ({better} score is better). {HELP}\n\n")
    out.write(session.board())
    while not session.over:
        out.write("move> ")
        out.flush()
        line = stdin.readline()
        if not line:
            out.write("\n(end of input)\n")
            return
        text = line.strip()
        command = text.lower()
        if not text:
            continue
        if command in ("q", "quit", "exit"):
            return
        if command in ("?", "help"):
            out.write(HELP + "\n")
        elif command in ("u", "undo"):
            out.write(("undone\n" + session.board()) if session.undo() else "nothing to undo\n")
        elif command in ("h", "hint"):
            try:
                action = session.hint()
            except ValueError as exc:
                out.write(f"no hint: {exc}\n")
                continue
            number = session.legal.index(action) + 1
            out.write(f"hint ({session.hint_name}): {game_env.describe_action(action)} (move {number})\n")
        else:
            try:
                action = session.parse(text)
            except ValueError as exc:
                out.write(f"{exc}\n")
                continue
            reward = session.play(action)
            out.write(f"played {game_env.describe_action(action)} (reward {reward:g})\n\n")
            out.write(session.board())
    outcome = "won" if game_env.game.is_won(game_env.state) else "game over"
    if session.truncated:
        outcome = "stopped at the step limit"
    out.write(f"{outcome}: score {session.score():g} after {len(session.moves)} moves\n")


#: Makes the hint a ``--hint-agent`` spec names for a session (ValueError, TypeError or FileNotFoundError
#: saying why it cannot): given by the agents floor (``agents.evaluation.play``), which knows the agents.
HintMaker = Callable[[str, "Session"], Hint]


def main(
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    *,
    hint_maker: HintMaker | None = None,
    prog: str = "python -m patience_gym.play",
    description: str | None = None,
) -> int:
    """Play from ``stdin`` to ``stdout`` (the console by default); returns the exit status.

    With ``hint_maker``, ``--hint-agent SPEC`` picks the hint (``hint_maker(SPEC, session)``, made before
    the deal is shown); without it the hint is the greedy heuristic and ``--hint-agent`` is refused.
    """
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if stdout is None else stdout
    parser = argparse.ArgumentParser(
        prog=prog, description=description or __doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("env", help=f"env id, one of: {', '.join(patience_gym.ENVS)}")
    parser.add_argument("--seed", type=int, help="deal seed (random when left out)")
    parser.add_argument("--env-kwargs", default="{}", help="JSON dict of rule options")
    parser.add_argument("--record-out", help="where to save the game record (default: <Env>-seed<seed>.json here)")
    hint_help = "agent spec giving hints: greedy (the default), planner, ppo:PATH, ..."
    parser.add_argument("--hint-agent", help=hint_help if hint_maker else argparse.SUPPRESS)
    args = parser.parse_args(argv)

    def fail(message: str) -> NoReturn:
        parser.exit(2, f"{parser.prog}: error: {message}\n")

    if args.hint_agent is not None and hint_maker is None:
        fail(f"--hint-agent {args.hint_agent}: agent hints come from the agents: python -m agents.evaluation.play")
    if args.env not in patience_gym.ENVS:
        fail(f"unknown env {args.env!r}; choose one of {', '.join(patience_gym.ENVS)}")
    if args.seed is not None and args.seed < 0:
        fail(f"--seed must be 0 or more, got {args.seed}")
    try:
        env_kwargs = env_kwargs_from_json(args.env_kwargs)
    except ValueError as exc:
        fail(str(exc))
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)  # type: ignore[operator]
    path = Path(args.record_out) if args.record_out else default_record_path(args.env, seed)
    problem = record_path_problem(path)
    if problem:
        fail(f"--record-out {path} {problem}")
    try:
        session = Session(args.env, env_kwargs, seed)
    except (TypeError, ValueError) as exc:
        fail(str(exc))
    if args.hint_agent is not None and hint_maker is not None:
        try:
            session.hint_fn = hint_maker(args.hint_agent, session)
        except (ValueError, TypeError, FileNotFoundError) as exc:
            fail(f"--hint-agent {args.hint_agent}: {exc}")
        session.hint_name = args.hint_agent
    try:
        run(session, stdin, out)
    except KeyboardInterrupt:
        out.write("\n(interrupted)\n")
    record = session.record()
    try:
        save_record(record, path)
    except OSError as exc:
        kept = save_elsewhere(record, args.env, seed)
        where = f"saved it to {kept} instead" if kept else "nor anywhere else; here it is:"
        print(f"could not save the record to {path} ({exc}); {where}", file=sys.stderr)
        if kept is None:  # the last place left: the record itself, on stderr
            print(json.dumps(record.to_dict()), file=sys.stderr)
        return 1
    out.write(f"record saved to {path}\n")
    return 0


def record_path_problem(path: Path) -> str | None:
    """Why a game record cannot be written to ``path`` (None: it can), checked before the game."""
    if path.is_dir():
        return "is a directory; give the record's file name"
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot be written: {folder} is a file, not a folder"
    if not os.access(folder, os.W_OK):
        return f"cannot be written: no permission to write in {folder}"
    return None


def save_elsewhere(record: GameRecord, env_id: str, seed: int) -> Path | None:
    """Save ``record`` under its default name here, else in the temporary folder; the path, or None."""
    for folder in (Path("."), Path(tempfile.gettempdir())):
        try:
            return save_record(record, default_record_path(env_id, seed, folder))
        except OSError:
            continue
    return None


if __name__ == "__main__":
    sys.exit(main())
