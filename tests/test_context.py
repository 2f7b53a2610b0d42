"""The run context carries only what a client may choose: who, which registered policy, budgets in
range. The deployment's settings (provider, endpoint, model, keys, data dir, namespace) and unknown
keys are refused with one line naming the key, logged on ``caim.server``, before anything is stored;
the module-level graph (Studio, ``langgraph dev``) uses one set of services per process.
"""

from __future__ import annotations

import json
import logging

import pytest
from langchain_core.messages import HumanMessage

from caim.core.errors import InputError
from caim.graph.state import CONTEXT_BOUNDS, Context

DEPLOYMENT_KEYS = {
    "provider": "CAIM_PROVIDER",
    "base_url": "CAIM_BASE_URL",
    "model": "CAIM_MODEL",
    "api_key": "CAIM_API_KEY",
    "data_dir": "CAIM_DATA_DIR",
    "namespace": "CAIM_NAMESPACE",
    "database_url": "CAIM_DATABASE_URL",
}


@pytest.mark.parametrize(("key", "env"), DEPLOYMENT_KEYS.items())
def test_a_deployment_setting_in_the_context_is_refused_naming_it_and_logged(key, env, caplog):
    with caplog.at_level(logging.WARNING, logger="caim.server"), pytest.raises(InputError) as err:
        Context(**{"user_id": "ann", key: "http://203.0.113.9/v1"})
    msg = str(err.value)
    assert f"'{key}'" in msg and f"set by the deployment ({env} environment)" in msg and "\n" not in msg
    assert [(r.name, r.levelname) for r in caplog.records] == [("caim.server", "WARNING")]
    assert msg in caplog.records[0].getMessage()


def test_an_unknown_context_key_is_refused_naming_it_and_what_a_run_may_set(caplog):
    with caplog.at_level(logging.WARNING, logger="caim.server"), pytest.raises(InputError) as err:
        Context(user_id="ann", langgraph_auth_user_id="bob")  # type: ignore[call-arg]
    msg = str(err.value)
    assert "'langgraph_auth_user_id'" in msg
    assert "user_id, policy, stm_token_budget, candidate_cap, max_kept, speculative_answer" in msg
    assert "CAIM_*" in msg and len(caplog.records) == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("stm_token_budget", 0),
        ("stm_token_budget", 100_001),
        ("stm_token_budget", "500"),
        ("candidate_cap", 101),
        ("candidate_cap", True),
        ("max_kept", 0),
        ("max_kept", 2.5),
        ("speculative_answer", "yes"),
        ("user_id", ""),
        ("user_id", "ann\nbob"),
        ("user_id", "x" * 257),
        ("policy", ""),
        ("policy", 3),
    ],
)
def test_a_value_out_of_range_is_refused_in_one_line_naming_the_field(field, value, caplog):
    with caplog.at_level(logging.WARNING, logger="caim.server"), pytest.raises(InputError) as err:
        Context(**{field: value})
    assert field in str(err.value) and "\n" not in str(err.value)
    assert [r.name for r in caplog.records] == ["caim.server"]


@pytest.mark.parametrize("user", ["", "   ", "a\x00b", "x" * 257])
def test_a_context_user_is_checked_as_every_surface_checks_a_user(user):
    """The one check of a user id (``caim.core.checks.check_user``), its words in the refusal."""
    from caim.core.checks import check_user

    with pytest.raises(InputError) as shared:
        check_user(user)
    with pytest.raises(InputError) as refused:
        Context(user_id=user)
    assert str(shared.value) in str(refused.value) and "\n" not in str(refused.value)


def test_the_bounds_themselves_are_accepted():
    low = Context(
        user_id="ann", policy="always", speculative_answer=False, **{k: lo for k, (lo, _) in CONTEXT_BOUNDS.items()}
    )
    high = Context(user_id="ann", **{k: hi for k, (_, hi) in CONTEXT_BOUNDS.items()})
    assert (low.stm_token_budget, low.candidate_cap, low.max_kept) == (1, 1, 1)
    assert (high.stm_token_budget, high.candidate_cap, high.max_kept) == (100_000, 100, 100)
    assert low.policy == "always" and Context().policy is None  # None: the deployment's CAIM_POLICY


