"""The wheel carries every package and data file the source tree has (an editable install would hide a gap)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
#: Kinds of files the code reads at run time (ontologies, probes, role records; the browser's templates).
DATA_FILES = ("json", "html", "css")


def _packages_on_disk() -> set[str]:
    mapped = {(ROOT / folder).resolve() for folder in SETUP["package-dir"].values()}
    found = set()
    for name, folder in SETUP["package-dir"].items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            if init.parent.resolve() in mapped - {base.resolve()}:
                continue  # a folder mapped to a package of its own name
            found.add(".".join((name, *init.parent.relative_to(base).parts)))
    return found


def test_every_package_folder_is_listed():
    assert _packages_on_disk() <= set(SETUP["packages"])


def test_every_data_file_the_code_reads_is_package_data():
    data = SETUP["package-data"]
    for name, folder in SETUP["package-dir"].items():
        found = [f for ext in DATA_FILES for f in (ROOT / folder).glob(f"**/*.{ext}")]
        assert name != "caim.agent" or any(f.suffix == ".html" for f in found)  # the browser's templates are seen
        for f in found:
            rel = f.relative_to(ROOT / folder)
            # a pattern of the package holding the file, or of a package above it (``templates/*.html``)
            under = [(".".join((name, *rel.parts[:i])), Path(*rel.parts[i:])) for i in range(len(rel.parts))]
            assert any(sub.match(p) or f.name == p for pkg, sub in under for p in data.get(pkg, [])), f
