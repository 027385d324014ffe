"""Checks of the files a command line is to write, made before any game is played: nothing found wrong
only once the work is done, nothing written over unasked."""

from __future__ import annotations

import os
from pathlib import Path


def output_file_problem(path: str | Path, what: str, overwrite: bool = True) -> str | None:
    """Why ``what`` (``the results``) cannot be written at ``path``, or None where it can: a directory
    there, a folder that does not exist or is a file, no permission to write in it; without ``overwrite``,
    a file already there."""
    path = Path(path)
    if path.is_dir():
        return f"is a directory; give a file name for {what}"
    folder = path.resolve().parent
    if not folder.exists():
        return f"cannot be written: folder {folder} does not exist; create it first"
    if not folder.is_dir():
        return f"cannot be written: {folder} is a file, not a folder"
    if not os.access(folder, os.W_OK):
        return f"cannot be written: no permission to write in {folder}"
    if not overwrite and path.exists():
        return "already exists; give another name, or --overwrite to write over it"
    return None