def _state(agent, cfg) -> dict:
    return agent.graph.get_state(cfg).values


@pytest.mark.parametrize(
    ("context", "named"),
    [
        ({"user_id": "ann", "base_url": "http://203.0.113.9/v1", "provider": "openai"}, "CAIM_BASE_URL"),
        ({"user_id": "ann", "data_dir": "{elsewhere}"}, "CAIM_DATA_DIR"),
        ({"user_id": "ann", "endpoint": "http://203.0.113.9/v1"}, "'endpoint'"),
        ({"user_id": "ann", "candidate_cap": 0}, "candidate_cap"),
    ],
)
def test_the_graph_refuses_such_a_context_before_storing_or_calling_anything(agent, scripted, tmp_path, context, named):
    _, calls, _ = scripted
    elsewhere = tmp_path / "elsewhere"
    context = {k: str(v).replace("{elsewhere}", str(elsewhere)) if k == "data_dir" else v for k, v in context.items()}
    cfg = {"configurable": {"thread_id": "t-ctx"}}
    with pytest.raises(InputError, match=named):
        agent.graph.invoke({"messages": [HumanMessage("My favourite food is pizza.")]}, cfg, context=context)
    assert calls == []
    assert not _state(agent, cfg).get("messages")
    assert not elsewhere.exists()


def test_the_graph_refuses_an_unknown_policy_in_one_line(agent, scripted):
    _, calls, _ = scripted
    with pytest.raises(InputError) as err:
        agent.graph.invoke(
            {"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "t-p"}}, context={"policy": "nope"}
        )
    assert "'nope'" in str(err.value) and "single-call" in str(err.value) and "\n" not in str(err.value)
    assert calls == []


def test_the_context_budgets_reach_the_run_and_the_deployment_keeps_the_rest(agent):
    agent.chat("I love hiking in the mountains.", user_id="ann")
    agent.chat("My favourite food is pizza.", user_id="ann")
    agent.end_session(user_id="ann")
    question = {"messages": [HumanMessage("Do you remember my favourite food and what I love?")]}
    kept = {}
    for n, context in enumerate(
        ({"user_id": "ann", "policy": "no-filter"}, {"user_id": "ann", "policy": "no-filter", "max_kept": 1})
    ):
        out = agent.graph.invoke(question, {"configurable": {"thread_id": f"t-b{n}"}}, context=context)
        kept[n] = len(out["memories"])
    assert kept == {0: 2, 1: 1}  # no-filter keeps the best-ranked max_kept
    settings = agent.services.tuned(Context(max_kept=1, stm_token_budget=300))
    assert (settings.max_kept, settings.stm_token_budget) == (1, 300)
    assert settings.data_dir == agent.settings.data_dir and settings.provider == agent.settings.provider


def test_the_module_graph_builds_one_set_of_services_from_the_environment(tmp_path, monkeypatch):
    from caim.graph import services, studio

    script = tmp_path / "script.json"
    script.write_text(
        json.dumps({"plan": {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []}})
    )
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CAIM_BASE_URL", "CAIM_MODEL", "CAIM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CAIM_PROVIDER", "scripted")
    monkeypatch.setenv("CAIM_SCRIPT", str(script))
    monkeypatch.setenv("CAIM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(services, "_SHARED", [])
    built = []
    real_create = services.Services.create.__func__  # type: ignore[attr-defined]

    def counting_create(cls, *args, **kwargs):
        built.append(real_create(cls, *args, **kwargs))
        return built[-1]

    monkeypatch.setattr(services.Services, "create", classmethod(counting_create))
    for context in ({"user_id": "ann", "max_kept": 2}, {"user_id": "bob", "candidate_cap": 3, "policy": "always"}):
        out = studio.graph.invoke({"messages": [HumanMessage("hello")]}, context=context)
        assert out["messages"][-1].type == "ai"
    assert len(built) == 1 and services.services_for() is built[0]
    assert built[0].settings.data_dir == tmp_path / "data" and built[0].settings.provider == "scripted"
