"""benchmarks/unread_language.py: conversations in made-up words keep what code matches, and the run
reports each pair of bm25 and dense weights with the pair chosen leave one conversation out."""

from __future__ import annotations

import doctest
import re

from caim.eval.retrieval import load
from caim.memory.text import named_speakers, tokenize
from tests.test_benchmarks import load as load_benchmark
from tests.test_retrieval_variants import _data


def test_the_benchmark_s_examples_hold():
    result = doctest.testmod(load_benchmark("unread_language"))
    assert result.attempted >= 2 and result.failed == 0


def test_made_up_words_keep_ids_names_digits_and_shared_words(tmp_path):
    bench = load_benchmark("unread_language")
    conv = load(_data(tmp_path))[0]
    made = bench.unreadable_conversation(conv)
    assert [t.dia_id for t in made.turns] == [t.dia_id for t in conv.turns]
    assert [q.evidence for q in made.questions] == [q.evidence for q in conv.questions]
    names = set(tokenize(" ".join(n for s in conv.speakers for n in (s, s[:3]))))
    pairs = list(zip(conv.questions, made.questions, strict=True))
    for q, m in pairs:
        assert named_speakers(m.text, list(conv.speakers)) == named_speakers(q.text, list(conv.speakers))
        assert set(tokenize(m.text)) & set(tokenize(q.text)) <= names  # no word of the original but names
    kept = {n.lower() for s in conv.speakers for n in (s, s[:3])}
    shared = 0
    for q, m in pairs:
        before = _words(q.text) & _words(" ".join(_said(conv)[e] for e in q.evidence))
        after = _words(m.text) & _words(" ".join(_said(made)[e] for e in m.evidence))
        assert {w if w in kept else bench.made_up(w) for w in before} == after  # a shared word stays shared
        shared += len(before)
    assert shared


def _words(text):
    return set(re.findall(r"[a-z]+", text.lower()))


def _said(conv):
    return {t.dia_id: t.text for t in conv.turns}


def test_the_run_reports_every_pair_of_weights_and_the_one_chosen(tmp_path, capsys):
    bench = load_benchmark("unread_language")
    doc = tmp_path / "unread.md"
    assert bench.main(["--data", str(_data(tmp_path)), "--doc", str(doc)]) == 0
    text = doc.read_text(encoding="utf-8")
    assert "## made-up words" in text and "## English" in text and "Chosen leave one out: conv-1: bm25 x" in text
    assert text.count("| 1.5 (x 1) |") == 2 and text.count("| dense \\ bm25 | 0.75 | 1 | 1.25 | 1.5 |") == 2
    assert text.count("| the search's weights for an unread language |") == 2
    assert "unread: chosen leave one out bm25 x" in capsys.readouterr().out
