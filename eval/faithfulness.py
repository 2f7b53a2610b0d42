"""How faithful a system's stored memory is, computed by code from the records a run stored.

- ``invented``: share of stored memories whose sentence asserts a name, number or date that its own
  source turns do not hold (``caim.memory.text.unsupported``, the normalisation the answer check
  uses: "7 May" = "May 7", "three" supports "3");
- ``chatter``: share of stored memories that are the assistant's words but nothing it gave the user
  (``caim.memory.capture.reply_worth_keeping`` says no: small talk, praise, tales of itself - unless
  the benchmark's other side is a person);
- ``by_speaker``: how many stored memories each speaker's words are (the user, the assistant, a
  named participant);
- HaluMem-style extraction figures against the data set's evidence: ``evidence_coverage`` - the
  share of the conversation's evidence turns that a stored memory stems from (recall) - and
  ``grounded_share`` - the share of stored memories that stem from an evidence turn or from a turn
  that states a fact about the user (precision).

>>> recs = [{"thought": "Marta lives in Porto.", "speaker": "user",
...          "sources": [{"role": "user", "text": "I'm Marta, I live in Porto.", "turn_id": "D1:1"}]},
...         {"thought": "Mara surfs 3 times a week.", "speaker": "user",
...          "sources": [{"role": "user", "text": "I surf every week.", "turn_id": "D1:2"}]}]
>>> f = faithfulness(recs, evidence=["D1:1", "D1:5"], turn_text={}, persona=False)
>>> f["invented"], f["evidence_coverage"], f["grounded_share"]
(0.5, 0.5, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from caim.eval.metrics import covered_turns
from caim.memory.capture import reply_worth_keeping, states_fact
from caim.memory.text import unsupported


def _source_text(record: dict) -> str:
    return "\n".join(str(s.get("text", "")) for s in record.get("sources") or [])


def invented(record: dict) -> list[str]:
    """The specifics of a stored memory that its source turns do not hold."""
    return unsupported(str(record.get("thought", "")), _source_text(record))


def chatter(record: dict, persona: bool) -> bool:
    """Whether a stored memory is the assistant's words with nothing it gave the user."""
    if record.get("speaker") != "assistant":
        return False
    asked = "\n".join(str(s.get("text", "")) for s in record.get("sources") or [] if s.get("role") == "user")
    return not reply_worth_keeping(str(record.get("thought", "")), asked=asked, persona=persona)


def _stems_from_fact(record: dict, evidence: set[str], turn_text: dict[str, str]) -> bool:
    if covered_turns([record], turn_text) & evidence:
        return True
    return any(s.get("role") == "user" and states_fact(str(s.get("text", ""))) for s in record.get("sources") or [])


def faithfulness(
    records: Iterable[dict], *, evidence: Iterable[str], turn_text: dict[str, str], persona: bool
) -> dict[str, Any]:
    """The figures of the module docstring for one system's stored ``records`` of one conversation
    (``evidence``: every evidence turn id of its questions; ``turn_text``: turn id -> text)."""
    recs = list(records)
    wanted = set(evidence)
    n = len(recs)
    made_up = [r for r in recs if invented(r)]
    talk = [r for r in recs if chatter(r, persona)]
    covered = covered_turns(recs, turn_text) & wanted
    speakers: dict[str, int] = {}
    for r in recs:
        who = str(r.get("speaker") or "user")
        speakers[who] = speakers.get(who, 0) + 1
    return {
        "memories": n,
        "by_speaker": speakers,
        "invented": len(made_up) / n if n else None,
        "chatter": len(talk) / n if n else None,
        "evidence_coverage": len(covered) / len(wanted) if wanted else None,
        "grounded_share": sum(_stems_from_fact(r, wanted, turn_text) for r in recs) / n if n else None,
        "invented_examples": [{"thought": r.get("thought"), "invented": invented(r)} for r in made_up[:5]],
    }
