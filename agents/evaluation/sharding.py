"""Run independent shards of work serially, in worker processes or as Ray tasks, with results in shard order.

``serial`` runs every shard in this process. ``process`` runs them in up to ``workers`` spawned processes on
this machine (default: every core); ``--jobs N`` of the command-line tools is this backend with N workers.
``ray`` (the optional extra ``patience_gym[ray]``) runs each shard as a Ray task: on a local cluster started
here with ``workers`` CPUs (default: every core), or on an existing cluster at ``address`` (``"auto"``,
``"ray://host:10001"``, ``"host:6379"``), whose nodes must be able to import ``patience_gym`` and ``agents``
(install the package there, or pass a ``runtime_env``). Ray is imported only on the ``ray`` path.

Every backend returns the same results: a shard's result depends only on the shard, and the results are
handed back in shard order whatever order they finish in. This module knows nothing of agents: the
evaluation tool (:func:`agents.evaluation.evaluate.evaluate_sharded`, ``--jobs``), behaviour cloning's
recording (:func:`agents.training.imitation.collect`) and the benchmarks hand it their own shards.

:func:`run_resumable` keeps each finished shard in a state dir, one JSON file, and reads it back on a rerun
instead of running it again. Every kept file is checked against the tool's :class:`KeptForm` (each deal of
the shard once, in seed order; every value in its range, a verdict among the tool's) before any shard
runs, and a bad one is named, never counted. A state dir has one writer at a time (:func:`holding`, the
lock of :mod:`agents.evaluation.writer_lock`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

from agents.evaluation.writer_lock import hold_directory

S = TypeVar("S")
R = TypeVar("R")

BACKENDS = ("serial", "process", "ray")
LOCAL_OBJECT_STORE_BYTES = 256 * 1024**2  # shard results are small; keep a local cluster's shared memory modest


def _check(backend: str, address: str | None, workers: int | None) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {list(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError(f"address {address!r} is for the ray backend, not {backend!r}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")


def check_ray_address(address: str, timeout: float = 5.0) -> None:
    """A ValueError of one line where the Ray cluster at ``address`` cannot be reached: ``host:port`` and
    ``ray://host:port`` are dialled (``timeout`` seconds); ``auto`` needs a cluster started on this machine
    (``ray start --head``) or ``RAY_ADDRESS``."""
    import socket

    if address == "auto":
        if os.environ.get("RAY_ADDRESS"):
            return check_ray_address(os.environ["RAY_ADDRESS"], timeout)
        if not Path("/tmp/ray/ray_current_cluster").is_file():
            raise ValueError("--address auto: no Ray cluster runs on this machine (start one with ray start --head)")
        return None
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--address {address!r} is not auto, host:port or ray://host:port")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"--address {address}: the Ray cluster cannot be reached ({exc.strerror or exc})") from None
    return None


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ImportError("the ray backend needs Ray: pip install 'patience_gym[ray]' (or pip install ray)") from exc
    return ray


@contextmanager
def backend_session(
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> Iterator[int]:
    """Make the backend ready and yield how many shards it runs at once.

    ``serial``: 1. ``process``: ``workers`` (default: every core). ``ray``: connects to the cluster at
    ``address``, or starts a local one with ``workers`` CPUs (default: every core), unless Ray is already
    initialised; yields the cluster's CPU count (``workers`` when given, for an existing cluster) and shuts
    down only a connection it made.
    """
    _check(backend, address, workers)
    if backend == "serial":
        yield 1
        return
    if backend == "process":
        yield workers or os.cpu_count() or 1
        return
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        if address is None:
            ray.init(
                num_cpus=workers or os.cpu_count() or 1,
                include_dashboard=False,
                object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                runtime_env=runtime_env,
            )
        else:
            ray.init(address=address, runtime_env=runtime_env)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        yield min(workers, cpus) if workers else cpus
    finally:
        if started:
            ray.shutdown()


def run_sharded(
    task_fn: Callable[[S], R],
    shards: Sequence[S],
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    *,
    on_result: Callable[[int, R], None] | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> list[R]:
    """``[task_fn(shard) for shard in shards]``, on ``backend``; results in shard order.

    ``task_fn`` must be a module-level function (Ray sends it to the workers by name) and each shard
    picklable (the ``process`` and ``ray`` backends send them by name). ``on_result(index, result)`` is called
    in this process as each shard finishes (in finishing order under ``process`` and Ray), e.g. to keep it on
    disk. Under ``process`` at most ``workers`` spawned processes run shards (default: one per core); under
    Ray each shard is a task of one CPU, at most ``workers`` at once (default: as many as the cluster has
    CPUs). A task's error is raised here.
    """
    _check(backend, address, workers)
    shards = list(shards)
    if backend == "serial":
        results = []
        for i, shard in enumerate(shards):
            results.append(task_fn(shard))
            if on_result is not None:
                on_result(i, results[-1])
        return results
    if backend == "process":
        return _run_processes(task_fn, shards, workers or os.cpu_count() or 1, on_result)
    with backend_session(backend, address, workers, runtime_env) as slots:
        # ``workers`` caps the tasks in flight; else keep two per CPU queued so no worker waits on this loop
        return _run_ray(task_fn, shards, slots if workers else 2 * slots, on_result)


class KeptShard(Protocol):
    """A shard of deals whose result can be kept on disk: a dataclass with a file name and its deals' seeds."""

    @property
    def seeds(self) -> Sequence[int]: ...

    @property
    def filename(self) -> str: ...


