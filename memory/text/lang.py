"""Which language a text is in, and its tables compiled into matchers.

``detect`` is cheap (two or three regular-expression passes, cached per text) and never fails:

1. Scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar): when their
   characters outnumber the words of other scripts, the text is Japanese if a tenth of those
   characters are kana, Chinese if it holds Han, else ``UNSPACED`` (no tables).
2. Words of other non-Latin scripts (Cyrillic, Greek, Arabic...) outnumbering Latin ones: ``NEUTRAL``.
3. Latin script: each lowercase word (of two letters or more, or one accented: "à") votes for
   every language whose ``votes`` hold it, and each of a language's ``marks`` ("ß", "¿") the text
   holds votes for that language. Another language than English is chosen when it has more votes
   than English and at least two (one in a text of one or two words); otherwise English, the
   default for Latin text, so English text is read exactly as before there were other languages.
   Inside ``expecting(code)`` (the language a user usually writes, ``usual``), a Latin text whose
   votes leave that language level with the best ("Hat Melanie Kinder?": "hat" votes for English
   and German alike; "Tiene hijos Melanie?": one vote for Spanish) is read in it; a text that
   favours another language is read in that one, as without an expectation; and Han without enough
   kana is read as Japanese where Japanese is expected.
4. Letters: a short Latin text (``SHORT`` words or fewer) has too few function words to decide ("Toco
   la guitarra", "Mi abuela cumple noventa"), so where another language than English has a vote
   already, each word of three letters or more that no language votes for is read by its letters: it
   votes for the language whose words its letter trigrams are likeliest in (``letters.json``, built
   from the reader's lexicon in every language by ``python -m caim.eval.letters``), when that
   language leads the next by ``LETTER_MARGIN``. The votes are then weighed as in 3.

``tabled`` lists the languages with tables (English first; ``caim.memory.text.languages`` registers
them). ``matcher`` compiles a table's phrases; ``clauses``, ``sentences`` and ``word_count`` split a
text the way its language is written.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from importlib import resources

from caim.memory.text import lang_en, lang_ja, lang_zh, languages
from caim.memory.text.tables import Language, Signals, Words

ENGLISH = lang_en.LANGUAGE


def tabled() -> tuple[Language, ...]:
    """Languages with tables (``caim.memory.text.languages``), English first; the others in the
    order ties between them are broken."""
    return tuple(m.LANGUAGE for m in languages.registered())


#: Text in a spaced script without tables (Russian, Greek...): words kept whole, no signal words.
NEUTRAL = Language(code="und", signals=Signals())
#: Text in a script without spaces and without tables (Korean, Thai): characters and pairs.
UNSPACED = Language(code="und", unspaced=True, signals=Signals())

#: One character of a script written without spaces.
UNSPACED_CHAR = (
    "[\u3005\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\uac00-\ud7af\u1100-\u11ff\u0e00-\u0eff\u1780-\u17ff\u1000-\u109f]"
)
UNSPACED_RUN = re.compile(UNSPACED_CHAR + "+")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile("[\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTERS = re.compile(r"[^\W\d_]+")
_ASCII_LETTERS = re.compile(r"[a-z]+")  # _LETTERS of lowercase ASCII text, faster
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")

#: The languages a Latin text votes between (those written with spaces, English first), and per word
#: the indexes of those it votes for (``_count_votes``).
_VOTERS: list[Language] = []
_VOTES: dict[str, tuple[int, ...]] = {}


#: The code of the language the current reader expects (``expecting``).
_EXPECTED: ContextVar[str] = ContextVar("caim_expected_language", default="en")
_VOTER_INDEX: dict[str, int] = {}

#: Most words of a Latin text whose unvoted words are read by their letters.
SHORT = 6
#: How much likelier (mean log-probability per trigram) a word's letters must be in one language than
#: in the next for the word to vote for it.
LETTER_MARGIN = 0.3


def detect(text: str) -> Language:
    """The language a text is written in (see the module's rules).

    Args:
        text: Any text.

    Returns:
        One of ``tabled()``, or ``NEUTRAL`` / ``UNSPACED`` for a script without tables.

    >>> [detect(t).code for t in ("I went home.", "Ich bin heimgegangen.", "我昨天回家了。", "昨日帰りました。")]
    ['en', 'de', 'zh', 'ja']
    >>> detect("Привет, как дела?").code, detect("").code
    ('und', 'en')
    """
    return _detect(text, _EXPECTED.get())


@contextmanager
def expecting(code: str) -> Iterator[None]:
    """Within the block, ``detect`` breaks a tie of votes in a Latin text for the language ``code``
    (a voting language: English, German, French, Spanish), and reads Han without enough kana as
    Japanese for ``"ja"`` (as Chinese otherwise). Any other code expects nothing more than English.
    The expectation is the context's (``contextvars``): it holds in this thread or task only.

    >>> detect("Hat Melanie Kinder?").code, detect("東京駅").code
    ('en', 'zh')
    >>> with expecting("de"):
    ...     detect("Hat Melanie Kinder?").code, detect("Where does Caroline live?").code
    ('de', 'en')
    >>> with expecting("ja"):
    ...     detect("東京駅").code, detect("我昨天回家了。").code
    ('ja', 'ja')
    """
    token = _EXPECTED.set(code)
    try:
        yield
    finally:
        _EXPECTED.reset(token)


def usual(texts: Iterable[str]) -> str:
    """The language most of ``texts`` are in, as ``detect`` reads each alone (a tie: the first of
    ``tabled()``, English first; no texts: English).

    >>> usual(["Ich bin müde.", "Wir waren in Berlin.", "ok"])
    'de'
    """
    counts = Counter(_detect(t, ENGLISH.code).code for t in texts)
    order = {lang.code: i for i, lang in enumerate(tabled())}
    return min(counts, key=lambda c: (-counts[c], order.get(c, len(order)), c)) if counts else ENGLISH.code


@lru_cache(maxsize=8192)
def _detect(text: str, expected: str) -> Language:
    words, lowered = _words(text)
    if not text.isascii():
        runs = "".join(UNSPACED_RUN.findall(text))
        if len(runs) > len(words):
            return script_language(runs, expected)
        if sum(1 for w in words if _LATIN.match(w)) * 2 < len(words):
            return NEUTRAL
    return _by_votes(words, lowered, expected)


def _words(text: str) -> tuple[list[str], str]:
    """A text's lowercase words (those of its spaced runs) and the lowercase text its marks are counted
    in ("" for ASCII text, which holds none): what ``_counts`` reads."""
    if text.isascii():
        return _ASCII_LETTERS.findall(text.lower()), ""
    return _LETTERS.findall(UNSPACED_RUN.sub(" ", text).lower()), text.lower()


def plausible(text: str) -> tuple[Language, ...]:
    """The languages a text may be in, likeliest first: the one ``detect`` reads it in, then each other
    language with tables written the same way that the detection could not rule out. A short text's
    language is a guess ("Melanie hat Kinder." is English by its votes, and German by its words); a
    reader that finds nothing in the detected language reads the text in these, in turn.

    - Latin text: each other voting language with at least as many votes (rules 3 and 4, letters
      included) as the detected one, most votes first (a tie: ``tabled()``'s order). The detected one
      won by the default (English), the expectation or the order ties are broken in, not by its votes.
    - Scripts without spaces: where the kana are a tenth of the characters, Japanese alone (no other
      language is written with them); Han without enough kana, the other tabled language written
      without spaces too (Chinese beside Japanese).
    - A script without tables: the detected reading alone.

    >>> [[x.code for x in plausible(t)] for t in ("Melanie hat Kinder.", "I teach chemistry in Leeds.", "ok")]
    [['en', 'de'], ['en'], ['en', 'de', 'fr', 'es']]
    >>> [[x.code for x in plausible(t)] for t in ("结婚五年了。", "昨日帰りました。", "Привет!")]
    [['zh', 'ja'], ['ja'], ['und']]
    """
    return _plausible(text, _EXPECTED.get())


@lru_cache(maxsize=8192)
def _plausible(text: str, expected: str) -> tuple[Language, ...]:
    detected = _detect(text, expected)
    if detected not in tabled():
        return (detected,)
    if detected.unspaced:
        chars = "".join(UNSPACED_RUN.findall(text))
        kana = len(_KANA.findall(chars))
        if kana and kana * 10 >= len(chars):
            return (detected,)
        return (detected, *(x for x in tabled() if x.unspaced and x is not detected))
    counts = _counts(*_words(text))
    least = counts[_VOTER_INDEX[detected.code]]
    others = sorted(
        (i for i, n in enumerate(counts) if n >= least and _VOTERS[i] is not detected), key=lambda i: -counts[i]
    )
    return (detected, *(_VOTERS[i] for i in others))


@languages.on_change
def _count_votes() -> None:
    """The voters and their words from the registered languages (what was detected before is dropped)."""
    _VOTERS[:] = [lang for lang in tabled() if not lang.unspaced]
    _VOTES.clear()
    for i, lang in enumerate(_VOTERS):
        for w in (w for w in lang.votes if len(w) > 1 or not w.isascii()):  # "y", "a": no language; "à" does
            _VOTES[w] = (*_VOTES.get(w, ()), i)
    _VOTER_INDEX.clear()
    _VOTER_INDEX.update({lang.code: i for i, lang in enumerate(_VOTERS)})
    _detect.cache_clear()
    _plausible.cache_clear()


_count_votes()


def script_language(chars: str, expected: str | None = None) -> Language:
    """The language of characters of scripts written without spaces: Japanese when a tenth of them
    are kana, Chinese when they hold Han (Japanese where Japanese is ``expected``; ``None``: the
    context's expectation, ``expecting``), else ``UNSPACED``."""
    kana = len(_KANA.findall(chars))
    if kana and kana * 10 >= len(chars):
        return lang_ja.LANGUAGE
    if not _HAN.search(chars):
        return UNSPACED
    return lang_ja.LANGUAGE if (_EXPECTED.get() if expected is None else expected) == "ja" else lang_zh.LANGUAGE


def trigrams(word: str) -> list[str]:
    """A word's letter trigrams, its ends marked ("^" and "$")."""
    w = f"^{word}$"
    return [w[i : i + 3] for i in range(len(w) - 2)]


@cache
def _letters() -> dict[str, tuple[dict[str, float], float]]:
    """Each voting language's trigram log-probabilities and floor (``letters.json``)."""
    raw = json.loads(resources.files("caim.memory.text").joinpath("letters.json").read_text(encoding="utf-8"))
    return {code: (p["grams"], p["floor"]) for code, p in raw.items()}


def letter_vote(word: str) -> str | None:
    """The voting language a word's letters favour by ``LETTER_MARGIN`` (``None``: none does, or the
    word is shorter than three letters).

    >>> letter_vote("guitarra"), letter_vote("chemistry"), letter_vote("ab")
    ('es', 'en', None)
    """
    if len(word) < 3:
        return None
    grams = trigrams(word)
    profiles = _letters()
    scores = []
    for language in _VOTERS:
        if language.code in profiles:
            p, floor = profiles[language.code]
            scores.append((sum(p.get(g, floor) for g in grams) / len(grams), language.code))
    scores.sort(reverse=True)
    if not scores or (len(scores) > 1 and scores[0][0] - scores[1][0] < LETTER_MARGIN):
        return None
    return scores[0][1]


def _counts(words: list[str], text: str) -> list[int]:
    """Each voting language's votes in a Latin text's lowercase ``words`` (and its ``marks`` in ``text``,
    the lowercase text; "" for ASCII text, which holds none), by the module's rules 3 and 4."""
    counts = [sum(1 for c in language.marks if c in text) for language in _VOTERS] if text else [0] * len(_VOTERS)
    for voters in filter(None, map(_VOTES.get, words)):
        for i in voters:
            counts[i] += 1
    if len(words) <= SHORT and any(counts[1:]):
        for w in words:
            if w not in _VOTES and (code := letter_vote(w)) in _VOTER_INDEX:
                counts[_VOTER_INDEX[code]] += 1
    return counts


def _by_votes(words: list[str], text: str, expected_code: str) -> Language:
    counts = _counts(words, text)
    if (expected := _VOTER_INDEX.get(expected_code, 0)) and counts[expected] == max(counts):
        return _VOTERS[expected]
    best = max(range(1, len(_VOTERS)), key=lambda i: counts[i], default=0)  # English alone: English
    enough = counts[best] >= 2 or (counts[best] == 1 and len(words) <= 2)
    return _VOTERS[best] if counts[best] > counts[0] and enough else ENGLISH


def signals_of(text: str) -> Signals | None:
    """The signal tables of the text's language; ``None`` for English (its grammar is the modules')."""
    return detect(text).signals


def normal(text: str) -> str:
    """Text as the tables are matched against: NFKC (full-width forms to plain ones: "？" to "?",
    "５" to "5"), typographic apostrophes to "'", whitespace folded."""
    return " ".join(unicodedata.normalize("NFKC", text).replace("\u2019", "'").split())


def alternation(words: Words) -> str:
    """A regular-expression alternation of phrases, longest first (spaces: any whitespace; an
    apostrophe: either kind)."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(re.escape(w).replace(r"\ ", r"\s+").replace("'", "['\u2019]") for w in ordered)


@cache
def matcher(words: Words, unspaced: bool) -> re.Pattern[str]:
    """A case-insensitive pattern finding any of the phrases: as whole words in a spaced language,
    anywhere in an unspaced one. No phrases: a pattern that never matches.

    >>> bool(matcher(("wie viele",), False).search("Wie  viele?")), bool(matcher(("wie",), False).search("Wiesel"))
    (True, False)
    """
    if not words:
        return re.compile(r"(?!)")
    body = alternation(words)
    return re.compile(body if unspaced else rf"(?<![^\W_])(?:{body})(?![^\W_])", re.I)


def found(words: Words, text: str, language: Language) -> bool:
    """Does the text hold one of the phrases (``matcher`` in the language's way of writing)?"""
    return matcher(words, language.unspaced).search(text) is not None


def opens_with(words: Words, text: str, language: Language) -> bool:
    """Does the text open with one of the phrases (``matcher`` in the language's way of writing)?"""
    return matcher(words, language.unspaced).match(text) is not None


_CLAUSE = re.compile(r"[,;:.!?\u3001\u3002\uff0c\uff1b\uff01\uff1f]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])(?=\S)|(?<=[!?])(?=[^\s!?])")


def clauses(text: str) -> list[str]:
    """The text split at punctuation (commas, stops, marks; the full-width ones too)."""
    return [c for c in _CLAUSE.split(text) if c.strip()]


def sentences(text: str) -> list[str]:
    """The text split after each sentence's end: ".!?" and a space, or "。！？" (no space follows them).

    >>> sentences("我养了一只狗。它叫小白！你呢？"), sentences("Ich war da. Du auch?")
    (['我养了一只狗。', '它叫小白！', '你呢？'], ['Ich war da.', 'Du auch?'])
    """
    return [s for s in _SENTENCE.split(text) if s.strip()]


def word_count(text: str, language: Language) -> int:
    """Words in a text: spaced ones, plus one per two characters of an unspaced script (a Chinese or
    Japanese word is one to two characters long)."""
    if not language.unspaced:
        return len(text.split())
    runs = "".join(UNSPACED_RUN.findall(text))
    return len(_LETTERS.findall(UNSPACED_RUN.sub(" ", text))) + (len(runs) + 1) // 2


def number(word: str) -> int | None:
    """The value of a number in digits or in characters ("12", "十二", "二十三"), else ``None``.

    >>> number("12"), number("十二"), number("二十三"), number("三十"), number("x")
    (12, 12, 23, 30, None)
    """
    if word.isdigit():
        return int(word)
    digits = lang_zh.NUMERALS
    if not word or any(c not in digits for c in word):
        return None
    if "十" not in word:
        return int("".join(str(digits[c]) for c in word))
    tens, _, ones = word.partition("十")
    return (digits[tens] if tens else 1) * 10 + (digits[ones] if ones else 0)
