"""benchmarks/solvitaire.py: our deals in Solvitaire's format (its first deal is ours), its verdicts read,
the cross-check that names a rule mismatch, and bad options named. A stand-in script plays Solvitaire:
the real binary is GPL software the project does not ship."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import gymnasium as gym
import pytest

from benchmarks import solvitaire as bench
from tests.helpers import AssertRefused, RunBenchmark


def starting_deal(seed: int, game: str = "pocket") -> tuple[gym.Env, dict]:
    env = gym.make(bench.GAMES[game].env_id, **bench.GAMES[game].env_kwargs)
    env.reset(seed=seed)
    return env, env.unwrapped.state_dict()  # type: ignore[attr-defined]


def fake_solvitaire(folder: Path, verdict: str) -> Path:
    """A stand-in that keeps its arguments and the rules and deal of call ``n`` (``rules<n>.json``,
    ``deal<n>.json``), then prints a ``--classify`` line."""
    path = folder / "solvitaire"
    path.write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1" = --help ]; then echo "  --custom-rules arg  the rules" >&2; exit 0; fi\n'
        f'echo "$@" >> "{folder}/calls"\n'
        f'n=$(wc -l < "{folder}/calls")\n'
        f'cp "$2" "{folder}/rules$n.json"\n'
        'cp "${@: -1}" ' + f'"{folder}/deal$n.json"\n'
        f'echo "[info] Attempting to solve..."\necho ", {verdict}, 10, 5, 5, {verdict}"\n'
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.mark.parametrize("game", list(bench.GAMES))
def test_solvitaire_deals_first_what_the_env_deals_first(game: str) -> None:
    env, deal = starting_deal(3, game)
    theirs = bench.solvitaire_deal(deal, bench.GAMES[game].game)
    assert [len(c) for c in theirs["tableau piles"]] == [1] * 8 and len(theirs["stock"]) == 96
    assert all(card[:-1] in {"A", *map(str, range(2, 11)), "J", "Q", "K"} for card in theirs["stock"])
    # Solvitaire takes from the end of its stock list, column 1 first: those are the env's first deal.
    first_deal = [theirs["stock"][-1 - i] for i in range(8)]
    deal_action = next(a for a in env.unwrapped.legal_actions() if "deal" in env.unwrapped.describe_action(a))  # type: ignore[attr-defined]
    env.step(deal_action)
    dealt = [column[-1] for column in env.unwrapped.state_dict()["tableau"]]  # type: ignore[attr-defined]
    assert first_deal == [bench.solvitaire_card(c) for c in dealt]
    assert bench.solvitaire_card("TD") == "10D" and bench.solvitaire_card("KS") == "KS"


def test_only_a_starting_position_of_the_pocket_version_is_converted() -> None:
    env, deal = starting_deal(0)
    with pytest.raises(ValueError, match="is made from a deal of miss_milligan_pocket, got 'giant'"):
        bench.solvitaire_deal({**deal, "game": "giant"}, "miss_milligan_pocket")
    env.step(next(a for a in env.unwrapped.legal_actions() if "deal" in env.unwrapped.describe_action(a)))  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="the starting position"):
        bench.solvitaire_deal(env.unwrapped.state_dict(), "miss_milligan_pocket")  # type: ignore[attr-defined]


def test_its_verdicts_are_read_and_anything_else_is_named() -> None:
    assert bench.parse_classify("[info] x\n, timed-out, 1000, 5, 5, timed-out, 10000, 9, 9, solved\n") == "won"
    assert bench.parse_classify(", unsolvable, 3, 3, unsolvable\n\n") == "lost"
    assert bench.parse_classify(", timed-out, 3, 3, timed-out") == "undecided"
    with pytest.raises(RuntimeError, match="printed no verdict"):
        bench.parse_classify("Error parsing deal file: bad card")


def test_script_runs_both_solvers_and_resumes(tmp_path: Path, run_benchmark: RunBenchmark) -> None:
    binary = fake_solvitaire(tmp_path, "timed-out")
    args = ["--solvitaire", str(binary), "--games", "pocket", "giant_anytime=1", "--deals", "2", "--seconds", "2"]
    args += ["--shard-size", "1", "--out", str(tmp_path), "--state-dir", str(tmp_path / "state")]
    done = run_benchmark("benchmarks.solvitaire", *args)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "solvitaire.json").read_text())
    pocket, giant = data["games"]
    assert [r["seed"] for r in pocket["rows"]] == [0, 1] and [r["seed"] for r in giant["rows"]] == [0]
    assert pocket["solvitaire_undecided"] == 2 and pocket["ours_won"] + pocket["ours_undecided"] == 2
    assert giant["deals"] == 1 and giant["env_kwargs"] == {"worry_back_anytime": True}
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 3 and all("--timeout 2000 --classify --streamliners smart-solvability" in c for c in calls)
    for n, (game, seed) in enumerate([("pocket", 0), ("pocket", 1), ("giant_anytime", 0)], start=1):
        assert json.loads((tmp_path / f"rules{n}.json").read_text()) == bench.GAMES[game].rules
        deal = bench.solvitaire_deal(starting_deal(seed, game)[1], bench.GAMES[game].game)
        assert json.loads((tmp_path / f"deal{n}.json").read_text()) == deal
    assert bench.GAMES["pocket"].rules["cells"] == {"count": 1} and bench.GAMES["giant_anytime"].rules["cells"] == {
        "count": 0
    }
    table = (tmp_path / "solvitaire.md").read_text()
    assert "| pocket | 2 | Solvitaire |" in table and "| giant_anytime | 1 | agents.solvers.milligan |" in table

    again = run_benchmark("benchmarks.solvitaire", *args)  # every shard kept: neither solver runs again
    assert again.returncode == 0, again.stderr
    assert [g["shards_solved"] for g in json.loads((tmp_path / "solvitaire.json").read_text())["games"]] == [0, 0]
    assert len((tmp_path / "calls").read_text().splitlines()) == 3


def test_a_proof_of_loss_on_a_deal_our_solver_wins_names_a_rule_mismatch(tmp_path: Path) -> None:
    binary = fake_solvitaire(tmp_path, "unsolvable")
    shard = bench.Shard("pocket", str(binary), seed=0, start=0, count=1, seconds=5)
    with pytest.raises(RuntimeError, match="do not match the game"):
        bench.solve_shard(shard)  # our solver wins deal 0 within a second


def test_bad_options_are_named(tmp_path: Path, assert_refused: AssertRefused) -> None:
    binary = str(fake_solvitaire(tmp_path, "solved"))
    assert_refused(
        bench.main,
        [
            (["--solvitaire", str(tmp_path / "missing")], "no such executable file"),
            (["--solvitaire", "true"], "'true' is not a Solvitaire binary: its --help names no --custom-rules"),
            (["--solvitaire", binary, "--deals", "0"], "--deals must be at least 1, got 0"),
            (["--solvitaire", binary, "--seconds", "0"], "--seconds must be a positive number of seconds, got 0.0"),
            (["--solvitaire", binary, "--seconds", "inf"], "--seconds must be a positive number of seconds, got inf"),
            (["--solvitaire", binary, "--address", "auto"], "--address needs --backend ray"),
            (["--solvitaire", binary, "--games", "klondike"], "unknown game 'klondike' in --games"),
            (["--solvitaire", binary, "--games", "pocket", "pocket=2"], "--games gives pocket twice"),
            (["--solvitaire", binary, "--seed", "-1"], "--seed must be at least 0, got -1"),
            (["--solvitaire", binary, "--backend", "process", "--workers", "0"], "--workers must be at least 1, got 0"),
            ([], "--solvitaire"),
        ],
    )
