"""Tags by meaning: ontology terms embedded once, the nearest ones found for any text.

Each term is embedded together with its path (``food preferences favorite``), which says what the
single word means here. ``TagIndex`` serves two purposes: it tags records that no model tagged
(raw captures, verbatim imports) and it gives the memory controller a short list of likely tags,
so the model sees a few candidates instead of the whole ontology. It is rebuilt when the ontology
grows. ``tags_of`` chooses a record's tags once its categories are known (the category first, then
the term its words name).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence

import numpy as np

from caim.core.embeddings import Embedder
from caim.ontology.ontology import Ontology


class TagIndex:
    """The ontology's terms embedded with their paths, re-embedded when the ontology changes."""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder
        self._lock = threading.Lock()
        self._version: int | None = None
        self._tags: tuple[str, ...] = ()
        self._vecs = np.zeros((0, 0), dtype=np.float32)

    def _ensure(self, ontology: Ontology) -> None:
        with self._lock:
            if self._version == ontology.version and len(self._tags) == len(ontology.tags):
                return
            tags = ontology.tags
            texts = [ontology.path(t).replace("/", " ") for t in tags]
            self._vecs = np.asarray(self.embedder.embed(texts), dtype=np.float32)
            self._tags = tags
            self._version = ontology.version

    def nearest(self, ontology: Ontology, vectors: np.ndarray, k: int = 3) -> list[list[tuple[str, float]]]:
        """For each (L2-normalised) vector, the ``k`` closest tags with their cosine similarity."""
        self._ensure(ontology)
        vecs = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if not len(self._tags) or not vecs.size:
            return [[] for _ in range(len(vecs))]
        sims = vecs @ self._vecs.T
        k = min(k, len(self._tags))
        top = np.argsort(-sims, axis=1)[:, :k]
        return [[(self._tags[j], float(sims[i, j])) for j in row] for i, row in enumerate(top)]

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
