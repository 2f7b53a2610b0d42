"""Metrics computed by code: LoCoMo token F1, adversarial abstention, keyword-correct, evidence recall,
memory size.

LoCoMo F1 follows the data set's own evaluation script (snap-research/locomo,
``task_eval/evaluation.py``): commas dropped, lower-cased, ASCII punctuation removed, the words
``a``, ``an``, ``the`` and ``and`` removed, whitespace tokens; precision/recall over the token
multiset. Category 1 (multi-hop) splits prediction and reference on ``,`` and averages, over the
reference's sub-answers, the best F1 any predicted part reaches; category 3 keeps the reference's
part before the first ``;``; categories 2 and 4 use plain F1. The official script also applies
NLTK's Porter stemmer to every token; that is optional here (pass a ``stem`` callable, e.g.
``nltk.stem.PorterStemmer().stem``) because NLTK is not a dependency - without it scores can be a
little lower than the official ones (``walked`` vs ``walk`` no longer match).

Category 5 (adversarial: the conversation never says it) counts as correct only when the answer
says the information is not available; we match a wider set of phrasings than the official
``"no information available"`` / ``"not mentioned"`` (see ``ABSTENTION_PHRASES``).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans("", "", string.punctuation)

Stemmer = Callable[[str], str]


def normalize_answer(text: str) -> str:
    """LoCoMo answer normalisation: drop commas, lower-case, strip punctuation and articles, squeeze spaces."""
    s = str(text).replace(",", "").lower().translate(_PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def answer_tokens(text: str, stem: Stemmer | None = None) -> list[str]:
    """The normalized tokens of an answer, stemmed when ``stem`` is given."""
    toks = normalize_answer(text).split()
    return [stem(t) for t in toks] if stem else toks


def f1_score(prediction: str, reference: str, stem: Stemmer | None = None) -> float:
    """Token-level F1 between a prediction and one reference answer (0 when nothing overlaps)."""
    pred = answer_tokens(prediction, stem)
    ref = answer_tokens(reference, stem)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: str, reference: str, stem: Stemmer | None = None) -> float:
    """Multi-hop F1: mean over the reference's comma-separated sub-answers of the best F1 of any
    comma-separated part of the prediction."""
    preds = [p.strip() for p in str(prediction).split(",")]
    refs = [r.strip() for r in str(reference).split(",")]
    return sum(max(f1_score(p, r, stem) for p in preds) for r in refs) / len(refs)


def locomo_f1(prediction: str, reference: str, category: int, stem: Stemmer | None = None) -> float | None:
    """F1 as LoCoMo scores the category; ``None`` for category 5 (scored by ``is_abstention``)."""
    reference = str(reference)
    if category == 5:
        return None
    if category == 1:
        return multi_answer_f1(prediction, reference, stem)
    if category == 3:
        reference = reference.split(";")[0].strip()
    return f1_score(prediction, reference, stem)


#: Phrasings that say the requested information is not available (lower case, straight quotes).
ABSTENTION_PHRASES = (
    "no information available",
    "not mentioned",
    "never mentioned",
    "wasn't mentioned",
    "was not mentioned",
    "no mention",
    "no information",
    "not available",
    "don't know",
    "do not know",
    "don't have information",
    "do not have information",
    "don't have any information",
    "do not have any information",
    "don't remember",
    "do not remember",
    "don't recall",
    "do not recall",
    "can't recall",
    "cannot recall",
    "no record",
    "not specified",
    "not stated",
    "not provided",
    "not in my memory",
    "nothing in my memory",
    "can't find",
    "cannot find",
    "couldn't find",
    "could not find",
    "not sure what",
    "no details",
    "no knowledge",
)


def is_abstention(answer: str) -> bool:
    """True when the answer says the asked-for information is not available."""
    text = " ".join(str(answer).lower().replace("\u2019", "'").replace("\u2018", "'").split())
    return any(p in text for p in ABSTENTION_PHRASES)


def keyword_correct(answer: str, keywords: Iterable[str]) -> float:
    """1.0 when the answer holds every keyword (case-insensitive; ``"a|b"``: either will do), else 0.0.

    >>> keyword_correct("You said you loved Gulangyu Island.", ["gulangyu", "island|beach"])
    1.0
    >>> keyword_correct("You went to Xiamen.", ["gulangyu"])
    0.0
    """
    text = " ".join(str(answer).lower().split())
    return float(all(any(k.strip() in text for k in str(group).lower().split("|") if k.strip()) for group in keywords))


def reference_correct(answer: str, reference: str, stem: Stemmer | None = None) -> float:
    """1.0 when the answer holds every token of the reference answer (LoCoMo's normalisation: the
    reference's words are its keywords), else 0.0.

    >>> reference_correct("She went on 7 May, 2023.", "7 May 2023")
    1.0
    """
    have = set(answer_tokens(answer, stem))
    wanted = answer_tokens(reference, stem)
    return float(bool(wanted) and all(t in have for t in wanted))


_TURN_ID = re.compile(r"D:?(\d+):(\d+)")


def evidence_ids(raw: Iterable[str] | str | None) -> list[str]:
    """Turn ids from a LoCoMo ``evidence`` field (tolerates ``"D8:6; D9:17"`` style entries)."""
    if raw is None:
        return []
    items = [raw] if isinstance(raw, str) else list(raw)
    out: list[str] = []
    for item in items:
        found = [f"D{a}:{b}" for a, b in _TURN_ID.findall(str(item))]  # "D:11:26" is "D11:26"
        out.extend(found or ([str(item).strip()] if str(item).strip() else []))
    return list(dict.fromkeys(out))


def _squeeze(text: str) -> str:
    return " ".join(str(text).lower().split())


def covered_turns(records: Iterable[dict], turn_text: dict[str, str]) -> set[str]:
    """Turn ids a set of memory records stems from: ids named in ``sources[].turn_id`` (joined ids
    split on ``+``), plus every turn whose text occurs verbatim in a source's text (the assistant's
    side carries no id, and consecutive messages are joined)."""
    ids: set[str] = set()
    texts: list[str] = []
    for r in records:
        for s in r.get("sources") or []:
            if s.get("turn_id"):
                ids.update(p for p in str(s["turn_id"]).split("+") if p)
            if s.get("text"):
                texts.append(_squeeze(s["text"]))
    if texts:
        for tid, t in turn_text.items():
            needle = _squeeze(t)
            if tid not in ids and needle and any(needle in hay for hay in texts):
                ids.add(tid)
    return ids


def evidence_recall(evidence: list[str], records: Iterable[dict], turn_text: dict[str, str]) -> float | None:
    """Share of the evidence turns that the records stem from; ``None`` when there is no evidence."""
    if not evidence:
        return None
    covered = covered_turns(records, turn_text)
    return sum(1 for e in evidence if e in covered) / len(evidence)


def memory_size(records: Iterable[dict]) -> dict:
    """Entries, words (of the inductive thoughts) and words per entry - the paper's table 4."""
    recs = list(records)
    words = sum(len(str(r.get("thought", "")).split()) for r in recs)
    return {"entries": len(recs), "words": words, "words_per_entry": (words / len(recs)) if recs else 0.0}


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not ``None``; ``None`` when there are none."""
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def percentile(values: Iterable[float | None], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100) of the values that are not ``None``."""
    vals = sorted(float(v) for v in values if v is not None)
    if not vals:
        return None
    k = max(0, min(len(vals) - 1, math.ceil(q / 100 * len(vals)) - 1))
    return vals[k]
