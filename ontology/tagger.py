"""Tags by meaning: ontology terms embedded once, the nearest ones found for any text.

Each term is embedded together with its path (``food preferences favorite``), which says what the
single word means here. ``TagIndex`` serves two purposes: it tags records that no model tagged
(raw captures, verbatim imports) and it gives the memory controller a short list of likely tags,
so the model sees a few candidates instead of the whole ontology. It is rebuilt when the ontology
grows. Each view of the ontology (the shared one, a user's with their learned terms) has its own
matrix, kept by its fingerprint (the last ``VIEWS_KEPT``); a term's vector is embedded once. ``discard``
drops a forgotten user's terms from both. ``tags_of`` chooses a record's tags once its categories are
known (the category first, then the term its words name).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence

import numpy as np

from caim.core.embeddings import Embedder
from caim.ontology.ontology import Ontology

#: Ontology views whose tag matrix is kept (the most recently used).
VIEWS_KEPT = 32


class TagIndex:
    """The ontology's terms embedded with their paths, per view of the ontology (see the module docstring)."""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder
        self._lock = threading.Lock()
        self._texts: dict[str, np.ndarray] = {}  # "food drinks tea" -> its vector
        self._views: OrderedDict[str, tuple[tuple[str, ...], np.ndarray]] = OrderedDict()

    def _matrix(self, ontology: Ontology) -> tuple[tuple[str, ...], np.ndarray]:
        with self._lock:
            kept = self._views.get(ontology.fingerprint)
            if kept is not None:
                self._views.move_to_end(ontology.fingerprint)
                return kept
            tags = ontology.tags
            texts = [ontology.path(t).replace("/", " ") for t in tags]
            todo = [t for t in dict.fromkeys(texts) if t not in self._texts]
            if todo:
                for text, vec in zip(todo, np.asarray(self.embedder.embed(todo), dtype=np.float32), strict=True):
                    self._texts[text] = vec
            vecs = np.vstack([self._texts[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)
            self._views[ontology.fingerprint] = (tags, vecs)
            while len(self._views) > VIEWS_KEPT:
                self._views.popitem(last=False)
            return tags, vecs

    def discard(self, terms: Iterable[str]) -> None:
        """Forget ``terms`` (a forgotten user's learned terms): their vectors and every view holding them."""
        gone = set(terms)
        if not gone:
            return
        with self._lock:
            self._texts = {k: v for k, v in self._texts.items() if not gone & set(k.split())}
            for key in [k for k, (tags, _) in self._views.items() if gone & set(tags)]:
                del self._views[key]

    def nearest(self, ontology: Ontology, vectors: np.ndarray, k: int = 3) -> list[list[tuple[str, float]]]:
        """For each (L2-normalised) vector, the ``k`` closest tags with their cosine similarity."""
        tags, matrix = self._matrix(ontology)
        vecs = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if not len(tags) or not vecs.size:
            return [[] for _ in range(len(vecs))]
        sims = vecs @ matrix.T
        k = min(k, len(tags))
        top = np.argsort(-sims, axis=1)[:, :k]
        return [[(tags[j], float(sims[i, j])) for j in row] for i, row in enumerate(top)]

    def tags_for(self, ontology: Ontology, texts: list[str], k: int = 3) -> list[list[str]]:
        """The ``k`` nearest tags of each text (one embedding batch)."""
        if not texts:
            return []
        vecs = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        return [[t for t, _ in row] for row in self.nearest(ontology, vecs, k)]


def tags_of(ontology: Ontology, categories: Sequence[str], found: Collection[str], *, most: int = 3) -> list[str]:
    """A record's tags from the top-level categories it is about (likeliest first): under each
    category the most specific term the message's words name (``found``, the lexicon's terms; ties in
    the ontology's order), else the category itself; at most ``most``, none for no category (no tag
    rather than a wrong one). Categories and terms the ontology lacks are left out.

    >>> o = Ontology.default()
    >>> tags_of(o, ["sports", "health"], {"running", "cats"}), tags_of(o, ["family"], set())
    (['sports', 'running'], ['family'])
    >>> tags_of(o, [], {"running"})
    []
    """
    out: list[str] = []
    for category in categories:
        if category not in ontology.tree:
            continue
        under = [t for t in ontology.subtree(category) if t in found and t != category]
        out.append(under[0] if under else category)
    return list(dict.fromkeys(out))[:most]
