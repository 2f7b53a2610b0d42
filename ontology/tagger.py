"""Tags by meaning: ontology terms embedded once, the nearest ones found for any text.

Each term is embedded together with its path (``food preferences favorite``), which says what the
single word means here. ``TagIndex`` serves two purposes: it tags records that no model tagged
(raw captures, verbatim imports) and it gives the memory controller a short list of likely tags,
so the model sees a few candidates instead of the whole ontology. It is rebuilt when the ontology
grows.
"""

from __future__ import annotations

import threading

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
