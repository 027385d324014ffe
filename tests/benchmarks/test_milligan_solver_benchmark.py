"""benchmarks/milligan_solver.py: the family's solver statistics, run as users run them, with kept shards
resumed (never a deal counted twice), winning lines kept as records that replay, and bad options named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import milligan_solver as bench
from patience_gym.games.milligan_tables import DEAL
from patience_gym.records import load_record, replay
from tests.helpers import AssertRefused, RunBenchmark


def test_script_writes_shares_that_add_up_and_records_that_replay(tmp_path: Path, run_benchmark: RunBenchmark) -> None:
    args = ["--deals", "2", "--max-nodes", "1500", "--shard-size", "1", "--out", str(tmp_path)]
    args += ["--state-dir", str(tmp_path / "state"), "--records", str(tmp_path / "records")]
    done = run_benchmark("benchmarks.milligan_solver", *args)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "milligan_solver.json").read_text())
    assert [g["game"] for g in data["games"]] == list(bench.ENV_IDS)
    won = 0
    for game in data["games"]:
        assert game["deals"] == 2 and game["won"] + game["lost"] + game["undecided"] == 2
        assert [r["seed"] for r in game["rows"]] == [0, 1]
        assert all(r["nodes"] <= 1500 for r in game["rows"])
        won += game["won"]
    records = sorted((tmp_path / "records").glob("*.json"))
    assert len(records) == won > 0, "no deal was won: the records are not tested"
    for path in records:
        record = load_record(path)
        assert record.won
        *_, (_, _, terminated, _, info) = replay(record)
        assert terminated and info["won"]
    assert "| MissMilligan-v0 | 2 |" in (tmp_path / "milligan_solver.md").read_text()

    again = run_benchmark("benchmarks.milligan_solver", *args)  # every shard kept: none is solved again
    assert again.returncode == 0, again.stderr
    resumed = json.loads((tmp_path / "milligan_solver.json").read_text())
    assert [g["shards_solved"] for g in resumed["games"]] == [0, 0, 0]
    assert [g["rows"] for g in resumed["games"]] == [g["rows"] for g in data["games"]]


def test_a_shard_kept_by_an_interrupted_run_is_not_solved_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    solved: list[int] = []
    solve_shard = bench.solve_shard

    def dies_on_the_second(shard: bench.Shard) -> dict:
        if solved:
            raise KeyboardInterrupt
        solved.append(shard.start)
        return solve_shard(shard)

    monkeypatch.setattr(bench, "solve_shard", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        bench.measure("giant", 2, 5, 500, None, shard_size=1, state_dir=tmp_path)
    monkeypatch.setattr(bench, "solve_shard", lambda shard: (solved.append(shard.start), solve_shard(shard))[1])
    summary, rows = bench.measure("giant", 2, 5, 500, None, shard_size=1, state_dir=tmp_path)
    assert solved == [0, 1] and summary["shards_solved"] == 1
    assert [r["seed"] for r in rows] == [5, 6] and summary["deals"] == 2


def test_bad_options_are_named(tmp_path: Path, assert_refused: AssertRefused) -> None:
    """Every option out of range is named before any deal is solved; no limit on positions is spelled
    ``none``, never a zero budget."""
    small = ["--deals", "1", "--max-nodes", "300", "--out", str(tmp_path / "out")]  # were an option let through
    assert_refused(
        lambda argv: bench.main([*small, *argv]),
        [
            (["--deals", "0"], "--deals must be at least 1, got 0"),
            (["--seed", "-1"], "--seed must be at least 0, got -1"),
            (["--workers", "0", "--backend", "process"], "--workers must be at least 1, got 0"),
            (["--workers", "2"], "--workers needs --backend process or ray"),
            (["--games", "giant=-1"], "--games 'giant=-1': the count of giant must be at least 1, got -1"),
            (["--games", "klondike"], "unknown game 'klondike' in --games"),
            (["--games", "giant=x"], "--games 'giant=x': the count after '=' must be an integer"),
            (
                ["--games", "miss_milligan=2", "miss_milligan=3"],
                "--games gives miss_milligan twice ('miss_milligan=2' and 'miss_milligan=3'); give each game once",
            ),
            (["--max-nodes", "0"], "--max-nodes must be a positive integer (or none: no limit), got 0"),
            (["--max-nodes", "-5"], "--max-nodes must be a positive integer (or none: no limit), got -5"),
            (["--max-nodes", "lots"], "argument --max-nodes: 'lots' is neither a whole number nor none"),
            (["--max-nodes", "none"], "give a budget: --max-nodes none needs --max-seconds S"),
            (["--max-seconds", "0"], "--max-seconds must be a positive number of seconds (or left out: no limit)"),
            (["--max-seconds", "nan"], "--max-seconds must be a positive number of seconds"),
            (["--address", "auto"], "--address needs --backend ray"),
            (["--beam", "-1"], "--beam must be 0 (no beam) or a width, got -1"),
            (["--records", __file__], f"--records {__file__} is a file; give a folder"),
        ],
    )
    assert not (tmp_path / "out").exists()


def test_no_position_limit_is_spelled_none(tmp_path: Path) -> None:
    """``--max-nodes none --max-seconds S`` solves within the seconds alone (what ``--max-nodes 0`` used to mean)."""
    argv = ["--games", "giant=1", "--max-nodes", "none", "--max-seconds", "0.5", "--beam", "0"]
    bench.main([*argv, "--state-dir", str(tmp_path / "state"), "--out", str(tmp_path)])
    data = json.loads((tmp_path / "milligan_solver.json").read_text())
    assert data["max_nodes"] is None and data["max_seconds"] == 0.5 and data["games"][0]["deals"] == 1
    assert [p.name for p in (tmp_path / "state").glob("*.json")] == ["giant-seed0-000000+1-nodesNone-s0.5.json"]


def test_a_kept_shard_with_a_deal_twice_or_an_unknown_verdict_is_named_and_never_counted(
    tmp_path: Path, assert_refused: AssertRefused
) -> None:
    """The issue's state dir: a kept shard that holds deal 2 twice and lacks deal 0, one deal short, or a
    verdict the solver does not give is named with its file before any deal is solved, not counted."""
    state, out = tmp_path / "state", tmp_path / "out"
    argv = ["--games", "miss_milligan=3", "giant=1", "--max-nodes", "300", "--beam", "0", "--shard-size", "3"]
    argv += ["--state-dir", str(state), "--out", str(out)]
    bench.measure("miss_milligan", 3, 0, 300, None, shard_size=3, state_dir=state)
    (path,) = state.glob("*.json")
    data = json.loads(path.read_text())
    deals = data["deals"]
    for edit, problem in [
        ([deals[2], deals[1], deals[2]], "holds deal 2 twice and lacks deal 0"),
        (deals[1:], "holds 2 entries in 'deals' for its 3 deals"),
        ([deals[0], {**deals[1], "verdict": "maybe"}, deals[2]], "gives deal 1's verdict as 'maybe', not one of"),
    ]:
        path.write_text(json.dumps({**data, "deals": edit}))
        assert_refused(bench.main, [(argv, f"kept shard {path} {problem}")])
    assert [p.name for p in state.glob("*.json")] == [path.name] and not out.exists()  # giant was not solved


def test_the_beam_is_part_of_a_shard(tmp_path: Path) -> None:
    """A kept shard solved without the beam is never read back for a run with it (nor the reverse), and the
    beam's wins replay (the benchmark replays every won line); its name carries the beam's version from 2 on."""
    plain = bench.Shard("giant", 11, 0, 1, 25_000, None)
    beamed = bench.Shard("giant", 11, 0, 1, 25_000, None, beam=5, beam_version=1)
    assert plain.filename != beamed.filename and beamed.filename.endswith("-beam5.json")
    second = bench.Shard("giant", 11, 0, 1, 25_000, None, beam=5)
    assert second.filename.endswith("-beam5v2.json")  # version 2 is the default
    summary, rows = bench.measure("giant", 1, 11, 25_000, None, state_dir=tmp_path, beam=5, beam_version=1)
    assert rows[0]["verdict"] == "won" and summary["shards_solved"] == 1
    summary, _ = bench.measure("giant", 1, 11, 25_000, None, state_dir=tmp_path, beam=5, beam_version=1)
    assert summary["shards_solved"] == 0
    markdown = bench.to_markdown(
        {"seed": 11, "max_nodes": 25_000, "max_seconds": None, "beam": 5, "machine": "m", "games": [summary]}
    )
    assert "a beam 5 wide over the deals first, version 1)" in markdown  # a table without the field
    second_table = {"seed": 11, "max_nodes": 25_000, "max_seconds": None, "beam": 5, "beam_version": 2}
    assert "a beam 5 wide over the deals first, version 2)" in bench.to_markdown(
        {**second_table, "machine": "m", "games": [summary]}
    )


def test_a_run_without_a_beam_resumes_whatever_the_beam_version(tmp_path: Path) -> None:
    """The beam's version means nothing without a beam: such a shard is the same task (and file) under
    either version, so shards kept under one resume under the other instead of being refused."""
    assert bench.Shard("giant", 0, 0, 1, 400, None, beam_version=1) == bench.Shard("giant", 0, 0, 1, 400, None)
    summary, rows = bench.measure("miss_milligan", 2, 0, 400, None, shard_size=1, state_dir=tmp_path, beam_version=1)
    assert summary["shards_solved"] == 2
    again, same = bench.measure("miss_milligan", 2, 0, 400, None, shard_size=1, state_dir=tmp_path, beam_version=2)
    assert again["shards_solved"] == 0 and same == rows


def test_games_measured_one_at_a_time_share_a_table_only_under_one_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game measured alone keeps the other games' rows taken with the same seed and budget, drops those
    taken otherwise (and says so), and a file that is not this benchmark's results is refused by name."""
    out = tmp_path / "milligan_solver.json"
    common = ["--max-nodes", "400", "--shard-size", "1", "--out", str(tmp_path)]
    bench.main(["--games", "miss_milligan=1", "--beam", "0", *common])
    first = json.loads(out.read_text())["games"]
    bench.main(["--games", "giant=1", "--beam", "0", *common])
    both = json.loads(out.read_text())
    assert [g["game"] for g in both["games"]] == ["miss_milligan", "giant"]
    assert both["games"][0] == first[0] and both["beam"] == 0
    assert "| MissMilligan-v0 | 1 |" in (tmp_path / "milligan_solver.md").read_text()
    capsys.readouterr()
    bench.main(["--games", "giant=1", "--beam", "2", *common])
    assert [g["game"] for g in json.loads(out.read_text())["games"]] == ["giant"]
    assert (
        "patience_gym/MissMilligan-v0'] were taken with seed 0, max_nodes 400, max_seconds None, beam 0, "
        "beam_version 0; not kept" in (capsys.readouterr().out)
    )
    out.write_text('{"games": ')
    with pytest.raises(SystemExit, match=r"milligan_solver.json is not a results file of this benchmark"):
        bench.main(["--games", "giant=1", *common])
    assert out.read_text() == '{"games": ', "the file it refused was changed"


