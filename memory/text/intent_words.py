"""The shape of one language's goal-aware recall table (``caim.memory.intent_langs``)."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Han number words shared by Chinese and Japanese (one to ten).
HAN_NUMBERS = {"二": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7", "八": "8", "九": "9", "十": "10"}


@dataclass(frozen=True)
class IntentWords:
    """One language's words for goal-aware recall.

    - ``cues``: per catalogue intent, regular expressions of a request for it;
    - ``vocab``: per closed vocabulary (``cuisine``, ``diet``, ``lodging``, ``transport``,
      ``occasion``, ``provider``, ``time``, ``genre``), the language's word -> the catalogue's
      English value;
    - ``people``: patterns of a number of people, group ``n`` a digit or a word of ``numbers``;
    - ``numbers``: number words -> digits;
    - ``money``: a pattern of an amount;
    - ``relatives``: a relation's word -> the English relation;
    - ``mine``: a pattern of the user's relation, ``{rel}`` where the relation's word stands ("meine
      {rel}": the recipient of a gift);
    - ``company``: a pattern of a relation who comes along ("mit meiner {rel}", "{rel}と");
    - ``unspaced``: written without spaces (words matched anywhere);
    - ``likes``: a pattern of what someone close likes, ``{rel}`` where the relation's word stands
      and group ``thing`` what they like ("meine {rel} liebt (?P<thing>...)"), ``ends`` where that
      thing's words end (a conjunction, a time word);
    - ``outcomes``: per task outcome (``cancelled``, ``booked``, ``chosen``: tried in that order), a
      pattern of a turn saying the task reached it ("storniert", "c'est réservé", "订好了").
    """

    code: str
    cues: dict[str, tuple[str, ...]]
    vocab: dict[str, dict[str, str]]
    people: tuple[str, ...]
    numbers: dict[str, str]
    money: str
    relatives: dict[str, str]
    mine: str
    company: str
    unspaced: bool = False
    outcomes: dict[str, str] = field(default_factory=dict)
    likes: str = ""
    ends: str = ""
