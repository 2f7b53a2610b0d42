"""Goal-aware recall in code: task intents, their slots, and the values memory holds for them.

A task request ("book us a table on Friday", "find a gift for my sister") needs facts the user gave
long ago. ``CATALOGUE`` holds the built-in intents - restaurant, travel, gift, appointment,
entertainment - each with its slots; a deployment adds its own in ``intents.json`` in the data dir
(``Catalogue.load``; same shape as ``Intent.as_dict``). ``Catalogue.recognise`` names the intent of a
message by its cues (English here; German, French, Spanish, Chinese and Japanese in
``caim.memory.intent_langs``), ``Catalogue.by_meaning`` by its closeness to the intents'
descriptions (the signal beside the cues, for requests they miss); ``read_slot`` reads one slot's
value from one text in its language (a closed vocabulary, a number of people, an amount, the user's
home city or diet through ``caim.memory.text.slots``, the hobbies of the person a gift is for, who
comes along); ``fill`` reads every slot the request leaves open from the memories, newest first - a
dislike never fills a slot asking what the user likes, a statement of where the user lives beats a
place merely mentioned - and says which slots are known (value, the memory it came from, its date)
and which are still missing. ``tasks`` and ``unit_of`` read the tasks of a session as intent units
(``caim.memory.records.IntentUnit``) for post-thinking to store; ``fills_slots`` says which intents
a user's statement gives a slot value (a fact post-thinking keeps). A task of no catalogue intent
(``OTHER``) is described by the model: ``unfamiliar_requests`` finds its turns, ``describe``
validates the description, ``other_unit`` holds it with its embedding, ``closest_task`` matches a
later request to it by meaning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal, Protocol, cast, get_args

import numpy as np

from caim.memory.intent_langs import IntentWords, intent_table, outcome_cues, spaced_others, vocab_pattern
from caim.memory.intent_langs import cue as language_cue
from caim.memory.records import IntentUnit, MemoryRecord, Outcome, as_aware
from caim.memory.stm import Exchange
from caim.memory.storage.cache import PerUserCache
from caim.memory.text.lang import detect
from caim.memory.text.polarity import polarity
from caim.memory.text.slots import Attribute
from caim.memory.text.slots import slots as stated_slots

Kind = Literal["vocab", "city", "diet", "people", "money", "recipient", "interest", "company"]
KINDS: tuple[str, ...] = get_args(Kind)
#: Cosine similarity of a request to an intent's description at which the meaning signal names the
#: intent when no cue does.
INTENT_SIMILARITY = 0.4
#: The single-value attribute (``caim.memory.text.slots``, an ontology term marked single-valued)
#: whose statements fill a slot of each kind: the user's current home city and diet.
SINGLE_VALUED: dict[str, Attribute] = {"city": "location", "diet": "diet"}
#: Most words of a text detected as English that is still tried against other languages' cues (a
#: short text gives detection few words to vote with).
GUESSED_WORDS = 5
#: Most intents a deployment's ``intents.json`` may add, and most slots per intent.
MAX_INTENTS = 32
MAX_SLOTS = 12

_NUMBERS = {
    w: str(i) for i, w in enumerate(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"], 1)
}
_NUM = r"(\d{1,2}|" + "|".join(_NUMBERS) + r")"
_PEOPLE = [
    re.compile(rf"\bthe {_NUM} of us\b", re.I),
    re.compile(rf"\b(?:we are|we're|we will be|we'll be|there are|there will be)\s+{_NUM}\b", re.I),
    re.compile(rf"\b(?:party|family|group|table) (?:of|for) {_NUM}\b", re.I),
    re.compile(rf"\b{_NUM} (?:people|persons|adults|guests|of us)\b", re.I),
    re.compile(rf"\b(?:table|dinner|lunch|booking|reservation|place|room|seats?|tickets?) for {_NUM}\b", re.I),
    re.compile(
        rf"\b(?:book|reserve)\b[^.;!?]{{0,40}}?\bfor {_NUM}\b(?!\s*(?:(?:nights?|days?|hours?|minutes?|weeks?|pm|am|"
        r"o'clock)\b|:|\.\d))",
        re.I,
    ),
]
_MONEY = re.compile(r"(?:[$€£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:euros?|dollars?|pounds?|bucks|usd|eur|gbp)\b)", re.I)
#: An amount in any currency: a number and the word after it, said after a word of spending or cost
#: ("our budget is 8000 złoty", "shouldn't cost more than 500 kroner"); never a count of time or people.
_SPENDING = re.compile(
    r"\b(?:budget|spend|spending|cost|costs|pay|paying|afford|price)\b[^.;!?\d]{0,30}?"
    r"(?P<amount>\d[\d,.]*\s?(?!(?:minutes?|hours?|days?|nights?|weeks?|months?|years?|people|persons|of|times|"
    r"percent|kids|children|adults)\b)[^\W\d_]{2,12})\b",
    re.I,
)
RELATIVES = [
    "sister",
    "brother",
    "mother",
    "mom",
    "mum",
    "father",
    "dad",
    "wife",
    "husband",
    "partner",
    "girlfriend",
    "boyfriend",
    "son",
    "daughter",
    "friend",
    "colleague",
    "boss",
    "grandma",
    "grandmother",
    "grandpa",
    "grandfather",
    "niece",
    "nephew",
    "aunt",
    "uncle",
    "cousin",
]
#: A relation of the speaker's as a clause's subject (where they live is not the user's city).
_OTHERS = re.compile(r"\b(?:my|our|his|her|their) (?:\w+ )?(?:" + "|".join(RELATIVES) + r")s?\b", re.I)
_CLAUSE = re.compile(r"[.;!?]|\band\b|\bbut\b|,")
_WHO = (
    r"wife|husband|partner|girlfriend|boyfriend|(?:best )?friends?|kids|children|family|sister|brother|mom|mum|mother|"
    r"dad|father|parents|grandparents|colleagues|son|daughter|flatmates?|roommates?|housemates?|mates|in-laws|"
    r"grandma|grandpa|niece|nephew|cousins?"
)
_COMPANY = re.compile(
    rf"\b(?:with|and)\s+((?:my )?(?:{_WHO}))\b|\b(my (?:{_WHO}))\s+(?:and I|dragged me|took me|came with me|"
    r"and me)\b",
    re.I,
)
_PLACE = r"(?P<place>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?)"
_PLACES = (
    re.compile(rf"\bmoved (?:from [A-Z][\w'-]+(?: [A-Z][\w'-]+)? )?(?:back )?to {_PLACE}"),
    re.compile(
        r"\b(?:I|we|I've|we've|I have|we have|I'm|we're|I am|we are)\s+(?:always |both |all )?"
        rf"(?:lived|live|living|based|settled|staying) (?:here )?in {_PLACE}"
    ),
    re.compile(rf"\b(?:I'm|I am|we're|we are) (?:originally )?from {_PLACE}"),
    re.compile(
        r"\b(?:here in|back home in|home in|we're all in|we are all in|our (?:flat|house|home|place|apartment) in) "
        + _PLACE
    ),
    re.compile(rf"{_PLACE},? where (?:I|we) live\b"),
    re.compile(rf"\bin {_PLACE}"),
)
_NOT_PLACES = frozenset(
    re.findall(
        r"\w+",
        "january february march april may june july august september october november december monday tuesday "
        "wednesday thursday friday saturday sunday the a an my our this that i",
    )
)
_TRAILING = re.compile(r"\s+(?:these days|lately|now|at the moment|recently|again|too|a lot)$", re.I)
_LIKES = (
    r"(?:loves?|likes?|enjoys?|adores|(?:is|'s) (?:really |completely |totally |absolutely )?(?:into|obsessed with|"
    r"crazy about|mad about|passionate about|hooked on)|has (?:been|gotten|got) into|has taken up|took up|"
    r"goes|(?:(?:is )?(?:planning|going|hoping) to |wants to )?spends? (?:every|all (?:her|his|their)) (?:free )?"
    r"(?:hour|time|weekend)s?|plays?)"
)


@dataclass(frozen=True)
class Slot:
    """One thing an intent needs: its name, what a search for it looks for, how its value is read
    (``kind``; a ``vocab`` slot's closed set of values) and whether only a like fills it."""

    name: str
    query: str
    kind: Kind = "vocab"
    vocab: tuple[str, ...] = ()
    liked: bool = False


@dataclass(frozen=True)
class Intent:
    """A kind of task: its name, a description (also what its code signal compares by meaning), the
    request cues (regular expressions), its slots, and the ontology term its memories are tagged with."""

    name: str
    description: str
    cues: tuple[str, ...]
    slots: tuple[Slot, ...]
    tag: str = "plans"

    def as_dict(self) -> dict[str, object]:
        """The intent in ``intents.json``'s shape."""
        return asdict(self)


def _vocab(words: str) -> tuple[str, ...]:
    return tuple(w.replace("_", " ") for w in words.split())


CUISINES = _vocab(
    "italian japanese chinese mexican indian thai french greek spanish korean vietnamese lebanese turkish "
    "portuguese ethiopian peruvian sushi pizza tapas ramen seafood vegan_food"
)
DIETS = _vocab("vegetarian vegan pescatarian gluten-free gluten_free halal kosher lactose-free dairy-free keto")
GENRES = _vocab(
    "horror comedy comedies thriller thrillers sci-fi science_fiction drama dramas romance romantic_comedies "
    "action documentary documentaries animation anime jazz rock pop classical metal hip_hop musical musicals "
    "opera stand-up techno indie folk"
)
LODGING = _vocab(
    "hostel hostels hotel hotels airbnb apartment b&b bed_and_breakfast camping campsite guesthouse guest_house resort "
    "cabin cabins villa villas cottage cottages chalet lodge motel inn glamping caravan campervan holiday_home "
    "houseboat"
)
TRANSPORT = _vocab("train trains plane flying fly car drive driving bus ferry bike cycling")
OCCASIONS = _vocab(
    "birthday anniversary wedding christmas graduation housewarming retirement valentine's mother's_day "
    "mothers'_day father's_day fathers'_day easter eid diwali hanukkah baby_shower christening bar_mitzvah bat_mitzvah"
)
PROVIDERS = _vocab(
    "dentist doctor gp physio physiotherapist hairdresser barber vet optician dermatologist therapist mechanic"
)
TIMES = _vocab(
    "mornings afternoons evenings weekends weekdays mondays tuesdays wednesdays thursdays fridays saturdays "
    "sundays early_mornings late_afternoons lunchtime"
)

_CITY = Slot("city", "where I live, my home city", "city")
_BUDGET = Slot("budget", "budget, spend, price, cost", "money")
CATALOGUE_INTENTS: tuple[Intent, ...] = (
    Intent(
        "restaurant",
        "book a table at a restaurant, find a place to eat out",
        (
            r"\b(?:book|reserve|find)\b.{0,30}\b(?:table|restaurant|dinner|lunch|brunch|bistro|trattoria|pizzeria|"
            r"steakhouse)\b",
            r"\b(?:book|reserve|find)\b.{0,20}\b(?:" + "|".join(CUISINES) + r")\s+(?:place|spot|joint)\b",
            r"\brestaurant\b",
            r"\bplace to eat\b",
            r"\beat out\b",
            r"\bdinner reservation\b",
            r"\b(?:organi[sz]e|arrange|plan|sort out)\b.{0,30}\b(?:dinner|lunch|brunch|meal)\b",
        ),
        (
            Slot("cuisine", "food I love, favourite cuisine, restaurant", "vocab", CUISINES, liked=True),
            _CITY,
            Slot("party_size", "how many of us, people, family", "people"),
            Slot("diet", "diet, vegetarian, vegan, allergic, eat", "diet", DIETS),
            _BUDGET,
        ),
        "restaurants",
    ),
    Intent(
        "travel",
        "plan a trip, a holiday or a weekend away, book travel",
        (
            r"\b(?:plan|book|organi[sz]e)\b.{0,30}\b(?:trip|holiday|vacation|getaway|weekend away|travel)\b",
            r"\b(?:trip|holiday|vacation|getaway)\b",
        ),
        (
            Slot("home_city", "where I live, my home city", "city"),
            Slot("travellers", "how many of us, who travels, family", "people"),
            _BUDGET,
            Slot("lodging", "where I like to stay, hotel, hostel, airbnb, camping", "vocab", LODGING, liked=True),
            Slot("transport", "how I like to travel, train, plane, car", "vocab", TRANSPORT, liked=True),
        ),
        "trips",
    ),
    Intent(
        "gift",
        "find or buy a present for someone",
        (r"\b(?:gift|present)\b", r"\bsomething (?:nice )?for my\b"),
        (
            Slot("recipient", "my sister, brother, mother, friend", "recipient", tuple(RELATIVES)),
            Slot("interests", "hobbies, loves, is into", "interest"),
            _BUDGET,
            Slot("occasion", "birthday, anniversary, wedding", "vocab", OCCASIONS),
        ),
        "purchases",
    ),
    Intent(
        "appointment",
        "make, book or move an appointment",
        (
            r"\bappointment\b",
            r"\b(?:book|schedule|make)\b.{0,30}\b(?:dentist|doctor|gp|physio|hairdresser|barber|vet)\b",
            r"\bbook (?:me|us|him|her)\b.{0,30}\b(?:session|check-?up|test|cut|haircut|cleaning|follow-up|"
            r"consultation|service|exam|visit)\b",
            r"\b(?:get|have) (?:it|them|this|that) (?:looked at|checked|seen to|fixed|repaired)\b",
        ),
        (
            Slot("provider", "dentist, doctor, hairdresser, vet", "vocab", PROVIDERS),
            _CITY,
            Slot("availability", "when I am free, mornings, evenings, weekends", "vocab", TIMES, liked=True),
        ),
        "doctor",
    ),
    Intent(
        "entertainment",
        "find a movie, concert, show or tickets for an evening out",
        (
            r"\b(?:movie|film|concert|show|gig|tickets?|theatre|theater|festival)\b.{0,40}\b(?:tonight|weekend|friday|"
            r"saturday|sunday|watch|see|go|book|find|get)\b",
            r"\b(?:find|get|book)\b.{0,30}\b(?:movie|film|concert|show|tickets?|gig)\b",
            r"\b(?:night out|evening out|something fun to do|something to do (?:on|this|tonight))\b",
        ),
        (
            Slot("genre", "kind of movies or music I love", "vocab", GENRES, liked=True),
            Slot("company", "who I go out with, my wife, friends", "company"),
            _CITY,
            _BUDGET,
        ),
        "movies",
    ),
)


@dataclass(frozen=True)
class Known:
    """A slot memory fills: its value, the memory it came from and that memory's date (ISO)."""

    value: str
    memory: str
    date: str


@dataclass
class Filled:
    """What memory gives an intent's request: the slots known (from memory), those the request states,
    and those still missing, in the intent's order."""

    intent: str
    known: dict[str, Known] = field(default_factory=dict)
    stated: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)


