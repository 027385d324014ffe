"""``benchmarks.search_curve``: every agent on the same deals with its time a move, paired with the planner, and a
network of another game refused before any deal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import search_curve
from tests.agents.test_search import network


def test_the_curve_plays_every_budget_on_the_same_deals(tmp_path: Path) -> None:
    model = network(tmp_path)
    search_curve.main(["--game", "puss", "--model", str(model), "--episodes", "2", "--seconds", "0.002",
                       "--flat", "--out", str(tmp_path)])  # fmt: skip
    data = json.loads((tmp_path / "search_curve_puss.json").read_text())
    kinds = [(row["kind"], row["budget_seconds"]) for row in data["rows"]]
    assert kinds == [("greedy", None), ("network alone", None), ("planner", None), ("planner", 0.002),
                     ("learned search", 0.002), ("flat Monte Carlo", 0.002)]  # fmt: skip
    assert data["rows"][-1]["spec"].endswith("root=flat")
    assert all(row["seconds_a_move"] > 0 for row in data["rows"])
    default = data["rows"][2]
    assert default["minus_planner"] == 0 and default["minus_planner_ci95"] == 0
    assert (tmp_path / "search_curve_puss.png").stat().st_size > 0
    assert "minus the planner" in (tmp_path / "search_curve_puss.md").read_text()


def test_a_network_of_another_game_is_refused_before_any_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf = network(tmp_path, "patience_gym/Golf-v0")
    with pytest.raises(SystemExit):
        search_curve.main(["--game", "puss", "--model", str(golf), "--out", str(tmp_path)])
    assert "Golf" in capsys.readouterr().err
    assert not list(tmp_path.glob("search_curve_*"))


def test_the_exact_ending_adds_its_own_search_at_every_budget() -> None:
    specs = search_curve.agent_specs("m.zip", [0.01, 0.1], exact_from=11)
    exact = [(spec, budget) for kind, spec, budget in specs if kind == "learned search, exact from 11"]
    assert exact == [("search:m.zip,seconds=0.01,exact_from=11", 0.01), ("search:m.zip,seconds=0.1,exact_from=11", 0.1)]
    assert not any("exact_from" in spec for _, spec, _ in search_curve.agent_specs("m.zip", [0.01]))


def test_the_exact_line_s_budget_goes_to_every_search_and_to_nothing_else() -> None:
    specs = search_curve.agent_specs("m.zip", [0.01], flat=True, sims=[16], exact_nodes=1_000_000)
    searches = [spec for _, spec, _ in specs if spec.startswith("search:")]
    assert searches == [
        "search:m.zip,exact_nodes=1000000,sims=16",
        "search:m.zip,exact_nodes=1000000,seconds=0.01",
        "search:m.zip,exact_nodes=1000000,seconds=0.01,root=flat",
    ]
    assert [spec for _, spec, _ in specs if not spec.startswith("search:")] == [
        "greedy",
        "ppo:m.zip",
        "planner",
        "planner:max_seconds=0.01",
    ]


def test_the_planner_can_be_read_from_the_planners_table_and_the_search_given_sims(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--planner-from``: the planner's default row is the table's (its per-deal scores paired as if played
    here), refused by name where the table played other deals; ``--sims`` adds the search at that budget."""
    model = network(tmp_path)
    table = {"seed": 0, "rows": [{"env": "patience_gym/PussInTheCorner-v0", "agent": "planner", "episodes": 2,
                                  "scores": [52.0, 40.0], "win_rate": 0.5, "win_ci95": [0.1, 0.9],
                                  "mean_moves": 180.0, "seconds": 2.0}]}  # fmt: skip
    (tmp_path / "planners.json").write_text(json.dumps(table))
    argv = ["--game", "puss", "--model", str(model), "--episodes", "2", "--seed", "0", "--seconds", "--sims", "2",
            "--planner-from", str(tmp_path / "planners.json"), "--out", str(tmp_path)]  # fmt: skip
    search_curve.main(argv)
    data = json.loads((tmp_path / "search_curve_puss.json").read_text())
    rows = {row["spec"]: row for row in data["rows"]}
    assert list(rows) == ["greedy", f"ppo:{model}", "planner", f"search:{model},sims=2"]
    assert rows["planner"]["mean_score"] == 46.0 and rows["planner"]["win_rate"] == 0.5
    assert data["planner_from"] == str(tmp_path / "planners.json")
    capsys.readouterr()
    for changed in (["--seed", "1"], ["--episodes", "3"]):
        with pytest.raises(SystemExit):
            search_curve.main([*argv, *changed, "--out", str(tmp_path / "never")])
        assert "the planner played 2 deals of patience_gym/PussInTheCorner-v0 from seed 0" in capsys.readouterr().err
    assert not (tmp_path / "never").exists()
