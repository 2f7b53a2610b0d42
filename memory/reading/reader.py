"""The reader's network and its decisions (see the package docstring)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np

from caim.core.embeddings import Embedder, MultilingualEmbedder
from caim.core.errors import ConfigError
from caim.memory.reading.lexicon import Lexicon

#: The outputs of the network, in order: worth remembering, one per category, like, dislike.
STORES = 0
#: Most categories a message is given.
MAX_CATEGORIES = 3


@dataclass(frozen=True)
class Reading:
    """What the reader found in one message: the probability that it is worth remembering
    (``stores``), that it is about each top-level category (``categories``), that it states a lasting
    like or dislike, and the lexicon's terms and categories its words name (``found``)."""

    stores: float
    categories: dict[str, float]
    like: float
    dislike: float
    found: frozenset[str] = frozenset()


@dataclass
class Model:
    """A fitted network - one hidden layer of rectified units, sigmoid outputs - over the encoder's
    vector and the lexicon's 0/1 vector (standardised by ``mu``/``sd``), with the thresholds fitted
    with it: ``store_at`` (a message is worth remembering), ``category_floor`` (below it, not even
    the likeliest category is given: no tag rather than a wrong one), ``category_at`` (a second and
    third category), ``polarity_at`` (a like or dislike)."""

    mu: np.ndarray
    sd: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    categories: tuple[str, ...]
    keys: tuple[str, ...]
    store_at: float = 0.5
    category_floor: float = 0.3
    category_at: float = 0.6
    polarity_at: float = 0.5
    meta: dict = field(default_factory=dict)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The outputs' probabilities for each row of features."""
        z = (np.asarray(x, dtype=np.float32) - self.mu) / self.sd
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        return 1.0 / (1.0 + np.exp(-(h @ self.w2 + self.b2)))

    def save(self, path: Path) -> None:
        """Write the model as one ``.npz`` (arrays as float16; names, thresholds and notes as JSON)."""
        head = {
            "categories": list(self.categories),
            "keys": list(self.keys),
            "store_at": self.store_at,
            "category_floor": self.category_floor,
            "category_at": self.category_at,
            "polarity_at": self.polarity_at,
            "meta": self.meta,
        }
        arrays = {k: getattr(self, k).astype(np.float16) for k in ("mu", "sd", "w1", "b1", "w2", "b2")}
        with path.open("wb") as f:
            np.savez_compressed(f, head=np.frombuffer(json.dumps(head).encode("utf-8"), dtype=np.uint8), **arrays)

    @classmethod
    def load(cls, path: Path | None = None) -> Model:
        """The model at ``path``, by default the one shipped with caim (``weights.npz``)."""
        source = path or resources.files("caim.memory.reading").joinpath("weights.npz")
        with source.open("rb") as f, np.load(f) as z:
            head = json.loads(bytes(z["head"]).decode("utf-8"))
            arrays = {k: z[k].astype(np.float32) for k in ("mu", "sd", "w1", "b1", "w2", "b2")}
        return cls(
            **arrays,
            categories=tuple(head["categories"]),
            keys=tuple(head["keys"]),
            store_at=float(head["store_at"]),
            category_floor=float(head["category_floor"]),
            category_at=float(head["category_at"]),
            polarity_at=float(head["polarity_at"]),
            meta=head.get("meta", {}),
        )

    def worth(self, r: Reading) -> bool:
        """Is the message worth remembering?"""
        return r.stores >= self.store_at

    def chosen(self, r: Reading) -> list[str]:
        """The message's categories, likeliest first: the likeliest when it reaches ``category_floor``,
        then others reaching ``category_at``, at most ``MAX_CATEGORIES`` (none when unsure)."""
        ranked = sorted(r.categories.items(), key=lambda kv: -kv[1])
        if not ranked or ranked[0][1] < self.category_floor:
            return []
        return [ranked[0][0], *(c for c, p in ranked[1:MAX_CATEGORIES] if p >= self.category_at)]

    def liking(self, r: Reading) -> Literal["like", "dislike"] | None:
        """The lasting like or dislike the message states, when the network is sure enough."""
        if max(r.like, r.dislike) < self.polarity_at:
            return None
        return "like" if r.like >= r.dislike else "dislike"


def features(texts: list[str], encoder: Embedder, lexicon: Lexicon) -> np.ndarray:
    """Each text's features, one row per text: the encoder's vector, then the lexicon's 0/1 vector."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    vectors = np.asarray(encoder.embed(texts), dtype=np.float32)
    return np.hstack([vectors, np.stack([lexicon.vector(t) for t in texts])])


class Reader:
    """Reads messages (``read``) with a ``Model``, the encoder its features were fitted with (the
    bundled multilingual encoder) and the lexicon; ``shared()`` is the process's reader of the
    shipped model, built on first use.

    >>> reader = Reader.shared()
    >>> hike, thanks = reader.read(["I went hiking in the Alps with my brother last weekend.", "haha thanks!"])
    >>> reader.model.worth(hike), reader.model.worth(thanks)
    (True, False)
    """

    def __init__(self, model: Model, encoder: Embedder | None = None, lexicon: Lexicon | None = None):
        self.model = model
        self.lexicon = lexicon or Lexicon.shared()
        if tuple(self.lexicon.keys) != tuple(model.keys):
            raise ConfigError("the reader's weights were fitted on another lexicon: run caim eval reading --fit")
        self._encoder = encoder

    @staticmethod
    @cache
    def shared() -> Reader:
        """The reader of the shipped model."""
        with _LOCK:
            return Reader(Model.load())

    @property
    def encoder(self) -> Embedder:
        """The encoder (the bundled multilingual one unless another was given)."""
        if self._encoder is None:
            self._encoder = MultilingualEmbedder.shared()
        return self._encoder

    def features(self, texts: list[str]) -> np.ndarray:
        """Each text's features (``features``)."""
        return features(texts, self.encoder, self.lexicon)

    def read(self, texts: list[str]) -> list[Reading]:
        """A ``Reading`` of each text (one encoder batch)."""
        if not texts:
            return []
        probs = self.model.predict(self.features(texts))
        n = len(self.model.categories)
        out = []
        for text, p in zip(texts, probs, strict=True):
            cats = {c: float(p[1 + i]) for i, c in enumerate(self.model.categories)}
            out.append(
                Reading(float(p[STORES]), cats, float(p[1 + n]), float(p[2 + n]), frozenset(self.lexicon.found(text)))
            )
        return out


_LOCK = threading.Lock()