class StateDirError(ValueError):
    """A state dir that cannot keep this run's shards: it cannot be written, or holds a bad file."""


class KeptShardError(StateDirError):
    """A file in a state dir that is not the finished shard its name says (another run's, or damaged)."""


@dataclass(frozen=True)
class Value:
    """What a kept value must be: ``test`` passes it; ``what`` says so in a message (``a whole number ...``)."""

    what: str
    test: Callable[[Any], bool]


def whole(low: int = 0, high: int | None = None) -> Value:
    """An integer (not a bool) from ``low`` to ``high`` (None: no upper bound)."""
    span = f"of {low} or more" if high is None else f"from {low} to {high}"
    return Value(
        f"a whole number {span}",
        lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v and (high is None or v <= high),
    )


def number(low: float | None = 0.0) -> Value:
    """A finite int or float (not a bool) of ``low`` or more (None: any)."""
    return Value(
        "a finite number" + ("" if low is None else f" of {low:g} or more"),
        lambda v: _finite(v) and (low is None or v >= low),
    )


def one_of(choices: Sequence[str]) -> Value:
    """One of the words ``choices`` (a verdict)."""
    return Value(f"one of {list(choices)}", lambda v: isinstance(v, str) and v in choices)


def list_of(item: Value) -> Value:
    """A list whose every entry is ``item``."""
    return Value(f"a list, each {item.what}", lambda v: isinstance(v, list) and all(map(item.test, v)))


FLAG = Value("true or false", lambda v: isinstance(v, bool))
TEXT = Value("a text", lambda v: isinstance(v, str))


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class KeptForm:
    """What a kept shard's result holds beside its ``shard``: ``deals``, lists of one entry per deal in seed
    order (each entry a :class:`Value`, or a record of named Values; a record's ``seed`` must be its deal's),
    and ``totals``, the shard's other fields."""

    deals: Mapping[str, Value | Mapping[str, Value]]
    totals: Mapping[str, Value] = field(default_factory=dict)

    def problem(self, data: dict[str, Any], shard: KeptShard) -> str | None:
        """What is wrong with ``data``, a kept result of ``shard`` that names it, or None."""
        seeds = list(shard.seeds)
        for name, entry in self.deals.items():
            problem = _deals_problem(name, data.get(name), entry, seeds)
            if problem is not None:
                return problem
        for name, value in self.totals.items():
            if name not in data:
                return f"has no {name}"
            if not value.test(data[name]):
                return f"gives {name} as {data[name]!r}, not {value.what}"
        return None


def _deals_problem(name: str, entries: Any, entry: Value | Mapping[str, Value], seeds: list[int]) -> str | None:
    """What is wrong with the kept list ``name`` of one ``entry`` per deal of ``seeds``, or None: first its
    length, then a record's seeds, then every value."""
    if not isinstance(entries, list):
        return f"has no list {name!r} of one entry per deal"
    if len(entries) != len(seeds):
        return f"holds {len(entries)} entries in {name!r} for its {len(seeds)} deals"
    if isinstance(entry, Mapping) and "seed" in entry:  # the seeds first: the other values' messages name them
        problem = _first(_entry_problem(name, v, {"seed": entry["seed"]}, s) for s, v in zip(seeds, entries))
        problem = problem or _seed_problem([v["seed"] for v in entries], seeds)
        if problem is not None:
            return problem
    return _first(_entry_problem(name, v, entry, s) for s, v in zip(seeds, entries))