def test_a_table_of_another_beam_version_is_not_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rows solved by another version of the beam (a table from before versions were written is version 1)
    never join a new table; rows of this version do."""
    path = tmp_path / "milligan_solver.json"
    row = {"env": bench.ENV_IDS["miss_milligan"], "game": "miss_milligan"}
    settings = {"seed": 0, "max_nodes": 400, "max_seconds": None, "beam": 2, "beam_version": 2}
    path.write_text(json.dumps({"seed": 0, "max_nodes": 400, "max_seconds": None, "beam": 2, "games": [row]}))
    assert bench.kept_rows(path, settings, ["giant"]) == []
    assert "beam 2, beam_version 1; not kept" in capsys.readouterr().out
    path.write_text(json.dumps({**settings, "games": [row]}))
    assert bench.kept_rows(path, settings, ["giant"]) == [row]


def test_a_line_that_breaks_the_rules_or_does_not_win_is_refused() -> None:
    env_id = bench.ENV_IDS["miss_milligan"]
    with pytest.raises(RuntimeError, match="deal 0: the solver's line of 1 moves does not win"):
        bench.replay_won(env_id, 0, [DEAL])
    with pytest.raises(RuntimeError, match=r"deal 0: the solver's line breaks the rules: move 1 \(0\)"):
        bench.replay_won(env_id, 0, [DEAL, 0])
