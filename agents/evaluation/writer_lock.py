"""One writer per directory: an exclusive lock that names its holder.

A run directory, a solver statistics ``--state-dir`` or an evaluation ``--state-dir`` is written by one
process at a time. :func:`hold_directory` takes an exclusive ``flock`` on a lock file in the directory
(:data:`LOCK_NAME`) and writes the holder's pid, host and command line into it. A second writer is refused
at once with a :class:`DirectoryInUseError` that names the holder. The operating system drops the lock when
its process ends, however it ends, so a lock left by a killed process is found free: the next writer takes
it over and says whose it was.

The lock is advisory (it stops our tools, not ``rm``) and local to what the file system's locks cover: on a
shared cluster file system it holds where that file system supports POSIX locks (NFSv4, Lustre, CephFS).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

#: The lock file every writer of a directory takes; tools that clear a directory leave it in place.
LOCK_NAME = ".writer.lock"


class DirectoryInUseError(ValueError):
    """Another live process holds the directory's writer lock."""


def _try_lock(file: IO[str]) -> bool:
    """Take an exclusive, non-blocking lock on ``file``; False where another process holds it."""
    if sys.platform == "win32":  # pragma: no cover - the project runs on POSIX; a best effort elsewhere
        import msvcrt

        try:
            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder_text(holder: dict[str, Any]) -> str:
    if not holder:
        return "another process"
    since = holder.get("since")
    started = time.strftime(" since %Y-%m-%d %H:%M:%S", time.localtime(since)) if isinstance(since, float) else ""
    command = f" ({holder['command']})" if holder.get("command") else ""
    return f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}{started}{command}"


def read_holder(path: Path) -> dict[str, Any]:
    """What the lock file at ``path`` says of its last holder ({} where it is missing or unreadable)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextmanager
def hold_directory(
    directory: Path | str, what: str = "directory", *, report: Callable[[str], None] | None = None
) -> Iterator[Path]:
    """Hold ``directory``'s writer lock while the block runs (the directory is made if missing).

    A :class:`DirectoryInUseError` naming ``what``, the directory and the holder (pid, host, start time,
    command) where another live process holds it. A lock its holder left behind when it was killed is
    taken over, and ``report`` (default: a line on stderr) says whose it was.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_NAME
    file = path.open("a+")  # never truncated before the lock is ours: a refused writer must not erase the holder
    locked = False
    try:
        if not _try_lock(file):
            raise DirectoryInUseError(
                f"{what} {directory} is in use by {_holder_text(read_holder(path))}: "
                "wait for it to finish or stop it; one process writes a directory at a time"
            )
        previous = read_holder(path)
        if previous and previous.get("pid") != os.getpid():
            (report or _to_stderr)(f"taking over {what} {directory} from {_holder_text(previous)}, which has ended")
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": time.time(),
            "command": " ".join(sys.argv)[:300],
        }
        file.seek(0)
        file.truncate()
        file.write(json.dumps(holder) + "\n")
        file.flush()
        locked = True
        yield directory
    finally:
        if locked:  # a clean release leaves no holder named; a killed holder's record stays for the next one
            file.seek(0)
            file.truncate()
        file.close()  # closing the file releases the lock


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)