def _first(problems: Iterable[str | None]) -> str | None:
    return next(filter(None, problems), None)


def _entry_problem(name: str, value: Any, entry: Value | Mapping[str, Value], seed: int) -> str | None:
    """What is wrong with one deal's entry of the list ``name`` (``seed``: the deal it should be), or None."""
    if isinstance(entry, Value):
        return None if entry.test(value) else f"gives deal {seed}'s {name} entry as {value!r}, not {entry.what}"
    if not isinstance(value, dict):
        return f"gives deal {seed}'s {name} entry as {value!r}, not a record"
    for key, field_value in entry.items():
        if key not in value:
            return f"has no {key} for deal {seed} in {name!r}"
        if not field_value.test(value[key]):
            return f"gives deal {seed}'s {key} as {value[key]!r}, not {field_value.what}"
    return None


def _seed_problem(got: list[int], expected: list[int]) -> str | None:
    """How the seeds ``got`` differ from the shard's ``expected`` ones, in order, or None."""
    if got == expected:
        return None
    counts = Counter(got)
    twice = sorted(s for s, n in counts.items() if n > 1)
    missing = [s for s in expected if s not in counts]
    foreign = sorted(set(counts) - set(expected))
    parts = [f"holds {_deals(twice)} twice"] if twice else []
    parts += [f"lacks {_deals(missing)}"] if missing else []
    parts += [f"holds {_deals(foreign)} of another shard"] if foreign else []
    return " and ".join(parts) or "holds its deals out of seed order"


def _deals(seeds: list[int]) -> str:
    return f"deal {seeds[0]}" if len(seeds) == 1 else "deals " + ", ".join(map(str, seeds))


def prepare_state_dir(path: Path, what: str = "state dir") -> None:
    """Make ``path`` (and its parents) and check that a file can be written there, before any shard runs;
    a :class:`StateDirError` naming ``what`` and the path where not (a file in the way, no permission)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise StateDirError(f"{what} {path} cannot keep the finished shards: {exc.strerror or exc}") from None


#: The state dirs whose writer lock this process holds (:func:`holding`), resolved.
_HELD: set[Path] = set()


@contextmanager
def holding(state_dir: Path | None, what: str = "state dir") -> Iterator[None]:
    """Hold ``state_dir`` (made and checked, :func:`prepare_state_dir`) as its one writer while the block runs.

    A :class:`~agents.evaluation.writer_lock.DirectoryInUseError` naming the holder where another live
    process holds it (a lock left by a killed one is taken over, said on stderr). Nothing where
    ``state_dir`` is None or this process holds it already (a tool holding it over several runs).
    """
    if state_dir is None or Path(state_dir).resolve() in _HELD:
        yield
        return
    key = Path(state_dir).resolve()
    prepare_state_dir(Path(state_dir), what)
    with hold_directory(state_dir, what):
        _HELD.add(key)
        try:
            yield
        finally:
            _HELD.discard(key)


def load_kept(path: Path, shard: KeptShard, form: KeptForm) -> dict[str, Any] | None:
    """The finished ``shard`` kept at ``path``, or None when there is none; :class:`KeptShardError` naming
    the file where it is not valid JSON, holds another shard, or is not of ``form`` (a deal missing, given
    twice or of another shard, a value out of its range: a verdict the tool does not give)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise KeptShardError(
            f"kept shard {path} is not valid JSON ({exc}): delete it to solve the shard again"
        ) from exc
    if not isinstance(data, dict) or data.get("shard") != dataclasses.asdict(shard):  # type: ignore[call-overload]
        raise KeptShardError(f"kept shard {path} does not hold the deals of {shard}: delete it to solve them again")
    problem = form.problem(data, shard)
    if problem is not None:
        raise KeptShardError(f"kept shard {path} {problem}: delete it to solve the shard again")
    return data


