"""Ranked retrieval: one score per record from code signals, no model judgement needed.

For a query (the user's message, optionally with tags and time ranges from the memory controller)
every candidate record gets

    base      = w_bm25 · z(BM25) + w_dense · z(cosine)                   z: over all the user's records
    + w_neighbour · max(relu(base) of the turn before, of the turn after)  (same session)
    + w_speaker   · [record spoken by the one known speaker the query names]
    + w_name      · [record names a person/place/thing the query names]
    + w_timex     · [a "when" question and the record holds a time expression]
    + w_date      · [record dated inside an explicit date of the query]
    + w_range     · [record inside a time range the controller resolved]
    + w_tag       · (share of the query's tags the record carries)
    + w_prior     · informativeness prior of the record (code, at write time)
    + w_recency   · recency (0 oldest … 1 newest; a weak prior)
    + w_session   · z over sessions of each session's best score
    - 2 · (1 - 0.5^(age / decay_days))        only when the query sets an age decay

Aggregate questions ("what books has X read", "how many") turn the neighbour and session terms off
(they collect mentions scattered over many sessions). Superseded records (an update closed their
validity) and records whose category has expired are left out unless the query asks about the past.
Each hit carries its scores, so the trace shows why it ranked where it did. The weights are chosen
on the LoCoMo development split (``caim eval retrieval``; ``docs/retrieval.md``).

Modules, from the bottom:

- ``config``: ``Weights`` and the recipes ``DEFAULT_WEIGHTS``, ``DENSE_ONLY``, ``LEXICAL_ONLY``;
- ``analysis``: ``QueryAnalysis``, the one reading of a query's text (``analyse``);
- ``query``: ``Query`` (with its analysis) and ``Hit``;
- ``columns``: ``Columns``, a set of records as typed arrays;
- ``lexical``: the lexical index (BM25 over the database's postings);
- ``signals``: one pure function per signal;
- ``ranking``: the weighted sum, the filter, the top k;
- ``engine``: ``search``, which picks the candidates and runs the above.

``caim.memory.search.retrieval.Retriever`` is the stateful entry point (it caches columns per user).
"""

from __future__ import annotations

from caim.memory.search.analysis import QueryAnalysis, analyse
from caim.memory.search.columns import Columns
from caim.memory.search.config import DECAY_WEIGHT, DEFAULT_WEIGHTS, DENSE_ONLY, LEXICAL_ONLY, Weights, for_question
from caim.memory.search.engine import SearchStore, UserSearch, search
from caim.memory.search.lexical import LexicalIndex, LexicalScores
from caim.memory.search.query import Hit, Query

__all__ = [
    "DECAY_WEIGHT",
    "DEFAULT_WEIGHTS",
    "DENSE_ONLY",
    "LEXICAL_ONLY",
    "Columns",
    "Hit",
    "LexicalIndex",
    "LexicalScores",
    "Query",
    "QueryAnalysis",
    "SearchStore",
    "UserSearch",
    "Weights",
    "analyse",
    "for_question",
    "search",
]
