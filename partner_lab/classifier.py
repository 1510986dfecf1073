"""Train the learned partner belief, and score beliefs: log-loss, Brier, accuracy, calibration.

``train_classifier`` fits :class:`agents.partner_model.PartnerClassifier` on
the rows of a ``partner_lab.dataset`` folder (cross-entropy on the decisions
where the partner is still uncertain to the viewer; the rules' certainties
are imposed by the classifier itself). The scoring functions take
probabilities ``(N, K)`` and class labels ``(N,)`` in any consistent layout; ``bins_inside`` and
``expected_calibration_error`` summarise a reliability table.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.partner_features import to_maker_frame
from agents.partner_model import PartnerClassifier, build_classifier, log_counted, new_config
from euchre_env.beliefs import check_observations, settled_beliefs
from euchre_env.rules import make_rules

EPS = 1e-12
_CHUNK = 1 << 13  # views whose features are computed together


def class_index(label: np.ndarray, num_players: int) -> np.ndarray:
    """Dataset labels (``-1`` none, ``0..P-1`` relative seat) -> class ids ``0..P`` (``P`` = none)."""
    label = np.asarray(label, dtype=np.int64)
    return np.where(label < 0, num_players, label)


def view_rows(arrays: dict[str, np.ndarray], rows_seed: int = 0, row_fraction: float = 1.0) -> dict[str, np.ndarray]:
    """The rows a classifier learns from: every seat's view and the public view of each decision.

    The public view of a decision is viewer 0's row with its private pieces zeroed. Rows whose answer the
    rules already give are left out (the classifier imposes those), and ``row_fraction`` of the rest are
    kept at random (the rows of one hand are strongly correlated: more hands beat more rows of each).

    Returns:
        ``obs`` (N, D) bool, ``public`` (N,) bool, ``label`` (N,) class ids in the viewer's frame, ``hand`` (N,).
    """
    rules = make_rules("five_handed")
    n = len(arrays["viewer"])
    src = np.concatenate([np.arange(n), np.flatnonzero(arrays["viewer"] == 0)])  # seat rows, then public
    public = np.arange(len(src)) >= n
    pick = np.random.default_rng(rows_seed).random(len(src)) < row_fraction  # before copying observations
    src, public = src[pick], public[pick]
    obs, public = check_observations(arrays["obs"][src], rules, public)
    label = class_index(arrays["label"][src], rules.num_players)
    _, keep = settled_beliefs(obs, rules, public)
    hand = arrays["hand"][src]
    return {"obs": obs[keep], "public": public[keep], "label": label[keep], "hand": hand[keep]}


def train_classifier(
    arrays: dict[str, np.ndarray], hidden: tuple[int, ...] = (256, 256), epochs: int = 3, lr: float = 1e-3,
    batch_size: int = 1024, seed: int = 0, val_fraction: float = 0.1, checks_per_epoch: int = 8,
    row_fraction: float = 1.0, dropped: Sequence[str] = (), provenance: dict[str, Any] | None = None,
    viewed: bool = False, teacher: np.ndarray | None = None, teacher_weight: float = 1.0,
) -> tuple[PartnerClassifier, dict[str, float]]:  # fmt: skip
    """Fit a classifier on dataset rows (``partner_lab.dataset.to_arrays``); returns it and training stats.

    It learns from the rows of :func:`view_rows` (with ``viewed=True``, ``arrays`` are those already and
    ``row_fraction`` is not applied; the caller's arrays are not changed). ``val_fraction`` of the hands
    are held out; the weights with the lowest held-out log-loss (checked ``checks_per_epoch`` times an
    epoch) are kept, and the temperature is then fitted on the same held-out rows. ``hidden``: the seat
    network's hidden layers (``agents.partner_model``). ``dropped`` feature groups are not seen
    (``agents.partner_features.GROUPS``). The stats include the counted belief's held-out log-loss, the
    reference the network improves on.

    Distillation: ``teacher`` (N, P + 1), another belief's probabilities on the rows of ``arrays`` (viewer
    frame, as :meth:`PartnerBelief.from_observations` gives them; NaN rows where it was not asked; needs
    ``viewed=True``), adds ``teacher_weight`` times the cross-entropy to the teacher's probabilities on
    those rows to the loss. The held-out rows still pick the weights and the temperature by the true labels.
    """
    import torch

    rules = make_rules("five_handed")
    p = rules.num_players
    config = new_config(rules, list(hidden), provenance, list(dropped))
    torch.manual_seed(seed)
    clf = PartnerClassifier((build_classifier(config), config))
    net = clf.net
    start = time.perf_counter()
    rows = dict(arrays) if viewed else view_rows(arrays, seed, row_fraction)
    if len(rows["label"]) == 0:
        raise ValueError("the dataset has no rows where the partner is uncertain: play more hands")
    n = len(rows["label"])
    if teacher is not None:
        teacher = _checked_teacher(teacher, viewed, n, p, teacher_weight)
        taught = np.zeros((n, p + 1), np.float32)
    xs = np.empty((n, config.num_features), np.float16)  # filled in chunks: memory stays ~ the features
    logs, ys = np.empty((n, p + 1), np.float32), np.empty(n, np.int64)
    for at in range(0, n, _CHUNK):
        sl = slice(at, at + _CHUNK)
        x, exact, maker = clf.inputs(rows["obs"][sl], rows["public"][sl])
        lab = rows["label"][sl]
        xs[sl] = x
        logs[sl] = np.maximum(log_counted(exact), -1e9)  # finite for the loss
        ys[sl] = np.where(lab == p, p, (lab - maker) % p)
        if teacher is not None:
            taught[sl] = to_maker_frame(np.nan_to_num(teacher[sl]), maker)
    del rows["obs"]
    x_all, base_all, y_all = torch.as_tensor(xs), torch.as_tensor(logs), torch.as_tensor(ys)
    del xs, logs, ys
    if teacher is not None:
        t_all, has_all = torch.as_tensor(taught), torch.as_tensor(np.isfinite(teacher).all(axis=1))
        del taught
    rng = np.random.default_rng(seed)
    hands = np.unique(rows["hand"])
    held = np.isin(rows["hand"], rng.choice(hands, size=round(val_fraction * hands.size), replace=False))
    train, val = np.flatnonzero(~held), torch.as_tensor(np.flatnonzero(held))

    def total_logits(idx: Any) -> Any:
        return clf.network(x_all[idx].float()) + base_all[idx]

    def val_logits() -> Any:  # in chunks: the seat network's activations are P times a row's
        net.eval()
        with torch.no_grad():
            return torch.cat([total_logits(val[at : at + _CHUNK]) for at in range(0, len(val), _CHUNK)])

    def val_loss() -> float:
        return float(torch.nn.functional.cross_entropy(val_logits(), y_all[val]))

    opt = torch.optim.Adam(net.parameters(), lr=lr)
    check = max(1, -(-len(train) // batch_size) // max(1, checks_per_epoch))
    best, best_state, step = float("inf"), None, 0
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(train))
        for i in range(0, len(order), batch_size):
            idx = order[i : i + batch_size]
            net.train()
            z = total_logits(idx)
            loss = torch.nn.functional.cross_entropy(z, y_all[idx])
            if teacher is not None:  # the teacher's cross-entropy on its rows, zero elsewhere
                soft = -(t_all[idx] * torch.log_softmax(z, dim=1).clamp(min=-30.0)).sum(dim=1)
                loss = loss + teacher_weight * (soft * has_all[idx]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if len(val) and (step % check == 0 or i + batch_size >= len(order)):
                v = val_loss()
                if v < best:
                    best, best_state = v, {k: t.clone() for k, t in net.state_dict().items()}
    if best_state is not None:
        net.load_state_dict(best_state)
    net.eval()
    stats = {"rows": float(len(train)), "val_rows": float(len(val)), "hands": float(hands.size),
             "epochs": float(epochs), "seconds": 0.0}  # fmt: skip
    if len(val):
        z, y = val_logits(), y_all[val]
        clf.config = dataclasses.replace(config, temperature=_fit_temperature(z, y))
        stats["val_log_loss"] = best
        stats["val_exact_log_loss"] = float(torch.nn.functional.cross_entropy(base_all[val], y))
    if teacher is not None:
        stats["teacher_rows"] = float(has_all[torch.as_tensor(train)].sum())
    stats["temperature"] = clf.config.temperature
    stats["seconds"] = time.perf_counter() - start
    return clf, stats


def not_distributions(probs: np.ndarray, atol: float = 1e-6) -> np.ndarray:
    """(N,) bool: the rows of ``probs`` (N, K) that are not probability distributions (not finite, negative,
    or not summing to 1 within ``atol``)."""
    return ~np.isfinite(probs).all(axis=1) | (probs < 0).any(axis=1) | (np.abs(probs.sum(axis=1) - 1.0) > atol)


def _checked_teacher(teacher: Any, viewed: bool, n: int, p: int, weight: float) -> np.ndarray:
    """``teacher`` as float64 (n, p + 1), or ValueError naming what is wrong with it."""
    if not viewed:
        raise ValueError("teacher needs viewed=True: its rows must be the rows of arrays, one for one")
    t = np.asarray(teacher, dtype=np.float64)
    if t.shape != (n, p + 1):
        raise ValueError(f"teacher must have shape {(n, p + 1)} (a row per row of arrays), got {t.shape}")
    bad = not_distributions(t, 1e-4) & ~np.isnan(t).all(axis=1)  # an all-NaN row was not asked
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"teacher rows must be probabilities (>= 0, summing to 1) or all NaN; row {row} is {t[row]}")
    if not (np.isfinite(weight) and weight >= 0):
        raise ValueError(f"teacher_weight must be a finite number >= 0, got {weight!r}")
    return t


def _fit_temperature(z: Any, y: Any) -> float:
    """The logit temperature in [0.5, 5] with the lowest held-out log-loss of logits ``z`` (a grid, then a finer one)."""
    import torch

    def nll(t: float) -> float:
        return float(torch.nn.functional.cross_entropy(z / t, y))

    grid = np.exp(np.linspace(np.log(0.5), np.log(5.0), 41))
    best = float(grid[np.argmin([nll(t) for t in grid])])
    fine = best * np.exp(np.linspace(-0.06, 0.06, 25))
    return round(float(fine[np.argmin([nll(t) for t in fine])]), 4)


def scores(probs: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Mean log-loss (nats), Brier score (sum over classes) and argmax accuracy of ``probs (N, K)``.

    A row whose largest probability is shared by ``k`` classes counts ``1/k`` if
    the truth is one of them (the expected accuracy of breaking the tie at random).
    """
    probs = np.asarray(probs, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    if len(y) == 0:
        return {"n": 0, "log_loss": float("nan"), "brier": float("nan"), "accuracy": float("nan")}
    true = probs[np.arange(len(y)), y]
    onehot = np.zeros_like(probs)
    onehot[np.arange(len(y)), y] = 1.0
    top = probs >= probs.max(axis=1, keepdims=True)  # ties share the credit (a uniform belief scores 1/k)
    return {
        "n": len(y),
        "log_loss": float(-np.mean(np.log(np.maximum(true, EPS)))) + 0.0,
        "brier": float(np.mean(((probs - onehot) ** 2).sum(axis=1))),
        "accuracy": float(np.mean(top[np.arange(len(y)), y] / top.sum(axis=1))),
    }


def calibration(
    probs: np.ndarray, y: np.ndarray, bins: int = 10, groups: np.ndarray | None = None
) -> list[dict[str, float]]:
    """Reliability table over every (row, class) probability.

    Per bin: the mean prediction, the observed frequency of the class, the count
    and a 95% interval of the frequency. Rows of one hand are correlated, so with
    ``groups`` (e.g. the hand of each row) the interval is cluster-robust (the
    variance of a ratio over independent groups); without, a Wilson interval
    that treats rows as independent (with ``groups``, the wider of the two).
    """
    probs = np.asarray(probs, dtype=np.float64)
    k = probs.shape[1]
    hit = np.zeros_like(probs, dtype=bool)
    hit[np.arange(len(y)), np.asarray(y, dtype=np.int64)] = True
    p, h = probs.ravel(), hit.ravel().astype(np.float64)
    g = None if groups is None else np.repeat(np.asarray(groups), k)
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    out = []
    for b in range(bins):
        sel = which == b
        n = int(sel.sum())
        if not n:
            continue
        freq = float(h[sel].mean())
        z = 1.96
        centre = (freq + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(freq * (1 - freq) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low, high = centre - half, centre + half  # Wilson
        if g is not None:  # cluster-robust, never narrower than Wilson (which stays sane for tiny bins)
            _, inv = np.unique(g[sel], return_inverse=True)
            resid = np.bincount(inv, weights=h[sel] - freq)  # per group: hits minus expected hits
            m = resid.size
            se = np.sqrt((resid**2).sum() * m / max(m - 1, 1)) / n
            low, high = min(low, freq - z * se), max(high, freq + z * se)
        out.append({"bin_low": float(edges[b]), "bin_high": float(edges[b + 1]), "n": n,
                    "predicted": float(p[sel].mean()), "observed": freq,
                    "low": float(max(low, 0.0)), "high": float(min(high, 1.0))})  # fmt: skip
    return out


def bins_inside(table: list[dict[str, float]]) -> int:
    """Reliability bins whose 95% interval holds the bin's mean prediction."""
    return sum(r["low"] <= r["predicted"] <= r["high"] for r in table)


def expected_calibration_error(table: list[dict[str, float]]) -> float:
    """Expected calibration error of a reliability table: the count-weighted mean |observed - predicted|."""
    n = np.array([r["n"] for r in table], dtype=np.float64)
    gap = np.abs([r["observed"] - r["predicted"] for r in table])
    return float((n * gap).sum() / max(n.sum(), 1.0))
