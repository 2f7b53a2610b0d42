"""The reader's network and its decisions (see the package docstring)."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np

from caim.core.embeddings import Embedder, MultilingualEmbedder
from caim.core.errors import ConfigError
from caim.memory.reading.lexicon import Lexicon
from caim.memory.text.lang import sentences

#: The outputs of the network, in order: worth remembering, one per category, like, dislike.
STORES = 0
#: Most categories a message is given.
MAX_CATEGORIES = 3
#: Read alone, a message this likely to be worth remembering is, whatever was said before it.
SURE_ALONE = 0.9
#: Readings a ``Reader`` keeps, by message and turn before (the latest): a session's turns are read
#: once to choose what to keep and are the same words when its slot facts are tagged, and the raw
#: records a later session refines are the same words again.
READ_KEPT = 4096


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
    vector and the lexicon's 0/1 vector, then the ``context`` features of the turn before it
    (``features``; all standardised by ``mu``/``sd``), with the thresholds fitted
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
    #: What the network reads of the turn before a message (``CONTEXT``'s blocks); none: the message alone.
    context: tuple[str, ...] = ()
    #: Categories of a message of several sentences are read from it whole and from each sentence
    #: (``by_sentence``); the thresholds were chosen on readings made so.
    sentences: bool = False

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The outputs' probabilities for each row of features."""
        z = (np.asarray(x, dtype=np.float32) - self.mu) / self.sd
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        return 1.0 / (1.0 + np.exp(-(h @ self.w2 + self.b2)))

    def outputs(self, x: np.ndarray) -> np.ndarray:
        """The outputs' probabilities as decisions use them: whether a message is worth remembering
        read after the turn before it (unless read alone it is at least ``SURE_ALONE``: a fact of one's
        own after a friend's like it is no echo), its categories and like or dislike read from the
        message alone (the turn before tells what the message answers, not what it is about)."""
        p = self.predict(x)
        if self.context:
            alone = self.predict(self.alone(x))
            p[:, STORES + 1 :] = alone[:, STORES + 1 :]
            # a message sure to be worth remembering on its own stays so whatever came before it
            sure = alone[:, STORES] >= SURE_ALONE
            p[sure, STORES] = np.maximum(p[sure, STORES], alone[sure, STORES])
        return p

    def by_sentence(self, p: np.ndarray, parts: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """``p`` (``outputs`` of whole messages) with each message's category scores the mean of its
        whole reading's and the highest of its sentences' (``parts``: ``predict`` of each sentence
        read alone, ``owner`` its message's row in ``p``); messages with no parts keep theirs. A
        message of several sentences is often about more than one thing, which one vector of it
        blurs."""
        out = np.array(p, dtype=np.float32, copy=True)
        if not self.sentences or not len(parts):
            return out
        cats = slice(STORES + 1, STORES + 1 + len(self.categories))
        best = np.full((len(p), len(self.categories)), -1.0, np.float32)
        np.maximum.at(best, owner, parts[:, cats])
        has = best[:, 0] >= 0
        out[has, cats] = (out[has, cats] + best[has]) / 2
        return out

    def alone(self, x: np.ndarray) -> np.ndarray:
        """Rows of features with their context blocks zeroed: each message read as if nothing came before it."""
        if not self.context:
            return x
        extra = 1 + 2 * ("similarity" in self.context)
        dims = (len(self.mu) - len(self.keys) - extra) // (1 + ("vector" in self.context))
        out = np.array(x, dtype=np.float32, copy=True)
        out[:, dims + len(self.keys) :] = 0.0
        return out

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
            "context": list(self.context),
            "sentences": self.sentences,
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
            context=tuple(head.get("context", ())),
            sentences=bool(head.get("sentences", False)),
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


#: What the network may read of the turn before a message (the other person's last words), each a
#: block of features computed from the two turns' encoder vectors and lexicon hits: ``vector`` the
#: turn before's encoder vector, ``similarity`` the cosine of the two vectors and the lexicon hits they
#: share. Every block is zero when there is no turn before, and a last feature says whether there is.
CONTEXT = ("vector", "similarity")


def features(
    texts: list[str],
    encoder: Embedder,
    lexicon: Lexicon,
    before: list[str] | None = None,
    context: tuple[str, ...] = (),
) -> np.ndarray:
    """Each text's features, one row per text: the encoder's vector, then the lexicon's 0/1 vector,
    then - with ``context`` blocks (``CONTEXT``) - what they read of the turn before it (``before``,
    one per text, "" for none; none given: every text alone)."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    prior = list(before) if before is not None else [""] * len(texts)
    if len(prior) != len(texts):
        raise ValueError("one turn before (or '') per text")
    # each distinct text is embedded once (a turn is often the one before the next)
    distinct = list(dict.fromkeys(texts + ([p for p in prior if p] if context else [])))
    at = {t: i for i, t in enumerate(distinct)}
    vectors = np.asarray(encoder.embed(distinct), dtype=np.float32)
    hits = np.stack([lexicon.vector(t) for t in texts]).astype(np.float32)
    x = np.hstack([vectors[[at[t] for t in texts]], hits])
    if not context:
        return x
    has = np.array([bool(p) for p in prior], dtype=bool)
    pv = np.zeros((len(texts), vectors.shape[1]), np.float32)
    ph = np.zeros((len(texts), hits.shape[1]), np.float32)
    pv[has] = vectors[[at[p] for p in prior if p]]
    if "similarity" in context:
        ph[has] = np.stack([lexicon.vector(p) for p in prior if p])
    return np.hstack([x, context_features(x, pv, ph, has, context)])


def context_features(
    x: np.ndarray, vectors: np.ndarray, hits: np.ndarray, has: np.ndarray, context: tuple[str, ...]
) -> np.ndarray:
    """The ``context`` blocks (``CONTEXT``) of rows of text features ``x`` given the turn before's
    encoder ``vectors`` and lexicon ``hits`` (zero rows where ``has`` is false), then the flag."""
    dims = vectors.shape[1]
    blocks = []
    for name in context:
        if name == "vector":
            blocks.append(vectors)
        elif name == "similarity":
            blocks.append(np.stack([(x[:, :dims] * vectors).sum(1), (x[:, dims:] * hits).sum(1)], axis=1))
        else:
            raise ConfigError(f"the reader's weights read an unknown context {name!r}: run caim eval reading --fit")
    flag = has.astype(np.float32)[:, None]
    return np.hstack([*(b * flag for b in blocks), flag]).astype(np.float32)


def sentence_parts(texts: list[str]) -> tuple[np.ndarray, list[str]]:
    """The sentences of each text of more than one (``caim.memory.text.lang.sentences``), with the
    index of the text each belongs to."""
    owner: list[int] = []
    parts: list[str] = []
    for i, text in enumerate(texts):
        said = sentences(text)
        if len(said) > 1:
            owner += [i] * len(said)
            parts += said
    return np.array(owner, dtype=np.int64), parts


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
        self._kept: OrderedDict[tuple[str, str], Reading] = OrderedDict()
        self._kept_lock = threading.Lock()

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

    def features(self, texts: list[str], before: list[str] | None = None) -> np.ndarray:
        """Each text's features (``features``, with the context the model reads)."""
        return features(texts, self.encoder, self.lexicon, before, self.model.context)

    def read(self, texts: list[str], before: list[str] | None = None) -> list[Reading]:
        """A ``Reading`` of each text, each read after its turn in ``before`` (the other person's words
        just before it, "" for none; none given: each text alone): the pairs read lately (the last
        ``READ_KEPT``) are not read again, the others in one encoder batch."""
        prior = list(before) if before is not None else [""] * len(texts)
        if len(prior) != len(texts):
            raise ValueError("one turn before (or '') per text")
        pairs = list(zip(texts, prior, strict=True))
        with self._kept_lock:
            found = {p: self._kept[p] for p in pairs if p in self._kept}
        todo = list(dict.fromkeys(p for p in pairs if p not in found))
        if todo:
            fresh = dict(zip(todo, self._read([t for t, _ in todo], [b for _, b in todo]), strict=True))
            found.update(fresh)
            with self._kept_lock:
                self._kept.update(fresh)
                while len(self._kept) > READ_KEPT:
                    self._kept.popitem(last=False)
        return [found[p] for p in pairs]

    def _read(self, texts: list[str], before: list[str]) -> list[Reading]:
        """A ``Reading`` of each text after its turn before, in one encoder batch (each sentence of a
        text of several in another, when the model reads categories by sentence)."""
        probs = self.model.outputs(self.features(texts, before))
        if self.model.sentences:
            owner, parts = sentence_parts(texts)
            if parts:
                probs = self.model.by_sentence(probs, self.model.predict(self.features(parts)), owner)
        n = len(self.model.categories)
        out = []
        for text, p in zip(texts, probs, strict=True):
            cats = {c: float(p[1 + i]) for i, c in enumerate(self.model.categories)}
            out.append(
                Reading(float(p[STORES]), cats, float(p[1 + n]), float(p[2 + n]), frozenset(self.lexicon.found(text)))
            )
        return out


_LOCK = threading.Lock()