class Catalogue:
    """The intents recognised: the built-in ones and a deployment's additions (``load``)."""

    def __init__(self, intents: Iterable[Intent] = CATALOGUE_INTENTS):
        self.intents = {i.name: i for i in intents}
        self._cues = {i.name: re.compile("|".join(i.cues), re.I) for i in self.intents.values() if i.cues}
        self._vectors: np.ndarray | None = None

    @classmethod
    def load(cls, data_dir: Path | None) -> Catalogue:
        """The built-in intents, plus (replacing a built-in of the same name) those of ``intents.json``
        in ``data_dir`` - a JSON list of ``Intent.as_dict`` objects; a malformed file is a ``ValueError``
        naming it."""
        path = Path(data_dir) / "intents.json" if data_dir else None
        if path is None or not path.is_file():
            return cls()
        try:
            added = [_intent(d) for d in json.loads(path.read_text(encoding="utf-8"))[:MAX_INTENTS]]
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{path} is not a list of intents ({exc})") from None
        return cls([*CATALOGUE_INTENTS, *added])

    def recognise(self, text: str) -> str:
        """The intent whose cues the message matches first (catalogue order), "" for none: the
        intents' own (English) cues, then those of the message's language (``caim.memory.intent_langs``);
        a short text detected as English (``GUESSED_WORDS`` words at most: detection's guess for "Busco
        un regalo.") is tried against German's, French's and Spanish's cues too."""
        for name, pattern in self._cues.items():
            if pattern.search(text):
                return name
        for lang in _languages(text):
            for name in self.intents:
                if (found := language_cue(lang, name)) is not None and found.search(text):
                    return name
        return ""

    def by_meaning(self, vector: np.ndarray, embed: Callable[[list[str]], list[list[float]]]) -> str:
        """The intent whose description is closest in meaning to a message's ``vector``, when at least
        ``INTENT_SIMILARITY`` ("" otherwise); ``embed`` embeds the descriptions (once)."""
        if self._vectors is None:
            self._vectors = np.asarray(embed([i.description for i in self.intents.values()]), dtype=np.float32)
        sims = self._vectors @ vector
        best = int(np.argmax(sims))
        return list(self.intents)[best] if float(sims[best]) >= INTENT_SIMILARITY else ""


