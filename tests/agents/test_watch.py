"""agents.evaluation.watch: every file it is to write, and every option, is checked before the game is played;
nothing already there is written over unasked."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.evaluation import watch

GOLF = ["--env", "patience_gym/Golf-v0", "--agent", "greedy", "--seed", "3"]


@pytest.fixture
def unplayed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test that films a game: each request here must be refused first."""
    monkeypatch.setattr(watch, "film", lambda *a, **k: pytest.fail("a game was played before the refusal"))


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of ``watch`` refusing ``argv`` with a usage error (exit 2)."""
    with pytest.raises(SystemExit) as stop:
        watch.main(argv)
    assert stop.value.code == 2
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    return line


@pytest.mark.usefixtures("unplayed")
def test_bad_options_and_outputs_are_named_before_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gif, kept = tmp_path / "g.gif", tmp_path / "kept.json"
    kept.write_text("keep me")
    for argv, message in [
        ([*GOLF, "--seed", "-3", "--out", str(gif)], "--seed must be 0 or more, got -3"),
        ([*GOLF, "--fps", "nan", "--out", str(gif)], "--fps must be a positive number of moves per second, got nan"),
        ([*GOLF, "--fps", "inf", "--out", str(gif)], "--fps must be a positive number of moves per second, got inf"),
        ([*GOLF, "--fps", "0", "--out", str(gif)], "--fps must be a positive number of moves per second, got 0.0"),
        ([*GOLF, "--out", str(tmp_path / "dir.gif")], "is a directory; give a file name for the animation"),
        ([*GOLF, "--out", str(tmp_path / "no" / "g.gif")], f"folder {tmp_path / 'no'} does not exist; create it first"),
        ([*GOLF, "--out", str(gif), "--record-out", str(tmp_path)], f"--record-out {tmp_path} is a directory"),
        (
            [*GOLF, "--out", str(gif), "--record-out", str(tmp_path / "no" / "r.json")],
            f"folder {tmp_path / 'no'} does not exist",
        ),
        ([*GOLF, "--out", str(gif), "--record-out", str(kept)], f"--record-out {kept} already exists; give another"),
        ([*GOLF, "--out", str(gif), "--record-out", str(gif)], f"--out and --record-out are the same file {gif}"),
        (["--record", str(kept), "--out", str(gif), "--record-out", str(tmp_path / "r.json")], "a --record is saved"),
    ]:
        if "dir.gif" in argv[-1]:
            (tmp_path / "dir.gif").mkdir()
        assert message in refused(argv, capsys), argv
    assert kept.read_text() == "keep me" and not gif.exists()


def test_a_file_already_there_is_written_over_only_with_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from patience_gym.records import load_record

    gif, record = tmp_path / "g.gif", tmp_path / "g.json"
    gif.write_bytes(b"an older film")
    assert f"--out {gif} already exists" in refused([*GOLF, "--out", str(gif)], capsys)
    assert gif.read_bytes() == b"an older film"
    assert watch.main([*GOLF, "--out", str(gif), "--record-out", str(record), "--overwrite"]) == 0
    assert gif.read_bytes() != b"an older film" and load_record(record).seed == 3
