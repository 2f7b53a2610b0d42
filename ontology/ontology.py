"""Ontology of single-word tags, and its versioned, validated extension.

The default ontology ships as ``default.json`` and is never modified. Extensions proposed by the
ontology LLM role are validated here (one lowercase word, not already anywhere in the ontology,
under an existing parent, a few per call) and persisted as a new numbered version in the data dir.
Invalid proposals are dropped with a log line; extension never fails a turn.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

log = logging.getLogger(__name__)

WORD = re.compile(r"^[a-z]{2,24}$")
MAX_NEW_PER_CALL = 3

Tree = dict[str, dict[str, list[str]]]


@dataclass(frozen=True)
class Proposal:
    """A new term under ``parent``: a category (new subcategory) or ``category/subcategory`` (new attribute)."""

    parent: str
    term: str


class Ontology:
    """An immutable view of one ontology version."""

    def __init__(self, tree: Tree, version: int = 0):
        self.tree: Tree = tree
        self.version = version
        tags: list[str] = []
        for cat, subs in tree.items():
            tags.append(cat)
            for sub, attrs in subs.items():
                tags.append(sub)
                tags.extend(attrs)
        self._tags = tuple(dict.fromkeys(tags))
        self._parent: dict[str, str] = {}
        for cat, subs in tree.items():
            for sub, attrs in subs.items():
                self._parent.setdefault(sub, cat)
                for a in attrs:
                    self._parent.setdefault(a, f"{cat}/{sub}")

    @classmethod
    def default(cls) -> Ontology:
        text = resources.files("caim.ontology").joinpath("default.json").read_text(encoding="utf-8")
        return cls(json.loads(text), 0)

    @property
    def tags(self) -> tuple[str, ...]:
        """Every term at every level, in a stable order."""
        return self._tags

    def __contains__(self, tag: str) -> bool:
        return tag in self._parent or tag in self.tree

    def path(self, tag: str) -> str:
        """``category/subcategory/attribute`` style path of a tag (for prompts and display)."""
        if tag in self.tree:
            return tag
        parent = self._parent.get(tag)
        return f"{parent}/{tag}" if parent else tag

    def parent_of(self, tag: str) -> str:
        """Where a new term beside or under ``tag`` would go: the category itself for a category
        (a new subcategory), ``category/subcategory`` for a subcategory or an attribute ('' if unknown)."""
        if tag in self.tree:
            return tag
        parent = self._parent.get(tag, "")
        return parent if "/" in parent else (f"{parent}/{tag}" if parent else "")

    def parents(self) -> list[str]:
        """Valid parents for a new term: each category and each ``category/subcategory``."""
        out: list[str] = []
        for cat, subs in self.tree.items():
            out.append(cat)
            out.extend(f"{cat}/{sub}" for sub in subs)
        return out

    def outline(self) -> str:
        """Compact text form for prompts: one line per category."""
        lines = []
        for cat, subs in self.tree.items():
            parts = [f"{sub}({', '.join(attrs)})" for sub, attrs in subs.items()]
            lines.append(f"{cat}: {'; '.join(parts)}")
        return "\n".join(lines)

    def validate(self, proposals: list[Proposal]) -> tuple[list[Proposal], list[str]]:
        """Split proposals into accepted ones and reasons for the rejected ones."""
        accepted: list[Proposal] = []
        rejected: list[str] = []
        taken = set(self._tags)
        parents = set(self.parents())
        for p in proposals:
            term = p.term.strip().lower()
            if len(accepted) >= MAX_NEW_PER_CALL:
                rejected.append(f"{term!r}: more than {MAX_NEW_PER_CALL} new terms in one call")
            elif not WORD.match(term):
                rejected.append(f"{p.term!r}: not one lowercase word")
            elif term in taken:
                rejected.append(f"{term!r}: already in the ontology")
            elif p.parent not in parents:
                rejected.append(f"{term!r}: parent {p.parent!r} does not exist")
            else:
                accepted.append(Proposal(p.parent, term))
                taken.add(term)
        return accepted, rejected

    def extended(self, accepted: list[Proposal]) -> Ontology:
        tree = copy.deepcopy(self.tree)
        for p in accepted:
            if "/" in p.parent:
                cat, sub = p.parent.split("/", 1)
                tree[cat][sub].append(p.term)
            else:
                tree[p.parent][p.term] = []
        return Ontology(tree, self.version + 1)


class OntologyStore:
    """The current ontology of a data dir; extensions are saved as ``ontology/v{N}.json``."""

    def __init__(self, data_dir: Path | None):
        self.dir = Path(data_dir) / "ontology" if data_dir else None
        self._lock = threading.Lock()
        self._current = self._load()

    def _load(self) -> Ontology:
        if self.dir and self.dir.is_dir():
            versions = sorted((int(p.stem[1:]), p) for p in self.dir.glob("v*.json") if p.stem[1:].isdigit())
            for version, path in reversed(versions):
                try:
                    return Ontology(json.loads(path.read_text(encoding="utf-8")), version)
                except (OSError, ValueError) as exc:
                    log.warning("skipping unreadable ontology file %s: %s", path, exc)
        return Ontology.default()

    @property
    def current(self) -> Ontology:
        return self._current

    def extend(self, proposals: list[Proposal]) -> tuple[list[Proposal], list[str]]:
        """Validate, apply and persist proposals. Returns (accepted, rejection reasons)."""
        with self._lock:
            accepted, rejected = self._current.validate(proposals)
            for reason in rejected:
                log.info("ontology proposal dropped: %s", reason)
            if not accepted:
                return accepted, rejected
            new = self._current.extended(accepted)
            if self.dir:
                self.dir.mkdir(parents=True, exist_ok=True)
                tmp = self.dir / f".v{new.version}.json.tmp"
                tmp.write_text(json.dumps(new.tree, indent=1), encoding="utf-8")
                tmp.replace(self.dir / f"v{new.version}.json")
            self._current = new
            return accepted, rejected