def _languages(text: str) -> tuple[str, ...]:
    """The languages whose tables read ``text`` besides English: its detected one; for a short text
    detected as English (``GUESSED_WORDS`` words at most), the other spaced ones (German, French, Spanish)."""
    code = detect(text).code
    if code == "en":
        return spaced_others() if len(text.split()) <= GUESSED_WORDS else ()
    return (code,) if intent_table(code) is not None else ()


def _intent(d: dict) -> Intent:
    slots = tuple(
        Slot(s["name"], s["query"], s.get("kind", "vocab"), tuple(s.get("vocab", ())), bool(s.get("liked", False)))
        for s in d["slots"][:MAX_SLOTS]
    )
    for s in slots:
        if s.kind not in KINDS or not re.fullmatch(r"[a-z_]{1,32}", s.name):
            raise ValueError(f"slot {s.name!r}: a lower-case name and a kind among {', '.join(KINDS)}")
    for cue in d.get("cues", ()):
        re.compile(cue)
    return Intent(str(d["name"]), str(d["description"]), tuple(d.get("cues", ())), slots, str(d.get("tag", "plans")))


# ---- reading one slot from one text --------------------------------------------------------------------------
def _word(text: str, words: Sequence[str]) -> str:
    """The word of ``words`` the text says last ("" for none): as for a single value
    (``caim.memory.text.slots``), a later statement holds ("I used to ..., now only weekends")."""
    found = [
        (m.start(), w)
        for w in words
        for m in re.finditer(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text, re.I)
        if not _NEGATED.search(_CLAUSE.split(text[: m.start()])[-1])
    ]
    return max(found)[1] if found else ""


