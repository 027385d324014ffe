"""Reading one flag out of a command line before argparse (``agents.training.arguments``)."""

from __future__ import annotations

from agents.training.arguments import flag_value, without_flag


def test_a_flag_is_read_and_left_out_in_either_spelling() -> None:
    line = ["--seeds", "2", "--config", "a.yaml", "--sweep-dir", "s"]
    assert flag_value(line, "--config") == "a.yaml"
    assert without_flag(line, "--config") == ["--seeds", "2", "--sweep-dir", "s"]
    joined = ["--config=b.yaml", "--seeds", "2"]
    assert flag_value(joined, "--config") == "b.yaml"
    assert without_flag(joined, "--config") == ["--seeds", "2"]


def test_a_missing_flag_or_value_is_none_and_leaves_the_line_alone() -> None:
    assert flag_value(["--seeds", "2"], "--config") is None
    assert flag_value(["--seeds", "2", "--config"], "--config") is None  # no value after it
    assert without_flag(["--seeds", "2", "--config"], "--config") == ["--seeds", "2", "--config"]
    assert flag_value(["--configs", "x"], "--config") is None
