"""One reading of a query: ``Memory.search`` and the graph's search step give the same result for the
same query and user, in English, Chinese and Japanese, because both read the query once
(``QueryAnalysis``) in the language passed down explicitly - the language the user's records are
usually in - never one a context variable happens to hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from langchain_core.messages import HumanMessage

from caim.memory.records import MemoryRecord, stable_id
from caim.memory.search import analyse
from caim.memory.search.relevance import RELEVANCE_FLOOR

#: A Wednesday: "last Friday" (上周五) is 2024-05-03.
NOW = datetime(2024, 5, 8, 12, tzinfo=UTC)
FRIDAY = datetime(2024, 5, 3, 18, tzinfo=UTC)

USERS = {
    "marta": [
        ("I went hiking in the Sierra with my brother.", FRIDAY),
        ("I bought a new camera for the trip.", NOW - timedelta(days=30)),
        ("My sister Ana lives in Lisbon.", NOW - timedelta(days=60)),
    ],
    "mei": [  # Chinese: Han without kana
        ("我和朋友去了博物馆看展览。", FRIDAY),
        ("我买了一台新相机。", NOW - timedelta(days=30)),
        ("我妹妹住在上海。", NOW - timedelta(days=60)),
    ],
    "yuki": [  # Japanese: kana in every record, so the user's usual language is Japanese
        ("友達と博物館に行きました。", FRIDAY),
        ("新しいカメラを買いました。", NOW - timedelta(days=30)),
        ("妹は大阪に住んでいます。", NOW - timedelta(days=60)),
    ],
}
QUESTIONS = {
    "marta": "What did I do last Friday?",
    "mei": "上周五我去了哪里？",
    "yuki": "上周五我去了哪里？",
}


def _store(memory, user: str) -> None:
    records = [
        MemoryRecord(
            id=stable_id(user, text), user_id=user, thought=text, tags=[], event_time=at, session_id=f"s{i}", turn=0
        )
        for i, (text, at) in enumerate(USERS[user])
    ]
    memory.services.store.add(records)


def _graph_search(memory, user: str, text: str) -> list[dict]:
    """The graph's search step's ranked records (the recall subgraph's ``found``) at the search's floor."""
    out = memory.recall_graph.invoke(
        {"messages": [HumanMessage(text)], "turn_time": NOW.isoformat()}, context=memory.context(user)
    )
    return [f for f in out["found"] if f["relevance"] >= RELEVANCE_FLOOR]


def _ranked(found: list[dict]) -> list[tuple[str, dict]]:
    return [(f["id"], f["scores"]) for f in found]


@pytest.mark.parametrize("user", sorted(USERS))
def test_memory_search_and_the_graphs_search_agree(memory, user):
    _store(memory, user)
    text = QUESTIONS[user]
    k = memory.settings.search_k
    library = memory.search(text, user_id=user, k=k, at=NOW)
    graph = _graph_search(memory, user, text)
    assert library, "the question finds the user's records"
    assert _ranked(library) == _ranked(graph)
    friday = stable_id(user, USERS[user][0][0])
    in_range = {f["id"] for f in library if f["scores"].get("range", 0) > 0}
    if user == "yuki":  # read as Japanese: 上周五 is no Japanese time phrase, in either search
        assert in_range == set()
    else:  # "last Friday" / 上周五 resolved to 2024-05-03 in both searches
        assert in_range == {friday}


def test_the_language_is_an_explicit_argument():
    """The same text read under two expected languages: the argument decides, whatever the context holds."""
    zh = analyse("上周五我去了哪里？", now=NOW, expected="en")
    ja = analyse("上周五我去了哪里？", now=NOW, expected="ja")
    assert (zh.language, ja.language) == ("zh", "ja")
    assert [s["start"][:10] for s in zh.spans] == ["2024-05-03"] and ja.spans == ()
    assert zh.terms != ja.terms  # Chinese and Japanese stopwords differ
