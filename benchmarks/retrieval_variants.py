"""Other forms of the ranking's text signals, measured as ``caim eval retrieval --cv`` measures caim.

Each variant replaces the evidence of one signal (the dense z-score, or the lexical one) in every
question's ``Scoring`` and ranks it as the search does: under the shipped weights, and with each
conversation ranked by weights fitted on the other conversations only (``caim.eval.fit``). A variant
worth shipping raises the cross-validated recall@10, not only the in-sample one.

Variants (``variants``), each named by what it changes from the search's own signals (the turn
embedded as ``speaker: text`` then the end of the turn it answered, ``MemoryRecord.embedded_text``;
the question as the known speakers it names would ask it of themselves, ``in_first_person``):

- ``shipped``: the signals as caim computes them.
- ``dense: without the turn it answered``: the turn embedded alone (``MemoryRecord.own_text``).
- ``dense: the last N characters of the turn it answered``: ``CONTEXT_CHARS`` set to each N of
  ``CONTEXT_LENGTHS``.
- ``dense: turn with its date, alone``: the turn embedded alone with its date first
  (``MemoryRecord.document``).
- ``dense: question without the speakers it names``: the names taken out instead of put in the
  first person (``without_speakers``).
- ``dense: question as asked``: the question embedded whole, the speakers it names included.
- ``dense: turn with its date, alone, question as asked``: the two before (the form caim embedded
  first).
- ``dense: best sentence``: the best cosine among the turn's sentences, each as ``speaker: sentence``.
- ``dense: turn and best sentence``: the mean of the turn's cosine and its best sentence's.
- ``dense: question without opener``: the question in the first person and without "what did",
  "how many" and the like.
- ``lexical: with the turn it answered``: BM25 over the lexical text and the turn it answered (the
  difference of the two BM25 z-scores added to the lexical evidence).
- ``lexical: BM25 k1 K, b B``: BM25 with other parameters than ``BM25_K1``, ``BM25_B`` (each pair
  of ``BM25_PARAMETERS``).
- ``lexical: related words``: BM25 of the ``RELATED_N`` words of the conversation nearest to each
  query word by the embedder (cosine at least ``RELATED_MIN``), weighted by that cosine, added to
  the lexical z-score at ``RELATED_WEIGHT``.

``--doc`` writes the tables; what an existing doc holds under ``NOTES`` is kept.
Prints one line per variant and ends with ``variants: best cross-validated recall@10 <x> (<name>)``.
Run (about 10 minutes on 2 cores)::

    python benchmarks/retrieval_variants.py --data ../shared/data/locomo-dev/locomo_dev.json \
        --doc docs/retrieval-variants.md
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from caim.core.embeddings import Embedder, MiniLMEmbedder
from caim.eval import fit
from caim.eval.files import checkout
from caim.eval.fit import Case
from caim.eval.retrieval import CATEGORIES, load, ranking_cases, user_of
from caim.eval.tables import markdown_table
from caim.memory.search import signals
from caim.memory.search.config import START_WEIGHTS
from caim.memory.search.engine import records_of
from caim.memory.search.lexical import BM25_B, BM25_K1, bm25
from caim.memory.search.retrieval import DEFAULT_WEIGHTS, Retriever
from caim.memory.text import in_first_person, named_speakers, tokenize, without_speakers

ROOT = Path(__file__).resolve().parents[1]
#: Lengths of the answered turn's end tried besides the shipped ``CONTEXT_CHARS``.
CONTEXT_LENGTHS = (100, 400)
#: BM25's parameters tried besides the shipped ``BM25_K1``, ``BM25_B``: the textbook ones (Lucene's
#: defaults), Anserini's defaults, and a stronger length normalisation and term saturation.
BM25_PARAMETERS = ((1.2, 0.75), (0.9, 0.4), (2.0, 0.5))
RELATED_N = 3
RELATED_MIN = 0.55
RELATED_WEIGHT = 0.25
NOTES = "<!-- notes: written by hand; benchmarks/retrieval_variants.py --doc keeps everything below this line -->"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_OPENER = re.compile(
    r"^(what|which|who|whom|when|where|why|how)( (kind|type|sort)s? of| (many|much|long|often))?"
    r"( (is|are|was|were|does|do|did|has|have|had|might|would|could|can|will))?\b\s*",
    re.IGNORECASE,
)


@dataclass
class Conv:
    """One conversation's records as the benchmark reads them (row order of its cases' columns)."""

    rids: np.ndarray
    speakers: list[str]
    texts: list[str]
    documents: list[str]
    embedded: list[str]
    own: list[str]
    lexical: list[str]
    context: list[str]

    def row_of(self, rids: np.ndarray) -> np.ndarray:
        """Positions of the given row ids among ``rids``."""
        pos = {int(r): i for i, r in enumerate(self.rids)}
        return np.array([pos[int(r)] for r in rids], dtype=np.int64)


def conversations(cases: Sequence[Case], retriever: Retriever) -> dict[str, Conv]:
    """Each conversation's records, read once through its first case (a conversation is small enough
    to be scored whole, so every case of it has all its records as candidates)."""
    out: dict[str, Conv] = {}
    for c in cases:
        if c.conversation in out:
            continue
        recs = [r for r in records_of(retriever.store, user_of(c.conversation), c.scoring) if r is not None]
        if len(recs) != c.scoring.columns.m:
            raise RuntimeError(f"{c.conversation}: a record of the scoring is gone")
        out[c.conversation] = Conv(
            c.scoring.columns.rid.copy(),
            [r.speaker or "" for r in recs],
            [r.thought for r in recs],
            [r.document() for r in recs],
            [r.embedded_text() for r in recs],
            [r.own_text() for r in recs],
            [r.lexical_text() for r in recs],
            [" ".join(s.text for s in r.sources if s.context) for r in recs],
        )
    return out


def sentences(text: str) -> list[str]:
    """A turn's sentences (the whole text when it has one).

    >>> sentences("Thanks! I made ice cream. It was good")
    ['Thanks!', 'I made ice cream.', 'It was good']
    """
    return [p.strip() for p in _SENTENCE_END.split(text) if p.strip()] or [text]


def without_opener(question: str) -> str:
    """The question without its opening question words.

    >>> without_opener("What kind of art does Caroline make?")
    'art does Caroline make?'
    """
    return _OPENER.sub("", question).strip() or question


def with_context_end(conv: Conv, n: int) -> list[str]:
    """Each record's own text, then the last ``n`` characters of the turn it answered."""
    return [f"{own} {context[-n:]}".strip() for own, context in zip(conv.own, conv.context, strict=True)]


