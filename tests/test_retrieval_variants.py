"""benchmarks/retrieval_variants.py: every variant changes the signal it names, and the run reports
each under the shipped weights and leave one conversation out."""

from __future__ import annotations

import copy
import doctest
import json

import numpy as np

from caim.core.embeddings import MiniLMEmbedder
from caim.eval.retrieval import load, ranking_cases
from caim.memory.records import CONTEXT_CHARS
from tests.test_benchmarks import load as load_benchmark
from tests.test_eval import LOCOMO


def _data(tmp_path):
    second = copy.deepcopy(LOCOMO[0])
    second["sample_id"] = "two"
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([*LOCOMO, second]), encoding="utf-8")
    return path


def test_the_benchmark_s_examples_hold():
    result = doctest.testmod(load_benchmark("retrieval_variants"))
    assert result.attempted >= 3 and result.failed == 0


def test_each_variant_changes_only_its_signal(tmp_path):
    bench = load_benchmark("retrieval_variants")
    embedder = MiniLMEmbedder()
    cases, retriever = ranking_cases(load(_data(tmp_path)), embedder)
    assert all(c.question for c in cases)
    convs = bench.conversations(cases, retriever)
    assert set(convs) == {"conv-1", "two"} and len(convs["two"].texts) == 6
    made = bench.variants(cases, convs, embedder)
    case = next(c for c in cases if "painted" in c.question)
    assert made["shipped"](case) is case
    for name, change in made.items():
        if name == "shipped":
            continue
        ev, before = change(case).scoring.evidence, case.scoring.evidence
        if name.startswith("dense"):
            assert np.array_equal(ev.lexical, before.lexical), name
            assert not np.allclose(ev.dense, before.dense), name
        else:
            assert np.array_equal(ev.dense, before.dense), name
    answered = made["lexical: with the turn it answered"](case).scoring.evidence.lexical
    assert not np.allclose(answered, case.scoring.evidence.lexical)


def test_the_bm25_variants_score_as_the_search_does_with_other_parameters(tmp_path):
    bench = load_benchmark("retrieval_variants")
    embedder = MiniLMEmbedder()
    cases, retriever = ranking_cases(load(_data(tmp_path)), embedder)
    convs = bench.conversations(cases, retriever)
    made = bench.variants(cases, convs, embedder)
    for case in cases:
        conv, shipped = convs[case.conversation], case.scoring.evidence.lexical
        index = bench.Bm25Index(conv.lexical)
        same = bench.bm25_zscore(index, case.question)[conv.row_of(case.scoring.columns.rid)]
        assert np.allclose(same, shipped), case.question  # the shipped k1 and b: the search's own lexical signal
    case = next(c for c in cases if "painted" in c.question)
    for k1, b in bench.BM25_PARAMETERS:
        other = made[f"lexical: BM25 k1 {k1}, b {b}"](case).scoring.evidence.lexical
        assert not np.allclose(other, case.scoring.evidence.lexical), (k1, b)


def test_the_search_embeds_the_turn_and_the_one_it_answered_without_a_date_and_the_question_in_the_first_person(
    tmp_path,
):
    bench = load_benchmark("retrieval_variants")
    embedder = MiniLMEmbedder()
    cases, retriever = ranking_cases(load(_data(tmp_path)), embedder)
    made = bench.variants(cases, bench.conversations(cases, retriever), embedder)
    case = next(c for c in cases if "Caroline painted" in c.question)
    own = case.scoring.evidence.dense
    # the search's own dense signal is the benchmark's turn/question form, not the dated or whole-question one
    same = bench.with_dense(case, *_turn_cosine(bench, cases, retriever, embedder, case)).scoring.evidence.dense
    assert np.allclose(own, same, atol=0.05)
    conv = bench.conversations(cases, retriever)[case.conversation]
    assert bench.with_context_end(conv, CONTEXT_CHARS) == conv.embedded != conv.own
    for other in (
        "dense: without the turn it answered",
        "dense: turn with its date, alone",
        "dense: question as asked",
        "dense: question without the speakers it names",
    ):
        assert not np.allclose(own, made[other](case).scoring.evidence.dense, atol=0.05), other


def _turn_cosine(bench, cases, retriever, embedder, case):
    conv = bench.conversations(cases, retriever)[case.conversation]
    vecs, _ = bench.record_vectors(conv, embedder)
    q = np.asarray(embedder.embed([case.question.replace("Caroline ", "I ")]))[0]
    return vecs["turn"] @ q, conv.row_of(case.scoring.columns.rid)


def test_related_words_score_the_records_holding_a_word_near_the_question_s():
    bench = load_benchmark("retrieval_variants")
    texts = ["I started yoga last week", "I bought a car", "Yoga again today, and a car wash"]
    conv = bench.Conv(np.arange(3), ["Ann"] * 3, texts, texts, texts, texts, texts, [""] * 3)
    related = bench.Related(conv, MiniLMEmbedder(), {})
    score = related.score("What exercise does Ann do?")
    assert score[0] > 0 and score[1] == 0 and score[2] > 0
    assert not related.score("What exercise does Ann do? yoga").any()  # the question's own words are BM25's


def test_the_run_writes_both_rankings_for_every_variant(tmp_path, capsys):
    bench = load_benchmark("retrieval_variants")
    doc = tmp_path / "variants.md"
    doc.write_text(f"old tables\n{bench.NOTES}\nWhy one is shipped.\n")
    assert bench.main(["--data", str(_data(tmp_path)), "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert "old tables" not in text and text.endswith(f"{bench.NOTES}\nWhy one is shipped.\n")
    assert "## recall@10, shipped weights" in text and "## recall@10, leave one out" in text
    for name in (
        "shipped",
        "dense: turn with its date, alone, question as asked",
        "dense: without the turn it answered",
        "lexical: with the turn it answered",
        "dense: the last 100 characters of the turn it answered",
        "dense: best sentence",
        "lexical: related words",
    ):
        assert text.count(f"| {name} |") == 2, name
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("variants: best leave one out recall@10 ")
