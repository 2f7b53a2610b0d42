"""Ontology of single-word tags, and its validated extension: per user, or shared by the deployment.

The default ontology ships as ``default.json`` and is never modified. Terms proposed by the
ontology LLM role while reading a user's words are validated here (one lowercase word, not already
anywhere in that user's ontology, under an existing parent, a few per call) and become **that
user's** terms (``OntologyStore.extend(..., user=...)``): they extend the ontology that user's
prompts, tags, searches and pages see (``OntologyStore.of(user)``) and no one else's, and they are
forgotten with the user (``OntologyStore.forget``). A term is shared by every user only when the
deployment adds it (``extend`` without a user: a new numbered version in the data dir, or - when
several workers share one record database - in that database, so every worker sees it).

Terms learned before learning was per user sit in the shared versions: the first store opened
with a term book hands each such term to the users whose records carry it and removes it from the
shared versions (and their files), once. Invalid proposals are dropped with a log line; extension
never fails a turn. "Already in the ontology" includes another form of the same word ("dance" when
"dancing" is there, "dream" beside "dreams"): terms are compared by their stems.

Some attributes hold one value at a time (``SINGLE_VALUED``: name, age, home city, diet, job,
employer): a new value closes the old one's validity (``caim.memory.maintenance``), never a second
current value. The marking is the same in every version; an extension adds no single-valued term.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
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

    def __init__(self, tree: Tree, version: int = 0, learned: Sequence[str] = ()):
        self.tree: Tree = tree
        self.version = version
        #: The terms learned from one user's words that this view holds (``OntologyStore.of``).
        self.learned: tuple[str, ...] = tuple(learned)
        #: What this view holds, as a digest: two views with the same terms in the same places have
        #: the same fingerprint (caches of tag vectors and counts are kept by it).
        self.fingerprint = hashlib.sha256(json.dumps(tree, sort_keys=True).encode()).hexdigest()[:24]
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
        """``term`` and every term below it, in the ontology's order (``[term]`` for a term it lacks):
        the tags ``under`` it, from an index of this view built on first use.

        >>> o = Ontology.default()
        >>> all(o.subtree(r) == ([t for t in o.tags if o.under(t, [r])] or [r]) for r in [*o.tags, "family/relatives"])
        True
        """
        index = self.__dict__.get("_below")
        if index is None:
            index = self.__dict__.setdefault("_below", self._below())
        return list(index.get(term, ())) or [term]

    def _below(self) -> dict[str, tuple[str, ...]]:
        """Per root ``under`` accepts (a tag, or a run of consecutive steps of a tag's path), the tags
        under it in the ontology's order."""
        index: dict[str, dict[str, None]] = {}
        for tag in self._tags:
            steps = self.path(tag).split("/")
            roots = {tag} | {"/".join(steps[i:j]) for i in range(len(steps)) for j in range(i + 1, len(steps) + 1)}
            for root in roots:
                index.setdefault(root, {})[tag] = None
        return {root: tuple(tags) for root, tags in index.items()}

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

    def validate(self, proposals: list[Proposal], most: int = MAX_NEW_PER_CALL) -> tuple[list[Proposal], list[str]]:
        """Split proposals into accepted ones (at most ``most``) and reasons for the rejected ones."""
        accepted: list[Proposal] = []
        rejected: list[str] = []
        taken = {_stem(t): t for t in self._tags}
        parents = set(self.parents())
        for p in proposals:
            term = p.term.strip().lower()
            if len(accepted) >= most:
                rejected.append(f"{term!r}: more than {most} new terms in one call")
            elif not WORD.match(term):
                rejected.append(f"{p.term!r}: not one lowercase word")
            elif _stem(term) in taken:
                rejected.append(f"{term!r}: already in the ontology (as {taken[_stem(term)]!r})")
            elif p.parent not in parents:
                rejected.append(f"{term!r}: parent {p.parent!r} does not exist")
            else:
                accepted.append(Proposal(p.parent, term))
                taken[_stem(term)] = term
                if "/" not in p.parent:  # a new subcategory: a parent for what comes after it
                    parents.add(f"{p.parent}/{term}")
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
        return Ontology(tree, self.version + 1, self.learned)

    def with_learned(self, terms: Sequence[tuple[str, str]]) -> Ontology:
        """This version with a user's learned (parent, term) pairs added where their parent is and the
        term is not (a pair whose parent this version lacks, or whose term it has, is left out)."""
        parents = set(self.parents())
        tree = copy.deepcopy(self.tree) if terms else self.tree
        learned = []
        for parent, term in terms:
            if parent not in parents or term in self or term in learned:
                continue
            if "/" in parent:
                cat, sub = parent.split("/", 1)
                tree[cat][sub].append(term)
            else:
                tree[parent][term] = []
                parents.add(f"{parent}/{term}")
            learned.append(term)
        return Ontology(tree, self.version, learned) if learned else self


class SharedMeta(Protocol):
    """Key-value settings in a database several workers share (the record database provides it)."""

    def get_meta(self, key: str) -> str | None:
        """The value stored under ``key`` (``None``: not set)."""

    def set_meta(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``, replacing any earlier value."""


class UserTermBook(Protocol):
    """Where each user's learned terms are kept (``caim.memory.storage.terms.TermBook``, in the record database)."""

    def terms(self, user_id: str) -> list[tuple[str, str]]:
        """The user's learned terms as (parent, term), oldest first."""

    def add(self, user_id: str, terms: Sequence[tuple[str, str]]) -> int:
        """Add (parent, term) pairs to the user's terms; how many were added."""

    def forget(self, user_id: str) -> list[str]:
        """Delete the user's terms; the terms deleted."""

    def users_tagged(self, tag: str) -> list[str]:
        """The users with a record tagged ``tag``."""

    def settled(self) -> bool:
        """Whether the shared versions were checked for terms learned before learning was per user."""

    def settle(self) -> None:
        """Note that they were."""


class _Book:
    """A term book in this process's memory (a store without a record database: tests, doctests)."""

    def __init__(self) -> None:
        self._terms: dict[str, list[tuple[str, str]]] = {}

    def terms(self, user_id: str) -> list[tuple[str, str]]:
        return list(self._terms.get(user_id, []))

    def add(self, user_id: str, terms: Sequence[tuple[str, str]]) -> int:
        have = self._terms.setdefault(user_id, [])
        new = [(p, t) for p, t in dict.fromkeys(terms) if t not in {x for _, x in have}]
        have.extend(new)
        return len(new)

    def forget(self, user_id: str) -> list[str]:
        return [t for _, t in self._terms.pop(user_id, [])]

    def users_tagged(self, tag: str) -> list[str]:
        return []

    def settled(self) -> bool:
        return True

    def settle(self) -> None:
        return None


#: Users whose ontology view this process keeps.
VIEWS_KEPT = 256


class OntologyStore:
    """The ontology: the shared version (``current``: the default plus the deployment's extensions,
    saved as ``ontology/v{N}.json`` in the data dir or - with ``shared``, a database every worker
    uses - as ``ontology:v{N}`` entries there, picked up by other workers within ``refresh_s``
    seconds), and each user's view of it (``of``: the shared version with the terms learned from that
    user's words, kept in ``terms``). ``lock(key)`` (the record store's cross-worker lock) keeps two
    workers from writing the same version number.

    >>> store = OntologyStore(None)
    >>> accepted, _ = store.extend([Proposal("personal/hobbies", "origami")], user="ann")
    >>> [p.term for p in accepted], "origami" in store.of("ann"), "origami" in store.of("bob")
    (['origami'], True, False)
    >>> store.forget("ann"), "origami" in store.of("ann")
    (['origami'], False)
    """

    VERSION_KEY = "ontology:version"

    def __init__(
        self,
        data_dir: Path | None,
        shared: SharedMeta | None = None,
        lock: Callable[[str], AbstractContextManager[object]] | None = None,
        refresh_s: float = 2.0,
        terms: UserTermBook | None = None,
    ):
        self.dir = Path(data_dir) / "ontology" if data_dir and shared is None else None
        self.shared = shared
        self._cross_lock = lock
        self.refresh_s = refresh_s
        self.terms: UserTermBook = terms if terms is not None else _Book()
        self._lock = threading.Lock()
        self._checked = time.monotonic()
        self._current = self._load()
        self._views: OrderedDict[str, tuple[float, Ontology, Ontology]] = OrderedDict()
        if terms is not None:
            self._hand_learned_terms_to_their_users()

    def _load(self) -> Ontology:
        if self.shared is not None:
            return self._load_shared() or Ontology.default()
        for version, path in reversed(self._files()):
            try:
                return Ontology(json.loads(path.read_text(encoding="utf-8")), version)
            except (OSError, ValueError) as exc:
                log.warning("skipping unreadable ontology file %s: %s", path, exc)
        return Ontology.default()

    def _files(self) -> list[tuple[int, Path]]:
        """The data dir's versions, oldest first."""
        if not self.dir or not self.dir.is_dir():
            return []
        return sorted((int(p.stem[1:]), p) for p in self.dir.glob("v*.json") if p.stem[1:].isdigit())

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
        """The latest shared version of the ontology (of a shared one: as of at most ``refresh_s`` seconds ago)."""
        if self.shared is not None and time.monotonic() - self._checked >= self.refresh_s:
            self._checked = time.monotonic()
            latest = self._load_shared()
            if latest is not None and latest.version > self._current.version:
                self._current = latest
        return self._current

    def of(self, user: str | None) -> Ontology:
        """The ontology ``user`` sees: the shared version with the terms learned from their words (as
        of at most ``refresh_s`` seconds ago when another worker learned one); ``None``: the shared one."""
        base = self.current
        if user is None:
            return base
        now = time.monotonic()
        with self._lock:
            kept = self._views.get(user)
            if kept is not None and kept[1] is base and now - kept[0] < self.refresh_s:
                self._views.move_to_end(user)
                return kept[2]
        view = base.with_learned(self.terms.terms(user))
        with self._lock:
            self._views[user] = (now, base, view)
            self._views.move_to_end(user)
            while len(self._views) > VIEWS_KEPT:
                self._views.popitem(last=False)
        return view

    def extend(
        self, proposals: list[Proposal], user: str | None = None, *, most: int = MAX_NEW_PER_CALL
    ) -> tuple[list[Proposal], list[str]]:
        """Validate proposals (at most ``most`` accepted) against the ontology ``user`` sees and make
        the accepted ones that user's (``None``: the deployment's, shared by every user: a new
        version). Returns (accepted, rejection reasons)."""
        if user is not None:
            accepted, rejected = self.of(user).validate(proposals, most)
            for reason in rejected:
                log.info("ontology proposal dropped: %s", reason)
            if accepted:
                self.terms.add(user, [(p.parent, p.term) for p in accepted])
                with self._lock:
                    self._views.pop(user, None)
            return accepted, rejected
        return self._extend_shared(proposals)

    def forget(self, user: str) -> list[str]:
        """Forget the terms learned from ``user``'s words (in the term book and this process's views);
        the terms forgotten."""
        gone = self.terms.forget(user)
        with self._lock:
            view = self._views.pop(user, None)
        return list(dict.fromkeys([*gone, *(view[2].learned if view else ())]))

    def _extend_shared(self, proposals: list[Proposal]) -> tuple[list[Proposal], list[str]]:
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
            self._save(self._current.extended(accepted))
            return accepted, rejected

    def _save(self, new: Ontology) -> None:
        """Persist ``new`` as the latest shared version and make it current (the caller holds the locks)."""
        if self.shared is not None:
            self.shared.set_meta(f"ontology:v{new.version}", json.dumps(new.tree))
            self.shared.set_meta(self.VERSION_KEY, str(new.version))
        elif self.dir:
            private_dir(self.dir)  # 0700 folder, 0600 files: extensions may come from what users said
            tmp = self.dir / f".v{new.version}.json.tmp"
            write_private(tmp, json.dumps(new.tree, indent=1))
            tmp.replace(self.dir / f"v{new.version}.json")
        self._current = new

    def _hand_learned_terms_to_their_users(self) -> None:
        """Once per term book (data dir or database): every term of the shared versions beyond the
        default - learned from some user's words before learning was per user - becomes a learned
        term of each user whose records carry it (with a learned subcategory it sits under), and the
        shared versions go back to the default (their files removed, their database entries emptied),
        so no other user sees it and forgetting its users forgets it."""
        if self.terms.settled():
            return
        guard = self._cross_lock("ontology") if self._cross_lock else nullcontext()
        with self._lock, guard:
            if self.terms.settled():
                return
            legacy = self._load() if self.shared is None else (self._load_shared() or Ontology.default())
            default = Ontology.default()
            learned = {t: legacy.path(t).rsplit("/", 1)[0] for t in legacy.tags if t not in default}
            for term, parent in learned.items():
                chain = [(parent, term)]
                above = parent.rsplit("/", 1)[-1]
                if "/" in parent and above in learned:  # an attribute under a learned subcategory
                    chain.insert(0, (learned[above], above))
                for user in self.terms.users_tagged(term):
                    self.terms.add(user, chain)
            if learned:
                log.info("ontology: %d learned terms handed to the users whose memories carry them", len(learned))
            self._reset_shared(default)
            self.terms.settle()

    def _reset_shared(self, default: Ontology) -> None:
        """The shared versions back to ``default``: files removed, database entries emptied."""
        for _version, path in self._files():
            path.unlink(missing_ok=True)
        if self.shared is not None and self.shared.get_meta(self.VERSION_KEY):
            raw = self.shared.get_meta(self.VERSION_KEY) or ""
            for v in range(1, int(raw) + 1 if raw.isdigit() else 1):
                self.shared.set_meta(f"ontology:v{v}", "")
            self.shared.set_meta(self.VERSION_KEY, "")
        self._current = default