#: A conversation's record vectors by kind, and the questions' vectors by kind.
Vectors = dict[str, np.ndarray]


def record_vectors(conv: Conv, embedder: Embedder) -> tuple[Vectors, np.ndarray]:
    """The conversation's records embedded with their date, as the search embeds them, and sentence
    by sentence (with the row each sentence belongs to)."""
    sents, owner = [], []
    for i, (who, text) in enumerate(zip(conv.speakers, conv.texts, strict=True)):
        for s in sentences(text):
            sents.append(f"{who}: {s}")
            owner.append(i)
    vecs = {
        "dated": np.asarray(embedder.embed(conv.documents)),
        "turn": np.asarray(embedder.embed(conv.embedded)),
        "own": np.asarray(embedder.embed(conv.own)),
        **{f"context {n}": np.asarray(embedder.embed(with_context_end(conv, n))) for n in CONTEXT_LENGTHS},
        "sentences": np.asarray(embedder.embed(sents)),
    }
    return vecs, np.array(owner, dtype=np.int64)


def best_sentence(sentence_vecs: np.ndarray, owner: np.ndarray, rows: int, q: np.ndarray) -> np.ndarray:
    """Per row, the best cosine of its sentences to ``q``.

    >>> best_sentence(np.array([[1.0, 0], [0, 1.0], [0.6, 0.8]]), np.array([0, 0, 1]), 2, np.array([0, 1.0])).tolist()
    [1.0, 0.8]
    """
    best = np.full(rows, -1.0)
    np.maximum.at(best, owner, sentence_vecs @ q)
    return best


def with_dense(case: Case, cosine: np.ndarray, rows: np.ndarray) -> Case:
    """The case with its dense evidence recomputed from ``cosine`` (one value per record of its
    conversation; ``rows`` picks the case's candidates)."""
    ev = replace(case.scoring.evidence, dense=signals.zscore(cosine[rows], float(cosine.mean()), float(cosine.std())))
    return replace(case, scoring=replace(case.scoring, evidence=ev))


def with_lexical(case: Case, extra: np.ndarray, rows: np.ndarray, weight: float) -> Case:
    """The case with ``weight`` times the z-score of ``extra`` added to its lexical evidence."""
    z = signals.zscore(extra[rows], float(extra.mean()), float(extra.std()))
    ev = replace(case.scoring.evidence, lexical=case.scoring.evidence.lexical + weight * z)
    return replace(case, scoring=replace(case.scoring, evidence=ev))


class Bm25Index:
    """The postings of some texts, for BM25 (terms as the lexical index splits them)."""

    def __init__(self, texts: Sequence[str]):
        self.postings: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
        lengths = []
        for i, text in enumerate(texts):
            terms = tokenize(text)
            lengths.append(len(terms))
            for t, tf in Counter(terms).items():
                self.postings[t].append((i, tf, len(terms)))
        self.n, self.avgdl = len(texts), float(np.mean(lengths)) if lengths else 1.0


