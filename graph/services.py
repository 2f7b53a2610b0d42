"""Services the nodes use: settings, model factory, LLM client, embedder, memory store, ontology.

A graph built with ``build_graph(services=...)`` uses exactly those (the facade, tests, eval).
The module-level graph (LangGraph Studio / ``langgraph dev``) uses one set per process, built
from the deployment's ``CAIM_*`` settings (``services_for``), so stores and models are created once
per process, never inside a node, and never from what a run sends.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from caim.core.embeddings import LOCAL_EMBEDDERS, Embedder, OpenAIEmbedder, local_embedder
from caim.core.errors import ConfigError
from caim.core.files import private_dir
from caim.core.llm import LLM, DraftBook
from caim.core.models import Models
from caim.core.settings import Settings
from caim.graph.state import Context
from caim.memory.intents import Catalogue, LearnedTasks
from caim.memory.reading import Reader
from caim.memory.search.retrieval import Retriever
from caim.memory.storage.store import MemoryStore
from caim.ontology import OntologyStore, TagIndex


def default_embedder(settings: Settings) -> Embedder:
    """The bundled embedder named by ``embedding_model`` (unset: the default one); with the openai
    provider another name is the endpoint's embedding model (``OpenAIEmbedder``). Any other name is a
    one-line ``ConfigError`` naming the bundled ones."""
    local = local_embedder(settings.embedding_model)
    if local is not None:
        return local
    if settings.resolved_provider() == "openai":
        return OpenAIEmbedder(str(settings.embedding_model), settings.api_key, settings.base_url)
    raise ConfigError(
        f"CAIM_EMBEDDING_MODEL={settings.embedding_model!r} is not a bundled embedder: use one of "
        f"{', '.join(LOCAL_EMBEDDERS)} "
        "(or an endpoint's model with CAIM_PROVIDER=openai), or unset CAIM_EMBEDDING_MODEL"
    )


def _intents(data_dir: Path | None) -> Catalogue:
    """The built-in intents and the data dir's ``intents.json`` (a malformed one is a ``ConfigError``)."""
    try:
        return Catalogue.load(data_dir)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def check_data_dir(settings: Settings) -> None:
    """Create the data dir (mode 0700: only its owner may read what users said) and prove it is
    writable, or raise a one-line ``ConfigError``. An existing data dir keeps its mode."""
    try:
        private_dir(settings.data_dir)
        probe = settings.data_dir / f".write-test-{os.getpid()}-{threading.get_ident()}"  # processes start at once
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(
            f"data dir {settings.data_dir} is not writable ({exc.strerror}); set CAIM_DATA_DIR to a writable folder"
        ) from None


@dataclass
class Services:
    """What the graph's nodes share: settings, models, LLM, embedder, store, retriever, ontology, tagger, drafts."""

    settings: Settings
    models: Models
    llm: LLM
    embedder: Embedder
    store: MemoryStore
    retriever: Retriever
    ontology: OntologyStore
    tagger: TagIndex
    drafts: DraftBook = field(default_factory=DraftBook)  # answers drafted beside the decisions
    intents: Catalogue = field(default_factory=Catalogue)  # the task intents goal-aware recall knows
    learned: LearnedTasks = field(init=False, repr=False)  # the users' earlier tasks of no catalogue intent

    def __post_init__(self) -> None:
        self.learned = LearnedTasks(self.store)

    @classmethod
    def create(
        cls,
        settings: Settings | None = None,
        *,
        models: Models | None = None,
        embedder: Embedder | None = None,
        persist: bool = True,
    ) -> Services:
        """Build services; ``persist=False`` keeps LTM and ontology in memory (tests, eval runs)."""
        settings = settings or Settings()
        models = models or Models(settings)
        embedder = embedder or default_embedder(settings)
        if persist:
            check_data_dir(settings)
        store = MemoryStore(
            settings.data_dir if persist else None,
            embedder,
            chroma_url=settings.chroma_url,
            chroma_headers=settings.chroma_headers,
            database_url=settings.database_url,
            namespace=settings.namespace,
            quota=settings.quota(),
        )
        shared = persist and settings.database_url is not None  # workers share the ontology too
        ontology = OntologyStore(
            settings.data_dir if persist else None,
            shared=store if shared else None,
            lock=store.lock if shared else None,
            terms=store.terms,
        )
        retriever = Retriever(store, full_scan=settings.full_scan)
        intents = _intents(settings.data_dir if persist else None)
        return cls(
            settings, models, LLM.of(models), embedder, store, retriever, ontology, TagIndex(embedder), intents=intents
        )

    @property
    def reader(self) -> Reader:
        """The reader of messages (``caim.memory.reading``): worth remembering, categories, likes and
        dislikes; the process's one reader of the shipped model, loaded on first use."""
        return Reader.shared()

    def tuned(self, ctx: Context) -> Settings:
        """The settings with the run's budgets and caps applied (what ``Context`` lets a client
        choose, already range-checked there); everything else stays the deployment's."""
        upd = {
            k: getattr(ctx, k)
            for k in ("stm_token_budget", "candidate_cap", "max_kept", "speculative_answer")
            if getattr(ctx, k) is not None
        }
        return self.settings.model_copy(update=upd) if upd else self.settings


_SHARED: list[Services] = []
_LOCK = threading.Lock()


def services_for() -> Services:
    """The process's one set of services for a graph built without injected services (Studio,
    ``langgraph dev``): built once from the deployment's ``CAIM_*`` settings (``Settings()``);
    nothing a run sends changes which stores, model or endpoint they use."""
    with _LOCK:
        if not _SHARED:
            _SHARED.append(Services.create(Settings()))
        return _SHARED[0]