#: A negation a few words before a word of a closed vocabulary ("nobody wants to drive", "no korean
#: barbecue"): the word is no value of the slot.
_NEGATED = re.compile(
    r"\b(?:not|no|never|nobody|none|don't|doesn't|didn't|won't|wouldn't|can't|cannot|neither|nor)\b(?:\s+\S+){0,3}\s*$",
    re.I,
)


def _people(text: str) -> str:
    for pattern in _PEOPLE:
        if m := pattern.search(text):
            return _NUMBERS.get(m.group(1).lower(), m.group(1))
    return ""


def _city(text: str, mentions: bool = True) -> str:
    """A place the user lives in or a task of theirs takes place in, by code: a statement of where they
    live (``caim.memory.text.slots``' location), moved to, come from or are based ("we moved from
    Lisbon to Porto", "I'm from Manchester", "our flat in Kraków"); with ``mentions``, else a place
    after "in" ("the clinic is in Utrecht") in a clause whose subject is not someone else ("my sister
    lives in Ottawa" is her city). Months and weekdays are no place."""
    if (got := stated_slots(text).get("location")) is not None:
        return got.value
    for pattern in _PLACES if mentions else _PLACES[:-1]:
        for m in pattern.finditer(text):
            place = m.group("place")
            if place.split()[0].lower() in _NOT_PLACES:
                continue
            if pattern is _PLACES[-1] and _OTHERS.search(_CLAUSE.split(text[: m.start()])[-1]):
                continue
            return place
    return ""


#: ``read_slot``'s recipient when whom a gift is for is not known yet: what anyone close is said to like.
ANYONE = "*"