class Related:
    """Words of one conversation related by the embedder to the words of a question."""

    def __init__(self, conv: Conv, embedder: Embedder, words: dict[str, np.ndarray]):
        self.embedder = embedder
        self.words = words  # a question word's vector, shared by every conversation
        self.index = Bm25Index(conv.lexical)
        surface: dict[str, Counter[str]] = defaultdict(Counter)
        for text in conv.lexical:
            for w in _WORD.findall(text.lower()):
                stem = tokenize(w)
                if len(stem) == 1:
                    surface[stem[0]][w] += 1
        self.terms = sorted(self.index.postings)
        spelled = [surface[t].most_common(1)[0][0] if surface[t] else t for t in self.terms]
        self.vecs = np.asarray(embedder.embed(spelled))

    def score(self, question: str) -> np.ndarray:
        """Per record, the BM25 of the related words (not the question's own), weighted by relatedness."""
        own = set(tokenize(question))
        words = {w: tokenize(w) for w in _WORD.findall(question.lower())}
        wanted: dict[str, float] = {}
        for word, stem in words.items():
            if len(stem) != 1:
                continue
            if word not in self.words:
                self.words[word] = np.asarray(self.embedder.embed([word]))[0]
            sims = self.vecs @ self.words[word]
            for j in np.argsort(-sims)[: RELATED_N + 1]:
                term = self.terms[j]
                if term not in own and sims[j] >= RELATED_MIN:
                    wanted[term] = max(wanted.get(term, 0.0), float(sims[j]))
        idx = self.index
        out = np.zeros(idx.n)
        for term, w in wanted.items():
            rows, scores = bm25({term: idx.postings[term]}, idx.n, idx.avgdl)
            out[rows] += w * scores
        return out


def bm25_zscore(index: Bm25Index, question: str, k1: float = BM25_K1, b: float = BM25_B) -> np.ndarray:
    """Per text, BM25 of the question's words (with ``k1`` and ``b``), z-scored over all texts."""
    out = np.zeros(index.n)
    terms = {t: index.postings[t] for t in set(tokenize(question)) if t in index.postings}
    if terms:
        rows, scores = bm25(terms, index.n, index.avgdl, k1=k1, b=b)
        out[rows] = scores
    return signals.zscore(out, float(out.mean()), float(out.std()))


Variant = Callable[[Case], Case]


def variants(cases: Sequence[Case], convs: dict[str, Conv], embedder: Embedder) -> dict[str, Variant]:
    """Each variant as a function from a shipped case to the case with its changed evidence."""
    vecs = {name: record_vectors(conv, embedder) for name, conv in convs.items()}
    words: dict[str, np.ndarray] = {}
    related = {name: Related(conv, embedder, words) for name, conv in convs.items()}
    with_context = {
        name: (related[name].index, Bm25Index([f"{a} {b}" for a, b in zip(conv.lexical, conv.context, strict=True)]))
        for name, conv in convs.items()
    }
    named = [named_speakers(c.question, sorted(set(convs[c.conversation].speakers))) for c in cases]
    spoken = [in_first_person(c.question, n) for c, n in zip(cases, named, strict=True)]
    questions = {
        "as asked": np.asarray(embedder.embed([c.question for c in cases])),
        "first person": np.asarray(embedder.embed(spoken)),
        "no speakers": np.asarray(
            embedder.embed([without_speakers(c.question, n) for c, n in zip(cases, named, strict=True)])
        ),
        "no opener": np.asarray(embedder.embed([without_opener(q) for q in spoken])),
    }
    index = {id(c): i for i, c in enumerate(cases)}

    def dense(kind: str, question: str = "first person") -> Variant:
        def change(c: Case) -> Case:
            conv, (v, owner) = convs[c.conversation], vecs[c.conversation]
            q = questions[question][index[id(c)]]
            if kind not in ("sentence", "both"):
                cosine = v[kind] @ q
            else:
                sent = best_sentence(v["sentences"], owner, len(conv.texts), q)
                cosine = sent if kind == "sentence" else (v["turn"] @ q + sent) / 2
            return with_dense(c, cosine, conv.row_of(c.scoring.columns.rid))

        return change

    def answered(c: Case) -> Case:
        conv, (own, more) = convs[c.conversation], with_context[c.conversation]
        gain = bm25_zscore(more, c.question) - bm25_zscore(own, c.question)
        rows = conv.row_of(c.scoring.columns.rid)
        ev = replace(c.scoring.evidence, lexical=c.scoring.evidence.lexical + gain[rows])
        return replace(c, scoring=replace(c.scoring, evidence=ev))

    def bm25_with(k1: float, b: float) -> Variant:
        def change(c: Case) -> Case:
            conv, index = convs[c.conversation], related[c.conversation].index
            rows = conv.row_of(c.scoring.columns.rid)
            ev = replace(c.scoring.evidence, lexical=bm25_zscore(index, c.question, k1, b)[rows])
            return replace(c, scoring=replace(c.scoring, evidence=ev))

        return change

    def lexical(c: Case) -> Case:
        conv = convs[c.conversation]
        return with_lexical(
            c, related[c.conversation].score(c.question), conv.row_of(c.scoring.columns.rid), RELATED_WEIGHT
        )

    return {
        "shipped": lambda c: c,
        "dense: without the turn it answered": dense("own"),
        **{f"dense: the last {n} characters of the turn it answered": dense(f"context {n}") for n in CONTEXT_LENGTHS},
        "dense: turn with its date, alone": dense("dated"),
        "dense: question without the speakers it names": dense("turn", "no speakers"),
        "dense: question as asked": dense("turn", "as asked"),
        "dense: turn with its date, alone, question as asked": dense("dated", "as asked"),
        "dense: best sentence": dense("sentence"),
        "dense: turn and best sentence": dense("both"),
        "dense: question without opener": dense("turn", "no opener"),
        "lexical: with the turn it answered": answered,
        **{f"lexical: BM25 k1 {k1}, b {b}": bm25_with(k1, b) for k1, b in BM25_PARAMETERS},
        "lexical: related words": lexical,
    }


