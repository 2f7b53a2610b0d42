"""Language heuristics in code, one concern per module; this package re-exports what callers use.

- ``lang``: which language a text is in (English, German, French, Spanish, Chinese, Japanese, or
  none with tables), and their tables compiled into matchers; ``tables`` the shape of a language's
  tables, ``lang_en`` ... ``lang_ja`` the tables themselves (docs/languages.md);
- ``tokens``: stopwords, the tokenizer (Snowball stems) the lexical index and its queries share,
  number words, text made safe to store (UTF-8);
- ``names``: capitalised words that name someone or something, with one lexicon of those that do not;
- ``dates``: the month and weekday table, the grammar of time expressions, dates in a question as
  day windows;
- ``signals``: what a message shows without a model - memory signals (``MemorySignals``), the
  informativeness prior, "when" and aggregate questions;
- ``grounding``: the specifics (dates, numbers, names) an answer asserts and which its context does
  not hold, and the digit runs two texts stating the same details share;
- ``smalltalk``: greetings, thanks, praise and farewells, as a whole message or as words.

Every module here imports only the standard library, PyStemmer and its siblings. Each signal reads
English with its own grammar and another language with that language's tables.
"""

from caim.memory.text.dates import (
    MONTHS,
    TIME_EXPRESSION,
    WEEKDAYS,
    date_windows,
    has_time_expression,
)
from caim.memory.text.grounding import DIGITS, specifics, states_a_date, unsupported
from caim.memory.text.lang import detect, expecting, usual
from caim.memory.text.names import IMAGE_MARK, NOT_NAMES, NOT_SUBJECTS, names
from caim.memory.text.signals import (
    PRIOR_WEIGHTS,
    MemorySignals,
    asks_about_past,
    in_first_person,
    is_aggregate_question,
    is_when_question,
    memory_signals,
    named_speakers,
    prior,
    tells_past_action,
    without_speakers,
)
from caim.memory.text.smalltalk import OPENERS, SMALL_TALK_STEMS, is_small_talk, without_opener
from caim.memory.text.tokens import NUMBER_WORDS, STOPWORDS, storable, tokenize

__all__ = [
    "DIGITS",
    "IMAGE_MARK",
    "MONTHS",
    "NOT_NAMES",
    "NOT_SUBJECTS",
    "NUMBER_WORDS",
    "OPENERS",
    "PRIOR_WEIGHTS",
    "SMALL_TALK_STEMS",
    "STOPWORDS",
    "TIME_EXPRESSION",
    "WEEKDAYS",
    "MemorySignals",
    "asks_about_past",
    "date_windows",
    "detect",
    "expecting",
    "has_time_expression",
    "in_first_person",
    "is_aggregate_question",
    "is_small_talk",
    "is_when_question",
    "memory_signals",
    "named_speakers",
    "names",
    "prior",
    "specifics",
    "states_a_date",
    "storable",
    "tells_past_action",
    "tokenize",
    "unsupported",
    "usual",
    "without_opener",
    "without_speakers",
]
