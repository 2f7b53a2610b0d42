"""The letters of each voting language (``caim.memory.text.lang``'s letter votes): how often each
three-letter run of a word is written in it, from the words of the reader's lexicon
(``memory/reading/lexicon.json``, the same terms in every language) and the language's own votes.

``python -m caim.eval.letters`` rewrites ``memory/text/letters.json``; run it after the lexicon or a
language's votes change.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

from caim.memory.reading import Lexicon
from caim.memory.text import lang

#: Where ``caim.memory.text.lang`` reads the table.
OUT = Path(lang.__file__).with_name("letters.json")
_WORD = re.compile(r"[^\W\d_]+")


def profiles(lexicon: Lexicon) -> dict[str, dict]:
    """Per voting language with lexicon words: the log-probability of each letter trigram of its words
    (``^``/``$`` mark a word's ends; add-half smoothed) and ``floor``, that of a trigram never seen."""
    out: dict[str, dict] = {}
    for language in lang.tabled():
        if language.unspaced:
            continue
        words = {
            w
            for e in lexicon.entries
            for phrase in e.words.get(language.code, ())
            for w in _WORD.findall(phrase.lower())
        }
        words |= {w for phrase in language.votes for w in _WORD.findall(phrase.lower())}
        if not words:
            continue
        counts = Counter(g for w in words for g in lang.trigrams(w))
        total = sum(counts.values()) + 0.5 * len(counts)
        out[language.code] = {
            "floor": round(math.log(0.5 / total), 2),
            "grams": {g: round(math.log((n + 0.5) / total), 2) for g, n in sorted(counts.items())},
        }
    return out


def main() -> None:
    """Write ``letters.json`` from the shipped lexicon."""
    OUT.write_text(json.dumps(profiles(Lexicon.shared()), ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