def _interest(text: str, recipient: str, names: Sequence[str] = ()) -> str:
    """What the person a gift is for likes: said of them by name of relation, by pronoun (``ANYONE``:
    of any relation) or by one of their ``names``, alone or with the user ("Priya and I play...")."""
    if not recipient:
        return ""
    relation = "(?:" + "|".join(RELATIVES) + ")" if recipient == ANYONE else re.escape(recipient)
    named = "|(?:" + "|".join(map(re.escape, names)) + ")(?: and I)?" if names else ""
    who = rf"(?:she|he|they|my (?:[a-z]+ )?{relation}(?: \w+)?{named})"
    text = re.sub(r"\b(she|he)'s\b", r"\1 is", text, flags=re.I)
    m = re.search(
        rf"\b{who}\s+(?:\w+ly\s+)?{_LIKES}\s+(?:(?:to|on|in|with|about)\s+)?([a-z][a-z' -]{{2,40}})", text, re.I
    )
    if m is None:
        return ""
    value = re.split(r"\s+(?:and|but|so|because|since|which|every|each|on|at|with|for)\b|[,.;!?-]", m.group(1))[0]
    return _TRAILING.sub("", value).strip()


#: The closed vocabulary of each catalogue slot, by the name a language's table files it under.
VOCABULARIES: dict[tuple[str, ...], str] = {
    CUISINES: "cuisine",
    DIETS: "diet",
    LODGING: "lodging",
    TRANSPORT: "transport",
    OCCASIONS: "occasion",
    PROVIDERS: "provider",
    TIMES: "time",
    GENRES: "genre",
}


def _read_in(slot: Slot, text: str, table: IntentWords, recipient: str) -> str:
    """``read_slot`` for a text in a language other than English, with its table: a closed-vocabulary
    value as the catalogue's English word (the word said last), a number of people as digits, an
    amount, whom a gift is for, who comes along and what the recipient likes; where the user lives
    and their diet by ``caim.memory.text.slots``."""
    if slot.kind in ("city", "diet") and (got := stated_slots(text).get(SINGLE_VALUED[slot.kind])) is not None:
        return got.value
    if slot.kind == "interest":
        return _interest_in(text, recipient, table)
    if slot.kind == "people":
        for pattern in table.people:
            if m := re.search(pattern, text, re.I):
                return table.numbers.get(m.group("n").lower(), m.group("n"))
        return ""
    if slot.kind == "money":
        m = re.search(table.money, text, re.I)
        return m.group(0).strip() if m else ""
    if slot.kind in ("recipient", "company"):
        rel = "(?P<rel>" + "|".join(sorted(map(re.escape, table.relatives), key=len, reverse=True)) + ")"
        pattern = (table.mine if slot.kind == "recipient" else table.company).replace("{rel}", rel)
        m = re.search(pattern, text, re.I)
        if m is None:
            return ""
        return table.relatives[m.group("rel").lower()] if slot.kind == "recipient" else m.group(0).strip()
    kind = VOCABULARIES.get(slot.vocab, "")
    found = [(m.start(), v) for p, v in vocab_pattern(table.code, kind) for m in p.finditer(text)] if kind else []
    return max(found)[1] if found else (_word(text, slot.vocab) if slot.kind == "vocab" else "")


def _interest_in(text: str, recipient: str, table: IntentWords) -> str:
    """What the person a gift is for likes, with a language's ``likes`` pattern: said of them by
    their relation's word in that language (``ANYONE``: any relation's) or by a pronoun."""
    words = [w for w, said in table.relatives.items() if recipient in (ANYONE, said)] if recipient else []
    if not words or not table.likes:
        return ""
    rel = "(?:" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + ")"
    m = re.search(table.likes.replace("{rel}", rel), text, re.I)
    if m is None:
        return ""
    return (re.split(table.ends, m.group("thing"))[0] if table.ends else m.group("thing")).strip()


def read_slot(slot: Slot, text: str, recipient: str = "", names: Sequence[str] = ()) -> str:
    """The value ``text`` gives ``slot`` ("" for none); ``recipient``: whom a gift is for (its
    ``interest`` slot reads what they like), ``names``: what the user calls them (English).

    >>> read_slot(Slot("party_size", "", "people"), "It'll be the four of us again.")
    '4'
    >>> read_slot(Slot("cuisine", "", "vocab", CUISINES, liked=True), "I can't stand Thai food.")
    ''
    """
    if slot.liked and not _not_disliked(text):
        return ""
    return _value(slot, text, recipient, names)


def _not_disliked(text: str) -> bool:
    """Whether ``text`` states no preference other than a like (what a ``liked`` slot reads)."""
    return (found := polarity(text)) is None or found.polarity == "like"


