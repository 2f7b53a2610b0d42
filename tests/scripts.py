"""Deterministic answers per LLM role for the scripted chat model used by unit and graph tests.

The rules read the prompt the graph sent (never the model's wording) so tests can drive routes,
tags, time expressions, filters, key events and merges precisely.
"""

from __future__ import annotations

import json
import re

from langchain_core.messages import BaseMessage

STRING = r'("(?:[^"\\]|\\.)*")'  # a JSON string literal, escaped quotes included
QUOTED_AFTER_DATE = r"\[(\d+)\] \(\S+\) " + STRING
QUOTED_NUMBERED = r"\[(\d+)\] " + STRING
QUOTED_MEMORY = r"- \(\d{4}-\d{2}-\d{2}\) " + STRING


def _last(messages: list[BaseMessage]) -> str:
    return str(messages[-1].content)


def user_message(messages: list[BaseMessage]) -> str:
    m = re.search(r"(?:User message|Message): (.*?)(?:\n\n|$)", _last(messages), re.S)
    return m.group(1) if m else _last(messages)


MEMORY_WORDS = (
    "remember",
    "told you",
    "did i",
    "my favourite",
    "my favorite",
    "what do i",
    "recommend",
    "right?",
    "yesterday",
    "last week",
    "first conversation",
)


def controller(messages, rf):
    text = user_message(messages).lower()
    prompt = _last(messages)
    needs = any(w in text for w in MEMORY_WORDS)
    if "earlier information" in prompt:
        return {"answer": "A" if needs else "B"}
    if "BOTH" in prompt:
        return {"answer": "A" if "compare" in text else "B"}
    return {"answer": "B" if "just said" in text else "A"}


def tags(messages, rf):
    allowed = rf["json_schema"]["schema"]["properties"]["tags"]["items"]["enum"]
    words = re.findall(r"[a-z]+", user_message(messages).lower())
    picked = [w for w in words if w in allowed][:3]
    return {"tags": picked or [allowed[0]]}


def time(messages, rf):
    text = user_message(messages)
    found = [p for p in ("yesterday", "last week", "on May 4th", "April 27th") if p.lower() in text.lower()]
    return {"expressions": found}


def relevance(messages, rf):
    body = _last(messages)
    query = set(re.findall(r"[a-z]{4,}", user_message(messages).lower()))
    keep = []
    for num, thought in re.findall(QUOTED_AFTER_DATE, body):
        words = set(re.findall(r"[a-z]{4,}", json.loads(thought).lower()))
        if query & words:
            keep.append(int(num))
    return {"relevant": keep}


def key_events(messages, rf):
    body = _last(messages)
    events = []
    for num, user in re.findall(r"Turn (\d+)\nUser: (.*?)\n", body):
        if re.search(r"\b(my|i love|i like|i went|i am|i'm)\b", user.lower()):
            events.append({"turn": int(num), "event": f"The user said: {user.strip()}"})
    return {"events": events}


def thoughts(messages, rf):
    allowed = rf["json_schema"]["schema"]["properties"]["tags"]["items"]["enum"]
    fact = json.loads(re.search(r"<data>(.*)</data>", _last(messages), re.S).group(1))
    thought = fact.replace("The user said: ", "").strip()
    words = re.findall(r"[a-z]+", thought.lower())
    picked = list(dict.fromkeys(w for w in words if w in allowed))[:3]
    return {"thought": thought, "tags": picked or ["personal"]}


def merge(messages, rf):
    seen: dict[str, list[int]] = {}
    for num, thought in re.findall(QUOTED_NUMBERED, _last(messages)):
        key = re.sub(r"[^a-z ]", "", json.loads(thought).lower()).strip()
        seen.setdefault(key, []).append(int(num))
    return {"groups": [g for g in seen.values() if len(g) > 1]}


def ontology(messages, rf):
    return {"covered": "yes", "new_terms": []}


def respond(messages, rf):
    system = str(messages[0].content)
    data = re.findall(QUOTED_MEMORY, system)
    if data:
        return "From memory: " + "; ".join(json.loads(d) for d in data)
    if "do not remember" in system:
        return "I don't remember that."
    return "Reply to: " + str(messages[-1].content)[:80]


def single_call(messages, rf):
    text = user_message(messages).lower()
    allowed = rf["json_schema"]["schema"]["properties"]["tags"]["items"]["enum"]
    route = "ltm" if any(w in text for w in MEMORY_WORDS) else "none"
    return {
        "route": route,
        "tags": [w for w in re.findall(r"[a-z]+", text) if w in allowed][:3],
        "time_expressions": [],
    }


SCRIPT = {
    "controller": controller,
    "tags": tags,
    "time": time,
    "relevance": relevance,
    "key_events": key_events,
    "thoughts": thoughts,
    "merge": merge,
    "ontology": ontology,
    "respond": respond,
    "summarize": "Summary: the user talked about several things.",
    "single_call": single_call,
    "judge": {"score": 1, "reason": "ok"},
}