def read_kept(shards: Sequence[KeptShard], state_dir: Path | None, form: KeptForm) -> list[dict[str, Any] | None]:
    """Each shard's result kept in ``state_dir`` (None where none is, or no ``state_dir``), every file checked
    (:func:`load_kept`) before any is used; only the shards' own files are read (not the lock file)."""
    return [None if state_dir is None else load_kept(state_dir / s.filename, s, form) for s in shards]


def write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """``write(file)`` into a temporary file beside ``path``, then move it into place: a run killed mid-write
    leaves no half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as file:
        write(file)
    os.replace(tmp, path)


def keep(path: Path, data: dict[str, Any]) -> None:
    """Write a finished shard's result atomically: a run killed mid-write leaves no half file."""
    write_atomically(path, lambda file: file.write((json.dumps(data) + "\n").encode()))


def run_resumable(
    task_fn: Callable[[Any], dict[str, Any]],
    shards: Sequence[KeptShard],
    state_dir: Path | None,
    form: KeptForm,
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    what: str = "state dir",
) -> tuple[list[dict[str, Any]], int]:
    """Every shard's result, in shard order, and how many were run now rather than read back.

    ``task_fn(shard)`` returns a JSON-able dict holding ``"shard": dataclasses.asdict(shard)`` and the
    lists and fields of ``form``. Shards kept in ``state_dir`` (one file each, ``shard.filename``) are read
    back, not run; the others run on ``backend`` (:func:`run_sharded`) and each is kept there as it
    finishes, so an interrupted run loses no finished shard and never counts a deal twice. The run holds
    ``state_dir`` as its one writer (:func:`holding`, ``what`` naming it) from before the kept files are
    read, every one checked (:func:`load_kept`) before any shard runs, until the last shard is kept.
    """
    with holding(state_dir, what):
        results = read_kept(shards, state_dir, form)
        todo = [i for i, r in enumerate(results) if r is None]

        def finished(k: int, data: dict[str, Any]) -> None:
            results[todo[k]] = data
            if state_dir is not None:
                keep(state_dir / shards[todo[k]].filename, data)

        run_sharded(task_fn, [shards[i] for i in todo], backend, address, workers, on_result=finished)
    return [r for r in results if r is not None], len(todo)


def _run_processes(
    task_fn: Callable[[S], R], shards: list[S], workers: int, on_result: Callable[[int, R], None] | None
) -> list[R]:
    """The shards in at most ``workers`` spawned processes (spawn: no copy of this process's threads or
    torch state), results in shard order.

    A worker ends itself when this process is gone (:func:`_exit_with_parent`): a run killed in the middle
    leaves no worker playing on. If this process stops waiting (an error, a result that cannot be kept),
    the workers are stopped with the shards they were playing.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if not shards:
        return []
    results: list[Any] = [None] * len(shards)
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        min(workers, len(shards)), mp_context=context, initializer=_exit_with_parent, initargs=(os.getpid(),)
    )
    try:
        futures = {pool.submit(task_fn, shard): i for i, shard in enumerate(shards)}
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            if on_result is not None:
                on_result(i, results[i])
    except BaseException:
        running = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        for process in running:
            process.terminate()  # the running shards too (the executor has no public way before Python 3.14)
        raise
    pool.shutdown()
    return results


#: How often a worker process checks that the process that started it is still there (seconds).
PARENT_POLL_SECONDS = 1.0


def _exit_with_parent(parent: int) -> None:
    """In a worker process: a daemon thread that ends the worker once ``parent`` is gone (the worker is
    then another process's child), so a parent killed by a signal leaves no worker running."""
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _run_ray(
    task_fn: Callable[[S], R], shards: list[S], window: int, on_result: Callable[[int, R], None] | None
) -> list[R]:
    ray = _import_ray()
    remote = ray.remote(num_cpus=1)(task_fn)
    results: list[Any] = [None] * len(shards)
    pending: dict[Any, int] = {}
    queue = iter(enumerate(shards))
    for i, shard in queue:
        pending[remote.remote(shard)] = i
        if len(pending) >= window:
            break
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            i = pending.pop(ref)
            results[i] = ray.get(ref)
            if on_result is not None:
                on_result(i, results[i])
            nxt = next(queue, None)
            if nxt is not None:
                pending[remote.remote(nxt[1])] = nxt[0]
    return results