def _value(slot: Slot, text: str, recipient: str = "", names: Sequence[str] = ()) -> str:
    """The value ``text`` gives ``slot`` ("" for none), its polarity left aside (``read_slot``)."""
    if (table := intent_table(detect(text).code)) is not None:
        return _read_in(slot, text, table, recipient)
    if slot.kind == "city":
        return _city(text)
    if slot.kind == "diet":
        got = stated_slots(text).get("diet")
        return got.value if got is not None else _word(text, slot.vocab)
    if slot.kind == "people":
        return _people(text)
    if slot.kind == "money":
        m = _MONEY.search(text)
        return m.group(0).strip() if m else (m2.group("amount") if (m2 := _SPENDING.search(text)) else "")
    if slot.kind == "company":
        return _company(text)
    if slot.kind == "interest":
        return _interest(text, recipient, names)
    if slot.kind == "recipient":
        return _recipient(text)
    return _word(text, slot.vocab)


def _recipient(text: str) -> str:
    """The first relation of the user's the text names, not a home ("Christmas at my brother's")."""
    for m in re.finditer(r"\bmy (?:[a-z]+ )?(" + "|".join(RELATIVES) + r")\b('s)?", text, re.I):
        if not (m.group(2) and re.search(r"\b(?:at|to|from)\s+$", text[: m.start()], re.I)):
            return m.group(1).lower()
    return ""


#: What an evening out is made of: a relation of the user's said to like one is company for it.
_OUTING = (
    "|".join(map(re.escape, GENRES)) + r"|movies?|films?|cinema|concerts?|gigs?|shows?|theat(?:re|er)|ballet|clubbing"
)
_FAN = re.compile(rf"\b(my (?:{_WHO}))\b[^.;!?]{{0,40}}?\b{_LIKES}\b[^.;!?]{{0,30}}?\b(?:{_OUTING})\b", re.I)


def _company(text: str) -> str:
    """Who comes along: a relation the user goes with ("with my wife", "my flatmates and I"), else one
    said to like something an evening out is made of ("my son loves anything sci-fi")."""
    if m := _COMPANY.search(text):
        return (m.group(1) or m.group(2)).lower()
    m = _FAN.search(text)
    return m.group(1).lower() if m else ""


# ---- filling an intent from memories ------------------------------------------------------------------------------
def _user_text(rec: MemoryRecord) -> str:
    """What the user said in a memory: its thought and its own user turns (not the assistant's, not
    another participant's)."""
    said = " ".join(s.text for s in rec.sources if s.by_user and not s.context)
    return f"{rec.thought} {said}" if rec.by_user else ""


def fill(intent: Intent, request: str, memories: Sequence[MemoryRecord]) -> Filled:
    """Which of ``intent``'s slots the request states, which the memories fill (the newest current
    memory giving a value) and which are missing.

    Args:
        intent: The request's intent.
        request: The user's message.
        memories: Candidate memories (any order; superseded ones are skipped).

    Returns:
        The slots known from memory, stated by the request, and missing.
    """
    out = Filled(intent.name)
    newest = sorted((m for m in memories if m.current), key=lambda m: as_aware(m.event_time), reverse=True)
    recipient = ""
    names: list[str] = []
    for slot in intent.slots:
        stated = read_slot(slot, request, recipient, names)
        if stated:
            out.stated[slot.name] = stated
        elif (known := _from_memory(slot, newest, recipient, intent.name, names)) is not None:
            out.known[slot.name] = known
        else:
            out.missing.append(slot.name)
        if slot.kind == "recipient":
            recipient = stated or (out.known[slot.name].value if slot.name in out.known else "")
            names = names_of(recipient, [request, *map(_user_text, newest)]) if recipient else []
    return out


#: Most names ``names_of`` gives one relation.
MOST_NAMES = 3
_NO_NAMES = frozenset(
    ["I", "The", "And", "But", "So", "Just", "Is", "Was", "Has", "Had", "Who", "Which", "That", "This", "My", "Our"]
)


def names_of(relation: str, texts: Iterable[str]) -> list[str]:
    """What the user calls their ``relation`` in ``texts`` ("my best friend Priya", "my sister,
    Anna"): up to ``MOST_NAMES`` capitalised names said right after it (English).

    >>> names_of("friend", ["My best friend Priya just bought her first flat!", "my friend, Tom"])
    ['Priya', 'Tom']
    """
    pattern = re.compile(rf"\b(?i:my)\s+(?:[a-z]+\s+)?(?i:{re.escape(relation)}),?\s+([A-Z][\w'-]{{1,30}})\b")
    found = [m.group(1) for t in texts for m in pattern.finditer(t) if m.group(1) not in _NO_NAMES]
    return list(dict.fromkeys(found))[:MOST_NAMES]


def _from_memory(
    slot: Slot, newest: Sequence[MemoryRecord], recipient: str, intent: str, names: Sequence[str] = ()
) -> Known | None:
    """The newest memory's value for ``slot``; for a city, a statement of where the user lives (or an
    earlier task's) first, a place merely mentioned ("in Biarritz") only when no memory states one."""
    for mentions in (False, True) if slot.kind == "city" else (True,):
        for rec in newest:
            unit = rec.intent if rec.intent is not None and rec.intent.name == intent else None
            if unit is not None:
                value = unit.slots.get(slot.name, "")
            elif slot.kind == "city":
                value = _city(_user_text(rec), mentions)
            else:
                value = read_slot(slot, _user_text(rec), recipient, names)
            if value:
                return Known(value, rec.id, as_aware(rec.event_time).date().isoformat())
    return None


