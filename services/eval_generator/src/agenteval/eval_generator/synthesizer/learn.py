"""Learning a small readable rule over signal values: a decision list, a tree of depth <= 3, or
a scorecard (a sparse logistic model over conditions, each weight on its signal's sign).

Candidates (lists of 0-6 rules, trees of depth 1-3, scorecards of 1-6 terms) are compared by repeated stratified
cross-validation on the training traces only; among those within about one trace of the
best, the one with the fewest conditions wins. A signal with a polarity (a higher value is a
worse trace, or a better one) is only read in that direction: a rule "more unsupported
claims, so positive" fits noise, never the behaviour the signal measures. Example sets are Python ints used as
bitsets, so a few hundred traces learn in milliseconds. Deterministic given the seed
(the seed only shuffles the folds).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from agenteval.eval_generator.synthesizer.rules import (
    Condition,
    DecisionList,
    DecisionTree,
    ListRule,
    Model,
    Outcome,
    Scorecard,
    TreeNode,
    WeightedCondition,
    negate,
)

MAX_RULES = 6
MAX_DEPTH = 3
MAX_THRESHOLDS = 12
MAX_TERMS = 6
L2_PENALTY = 1.0
"""Ridge penalty on each scorecard weight, in units of the summed log-loss (about one trace's worth)."""
CV_FOLDS = 5
CV_REPEATS = 3


# --- fitting ---


def _outcome(n: int, pos: int) -> Outcome:
    """Majority label (ties positive) and a Laplace-smoothed P(positive) kept on the label's side of 0.5."""
    label = 2 * pos >= n
    score = round((pos + 1) / (n + 2), 3)
    score = max(score, 0.5) if label else min(score, 0.499)
    return Outcome(label, score, n, pos if label else n - pos)


@dataclass
class TrainingData:
    """Training examples as bitsets: one per candidate condition ``signal >= t``."""

    conditions: list[Condition]
    masks: list[int]
    positives: int
    full: int
    polarities: list[int]
    """Per condition, its signal's polarity: -1 higher is worse, +1 higher is better, 0 either."""

    @staticmethod
    def build(
        rows: Sequence[Sequence[float]],
        labels: Sequence[bool],
        names: Sequence[str],
        polarity: dict[str, int] | None = None,
    ) -> TrainingData:
        conditions: list[Condition] = []
        masks: list[int] = []
        polarities: list[int] = []
        for j, name in enumerate(names):
            column = [row[j] for row in rows]
            for t in _thresholds(column):
                conditions.append(Condition(name, ">=", t))
                masks.append(sum(1 << i for i, v in enumerate(column) if v >= t))
                polarities.append((polarity or {}).get(name, 0))
        positives = sum(1 << i for i, y in enumerate(labels) if y)
        return TrainingData(conditions, masks, positives, (1 << len(rows)) - 1, polarities)


def _agrees(polarity: int, high_side: bool, label: bool) -> bool:
    """Whether predicting ``label`` for the high (>=) or low side of a signal reads it in its direction."""
    if polarity == 0:
        return True
    high_is_good = polarity > 0
    return label == (high_is_good if high_side else not high_is_good)


def _thresholds(column: Sequence[float]) -> list[float]:
    """Cut points between consecutive distinct values (at most MAX_THRESHOLDS, by quantile)."""
    distinct = sorted(set(column))
    if len(distinct) < 2:
        return []
    cuts = list(range(1, len(distinct)))
    if len(cuts) > MAX_THRESHOLDS:
        step = len(cuts) / MAX_THRESHOLDS
        cuts = sorted({cuts[int(i * step)] for i in range(MAX_THRESHOLDS)})
    out = []
    for i in cuts:
        low, high = distinct[i - 1], distinct[i]
        if float(low).is_integer() and float(high).is_integer():
            t = float(high)  # "count >= 2" reads better than "count >= 1.5" and means the same
        else:
            t = round((low + high) / 2, 3)
            if not low < t <= high:
                t = (low + high) / 2
        out.append(t)
    return out


def _min_support(n: int) -> int:
    """Fewest traces a rule or a split must cover: a rule about two traces is about their noise."""
    return max(3, math.ceil(0.03 * n))


def fit_list(data: TrainingData, subset: int, max_rules: int = MAX_RULES) -> DecisionList:
    """Greedy decision list: each rule is the one that most raises accuracy given a majority default."""
    pc = int.bit_count
    rules: list[ListRule] = []
    remaining = subset
    min_support = _min_support(pc(subset))
    for _ in range(max_rules):
        n_rem = pc(remaining)
        p_rem = pc(remaining & data.positives)
        base = max(p_rem, n_rem - p_rem)
        best: tuple[tuple[float, ...], Condition, int, int, int] | None = None
        for ci, mask in enumerate(data.masks):
            for negated, side in ((False, mask), (True, data.full ^ mask)):
                covered = remaining & side
                n = pc(covered)
                if n < min_support or n == n_rem:
                    continue
                p = pc(covered & data.positives)
                if not _agrees(data.polarities[ci], not negated, 2 * p >= n):
                    continue
                gain = max(p, n - p) + max(p_rem - p, (n_rem - n) - (p_rem - p))
                key = (gain, max(p, n - p) / n, n, -ci, -int(negated))
                if best is None or key > best[0]:
                    cond = negate(data.conditions[ci]) if negated else data.conditions[ci]
                    best = (key, cond, covered, n, p)
        if best is None or best[0][0] <= base:
            break
        _, cond, covered, n, p = best
        rules.append(ListRule(cond, _outcome(n, p)))
        remaining &= ~covered
    n_rem = pc(remaining)
    return DecisionList(tuple(rules), _outcome(n_rem, pc(remaining & data.positives)))


def _gini(n: int, p: int) -> float:
    if n == 0:
        return 0.0
    q = p / n
    return 2 * q * (1 - q) * n


def fit_tree(data: TrainingData, subset: int, max_depth: int = MAX_DEPTH) -> DecisionTree:
    """CART with Gini impurity; splits whose two sides predict the same label are folded away."""
    pc = int.bit_count
    min_support = _min_support(pc(subset))

    def grow(members: int, depth: int) -> TreeNode:
        n = pc(members)
        p = pc(members & data.positives)
        leaf = TreeNode(_outcome(n, p))
        if depth == max_depth or p in (0, n):
            return leaf
        best: tuple[float, int] | None = None
        for ci, mask in enumerate(data.masks):
            yes = members & mask
            ny = pc(yes)
            if ny < min_support or n - ny < min_support:
                continue
            py = pc(yes & data.positives)
            polarity = data.polarities[ci]
            if polarity and (py * (n - ny) - (p - py) * ny) * polarity < 0:
                continue  # the high side must be the better side for +1, the worse for -1
            impurity = _gini(ny, py) + _gini(n - ny, p - py)
            if best is None or impurity < best[0] - 1e-12:
                best = (impurity, ci)
        if best is None or best[0] >= _gini(n, p) - 1e-12:
            return leaf
        mask = data.masks[best[1]]
        return _fold(
            TreeNode(
                leaf.outcome,
                data.conditions[best[1]],
                grow(members & mask, depth + 1),
                grow(members & ~mask, depth + 1),
            )
        )

    return DecisionTree(grow(subset, 0))


def _fold(node: TreeNode) -> TreeNode:
    """A split whose children are leaves with the same label is just a leaf."""
    yes, no = node.yes, node.no
    if yes is None or no is None:
        return node
    if yes.condition is None and no.condition is None and yes.outcome.label == no.outcome.label:
        return TreeNode(node.outcome)
    return node


def truncate(tree: DecisionTree, depth: int) -> DecisionTree:
    """The same tree cut at ``depth`` (what CART grows with that depth limit)."""

    def cut(node: TreeNode, d: int) -> TreeNode:
        if node.condition is None or node.yes is None or node.no is None or d == depth:
            return TreeNode(node.outcome)
        return _fold(TreeNode(node.outcome, node.condition, cut(node.yes, d + 1), cut(node.no, d + 1)))

    return DecisionTree(cut(tree.root, 0))


def truncate_list(rules: DecisionList, size: int, data: TrainingData, subset: int) -> DecisionList:
    """The first ``size`` rules with the default refit on what they leave (what a greedy fit of ``size`` gives)."""
    kept = rules.rules[:size]
    remaining = subset
    for rule in kept:
        remaining &= ~_condition_mask(data, rule.condition)
    default = _outcome(remaining.bit_count(), (remaining & data.positives).bit_count())
    return DecisionList(kept, default)


def _condition_mask(data: TrainingData, cond: Condition) -> int:
    base = Condition(cond.signal, ">=", cond.threshold)
    mask = data.masks[data.conditions.index(base)]
    return mask if cond.op == ">=" else data.full ^ mask


# --- scorecards: a sparse logistic model over conditions, grown greedily ---


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _refit(
    sides: list[int], signs: list[int], data: TrainingData, subset: int, sweeps: int = 30
) -> tuple[float, list[float]]:
    """Bias and weights of the terms with these on-sets, by coordinate-wise Newton steps on the
    ridge-penalized log-loss, each weight kept on its sign (-1: only lowers the evidence, +1: only
    raises it, 0: either; a weight that would cross zero stays at zero)."""
    groups: dict[int, int] = {}  # pattern of terms that hold -> members
    members = subset
    while members:
        low = members & -members
        members ^= low
        pattern = 0
        for j, side in enumerate(sides):
            if side & low:
                pattern |= 1 << j
        groups[pattern] = groups.get(pattern, 0) | low
    rows = [
        (pattern, g.bit_count(), (g & data.positives).bit_count()) for pattern, g in sorted(groups.items())
    ]
    bias, weights = 0.0, [0.0] * len(sides)
    for _ in range(sweeps):
        moved = 0.0
        for j in range(-1, len(sides)):
            grad = hess = 0.0
            for pattern, n, pos in rows:
                if j >= 0 and not pattern >> j & 1:
                    continue
                z = bias + sum(w for k, w in enumerate(weights) if pattern >> k & 1)
                q = _sigmoid(z)
                grad += n * q - pos
                hess += n * q * (1 - q)
            if j < 0:
                step = (grad + 0.01 * bias) / (hess + 0.01)
                bias -= step
            else:
                step = (grad + L2_PENALTY * weights[j]) / (hess + L2_PENALTY)
                new = weights[j] - step
                if signs[j] and new * signs[j] < 0:
                    new = 0.0
                step = weights[j] - new
                weights[j] = new
            moved = max(moved, abs(step))
        if moved < 1e-4:
            break
    return bias, weights


def fit_scorecard(data: TrainingData, subset: int, max_terms: int = MAX_TERMS) -> list[Scorecard]:
    """Scorecards of 0..max_terms terms, each term the condition with the largest score-test
    statistic given the terms before it (read in its signal's direction), then all refit."""
    pc = int.bit_count
    n_sub = pc(subset)
    min_support = _min_support(n_sub)
    options: list[tuple[Condition, int, int]] = []  # condition, on-set, sign its weight must have
    for ci, mask in enumerate(data.masks):
        polarity = data.polarities[ci]
        cond = data.conditions[ci]
        if polarity > 0:
            options.append((negate(cond), data.full ^ mask, -1))  # "too little of a good thing"
        else:
            options.append((cond, mask, -1 if polarity < 0 else 0))
    chosen: list[int] = []
    cards: list[Scorecard] = []
    bias, weights = _refit([], [], data, subset)
    while True:
        sides = [options[o][1] for o in chosen]
        cards.append(
            Scorecard(
                round(bias, 3),
                tuple(
                    WeightedCondition(options[o][0], round(w, 3), pc(options[o][1] & subset))
                    for o, w in zip(chosen, weights, strict=True)
                    if round(w, 3) != 0.0
                ),
            )
        )
        if len(chosen) == max_terms:
            break
        # the current model's residuals, grouped by which chosen terms hold
        groups: dict[int, int] = {}
        members = subset
        while members:
            low = members & -members
            members ^= low
            key = sum(1 << j for j, side in enumerate(sides) if side & low)
            groups[key] = groups.get(key, 0) | low
        fitted = []
        for key, g in groups.items():
            z = bias + sum(w for j, w in enumerate(weights) if key >> j & 1)
            fitted.append((g, _sigmoid(z)))
        used_signals = {options[o][0].signal for o in chosen}
        best: tuple[float, int] | None = None
        for o, (cond, side, sign) in enumerate(options):
            if cond.signal in used_signals:
                continue
            on = side & subset
            n_on = pc(on)
            if n_on < min_support or n_on > n_sub - min_support:
                continue
            grad = hess = 0.0
            for g, q in fitted:
                k = pc(on & g)
                if k:
                    grad += pc(on & g & data.positives) - k * q
                    hess += k * q * (1 - q)
            if sign and grad * sign <= 0:
                continue
            stat = grad * grad / (hess + L2_PENALTY)
            if best is None or stat > best[0] + 1e-12:
                best = (stat, o)
        if best is None or best[0] < 1.0:
            break  # nothing left that explains more than about one trace's worth
        chosen.append(best[1])
        bias, weights = _refit([options[o][1] for o in chosen], [options[o][2] for o in chosen], data, subset)
    return cards


# --- choosing by cross-validation ---


@dataclass(frozen=True)
class Learned:
    """The chosen model refit on all training traces, and how it scored."""

    model: Model
    train_accuracy: float
    cv_accuracy: float
    candidates: dict[str, float]
    """Cross-validated accuracy of every candidate ("list:2", "tree:3", ...)."""


def _predict_mask(model: Model, data: TrainingData, subset: int) -> int:
    """Bitset of the members of ``subset`` the model calls positive."""
    if isinstance(model, DecisionList):
        remaining = subset
        out = 0
        for rule in model.rules:
            hit = remaining & _condition_mask(data, rule.condition)
            if rule.outcome.label:
                out |= hit
            remaining &= ~hit
        return out | (remaining if model.default.label else 0)

    if isinstance(model, Scorecard):
        out = 0
        members = subset
        while members:
            low = members & -members
            members ^= low
            total = model.bias
            for term in model.terms:
                if _condition_mask(data, term.condition) & low:
                    total += term.weight
            if total >= 0:
                out |= low
        return out

    def walk(node: TreeNode, members: int) -> int:
        if node.condition is None or node.yes is None or node.no is None:
            return members if node.outcome.label else 0
        mask = _condition_mask(data, node.condition)
        return walk(node.yes, members & mask) | walk(node.no, members & ~mask)

    return walk(model.root, subset)


def _accuracy(model: Model, data: TrainingData, subset: int) -> float:
    n = subset.bit_count()
    if n == 0:
        return 0.0
    predicted = _predict_mask(model, data, subset)
    wrong = (predicted ^ data.positives) & subset
    return 1.0 - wrong.bit_count() / n


def _folds(labels: Sequence[bool], k: int, seed: int) -> list[int]:
    """Stratified fold bitsets: each class shuffled with the seed and dealt round-robin."""
    rng = random.Random(seed)
    folds = [0] * k
    for cls in (True, False):
        members = [i for i, y in enumerate(labels) if y == cls]
        rng.shuffle(members)
        for j, i in enumerate(members):
            folds[j % k] |= 1 << i
    return folds


def _candidates(data: TrainingData, subset: int) -> dict[str, Model]:
    full_list = fit_list(data, subset)
    full_tree = fit_tree(data, subset)
    out: dict[str, Model] = {}
    for size in range(MAX_RULES + 1):
        out[f"list:{size}"] = truncate_list(full_list, size, data, subset)
    for depth in range(1, MAX_DEPTH + 1):
        out[f"tree:{depth}"] = truncate(full_tree, depth)
    cards = fit_scorecard(data, subset)
    for size in range(1, MAX_TERMS + 1):
        out[f"card:{size}"] = cards[min(size, len(cards) - 1)]  # greedy growth stopped: the same card
    return out


def learn(
    rows: Sequence[Sequence[float]],
    labels: Sequence[bool],
    names: Sequence[str],
    seed: int = 0,
    descriptions: dict[str, str] | None = None,
    polarity: dict[str, int] | None = None,
) -> Learned:
    """Pick and fit the simplest rule whose cross-validated accuracy is within about one trace of the best."""
    if not rows:
        raise ValueError("no training traces")
    data = TrainingData.build(rows, labels, names, polarity)
    n = len(rows)
    smaller_class = min(sum(labels), n - sum(labels))
    k = min(CV_FOLDS, smaller_class)
    scores: dict[str, float] = {}
    if k >= 2:
        # Repeated with other fold assignments: one 5-fold split of 100 traces is a noisy judge.
        for repeat in range(CV_REPEATS):
            for fold in _folds(labels, k, seed + 7919 * repeat):
                for key, model in _candidates(data, data.full & ~fold).items():
                    share = _accuracy(model, data, fold) * fold.bit_count() / n / CV_REPEATS
                    scores[key] = scores.get(key, 0.0) + share
    final = _candidates(data, data.full)
    if not scores:  # too few traces of one class to cross-validate: judge on the training traces
        scores = {key: _accuracy(model, data, data.full) for key, model in final.items()}
    best = max(scores.values())
    tolerance = max(0.01, 1.0 / n)
    order = list(final)  # lists before trees, smaller before larger
    eligible = [key for key in order if scores[key] >= best - tolerance]
    chosen = min(eligible, key=lambda key: (final[key].complexity, order.index(key)))
    model = final[chosen]
    if isinstance(model, DecisionList) and descriptions:
        model = DecisionList(model.rules, model.default, dict(descriptions))
    return Learned(model, _accuracy(model, data, data.full), scores[chosen], scores)
