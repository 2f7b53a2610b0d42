"""Fitting the reader (``caim.memory.reading``) and checking it leave one conversation out.

The network is fitted on every labelled turn the project may learn from: the conversations written
for caim (``caim.eval.labels.training_turns``), GVD's English users, the LoCoMo dev conversations and
the lexicon's example messages (each about its term's category, worth remembering). Its figures come
from conversations it was not fitted on: each LoCoMo dev conversation is read by a network fitted
without it (``cross_validate``), the written development set (``written_turns``) by one fitted without
any of it. The thresholds are chosen on the pooled leave-one-out readings of LoCoMo dev: the
capture threshold keeps ``RECALL`` of what readers store; the category floor and second-category
threshold are those of the best F1 of categories on the grids; the polarity threshold that of the
best F1 of likes and dislikes found.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from caim.core.embeddings import MultilingualEmbedder
from caim.eval.labels import Turn, shared_turns, training_turns, written_turns
from caim.memory.reading import CATEGORY, Lexicon, Model
from caim.memory.reading.reader import context_features, features, sentence_parts
from caim.ontology import Ontology

#: Share of the turns careful readers store that capture keeps (the threshold's recall).
RECALL = 0.9
HIDDEN = 256
EPOCHS = 20
SEEDS: tuple[int, ...] = (0, 1, 2)
#: What the network reads of the turn before (``caim.memory.reading.CONTEXT``).
CONTEXT = ("vector",)
#: Categories of a message of several sentences read whole and by sentence (``Model.by_sentence``).
BY_SENTENCE = False
#: The most turns given a wrong category the category thresholds may leave (pooled leave-one-out).
WRONG_AT_MOST = 0.2
FLOORS = tuple(round(0.05 * i, 2) for i in range(17))
SECONDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(14))
POLARITY_AT = (0.2, 0.3, 0.4, 0.5, 0.6)
WEIGHTS = Path(__file__).resolve().parents[1] / "memory" / "reading" / "weights.npz"


@dataclass
class Labelled:
    """Turns as arrays: ``y`` the targets (stores, each category, like, dislike), ``mask`` which
    targets count (categories only on stored turns), and per turn its source, group and language."""

    turns: list[Turn]
    y: np.ndarray
    mask: np.ndarray
    source: np.ndarray
    group: np.ndarray
    lang: np.ndarray


def labelled(turns: Sequence[Turn], categories: Sequence[str]) -> Labelled:
    """The targets of ``turns``."""
    n = len(categories)
    y = np.zeros((len(turns), n + 3), dtype=np.float32)
    for i, t in enumerate(turns):
        y[i, 0] = t.stores
        y[i, 1 : n + 1] = [c in t.top for c in categories]
        y[i, n + 1] = t.polarity == "like"
        y[i, n + 2] = t.polarity == "dislike"
    mask = np.ones_like(y)
    mask[y[:, 0] == 0, 1 : n + 1] = 0
    return Labelled(
        list(turns),
        y,
        mask,
        np.array([t.source for t in turns]),
        np.array([t.group for t in turns]),
        np.array([t.lang for t in turns]),
    )


def lexicon_examples(lexicon: Lexicon, ontology: Ontology) -> list[Turn]:
    """The lexicon's example messages as stored turns about their term's category (no polarity known:
    none is claimed)."""
    out = []
    for e in lexicon.entries:
        if e.key.startswith(CATEGORY) or e.key not in ontology:
            continue
        top = ontology.path(e.key).split("/")[0]
        out += [Turn("lexicon", f"lexicon:{e.key}", e.key, x, "", True, [top]) for x in e.examples]
    return out


def train(x: np.ndarray, y: np.ndarray, mask: np.ndarray, *, seed: int = 0) -> tuple[np.ndarray, ...]:
    """One hidden layer of ``HIDDEN`` rectified units with sigmoid outputs, fitted by Adam on the
    masked cross-entropy (dropout 0.2 on the hidden layer, a little L2), ``EPOCHS`` passes in batches
    of 64. ``x`` is standardised already. Returns (w1, b1, w2, b2)."""
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0, np.sqrt(2 / x.shape[1]), (x.shape[1], HIDDEN)).astype(np.float32)
    b1 = np.zeros(HIDDEN, np.float32)
    w2 = rng.normal(0, np.sqrt(1 / HIDDEN), (HIDDEN, y.shape[1])).astype(np.float32)
    b2 = np.zeros(y.shape[1], np.float32)
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step, rate, decay, drop = 0, 1e-3, np.float32(1e-4), 0.2
    scale = np.float32(1 / (1 - drop))
    for _ in range(EPOCHS):
        order = rng.permutation(len(x))
        for start in range(0, len(x), 64):
            b = order[start : start + 64]
            z1 = x[b] @ w1 + b1
            keep = (rng.random(z1.shape, dtype=np.float32) > drop) * scale  # float32 throughout: twice as fast
            h = np.maximum(z1, 0) * keep
            p = 1 / (1 + np.exp(-np.clip(h @ w2 + b2, -30, 30)))
            d2 = (p - y[b]) * mask[b] * np.float32(1 / len(b))
            d1 = (d2 @ w2.T) * keep * (z1 > 0)
            grads = [x[b].T @ d1 + decay * w1, d1.sum(0), h.T @ d2 + decay * w2, d2.sum(0)]
            step += 1
            c1, c2 = np.float32(rate / (1 - 0.9**step)), np.float32(1 / (1 - 0.999**step))
            for i, (param, g) in enumerate(zip(params, grads, strict=True)):
                m[i] *= np.float32(0.9)
                m[i] += np.float32(0.1) * g
                v[i] *= np.float32(0.999)
                v[i] += np.float32(0.001) * g * g
                param -= c1 * m[i] / (np.sqrt(v[i] * c2) + np.float32(1e-8))
    return w1, b1, w2, b2


def fit(
    x: np.ndarray, data: Labelled, categories: Sequence[str], keys: Sequence[str], context: tuple[str, ...] = ()
) -> Model:
    """A model fitted on all of ``data`` (features ``x``: a message's, then the ``context`` blocks of
    the turn before it): the mean of ``SEEDS`` networks, averaged as one wider network (their hidden
    layers side by side, their outputs' logits averaged). With context, every turn is also fitted
    alone (its context zero), as a message remembered on its own is read."""
    width = x.shape[1] - _context_width(x, keys, context)
    y, mask = data.y, data.mask
    if context:
        x = np.vstack([x, np.hstack([x[:, :width], np.zeros_like(x[:, width:])])])
        y, mask = np.vstack([y, y]), np.vstack([mask, mask])
    mu = x.mean(0)
    sd = x.std(0) + 1e-3
    lex = slice(width - len(keys), width)
    mu[lex], sd[lex] = 0.0, 0.3  # the lexicon's 0/1 hits as they are, scaled like a standardised value
    if context:  # zero stays zero (no turn before); scaled by the spread where there is one
        mu[width:] = 0.0
        sd[width:] = x[: len(x) // 2][x[: len(x) // 2, -1] > 0, width:].std(0) + 1e-3
    z = (x - mu) / sd
    with threadpool_limits(1):  # numpy's BLAS threads only contend at these sizes (25 times slower with them)
        nets = [train(z, y, mask, seed=s) for s in SEEDS]
    w1 = np.hstack([n[0] for n in nets])
    b1 = np.hstack([n[1] for n in nets])
    w2 = np.vstack([n[2] for n in nets]) / len(nets)
    b2 = np.mean([n[3] for n in nets], axis=0)
    return Model(mu, sd, w1, b1, w2, b2, tuple(categories), tuple(keys), context=context, sentences=BY_SENTENCE)


def _context_width(x: np.ndarray, keys: Sequence[str], context: tuple[str, ...]) -> int:
    """How many of ``x``'s last columns are the context blocks."""
    if not context:
        return 0
    dims = MultilingualEmbedder.dims
    return context_features(np.zeros((1, dims + len(keys)), np.float32), np.zeros((1, dims), np.float32),
                            np.zeros((1, len(keys)), np.float32), np.zeros(1, bool), context).shape[1]  # fmt: skip


def _ranked_threshold(p: np.ndarray, y: np.ndarray, recall: float) -> float:
    """The highest threshold at which ``p >= threshold`` keeps ``recall`` of the positives."""
    order = np.sort(p[y == 1])[::-1]
    return float(order[min(len(order) - 1, int(np.ceil(recall * len(order))) - 1)]) if len(order) else 0.5


def category_scores(model: Model, probs: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Categories chosen by ``model``'s thresholds against the labels, over turns readers store: precision,
    recall, F1, the share of turns given a wrong category and the share given none."""
    n = len(model.categories)
    tp = fp = fn = wrong = none = 0
    rows = np.flatnonzero(y[:, 0] == 1)
    for i in rows:
        ranked = np.argsort(-probs[i, 1 : n + 1])
        top = probs[i, 1 + ranked[0]]
        chosen = set() if top < model.category_floor else {int(ranked[0])}
        if chosen:
            chosen |= {int(j) for j in ranked[1:3] if probs[i, 1 + j] >= model.category_at}
        gold = set(np.flatnonzero(y[i, 1 : n + 1]).tolist())
        tp, fp, fn = tp + len(chosen & gold), fp + len(chosen - gold), fn + len(gold - chosen)
        wrong += bool(chosen - gold)
        none += not chosen
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    total = max(len(rows), 1)
    return {
        "precision": p,
        "recall": r,
        "f1": 2 * p * r / max(p + r, 1e-9),
        "wrong": wrong / total,
        "none": none / total,
    }


def polarity_scores(model: Model, probs: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Likes and dislikes the model states at its threshold: the share of labelled ones found with
    their polarity, and the share of its own that are right."""
    n = len(model.categories)
    gold = np.where(y[:, n + 1 : n + 3].max(1) > 0, y[:, n + 1 : n + 3].argmax(1), -1)
    said = np.where(probs[:, n + 1 : n + 3].max(1) >= model.polarity_at, probs[:, n + 1 : n + 3].argmax(1), -1)
    right = int(((said == gold) & (gold >= 0)).sum())
    return {"found": right / max(int((gold >= 0).sum()), 1), "precision": right / max(int((said >= 0).sum()), 1)}


def capture_scores(model: Model, probs: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Capture at the model's threshold against the labels: precision and recall."""
    kept = probs[:, 0] >= model.store_at
    right = int((kept & (y[:, 0] == 1)).sum())
    return {"precision": right / max(int(kept.sum()), 1), "recall": right / max(int(y[:, 0].sum()), 1)}


def choose_thresholds(model: Model, probs: np.ndarray, y: np.ndarray) -> Model:
    """``model`` with the thresholds chosen on ``probs`` (see the module docstring)."""
    model.store_at = _ranked_threshold(probs[:, 0], y[:, 0], RECALL)
    best = (False, -1.0, model.category_floor, model.category_at)
    for floor in FLOORS:
        for second in SECONDS:
            model.category_floor, model.category_at = floor, second
            s = category_scores(model, probs, y)
            # within the bound on wrong categories, the best F1 (else the fewest wrong)
            within = s["wrong"] <= WRONG_AT_MOST
            best = max(best, (within, s["f1"] if within else -s["wrong"], floor, second))
    model.category_floor, model.category_at = best[2], best[3]
    best_p = (-1.0, model.polarity_at)
    for at in POLARITY_AT:
        model.polarity_at = at
        s = polarity_scores(model, probs, y)
        best_p = max(best_p, (2 * s["found"] * s["precision"] / max(s["found"] + s["precision"], 1e-9), at))
    model.polarity_at = best_p[1]
    return model


@dataclass
class Run:
    """A cross-validated fit: the final model (fitted on everything, thresholds from the pooled
    leave-one-out readings), the leave-one-out readings of LoCoMo dev, the written set's readings and
    the labels of both - each read after the turn before it, and (``*_alone``) on its own."""

    model: Model
    locomo: tuple[np.ndarray, Labelled]
    written: tuple[np.ndarray, Labelled]
    locomo_alone: np.ndarray | None = None
    written_alone: np.ndarray | None = None


def readings(turns: Sequence[Turn], lexicon: Lexicon, context: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The features of each turn read after the turn before it, and read alone (one encoder batch)."""
    texts = list(dict.fromkeys([t.text for t in turns] + [t.before for t in turns if t.before]))
    vectors = dict(zip(texts, np.asarray(MultilingualEmbedder.shared().embed(texts), dtype=np.float32), strict=True))
    hits = {t: lexicon.vector(t).astype(np.float32) for t in texts}
    x = np.stack([np.concatenate([vectors[t.text], hits[t.text]]) for t in turns])
    if not context:
        return x, x
    has = np.array([bool(t.before) for t in turns])
    dims, n = x.shape[1] - len(lexicon.keys), len(lexicon.keys)
    pv = np.stack([vectors[t.before] if t.before else np.zeros(dims, np.float32) for t in turns])
    ph = np.stack([hits[t.before] if t.before else np.zeros(n, np.float32) for t in turns])
    none = np.zeros(len(turns), bool)
    return (
        np.hstack([x, context_features(x, pv, ph, has, context)]),
        np.hstack([x, context_features(x, pv * 0, ph * 0, none, context)]),
    )


@dataclass
class Parts:
    """The sentences of turns of several (``sentence_parts``): each one's turn (``owner``) and
    features read alone (``x``)."""

    owner: np.ndarray
    x: np.ndarray

    @classmethod
    def of(cls, turns: Sequence[Turn], lexicon: Lexicon, context: tuple[str, ...]) -> Parts:
        """The parts of ``turns`` (one encoder batch)."""
        owner, parts = sentence_parts([t.text for t in turns])
        return cls(owner, features(parts, MultilingualEmbedder.shared(), lexicon, None, context))

    def read(self, model: Model, probs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``probs`` (the readings of the turns at ``rows``) with their categories read by sentence."""
        at = np.full(int(self.owner.max(initial=-1)) + 1, -1)
        at[rows[rows < len(at)]] = np.flatnonzero(rows < len(at))
        mine = at[self.owner] >= 0 if len(self.owner) else np.zeros(0, bool)
        if not mine.any():
            return model.by_sentence(probs, np.zeros((0, probs.shape[1]), np.float32), np.zeros(0, np.int64))
        return model.by_sentence(probs, model.predict(self.x[mine]), at[self.owner[mine]])


def cross_validate(shared: Path, *, progress: Callable[[str], None] = lambda _: None) -> Run:
    """Fit with each LoCoMo dev conversation left out, read it; fit on everything; choose thresholds
    on the pooled leave-one-out readings, those after the turn before and those alone together."""
    ontology = Ontology.default()
    lexicon = Lexicon.shared()
    categories = list(ontology.tree)
    shared_t, _replies = shared_turns(shared)
    train_t, _ = training_turns()
    base = train_t + [t for t in shared_t if t.source == "gvd"] + lexicon_examples(lexicon, ontology)
    locomo = [t for t in shared_t if t.source == "locomo-dev"]
    written = written_turns()
    progress(f"reading {len(base) + len(locomo) + len(written)} turns")
    feats, alone = readings(base + locomo + written, lexicon, CONTEXT)
    parts_l, parts_w = Parts.of(locomo, lexicon, CONTEXT), Parts.of(written, lexicon, CONTEXT)
    nb, nl = len(base), len(locomo)
    xb, xl, xw = feats[:nb], feats[nb : nb + nl], feats[nb + nl :]
    lb, ll, lw = (labelled(x, categories) for x in (base, locomo, written))
    keys = lexicon.keys
    pooled, pooled_alone = np.zeros_like(ll.y), np.zeros_like(ll.y)
    for g in sorted(set(ll.group.tolist())):
        progress(f"fitting without {g}")
        out = ll.group == g
        x, data = _joined(xb, lb, xl[~out], _rows(ll, ~out))
        m = fit(x, data, categories, keys, CONTEXT)
        rows = np.flatnonzero(out)
        pooled[out] = parts_l.read(m, m.outputs(xl[out]), rows)
        pooled_alone[out] = parts_l.read(m, m.predict(alone[nb : nb + nl][out]), rows)
    progress("fitting on everything")
    x, data = _joined(xb, lb, xl, ll)
    model = choose_thresholds(
        fit(x, data, categories, keys, CONTEXT), np.vstack([pooled, pooled_alone]), np.vstack([ll.y, ll.y])
    )
    model.meta = {
        "fitted_on": {"training": len(train_t), "gvd": int((lb.source == "gvd").sum()), "locomo-dev": len(locomo),
                      "lexicon": int((lb.source == "lexicon").sum())},
        "lexicon": hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16],
    }  # fmt: skip
    # the written set is never fitted on
    every = np.arange(len(written))
    return Run(
        model,
        (pooled, ll),
        (parts_w.read(model, model.outputs(xw), every), lw),
        pooled_alone,
        parts_w.read(model, model.predict(alone[nb + nl :]), every),
    )


def _rows(data: Labelled, keep: np.ndarray) -> Labelled:
    return Labelled(
        [t for t, k in zip(data.turns, keep, strict=True) if k],
        data.y[keep],
        data.mask[keep],
        data.source[keep],
        data.group[keep],
        data.lang[keep],
    )


def _joined(xa: np.ndarray, a: Labelled, xb: np.ndarray, b: Labelled) -> tuple[np.ndarray, Labelled]:
    return np.vstack([xa, xb]), Labelled(
        a.turns + b.turns,
        np.vstack([a.y, b.y]),
        np.vstack([a.mask, b.mask]),
        np.concatenate([a.source, b.source]),
        np.concatenate([a.group, b.group]),
        np.concatenate([a.lang, b.lang]),
    )


def _row(name: str, model: Model, probs: np.ndarray, y: np.ndarray) -> list[str]:
    cap, cat, pol = capture_scores(model, probs, y), category_scores(model, probs, y), polarity_scores(model, probs, y)
    return [
        name,
        str(len(y)),
        f"{cap['precision']:.3f}",
        f"{cap['recall']:.3f}",
        f"{cat['precision']:.3f}",
        f"{cat['recall']:.3f}",
        f"{cat['f1']:.3f}",
        f"{cat['wrong']:.3f}",
        f"{cat['none']:.3f}",
        f"{pol['found']:.3f}",
        f"{pol['precision']:.3f}",
    ]


HEADER = [
    "set",
    "turns",
    "capture P",
    "capture R",
    "categories P",
    "R",
    "F1",
    "wrong",
    "none",
    "likes/dislikes found",
    "right",
]


def rows(run: Run) -> list[list[str]]:
    """The figures of a run: LoCoMo dev left out one conversation at a time (all, then each), the
    written set (all, then each language)."""
    probs, data = run.locomo
    out = [_row("LoCoMo dev, left out", run.model, probs, data.y)]
    out += [_row(f"  {g}", run.model, probs[data.group == g], data.y[data.group == g]) for g in sorted(set(data.group))]
    if run.locomo_alone is not None and run.model.context:
        out.append(_row("  each turn alone", run.model, run.locomo_alone, data.y))
    probs, data = run.written
    out.append(_row("written, never fitted on", run.model, probs, data.y))
    out += [_row(f"  {x}", run.model, probs[data.lang == x], data.y[data.lang == x]) for x in sorted(set(data.lang))]
    if run.written_alone is not None and run.model.context:
        out.append(_row("  each turn alone", run.model, run.written_alone, data.y))
    return out


def markdown(run: Run, command: str) -> str:
    """The run's figures as docs/reading.md's table, with the thresholds chosen."""
    m = run.model
    lines = [
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
        *("| " + " | ".join(r) + " |" for r in rows(run)),
        "",
        f"Thresholds chosen: capture {m.store_at:.3f}, category floor {m.category_floor}, second category "
        f"{m.category_at}, like/dislike {m.polarity_at}. Fitted on: "
        + ", ".join(f"{k} {v}" for k, v in m.meta.get("fitted_on", {}).items())
        + f" turns. Command: `{command}`.",
    ]
    return "\n".join(lines) + "\n"


#: Where the generated table goes in a doc: between these lines (the rest of the doc is prose).
BEGIN, END = "<!-- reading figures: begin -->", "<!-- reading figures: end -->"


def write_doc(path: Path, table: str, *, begin: str = BEGIN, end: str = END) -> None:
    """Put ``table`` between ``begin`` and ``end`` in ``path`` (appended with them when absent)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{begin}\n{table}{end}"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = f"{text.rstrip()}\n\n{block}\n".lstrip()
    path.write_text(text, encoding="utf-8")