def search_texts(intent: Intent, request: str) -> list[str]:
    """The searches that look for an intent's slots: the request itself, then one per slot."""
    return [request, *(f"{s.query} {request}" for s in intent.slots)]


# ---- a task of a session, as an intent unit ----------------------------------------------------------------------
#: Turns after a task request that still belong to its task (unless another request starts earlier).
WINDOW = 6
_OUTCOMES: tuple[tuple[Outcome, re.Pattern[str]], ...] = (
    ("cancelled", re.compile(r"\b(?:cancel(?:led|ed)?|call it off|never ?mind)\b", re.I)),
    ("booked", re.compile(r"\b(?:booked|reserved|bought|ordered|confirmed|scheduled|all set)\b", re.I)),
    (
        "chosen",
        re.compile(
            r"\b(?:let'?s go (?:with|for)|i'?ll take|we'?ll take|we chose|i chose|i prefer|sounds good)\b", re.I
        ),
    ),
)


def outcome_of(text: str) -> Outcome | None:
    """The outcome a turn says its task reached (a cancellation before a booking before a choice), in
    English or in the text's language (``caim.memory.intent_langs.outcome_cues``); None for none.

    >>> outcome_of("Great, booked!"), outcome_of("Die Reservierung ist storniert."), outcome_of("订好了，谢谢")
    ('booked', 'cancelled', 'booked')
    """
    for name, found in _OUTCOMES:
        if found.search(text):
            return name
    for lang in _languages(text):
        for said, cue in outcome_cues(lang):
            if cue.search(text):
                return cast(Outcome, said)
    return None


_OPTION = re.compile(r"\b(?:go (?:with|for)|take|chose|prefer)\s+(?:the\s+)?([^,.;!?]{2,80})", re.I)


def tasks(
    exchanges: Sequence[Exchange], catalogue: Catalogue, meaning: Sequence[str] = ()
) -> list[tuple[Intent, list[Exchange]]]:
    """The session's tasks: each user turn a catalogue intent recognises - by its cues, else by
    ``meaning`` (the intent closest in meaning to each turn, "" for none) - with the turns that follow
    it (up to ``WINDOW``, or until the next task request)."""
    by_meaning = list(meaning) + [""] * (len(exchanges) - len(meaning))
    starts = [(i, catalogue.recognise(t.user) or by_meaning[i]) for i, t in enumerate(exchanges)]
    starts = [(i, name) for i, name in starts if name]
    out = []
    for n, (i, name) in enumerate(starts):
        end = min(starts[n + 1][0] if n + 1 < len(starts) else len(exchanges), i + 1 + WINDOW)
        out.append((catalogue.intents[name], list(exchanges[i:end])))
    return out


_QUESTION = re.compile(r"[^.!?\u3002\uff01\uff1f]*[?\uff1f]")


def fills_slots(text: str, catalogue: Catalogue) -> list[Intent]:
    """The intents one of whose slots a user's turn gives a value, read from its statements (its
    questions left out): the facts a later task needs, kept by post-thinking even when nothing else
    keeps the turn.

    >>> [i.name for i in fills_slots("There are 8 of us now after the two new hires.", Catalogue())]
    ['restaurant', 'travel']
    >>> fills_slots("Also, what's a quick dessert for six?", Catalogue())
    []
    """
    said = _QUESTION.sub(" ", text)
    if not said.strip():
        return []
    liked = None  # whether ``said`` states no preference but a like: read once, for the first liked slot

    def gives(slot: Slot) -> bool:
        nonlocal liked
        if slot.liked and not (liked if liked is not None else (liked := _not_disliked(said))):
            return False
        return bool(_value(slot, said, ANYONE))

    return [i for i in catalogue.intents.values() if any(gives(s) for s in i.slots)]


def unit_of(intent: Intent, window: Sequence[Exchange]) -> IntentUnit:
    """The intent unit of a task's turns: each slot's value from the first user turn giving one (a
    span of what the user said), the outcome from the last turn naming one, and the option chosen.

    >>> from caim.memory.stm import Exchange
    >>> turns = [Exchange(1, "Book a table for the four of us, Italian please.", "Done - booked for 8pm!", None)]
    >>> unit = unit_of(Catalogue().intents["restaurant"], turns)
    >>> unit.slots, unit.outcome
    ({'cuisine': 'italian', 'party_size': '4'}, 'booked')
    """
    slots: dict[str, str] = {}
    where: dict[str, int] = {}
    recipient = ""
    for t in window:
        for slot in intent.slots:
            if slot.name not in slots and (value := read_slot(slot, t.user, recipient)):
                slots[slot.name], where[slot.name] = value, t.number
                recipient = value if slot.kind == "recipient" else recipient
    outcome: Outcome = "open"
    option = ""
    for t in window:
        for said in (t.user, t.assistant):
            if (found := outcome_of(said)) is not None:
                outcome = found
                m = _OPTION.search(said) if found == "chosen" and said is t.user else None
                option = m.group(1).strip() if m else option
    return IntentUnit(name=intent.name, slots=slots, turns=where, outcome=outcome, option=option[:200])