def measure(cases: Sequence[Case], cv: bool) -> dict[str, dict[str, float]]:
    """recall@10 per category under the shipped weights and, with ``cv``, leave one conversation out."""
    out = {"shipped weights": cells([(c, fit.recalls(c, DEFAULT_WEIGHTS)) for c in cases])}
    if cv:
        out["leave one out"] = cells(fit.pooled(fit.cross_validate(cases, START_WEIGHTS)))
    return out


def cells(rows: Sequence[tuple[Case, tuple[float, ...]]]) -> dict[str, float]:
    """Mean recall@10 over all questions and per category."""
    at10 = fit.KS.index(10)
    out = {"all": float(np.mean([r[at10] for _, r in rows]))}
    for cat, label in CATEGORIES.items():
        vals = [r[at10] for c, r in rows if c.category == cat]
        if vals:
            out[label] = float(np.mean(vals))
    return out


def report(results: dict[str, dict[str, dict[str, float]]], header: str) -> str:
    """The doc: how it was run, then one table per ranking."""
    lines = [header, ""]
    for ranking in next(iter(results.values())):
        labels = list(next(iter(results.values()))[ranking])
        lines += [f"## recall@10, {ranking}", ""]
        rows = [[name, *(f"{r[ranking].get(k, float('nan')):.3f}" for k in labels)] for name, r in results.items()]
        lines += [*markdown_table(["variant", *labels], rows), ""]
    return "\n".join(lines)


def write_doc(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, then ``NOTES`` and the notes the file held under it."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    notes = old.split(NOTES, 1)[1] if NOTES in old else "\n"
    path.write_text(f"{text}\n{NOTES}{notes}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="a LoCoMo JSON file")
    ap.add_argument("--doc", help="write the report here")
    ap.add_argument("--no-cv", action="store_true", help="shipped weights only (no leave-one-out fits)")
    args = ap.parse_args(argv)
    started, commit, load_avg = datetime.now(UTC), checkout(ROOT), os.getloadavg()[0]
    t0 = time.perf_counter()
    embedder = MiniLMEmbedder()
    cases, retriever = ranking_cases(load(args.data), embedder)
    make = variants(cases, conversations(cases, retriever), embedder)
    results = {}
    for name, change in make.items():
        results[name] = measure([change(c) for c in cases], not args.no_cv)
        print(name, {k: round(v["all"], 3) for k, v in results[name].items()}, flush=True)
    header = (
        "<!-- generated by: python benchmarks/retrieval_variants.py --data DATA --doc FILE -->\n"
        "# Variants of the ranking's text signals (no LLM)\n\n"
        f"`python benchmarks/retrieval_variants.py --data {args.data}` at {commit}, started "
        f"{started:%Y-%m-%d %H:%M} UTC (load average {load_avg:.1f}), {time.perf_counter() - t0:.0f} s; "
        f"{len(cases)} questions; embedder {embedder.name}. What each variant changes: the module's docstring."
    )
    if args.doc:
        write_doc(Path(args.doc), report(results, header))
    key = "leave one out" if not args.no_cv else "shipped weights"
    best = max(results, key=lambda n: results[n][key]["all"])
    print(f"variants: best {key} recall@10 {results[best][key]['all']:.3f} ({best})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
