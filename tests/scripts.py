"""Deterministic answers per LLM role for the scripted chat model used by unit and graph tests.

The rules read the prompt the graph sent (never the model's wording) so tests can drive routes,
tags, time expressions, filters, key events, thoughts and maintenance decisions precisely.
"""

from __future__ import annotations

import json
import re

from langchain_core.messages import BaseMessage

STRING = r'("(?:[^"\\]|\\.)*")'  # a JSON string literal, escaped quotes included
QUOTED_AFTER_DATE = r"\[(\d+)\] \(\S+\) " + STRING
QUOTED_MEMORY = r"- \(\d{1,2} [A-Z][a-z]+ \d{4}\)(?: \(until [^)]+\))? (?:you said: )?" + STRING


def _last(messages: list[BaseMessage]) -> str:
    return str(messages[-1].content)


def user_message(messages: list[BaseMessage]) -> str:
    m = re.search(r"(?:User message|Message): " + STRING, _last(messages))
    if m:
        return json.loads(m.group(1))
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
TIME_PHRASES = ("yesterday", "last week", "on May 4th", "April 27th")


def _enum(rf: dict, *path: str) -> list:
    node = rf["json_schema"]["schema"]
    for key in path:
        node = node[key]
    return node.get("enum", [])


def plan(messages, rf):
    text = user_message(messages).lower()
    needs = any(w in text for w in MEMORY_WORDS)
    memory = "both" if "compare" in text else ("current" if "just said" in text else "past")
    allowed = _enum(rf, "properties", "tags", "items")
    tags = [w for w in re.findall(r"[a-z]+", text) if w in allowed][:3]
    times = [p for p in TIME_PHRASES if p.lower() in text]
    return {"needs_memory": "yes" if needs else "no", "memory": memory, "tags": tags, "time_expressions": times}


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
    allowed = _enum(rf, "properties", "tags", "items")
    words = re.findall(r"[a-z]+", user_message(messages).lower())
    picked = [w for w in words if w in allowed][:3]
    return {"tags": picked or [allowed[0]]}


def time(messages, rf):
    text = user_message(messages)
    return {"expressions": [p for p in TIME_PHRASES if p.lower() in text.lower()]}


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
    for num, user in re.findall(r"Turn (\d+)\nUser: " + STRING, body):
        said = json.loads(user)
        if re.search(r"\b(my|i love|i like|i went|i am|i'm)\b", said.lower()):
            events.append({"turn": int(num), "event": f"The user said: {said.strip()}"})
    return {"events": events}


def thoughts(messages, rf):
    defs = rf["json_schema"]["schema"]["$defs"]
    allowed = defs["Thought"]["properties"]["tags"]["items"]["enum"]
    out = []
    for num, fact in re.findall(QUOTED_AFTER_DATE, _last(messages)):
        thought = json.loads(fact).replace("The user said: ", "").strip()
        words = re.findall(r"[a-z]+", thought.lower())
        picked = list(dict.fromkeys(w for w in words if w in allowed))[:3]
        out.append({"event": int(num), "thought": thought, "tags": picked or [allowed[0]]})
    return {"thoughts": out, "new_terms": []}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z ]", "", text.lower()).strip()


def maintain(messages, rf):
    decisions = []
    for block in _last(messages).split("\n\n"):
        for part in block.split("New ")[1:]:
            head = re.match(r"\[(\d+)\] \(\S+\) " + STRING, part)
            if not head:
                continue
            new_n, new_text = int(head.group(1)), json.loads(head.group(2))
            decision, target = "new", 0
            for m, stored in re.findall(r"stored \[(\d+)\] \(\S+\) " + STRING, part):
                if _norm(json.loads(stored)) == _norm(new_text):
                    decision, target = "same", int(m)
                    break
            decisions.append({"memory": new_n, "decision": decision, "target": target})
    return {"decisions": decisions}


def profile(messages, rf):
    """Backgrounds: each aspect's current text (when any) and its new memories, joined; principles:
    each group named after its first memory's last word, summarised by its first memory."""
    body = _last(messages)
    if "backgrounds" in rf["json_schema"]["schema"]["properties"]:
        out = []
        for block in body.split("Aspect ")[1:]:
            aspect = json.loads(re.match(STRING, block).group(1))
            current = re.findall(r"current: " + STRING, block)
            new = [json.loads(n) for n in re.findall(r"new: " + STRING, block)]
            text = " ".join([*(json.loads(c) for c in current), *new])[:700]
            out.append({"aspect": aspect, "text": text})
        return {"backgrounds": out}
    groups = []
    for i, block in enumerate(body.split("Group ")[1:], 1):
        first = json.loads(re.findall(r"\n  " + STRING, block)[0])
        groups.append({"group": i, "requirement": re.findall(r"[a-z]+", first.lower())[-1], "summary": first})
    return {"principles": groups}


def respond(messages, rf):
    final = _last(messages)
    data = re.findall(QUOTED_MEMORY, final)
    # the profile's lines, echoed for a question about the user as a whole
    known = re.findall(r"^- " + STRING + "$", final, re.M) if "about me" in user_message(messages).lower() else []
    if data or known:
        return "From memory: " + "; ".join(json.loads(d) for d in [*data, *known])
    if "do not remember" in final:
        return "I don't remember that."
    return "Reply to: " + user_message(messages)[:80]


SCRIPT = {
    "plan": plan,
    "controller": controller,
    "tags": tags,
    "time": time,
    "relevance": relevance,
    "key_events": key_events,
    "thoughts": thoughts,
    "maintain": maintain,
    "profile": profile,
    "respond": respond,
    "summarize": "Summary: the user talked about several things.",
    "judge": {"score": 1, "reason": "ok"},
}