def unit_text(intent: Intent | None, unit: IntentUnit) -> str:
    """The memory sentence of an intent unit: the intent's name (a task of no catalogue intent: its
    description), its slots, its outcome (every value a span of the user's turns)."""
    said = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in unit.slots.items())
    chosen = f", chose {unit.option}" if unit.option else ""
    name = intent.name if intent is not None else unit.description
    return f"Task ({name}){': ' + said if said else ''} - {unit.outcome}{chosen}."


# ---- tasks of no catalogue intent: described by the model, matched by meaning -------------------------------------
#: The intent name of a task no catalogue intent names (its unit holds the model's description).
OTHER = "other"
#: Words a task's description holds.
DESCRIPTION_WORDS = range(2, 9)


def describe(text: str) -> str:
    """A model's description of a task, validated: two to eight words of letters (any script; "-" and
    "'" inside words), no digits or markup, lower-cased; "" when it is none.

    >>> describe("  Order groceries for the week. "), describe("book 2 tickets"), describe("x")
    ('order groceries for the week', '', '')
    """
    said = " ".join(text.split()).strip(" .!\"'").lower()
    words = said.split()
    if len(words) not in DESCRIPTION_WORDS or not all(re.fullmatch(r"[^\W\d_]+(?:['-][^\W\d_]+)*", w) for w in words):
        return ""
    return said


def unfamiliar_requests(exchanges: Sequence[Exchange], catalogue: Catalogue, known: Iterable[int]) -> list[Exchange]:
    """The user turns that asked for a task no catalogue intent names: a turn outside ``known`` (the
    turns of the catalogue's tasks) whose exchange, or the next one, reached an outcome (booked,
    ordered, cancelled, chosen), the outcome's turn not itself a catalogue task's."""
    skip = set(known)
    out = []
    for i, t in enumerate(exchanges):
        if t.number in skip or not t.user.strip() or catalogue.recognise(t.user):
            continue
        window = [w for w in exchanges[i : i + 1 + WINDOW] if w is t or w.number not in skip]
        if any(outcome_of(said) for w in window[:2] for said in (w.user, w.assistant)):
            out.append(t)
            skip.update(w.number for w in window[:2])
    return out


def other_unit(description: str, vector: Sequence[float], window: Sequence[Exchange]) -> IntentUnit:
    """The unit of a task of no catalogue intent: its description and embedding, the turn that asked
    for it, the outcome its turns name."""
    said = [text for t in reversed(window) for text in (t.assistant, t.user)]
    outcome: Outcome = next((found for text in said if (found := outcome_of(text)) is not None), "open")
    return IntentUnit(
        name=OTHER,
        turns={"request": window[0].number},
        outcome=outcome,
        description=description,
        vector=[round(float(x), 5) for x in vector],
    )


def closest_task(vector: np.ndarray, records: Iterable[MemoryRecord]) -> tuple[MemoryRecord | None, float]:
    """The current record holding a task of no catalogue intent whose description is closest in meaning
    to ``vector`` (a request's, or a new description's), and that similarity; ``(None, 0.0)`` for none.
    A stored vector of another length (written under another embedder, or imported) is passed over."""
    best: tuple[MemoryRecord | None, float] = (None, 0.0)
    for rec in records:
        unit = rec.intent
        if unit is None or unit.name != OTHER or len(unit.vector) != len(vector) or not rec.current:
            continue
        sim = float(np.asarray(unit.vector, dtype=np.float32) @ vector)
        if sim > best[1]:
            best = (rec, sim)
    return best


class _Records(Protocol):
    """What ``LearnedTasks`` reads: the user's write version and their tagged records, newest first."""

    def version(self, user_id: str) -> int: ...

    def page(self, user_id: str, offset: int, limit: int, tags: Sequence[str] | None = None) -> list[MemoryRecord]: ...


#: Users whose earlier tasks ``LearnedTasks`` keeps, records it reads per page of a user's tasks, and
#: most records it reads (the newest of the tag): the bound on the read after a write.
LEARNED_USERS = 256
LEARNED_PAGE = 500
LEARNED_MAX = 5000


class LearnedTasks:
    """Per user, the current records holding a task of no catalogue intent (``OTHER``), newest first:
    read from the newest ``LEARNED_MAX`` records tagged ``tag`` when the user's write version changes
    (any worker's write changes it), kept while it stays the same, for the ``LEARNED_USERS`` users used
    last. A turn's match costs one read of the version."""

    def __init__(self, store: _Records, tag: str = "plans"):
        self.store = store
        self.tag = tag
        self._cache = PerUserCache[list[MemoryRecord]](LEARNED_USERS)

    def of(self, user_id: str) -> list[MemoryRecord]:
        """The user's current records of tasks of no catalogue intent, newest first."""
        return self._cache.get(user_id, self.store.version(user_id), lambda: self._read(user_id))

    def _read(self, user_id: str) -> list[MemoryRecord]:
        found: list[MemoryRecord] = []
        offset = 0
        while offset < LEARNED_MAX and (page := self.store.page(user_id, offset, LEARNED_PAGE, [self.tag])):
            found += [r for r in page if r.intent is not None and r.intent.name == OTHER and r.current]
            offset += len(page)
            if len(page) < LEARNED_PAGE:
                break
        return found
