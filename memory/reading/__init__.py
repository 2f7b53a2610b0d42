"""What a careful reader takes from a message, read by code: whether it tells something worth
remembering about its speaker, which top-level categories of the ontology it is about, and whether it
states a lasting like or dislike.

``Reader.read`` puts each message through the bundled multilingual encoder (every language caim
reads) and the ontology's lexicon (``caim.memory.reading.lexicon``: which terms' and categories' words
it holds), then through a small fitted network (``Model``, ``weights.npz`` beside this module) giving
a probability for each question; ``Model`` also holds the thresholds fitted with it, which turn a
``Reading`` into decisions (``worth``, ``categories``, ``liking``). The weights are fitted by ``caim
eval reading --fit`` on labelled conversations (docs/reading.md: the data, the fit checked leave one
conversation out, and the figures).
"""

from __future__ import annotations

from caim.memory.reading.lexicon import CATEGORY, Lexicon
from caim.memory.reading.reader import Model, Reader, Reading, features

__all__ = ["CATEGORY", "Lexicon", "Model", "Reader", "Reading", "features"]
