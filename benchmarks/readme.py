"""Write a generated table into README.md between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def update_readme(name: str, table: str, readme: Path = README) -> None:
    """Replace the text between the README's ``name`` markers with ``table``."""
    text = readme.read_text()
    pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{readme.name} has no <!-- {name}:start --> ... <!-- {name}:end --> markers")
    readme.write_text(pattern.sub(lambda m: m.group(1) + table + m.group(2), text))
