"""Measurement scripts; each writes ``benchmarks/results/<name>.json`` and ``.md``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents.evaluation.sharding import KeptForm, KeptShard, StateDirError, holding, read_kept
from agents.evaluation.writer_lock import DirectoryInUseError

RESULTS = Path(__file__).resolve().parent / "results"


def write_results(name: str, data: Any, table: str, folder: Path = RESULTS) -> None:
    """Save ``data`` as ``<name>.json`` and ``table`` as ``<name>.md`` in ``folder``, and print the table."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    (folder / f"{name}.md").write_text(table)
    print(table)


def named_counts(
    parser: argparse.ArgumentParser,
    items: list[str],
    known: Collection[str],
    default: Callable[[str], int],
    option: str,
    kind: str,
) -> dict[str, int]:
    """``NAME`` or ``NAME=N`` command-line items as ``{name: N}`` (``default(name)`` without ``=N``).

    A parser error, before any work starts, names an unknown ``kind`` of name, a count that is not an
    integer, one below 1, or a name given twice.
    """
    counts: dict[str, int] = {}
    given: dict[str, str] = {}
    for item in items:
        name, sep, count = item.partition("=")
        if name not in known:
            parser.error(f"unknown {kind} {name!r} in {option}; choose from {list(known)}")
        if name in given:
            parser.error(f"{option} gives {name} twice ({given[name]!r} and {item!r}); give each {kind} once")
        try:
            n = int(count) if sep else default(name)
        except ValueError:
            parser.error(f"{option} {item!r}: the count after '=' must be an integer")
        if n < 1:
            parser.error(f"{option} {item!r}: the count of {name} must be at least 1, got {n}")
        counts[name], given[name] = n, item
    return counts


#: The least value of each option the benchmark scripts share, by its name in ``args`` (``--shard-size``: shard_size).
LEAST = {"deals": 1, "seed": 0, "rounds": 0, "shard_size": 1, "jobs": 1, "workers": 1}


def check_shared_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error (exit 2) before any work for a shared option a script has and was given out of range
    (:data:`LEAST`): a count below 1, a negative seed; an ``--address`` without ``--backend ray``; ``--workers``
    with the serial backend, which has none."""
    for name, least in LEAST.items():
        value = getattr(args, name, None)
        if value is not None and value < least:
            parser.error(f"--{name.replace('_', '-')} must be at least {least}, got {value}")
    backend = getattr(args, "backend", "serial")
    if getattr(args, "address", None) is not None and backend != "ray":
        parser.error("--address needs --backend ray")
    if getattr(args, "workers", None) is not None and backend == "serial":
        parser.error("--workers needs --backend process or ray")


def check_folders(parser: argparse.ArgumentParser, *folders: tuple[str, Path | None]) -> None:
    """A usage error (exit 2) before any work for an ``(option, folder)`` to write into (made where missing)
    that is a file, or lies under one."""
    for option, folder in folders:
        if folder is None:
            continue
        existing = next(p for p in (folder, *folder.parents) if p.exists())
        if existing == folder and not folder.is_dir():
            parser.error(f"{option} {folder} is a file; give a folder")
        if not existing.is_dir():
            parser.error(f"{option} {folder} cannot be made: {existing} is a file, not a folder")


def whole_or_none(text: str) -> int | None:
    """An option's value: an integer, or ``none`` (no limit) as None."""
    if text.strip().lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a whole number nor none") from None


@contextmanager
def resuming(
    parser: argparse.ArgumentParser,
    state_dir: Path | None,
    shards: Sequence[KeptShard] = (),
    form: KeptForm | None = None,
) -> Iterator[None]:
    """Hold ``--state-dir`` as its one writer while the block runs, every kept file of ``shards`` checked
    first against ``form`` (:func:`~agents.evaluation.sharding.read_kept`): a usage error (exit 2) naming
    the state dir that cannot be written, its holder, or a bad kept shard, before any deal is solved."""
    try:
        with holding(state_dir, "--state-dir"):
            if form is not None:
                read_kept(shards, state_dir, form)
            yield
    except (StateDirError, DirectoryInUseError) as exc:
        parser.error(str(exc))


def agents_table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown lines: one row per agent summary (``agents.evaluation.evaluate.Summary.row()``), with seconds a game."""
    from agents.evaluation.evaluate import format_share

    lines = [
        "| agent | mean cards on foundations | win rate [95% CI] | s / game |",
        "|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['agent']} | {r['mean_score']:.2f} ± {r['score_ci95']:.2f} | "
            f"{format_share(r['win_rate'], r['win_ci95'])} | {r['seconds'] / r['episodes']:.3f} |"
        )
    return lines
