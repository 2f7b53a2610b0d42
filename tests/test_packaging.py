"""The wheel carries every package and data file the source tree has (an editable install would hide a gap)."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUP = PYPROJECT["tool"]["setuptools"]
MYPY = PYPROJECT["tool"]["mypy"]
#: The package as installed, in links to the sources: the layout mypy checks the code in (as ``caim.*``).
TYPECHECK = ROOT / ".typecheck"
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


def _installed_layout() -> dict[str, Path]:
    """What ``caim/`` holds once installed: its top folder's modules and a folder per package-dir entry."""
    package_dir = SETUP["package-dir"]
    layout = {p.name: ROOT / package_dir["caim"] / p.name for p in (ROOT / package_dir["caim"]).glob("*.py")}
    for name, folder in package_dir.items():
        parts = name.split(".")
        if len(parts) == 2:
            layout[parts[1]] = ROOT / folder
        elif len(parts) > 2:  # a subpackage: in its parent's folder, so under the parent's link
            assert (ROOT / folder).resolve() == (ROOT / package_dir[".".join(parts[:-1])] / parts[-1]).resolve(), name
    return layout


def test_mypy_checks_the_package_as_installed():
    """.typecheck/caim links each module of the top folder and each package-dir folder (relative links:
    any clone), nothing else; mypy reads it, and leaves out the top folder where another link holds it."""
    expected = _installed_layout()
    links = {p.name: p for p in (TYPECHECK / "caim").iterdir()}
    assert set(links) == set(expected), "link .typecheck/caim/<name> to each package-dir entry"
    for name, link in links.items():
        assert link.is_symlink() and not os.path.isabs(os.readlink(link)), name
        assert link.resolve() == expected[name].resolve(), name
    assert MYPY["mypy_path"] == "$MYPY_CONFIG_FILE_DIR/.typecheck" and ".typecheck/caim" in MYPY["files"]
    # a folder inside another package's (agent/_top inside agent) is checked once: under its own name
    top = (ROOT / SETUP["package-dir"]["caim"]).resolve()
    for name, link in links.items():
        if link.is_dir() and top.is_relative_to(link.resolve()):
            seen_as = Path(".typecheck", "caim", name, top.relative_to(link.resolve()), "__init__.py").as_posix()
            assert any(re.search(pattern, seen_as) for pattern in MYPY["exclude"]), seen_as
