"""Fitting the ranking weights (``caim.eval.fit``) and ``caim eval retrieval --cv``."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import numpy as np

from caim.eval import fit
from caim.memory.search.columns import Columns
from caim.memory.search.config import DEFAULT_WEIGHTS
from caim.memory.search.engine import Scoring
from caim.memory.search.ranking import Evidence
from tests.test_eval import LOCOMO

ROWS = 40


def _case(conversation: str, seed: int, evidence_row: int = 7) -> fit.Case:
    """Forty records; the evidence row is lexically only middling but alone carries a high prior."""
    rng = np.random.default_rng(seed)
    lexical = np.sort(rng.normal(size=ROWS))[::-1].copy()
    lexical[evidence_row] = lexical[25]
    prior = np.zeros(ROWS)
    prior[evidence_row] = 3.0
    columns = Columns(
        {
            "rid": np.arange(ROWS),
            "session": [f"s{i}" for i in range(ROWS)],
            "turn": np.zeros(ROWS, dtype=np.int64),
            "speaker": ["A"] * ROWS,
            "prior": prior,
            "timex": np.zeros(ROWS, dtype=bool),
            "ts": np.arange(ROWS, dtype=np.float64),
            "current": np.ones(ROWS, dtype=bool),
            "raw": np.ones(ROWS, dtype=bool),
            "vec": np.zeros((ROWS, 0), dtype=np.float32),
        }
    )
    evidence = Evidence(lexical=lexical, dense=np.zeros(ROWS))
    scoring = Scoring(columns, evidence, np.ones(ROWS, dtype=bool), np.zeros(ROWS), fit.ALL_SIGNALS)
    turns = [frozenset({f"D{i}"}) for i in range(ROWS)]
    return fit.Case.of(conversation, 4, "Where did A go?", scoring, turns, [f"D{evidence_row}"])


def test_recalls_count_the_evidence_found_at_each_rank():
    case = _case("c1", 0)
    no_prior = replace(DEFAULT_WEIGHTS, prior=0.0, neighbour=0.0, session=0.0)
    assert fit.recalls(case, no_prior) == (0.0, 0.0, 0.0)  # ranked 26th of 40
    assert fit.recalls(case, replace(no_prior, prior=1.0)) == (1.0, 1.0, 1.0)


def test_fit_finds_the_weight_that_raises_recall_and_cross_validation_keeps_conversations_apart():
    cases = [_case(f"c{i % 3}", i) for i in range(9)]
    start = replace(DEFAULT_WEIGHTS, prior=0.0, neighbour=0.0, session=0.0)
    fitted = fit.fit(cases, start)
    assert fitted.prior > 0 and fit.objective(cases, fitted) == 1.0 > fit.objective(cases, start)
    assert fitted.dense == start.dense  # the unit the others are measured in
    folds = fit.cross_validate(cases, start)
    assert [f.left_out for f in folds] == ["c0", "c1", "c2"]
    for f in folds:
        assert {c.conversation for c in f.cases} == {f.left_out} and f.weights.prior > 0
    assert [r for _, r in fit.pooled(folds)] == [(1.0, 1.0, 1.0)] * 9


def test_the_balance_of_bm25_and_dense_is_fitted():
    def misleading_words(conversation: str, seed: int) -> fit.Case:
        case = _case(conversation, seed)  # the evidence's words are middling...
        case.scoring.columns.prior = np.zeros(ROWS)
        dense = np.zeros(ROWS)
        dense[7] = 0.75  # ...and its meaning is the nearest
        return replace(case, scoring=replace(case.scoring, evidence=replace(case.scoring.evidence, dense=dense)))

    cases = [misleading_words(f"c{i % 3}", i) for i in range(9)]
    start = replace(DEFAULT_WEIGHTS, bm25=1.0, prior=0.0, neighbour=0.0, session=0.0)
    fitted = fit.fit(cases, start)
    assert fitted.bm25 < start.bm25 and fitted.dense == start.dense
    assert fit.objective(cases, fitted) > fit.objective(cases, start)


def test_a_question_the_embedder_does_not_read_is_ranked_as_the_search_ranks_it():
    lexical, dense = np.zeros(ROWS), np.zeros(ROWS)
    lexical[7], dense[10:20] = 1.5, 1.0  # the evidence matches by its words; ten others by a vector that cannot read
    base = _case("c1", 0)
    base.scoring.columns.prior = np.zeros(ROWS)
    scoring = replace(base.scoring, evidence=Evidence(lexical=lexical, dense=dense))
    w = replace(DEFAULT_WEIGHTS, neighbour=0.0, session=0.0)

    def case(unread):
        turns, evidence = base.turns, ["D7"]
        return fit.Case.of(
            "c1", 4, "Wohin ist Anna letzte Woche gefahren?", replace(scoring, unread=unread), turns, evidence
        )

    assert case(True).unread and not case(False).unread
    assert fit.recalls(case(True), w) == (1.0, 1.0, 1.0)  # bm25 raised, dense cut
    assert fit.recalls(case(False), w)[1] == 0.0  # read at full weight, the ten come first


def test_fit_keeps_the_start_when_nothing_gains():
    cases = [_case("c1", 0)]
    start = replace(DEFAULT_WEIGHTS, prior=1.0)
    assert fit.objective(cases, start) == 1.0
    assert fit.fit(cases, start) == start


def test_retrieval_cv_prints_dev_and_cross_validated_recall(tmp_path):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    second = copy.deepcopy(LOCOMO[0])
    second["sample_id"] = "two"
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([*LOCOMO, second]), encoding="utf-8")
    out = tmp_path / "o"
    args = ["eval", "retrieval", "--data", str(data), "--out", str(out), "--systems", "caim", "--cv", "--no-plot"]
    res = CliRunner().invoke(app, [*args, "--quiet"])
    assert res.exit_code == 0, res.output
    assert "leave one" in res.output and "shipped" in res.output
    cv = json.loads((out / "results.json").read_text())["cv"]
    assert set(cv) == {"dev", "fitted", "cross-validated", "weights", "floor"}
    assert (
        cv["dev"]["recall@10"]["all"]
        == json.loads((out / "results.json").read_text())["systems"]["caim"]["recall@10"]["all"]
    )
    assert set(cv["weights"]["folds"]) == {LOCOMO[0]["sample_id"], "two"}
    report = (out / "report.md").read_text()
    assert "## Cross-validation (`--cv`)" in report and "without two" in report
    assert "; dense held at the start's)" in report
    plain = CliRunner().invoke(app, [a for a in args if a != "--cv"] + ["--quiet"])
    assert plain.exit_code == 0 and "cv" not in json.loads((out / "results.json").read_text())


def test_the_fit_starts_from_the_hand_set_recipe_not_from_the_fitted_defaults():
    from dataclasses import asdict

    from caim.memory.search.config import DEFAULT_WEIGHTS, START_WEIGHTS

    hand_set = dict(bm25=1.0, dense=1.5, neighbour=0.5, speaker=4.0, name=0.0, timex=1.0, date=1.0)
    hand_set |= dict(range=3.0, tag=0.0, prior=0.75, recency=0.0, session=1.0)
    assert asdict(START_WEIGHTS) == hand_set
    # the defaults are fitted on every conversation: a start taken from them would leak each held-out one
    assert START_WEIGHTS != DEFAULT_WEIGHTS
