"""Ontology of single-word tags, and its versioned, validated extension.

The default ontology ships as ``default.json`` and is never modified. Extensions proposed by the
ontology LLM role are validated here (one lowercase word, not already anywhere in the ontology,
under an existing parent, a few per call) and persisted as a new numbered version: in the data dir,
or - when several workers share one record database - in that database, so every worker sees the
extensions of the others. Invalid proposals are dropped with a log line; extension never fails a
turn. "Already in the ontology" includes another form of the same word ("dance" when "dancing" is
there, "dream" beside "dreams"): terms are compared by their stems.

Some attributes hold one value at a time (``SINGLE_VALUED``: name, age, home city, diet, job,
employer): a new value closes the old one's validity (``caim.memory.maintenance``), never a second
current value. The marking is the same in every version; an extension adds no single-valued term.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Protocol

import Stemmer

from caim.core.files import private_dir, write_private

log = logging.getLogger(__name__)
_stem = Stemmer.Stemmer("english").stemWord

WORD = re.compile(r"^[a-z]{2,24}$")
MAX_NEW_PER_CALL = 3

Tree = dict[str, dict[str, list[str]]]

#: Terms of the default ontology that hold one value at a time (one current memory each): the
#: attributes ``caim.memory.text.slots`` reads. ``location`` is the home city.
SINGLE_VALUED: frozenset[str] = frozenset({"name", "age", "location", "diet", "job", "employer"})


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
        """The ontology shipped with caim (``default.json``), version 0."""
        text = resources.files("caim.ontology").joinpath("default.json").read_text(encoding="utf-8")
        return cls(json.loads(text), 0)

    @property
    def tags(self) -> tuple[str, ...]:
        """Every term at every level, in a stable order."""
        return self._tags

    def __contains__(self, tag: str) -> bool:
        return tag in self._parent or tag in self.tree

    def single_valued(self, tag: str) -> bool:
        """Whether ``tag`` holds one value at a time (``SINGLE_VALUED``: a new value closes the old).

        >>> Ontology.default().single_valued("location"), Ontology.default().single_valued("hobbies")
        (True, False)
        """
        return tag in SINGLE_VALUED

    def path(self, tag: str) -> str:
        """``category/subcategory/attribute`` style path of a tag (for prompts and display)."""
        if tag in self.tree:
            return tag
        parent = self._parent.get(tag)
        return f"{parent}/{tag}" if parent else tag

    def under(self, tag: str, roots: Iterable[str]) -> bool:
        """Whether ``tag`` is one of ``roots`` or lies below one of them (a root is a term or a path
        such as ``family/relatives``).

        >>> Ontology.default().under("siblings", ["family"]), Ontology.default().under("siblings", ["food"])
        (True, False)
        """
        path = self.path(tag)
        return any(tag == r or path == r or path.startswith(r + "/") or f"/{r}/" in f"/{path}/" for r in roots)

    def subtree(self, term: str) -> list[str]:
        """``term`` and every term below it, in the ontology's order (``[term]`` for a term it lacks)."""
        return [t for t in self._tags if self.under(t, [term])] or [term]

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
        taken = {_stem(t): t for t in self._tags}
        parents = set(self.parents())
        for p in proposals:
            term = p.term.strip().lower()
            if len(accepted) >= MAX_NEW_PER_CALL:
                rejected.append(f"{term!r}: more than {MAX_NEW_PER_CALL} new terms in one call")
            elif not WORD.match(term):
                rejected.append(f"{p.term!r}: not one lowercase word")
            elif _stem(term) in taken:
                rejected.append(f"{term!r}: already in the ontology (as {taken[_stem(term)]!r})")
            elif p.parent not in parents:
                rejected.append(f"{term!r}: parent {p.parent!r} does not exist")
            else:
                accepted.append(Proposal(p.parent, term))
                taken[_stem(term)] = term
        return accepted, rejected

    def extended(self, accepted: list[Proposal]) -> Ontology:
        """A copy with the accepted terms added under their parents, one version later (this one is
        left as it is)."""
        tree = copy.deepcopy(self.tree)
        for p in accepted:
            if "/" in p.parent:
                cat, sub = p.parent.split("/", 1)
                tree[cat][sub].append(p.term)
            else:
                tree[p.parent][p.term] = []
        return Ontology(tree, self.version + 1)


