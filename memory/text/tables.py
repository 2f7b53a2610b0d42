"""The shape of a language's tables: what tokenization and each code signal read per language.

Tables compare and hash by identity (one object per language), so compiled matchers can be cached
per table.

A ``Language`` holds its words as data (lowercase phrases, matched as whole words in a language
written with spaces and as substrings in one written without); ``caim.memory.text.lang`` detects
which language a text is in and compiles these tables into matchers. English keeps its grammar in
the signal modules themselves (``signals``, ``dates``, ``smalltalk``, ``names``, ``capture``): its
``Language`` carries only what detection and tokenization need, and ``signals`` is ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import product

Words = tuple[str, ...]

#: English weekday names, Monday first: the words of ``caim.memory.text.dates``' grammar.
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True, eq=False)
class PastTense:
    """How a speaker tells of something they did ("I went", "ich habe ... gebacken", "我去了").

    Written with spaces, a clause tells a past action when it holds one of ``subjects`` (or needs
    none: ``subject_required`` false, as in Spanish and Japanese) and either a word of ``simple``
    (a simple-past form) or a word of ``auxiliaries`` with a word matching ``participle`` (a regular
    expression over one lowercase word) that follows none of ``not_after`` (an article: "j'ai un
    ami" holds no participle). Written without spaces, a marker of ``markers`` follows a
    subject within the clause (or, ``subject_required`` false, ends the clause).
    """

    subjects: Words = ()
    auxiliaries: Words = ()
    participle: str = ""
    not_after: Words = ()
    simple: Words = ()
    #: Words ending in one of ``simple_endings`` count as simple past unless listed in ``not_simple``.
    simple_endings: Words = ()
    not_simple: Words = ()
    markers: Words = ()
    subject_required: bool = True


@dataclass(frozen=True, eq=False)
class TimeWords:
    """Time expressions of a language, each tied to the English phrase of ``caim.memory.text.dates``
    that means the same, so that English's grammar and resolvers (``caim.memory.text.timeref``) serve it.

    ``phrases``: whole phrases to their English phrase ("gestern" -> "yesterday"). ``ago``: a
    template of "<count> <unit> ago", with ``{count}`` and ``{unit}`` where those go (a regular
    expression otherwise); ``counts`` and ``units``: their words to English ("drei" -> "3", "ein
    paar" -> "a few"; "tagen" -> "day"). ``months`` and ``weekdays``: names (and abbreviations) to
    1-12 and 0-6 (Monday 0). ``dates``: templates of a written date with ``{day}``, ``{month}``
    and ``{year}`` (named groups ``day``, ``month``, ``year``; ``year`` optional in the template).
    ``in_month``: templates of a month named alone ("im Mai"), with ``{month}``. ``markers``:
    further words that mention a time ("seit", "früher") without naming one.
    """

    phrases: dict[str, str] = field(default_factory=dict)
    ago: str = ""
    counts: dict[str, str] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    months: dict[str, int] = field(default_factory=dict)
    weekdays: dict[str, int] = field(default_factory=dict)
    dates: Words = ()
    in_month: Words = ()
    markers: Words = ()


@dataclass(frozen=True, eq=False)
class Signals:
    """The words each code signal of ``caim.memory.text`` looks for in one language.

    Attributes:
        first_person: The speaker as subject or owner ("ich", "mein", "wir").
        third_person: Someone else as subject ("er", "sie").
        telling: Verbs of being, having, liking, doing - a statement about the subject.
        reactions: A reaction to the other side ("tut mir leid") that tells nothing of the speaker.
        past: How a past action is told.
        past_reference: References to the shared past ("erinnerst du dich", "letztes Mal").
        asks_past: Words of a question about how things were ("früher", "damals").
        when: Question words asking for a time ("wann", "in welchem Jahr").
        aggregate: Question words asking for a count or a list ("wie viele").
        question_words: Words that open a question ("was", "wer").
        question_ends: Particles that end a question ("吗").
        greetings: Greetings and thanks.
        exclamations: Praise and exclamations.
        sign_offs: Assent and farewells (small talk as a whole message only).
        openers: Words that open a sentence before its statement ("ja", "also").
        not_names: Capitalised words that are no name inside a sentence ("Ich", "Danke").
        name_markers: Words before (``name_before``) or after (``name_after``) a name ("叫", "さん").
        speaker_self: How a speaker names themselves, alone (``self_one``: "我") and with the other
            (``self_both``: "我们"), and the words that join two names (``joins``: "和"): what a
            question's named speakers become in the vector it is embedded as (``in_first_person``);
            empty where the rest of the sentence would have to agree (German, French, Spanish).
        noun_capitals: Every noun is capitalised (German): a name needs more than a capital.
        determiners: Words after which a capitalised word is a noun, not a name ("der", "meinen").
        noun_endings: Endings of capitalised nouns that are no name ("-ung", "-heit").
        quotes: Characters that open a quoted title.
        titles: Pairs of brackets that hold a title ("《", "》").
        giving: The assistant giving something ("ich empfehle").
        accepting: The user taking up what they were given ("danke", "gute idee", "probiere ich").
        refusing: ... or turning it down ("nein danke", "lieber nicht").
        claims: The assistant telling the user what they said or are ("du hast erwähnt", "deine").
        wishes: Wishes and parting lines ("viel Spaß", "bis bald").
        time: Time expressions.
        dropped: Where a language leaves the speaker unsaid (Chinese, Japanese), what tells of them in a
            sentence without a subject: what they just did, are doing, plan, keep doing or like ("刚",
            "打算", "ている", "つもり", "大好き").
        addressing: The other side named, advised or understood ("你", "あなた", "たらどう", "分かります"): a
            sentence holding one is not of the speaker.
    """

    first_person: Words = ()
    third_person: Words = ()
    telling: Words = ()
    reactions: Words = ()
    past: PastTense = field(default_factory=PastTense)
    past_reference: Words = ()
    asks_past: Words = ()
    when: Words = ()
    aggregate: Words = ()
    question_words: Words = ()
    question_ends: Words = ()
    greetings: Words = ()
    exclamations: Words = ()
    sign_offs: Words = ()
    openers: Words = ()
    not_names: Words = ()
    name_before: Words = ()
    name_after: Words = ()
    self_one: str = ""
    self_both: str = ""
    joins: Words = ()
    noun_capitals: bool = False
    determiners: Words = ()
    noun_endings: Words = ()
    quotes: str = '"\u201c'
    titles: tuple[tuple[str, str], ...] = ()
    giving: Words = ()
    accepting: Words = ()
    refusing: Words = ()
    claims: Words = ()
    wishes: Words = ()
    time: TimeWords = field(default_factory=TimeWords)
    dropped: Words = ()
    addressing: Words = ()


@dataclass(frozen=True, eq=False)
class Language:
    """One language: how its text is split into index terms, and its signal tables.

    Attributes:
        code: ISO 639-1 code ("de"); "und" for text in no known language.
        stemmer: PyStemmer's algorithm name ("german"), or ``None``: words are kept whole.
        stopwords: Words left out of the index (lowercase; single characters for ``unspaced``).
        votes: Words that, counted in a text, tell this language from the others (lowercase).
        marks: Characters only this language (of those with tables) writes ("ß", "¿"): each one a
            text holds is one more vote.
        unspaced: Written without spaces between words (Chinese, Japanese).
        signals: The code signals' tables; ``None`` for English (its grammar is in the modules).
    """

    code: str
    stemmer: str | None = None
    stopwords: frozenset[str] = frozenset()
    votes: frozenset[str] = frozenset()
    marks: str = ""
    unspaced: bool = False
    signals: Signals | None = None


def combine(modifiers: dict[str, str], units: dict[str, str], *, after: bool = False, sep: str = " ") -> dict[str, str]:
    """Phrases of a modifier and a unit of time to their English phrase ("letzte" + "woche" -> "last
    week"; ``after``: the modifier follows the unit, "semaine dernière"; ``sep``: what joins them,
    nothing in a language written without spaces).

    >>> combine({"letzte": "last"}, {"woche": "week"}), combine({"dernière": "last"}, {"semaine": "week"}, after=True)
    ({'letzte woche': 'last week'}, {'semaine dernière': 'last week'})
    """
    return {
        (f"{u}{sep}{m}" if after else f"{m}{sep}{u}"): f"{em} {eu}"
        for (m, em), (u, eu) in product(modifiers.items(), units.items())
    }


def words(text: str) -> Words:
    """The words of a table written as one string, split at whitespace.

    >>> words("ich mich  mir")
    ('ich', 'mich', 'mir')
    """
    return tuple(text.split())


def phrases(text: str) -> Words:
    """The phrases of a table written as one string, separated by semicolons.

    >>> phrases("tut mir leid; freut mich;")
    ('tut mir leid', 'freut mich')
    """
    return tuple(p for p in (" ".join(x.split()) for x in text.split(";")) if p)


def spelled(*choices: Words) -> Words:
    """Every phrase made of one choice from each group, in order (an empty choice leaves its group out).

    >>> spelled(("ich bin", "bin"), ("", "so"), ("froh",))
    ('ich bin froh', 'ich bin so froh', 'bin froh', 'bin so froh')
    """
    return tuple(" ".join(w for w in combo if w) for combo in product(*choices))


def counting(text: str, start: int) -> dict[str, str]:
    """Number words written as one string, to their digits from ``start`` on.

    >>> counting("zwei drei", 2)
    {'zwei': '2', 'drei': '3'}
    """
    return {w: str(i) for i, w in enumerate(text.split(), start=start)}


def table_words(signals: Signals) -> frozenset[str]:
    """Every word of a language's signal tables (its phrases split; not the noun endings, which are no
    words, nor ``not_names``, which hold "User" and "Assistant"), for detection: "wann", "cuántos" and
    "erzählt" tell their language as its stopwords do."""
    time = signals.time
    groups: list[Iterable[str]] = [time.phrases, time.counts, time.units, time.months, time.weekdays, time.markers]
    for name, value in vars(signals).items():
        if isinstance(value, tuple) and name not in ("noun_endings", "titles", "not_names"):
            groups.append(value)
    groups += [signals.past.subjects, signals.past.auxiliaries, signals.past.simple]
    return vote_words(*groups)


def vote_words(*groups: Iterable[str]) -> frozenset[str]:
    """The single words of some tables (phrases split at spaces and apostrophes), for detection."""
    out: set[str] = set()
    for g in groups:
        for phrase in g:
            out.update(w for w in phrase.lower().replace("'", " ").replace("-", " ").split() if w)
    return frozenset(out)


@dataclass(frozen=True, eq=False)
class PolarityWords:
    """How a speaker says they (or someone they name) like or dislike something
    (``caim.memory.text.polarity``). Phrases are lowercase; a phrase that holds its own negation
    ("can't stand") is listed whole.

    Cues whose subject holds the attitude:

    - ``likes``, ``dislikes``, ``neutral``: cue phrases of each polarity ("love", "hate", "don't mind").
    - ``bare``: like cues that count only right after a word of ``before_bare`` ("I like tea", never
      "looks like rain") or right before a word of ``after_bare`` ("Jazz mag ich").
    - ``stems``: like cues matched at a word's start ("lieblings" in "Lieblingsbuch").

    Cues naming what pleases or displeases, whose holder is always the speaker:

    - ``praise``, ``scorn``: a verdict ("the film was amazing", "that book was boring", "X makes me
      happy", "is my escape"). A verdict counts only with a subject before it in its clause (an
      exclamation, "Amazing!", is a reaction; unless its sentence holds a word of ``ever``: "best
      pasta of my life"), and not where a word of ``reactions`` precedes it in its clause ("that's
      amazing", "sounds fun", "he's amazing": a reaction or praise of a person), nor where its clause
      opens with one of ``pointers`` and holds one of ``present`` ("this painting is gorgeous": what
      the other side shows; "that book was boring" is a verdict), nor where one of
      ``events`` is next to it (a one-off: "the party was so fun"). A one-word verdict before a noun
      describes it: it counts before one of ``works`` ("such a beautiful film", "dreadful food"), or
      before one of ``trail`` ("amazing though"), never before another noun ("a lovely couple").
    - ``nouns``, ``bad_nouns``: like and dislike nouns ("favourite", "passion", "pet peeve") that count
      only after one of ``owners`` within three words in their clause ("my favourite", "mon dessert
      préféré"): a first-person owner (one of ``selves``) makes it the speaker's, a word of
      ``others`` ("your") no preference, any other (or a name with "'s") its holder.

    What turns or rules out a cue:

    - ``negations``: words that, shortly before a cue in its clause (or just after it), turn a like
      into a dislike and a dislike into neutral ("I don't love it anymore"); ``unmatched``: negations
      that turn nothing when one of ``rivals`` follows the cue in its clause ("nothing relaxes me like a
      long swim": the swim relaxes most).
    - ``once``: cues of a one-off reaction ("loved", "enjoyed"): the speaker's verdict on a thing, but
      no lasting preference of someone else's ("my sister tried it and loved it").
    - ``blocks``: phrases holding a cue that state no preference - a wish, a plan, affection, an
      order ("would love to", "love you", "enjoy your trip"); they win over a cue they overlap.
    - ``orders``: cues that, with no subject before them in their clause, are an order or a wish
      ("Enjoy!", "enjoy the rest of your trip").
    - Whose it is (written with spaces): the subject before the cue in its clause, past
      ``fillers`` ("really", "kind of", "is"): one of ``selves`` (or no subject) is the speaker; one
      of ``others`` ("you", "who", "their", "the") makes it no preference of anyone's ("you must love
      it", "their love and support"); one of ``holders`` ("he", "she"), a capitalised name or a
      noun after one of ``owners`` ("my son") is the holder; after one of ``joins`` ("and", "to")
      the sentence's earlier subject is. One of ``addressee`` just after the cue makes it a
      reaction to the other side ("I love your painting", "love how you did it"). Written without
      spaces: one of ``holders`` in the cue's clause before it names the holder ("我儿子喜欢",
      "妹はジャズが好き"), unless one of ``selves`` follows it there; a holder right before one of
      ``possessives`` owns a thing and holds nothing ("彼女の歌声に虜", "她的歌我很爱听").

    The reason: ``reasons``: markers after which the rest of the sentence is the reason ("because",
    "weil", "因为"). ``reason_openers``: words that open a clause after the cue's clause which is
    then the reason, opener included ("..., too noisy"). ``reasons_before``: markers that end a
    reason told before them in their clause ("うるさいから").
    """

    likes: Words = ()
    dislikes: Words = ()
    neutral: Words = ()
    bare: Words = ()
    before_bare: Words = ()
    after_bare: Words = ()
    stems: Words = ()
    praise: Words = ()
    scorn: Words = ()
    reactions: Words = ()
    pointers: Words = ()
    present: Words = ()
    events: Words = ()
    works: Words = ()
    trail: Words = ()
    ever: Words = ()
    nouns: Words = ()
    bad_nouns: Words = ()
    owners: Words = ()
    negations: Words = ()
    once: Words = ()
    orders: Words = ()
    blocks: Words = ()
    selves: Words = ()
    holders: Words = ()
    possessives: Words = ()
    others: Words = ()
    addressee: Words = ()
    fillers: Words = ()
    joins: Words = ()
    reasons: Words = ()
    reason_openers: Words = ()
    reasons_before: Words = ()
    unmatched: Words = ()
    rivals: Words = ()


@dataclass(frozen=True, eq=False)
class SlotWords:
    """How a speaker states a single-value fact about themselves (``caim.memory.text.slots``).

    ``patterns``: (attribute, regular expression) pairs, matched without regard to case, each holding
    ``{v}`` where a stated value stands (a name, a place, an employer: the rest of the clause, cut at
    the first word of ``stops`` - as a substring in a language written without spaces) or ``{n}``
    where a number stands (an age). ``values``: (attribute, value, regular expression) triples of
    statements that name a value of a closed set ("I stopped eating meat" is the diet
    ``vegetarian``; the values are English words, so the same value said in two languages is the
    same). ``not_values``: words a stated value never starts with ("a", "my": "I moved to a new
    flat" names no city). ``articles``: words dropped from a value's start ("the"). ``others``: a
    regular expression that finds another person as a sentence's subject ("妹は"), for a language
    whose patterns cannot start at the speaker (Japanese drops the subject): such a sentence holds
    no slot.
    """

    patterns: tuple[tuple[str, str], ...] = ()
    values: tuple[tuple[str, str, str], ...] = ()
    stops: Words = ()
    not_values: Words = ()
    articles: Words = ()
    others: str = ""


#: (kind, relation, pattern) rows of an ``EntityWords`` table.
EntityPatterns = tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, eq=False)
class EntityWords:
    """How a speaker names the work, places, people and pets of their life (``caim.memory.text.entities``).

    Patterns are regular expressions matched without regard to case in one sentence. Where a value
    stands a pattern holds ``{v}`` (a span cut as ``SlotWords`` cut a value: at a stop word, never
    starting with a word of ``not_values``), ``{job}`` (a job's words, ending in a word of ``jobs``),
    ``{name}`` (capitalised words; in a language written without spaces, ``name``), or a group
    ``value`` of its own; ``{jobs}`` is a job noun without a group, ``{rel}`` a word of ``relatives``
    (group ``rel``), ``{pet}`` a word of ``pets`` (group ``pet``), ``{adj}`` an optional word of
    ``adjectives``. A row's kind is ``job``, ``employer``, ``place``, ``site`` (a workplace that is
    an employer or a place by its words: ``org_words``, ``place_words``), ``person`` or ``pet``; its
    relation a place's (``home``, ``work``, ``origin``, ``travel``), else "".

    - ``mine``: statements of the speaker beyond the single-value ones ``SlotWords`` read ("I'm a
      nurse", "I'm from Lyon").
    - ``holder``: another person of the speaker's as a subject ("my sister Clara, who"): ``{rel}``
      and an optional ``{name}``; ``theirs``: statements of theirs, matched right after it.
    - ``job_verbs`` and ``their_job_verbs``: (pattern, template, bare) of a job told as what the
      speaker (or a holder) does ("I teach {v}"): the job is ``template`` with ``{v}`` its object
      ("{v} teacher"), or ``bare`` without one; ``elisions``: (pattern, replacement) applied to it
      ("de anglais" to "d'anglais"). Where the job is done may stand before the verb (a ``site`` group:
      "我在{site}教", "{site}で...を教えて") or after it (``tails``); a site there that is no employer by
      its words is a place of work.
    - ``tails``: statements after a job or employer in its clause ("in {v}": where they work).
    - ``people`` and ``animals``: patterns of a named person (``{rel}``, ``{name}``) and of a pet
      (``{pet}``, with ``{name}`` or none: "I have a dog") of the speaker's.
    - ``jobs``: job nouns (lowercase); ``compounds``: a job noun may end a longer word
      ("Grundschullehrerin"); ``job_after`` and ``job_before``: patterns of the words that may follow
      or precede a job noun as part of it ("de chimie", "小学校の"); ``adjectives``: words that may
      stand before a relation or an animal ("best": "my best friend Sam"). ``not_jobs``: words that,
      before a job noun, make it no job ("good": "a good cook", "fan of": "a fan of teachers").
    - ``relatives``: a relation's word to the English relation; ``pets``: an animal's to the English animal.
    - ``being``: a pattern of a statement of being ("I'm", "ich bin"): a job ``SlotWords`` read in one
      must end in a word of ``jobs`` ("I'm an expert hiker now" states no job).
    - ``sites``: a pattern of a slot statement whose employer may be a place ("trabajo en", "在").
    - ``hypothetical``: words after which a sentence states nothing ("if", "would", "如果").
    - ``joins``: words that start another clause ("and", "but"): a tail stops there.
    - ``stops``: words a value ends before, beside ``SlotWords.stops`` ("to": "I teach English to adults").
    - ``connectors``: lowercase words inside a name ("of": "University of Leeds").
    - ``not_values``: words no name or value starts with ("IT", "Nähe").
    - ``name``: a name in a language written without spaces (a regular expression, group ``value``).
    """

    mine: EntityPatterns = ()
    holder: str = ""
    theirs: EntityPatterns = ()
    job_verbs: tuple[tuple[str, str, str], ...] = ()
    their_job_verbs: tuple[tuple[str, str, str], ...] = ()
    elisions: tuple[tuple[str, str], ...] = ()
    tails: EntityPatterns = ()
    people: Words = ()
    animals: Words = ()
    jobs: Words = ()
    compounds: bool = False
    job_after: str = ""
    job_before: str = ""
    not_jobs: Words = ()
    adjectives: Words = ()
    relatives: dict[str, str] = field(default_factory=dict)
    pets: dict[str, str] = field(default_factory=dict)
    being: str = ""
    sites: str = ""
    org_words: Words = ()
    place_words: Words = ()
    hypothetical: Words = ()
    joins: Words = ()
    stops: Words = ()
    connectors: Words = ()
    not_values: Words = ()
    name: str = ""