class SharedMeta(Protocol):
    """Key-value settings in a database several workers share (the record database provides it)."""

    def get_meta(self, key: str) -> str | None:
        """The value stored under ``key`` (``None``: not set)."""

    def set_meta(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``, replacing any earlier value."""


class OntologyStore:
    """The current ontology: extensions saved as ``ontology/v{N}.json`` in the data dir, or - with
    ``shared`` (a database every worker uses) - as ``ontology:v{N}`` entries there, where another
    worker's extension is picked up within ``refresh_s`` seconds. ``lock(key)`` (the record
    store's cross-worker lock) keeps two workers from writing the same version number.

    >>> store = OntologyStore(None)
    >>> accepted, _ = store.extend([Proposal("personal/hobbies", "origami")])
    >>> [p.term for p in accepted], "origami" in store.current
    (['origami'], True)
    """

    VERSION_KEY = "ontology:version"

    def __init__(
        self,
        data_dir: Path | None,
        shared: SharedMeta | None = None,
        lock: Callable[[str], AbstractContextManager[object]] | None = None,
        refresh_s: float = 2.0,
    ):
        self.dir = Path(data_dir) / "ontology" if data_dir and shared is None else None
        self.shared = shared
        self._cross_lock = lock
        self.refresh_s = refresh_s
        self._lock = threading.Lock()
        self._checked = time.monotonic()
        self._current = self._load()

    def _load(self) -> Ontology:
        if self.shared is not None:
            return self._load_shared() or Ontology.default()
        if self.dir and self.dir.is_dir():
            versions = sorted((int(p.stem[1:]), p) for p in self.dir.glob("v*.json") if p.stem[1:].isdigit())
            for version, path in reversed(versions):
                try:
                    return Ontology(json.loads(path.read_text(encoding="utf-8")), version)
                except (OSError, ValueError) as exc:
                    log.warning("skipping unreadable ontology file %s: %s", path, exc)
        return Ontology.default()

    def _load_shared(self) -> Ontology | None:
        assert self.shared is not None
        raw = self.shared.get_meta(self.VERSION_KEY)
        if not raw or not raw.isdigit():
            return None
        tree = self.shared.get_meta(f"ontology:v{raw}")
        try:
            return Ontology(json.loads(tree), int(raw)) if tree else None
        except ValueError as exc:
            log.warning("skipping unreadable shared ontology v%s: %s", raw, exc)
            return None

    @property
    def current(self) -> Ontology:
        """The latest version of the ontology (of a shared one: as of at most ``refresh_s`` seconds ago)."""
        if self.shared is not None and time.monotonic() - self._checked >= self.refresh_s:
            self._checked = time.monotonic()
            latest = self._load_shared()
            if latest is not None and latest.version > self._current.version:
                self._current = latest
        return self._current

    def extend(self, proposals: list[Proposal]) -> tuple[list[Proposal], list[str]]:
        """Validate, apply and persist proposals. Returns (accepted, rejection reasons)."""
        guard = self._cross_lock("ontology") if self._cross_lock else nullcontext()
        with self._lock, guard:
            if self.shared is not None:  # another worker may have extended it since
                latest = self._load_shared()
                if latest is not None and latest.version > self._current.version:
                    self._current = latest
            accepted, rejected = self._current.validate(proposals)
            for reason in rejected:
                log.info("ontology proposal dropped: %s", reason)
            if not accepted:
                return accepted, rejected
            new = self._current.extended(accepted)
            if self.shared is not None:
                self.shared.set_meta(f"ontology:v{new.version}", json.dumps(new.tree))
                self.shared.set_meta(self.VERSION_KEY, str(new.version))
            elif self.dir:
                private_dir(self.dir)  # 0700 folder, 0600 files: extensions come from what users said
                tmp = self.dir / f".v{new.version}.json.tmp"
                write_private(tmp, json.dumps(new.tree, indent=1))
                tmp.replace(self.dir / f"v{new.version}.json")
            self._current = new
            return accepted, rejected
