"""Train the learned partner belief, and score beliefs: log-loss, Brier, accuracy, calibration.

``train_classifier`` fits :class:`agents.partner_model.PartnerClassifier` on
the rows of a ``partner_lab.dataset`` folder (cross-entropy on the decisions
where the partner is still uncertain to the viewer; the rules' certainties
are imposed by the classifier itself). The scoring functions take
probabilities ``(N, K)`` and class labels ``(N,)`` in any consistent layout.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from agents.partner_model import PartnerClassifier, build_classifier, new_config
from euchre_env.beliefs import check_observations
from euchre_env.rules import make_rules

EPS = 1e-12


def class_index(label: np.ndarray, num_players: int) -> np.ndarray:
    """Dataset labels (``-1`` none, ``0..P-1`` relative seat) -> class ids ``0..P`` (``P`` = none)."""
    label = np.asarray(label, dtype=np.int64)
    return np.where(label < 0, num_players, label)


def train_classifier(
    arrays: dict[str, np.ndarray], hidden: tuple[int, ...] = (256, 256), epochs: int = 2, lr: float = 1e-3,
    batch_size: int = 2048, seed: int = 0, val_fraction: float = 0.1, checks_per_epoch: int = 8,
    provenance: dict[str, Any] | None = None,
) -> tuple[PartnerClassifier, dict[str, float]]:  # fmt: skip
    """Fit a classifier on dataset rows (``partner_lab.dataset.to_arrays``); returns it and training stats.

    It learns from every seat's view and from the public view of each decision
    (viewer 0's row with its private pieces zeroed); rows whose answer the rules
    already give (the classifier imposes those) are left out. ``val_fraction`` of the hands are held out; the weights with the
    lowest validation log-loss (checked ``checks_per_epoch`` times an epoch) are
    kept: the rows of one hand are strongly correlated, and the network
    overfits within a few epochs.
    """
    import torch

    rules = make_rules("five_handed")
    p = rules.num_players
    config = new_config(rules, list(hidden), provenance)
    torch.manual_seed(seed)
    net = build_classifier(config)
    clf = PartnerClassifier((net, config))
    # seat views, and the public view of each decision (viewer 0's row with its private pieces zeroed)
    first = arrays["viewer"] == 0
    public = np.concatenate([np.zeros(len(first), bool), np.ones(int(first.sum()), bool)])
    obs, public = check_observations(np.concatenate([arrays["obs"], arrays["obs"][first]]), rules, public)
    label = class_index(np.concatenate([arrays["label"], arrays["label"][first]]), p)
    hand = np.concatenate([arrays["hand"], arrays["hand"][first]])
    allowed, certain = clf.allowed(obs, public)
    rng = np.random.default_rng(seed)
    hands = np.unique(hand)
    held = np.isin(hand, rng.choice(hands, size=round(val_fraction * hands.size), replace=False))
    split = {}
    for name, rows in (("train", ~certain & ~held), ("val", ~certain & held)):
        split[name] = (torch.as_tensor(obs[rows].view(np.uint8)), torch.as_tensor(label[rows]),
                       torch.as_tensor(allowed[rows]))  # fmt: skip
    x, y, mask = split["train"]
    if len(y) == 0:
        raise ValueError("the dataset has no rows where the partner is uncertain: play more hands")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    check = max(1, -(-len(y) // batch_size) // max(1, checks_per_epoch))
    best, best_state, step, start = float("inf"), None, 0, time.perf_counter()
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(len(y)))
        for i in range(0, len(y), batch_size):
            idx = order[i : i + batch_size]
            net.train()
            z = net(x[idx].float()).masked_fill(~mask[idx], -1e9)
            loss = torch.nn.functional.cross_entropy(z, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % check == 0 or i + batch_size >= len(y):
                val = _loss(net, *split["val"]) if len(split["val"][1]) else float(loss.detach())
                if val < best:
                    best, best_state = val, {k: v.clone() for k, v in net.state_dict().items()}
    if best_state is not None:
        net.load_state_dict(best_state)
    net.eval()
    if len(split["val"][1]):
        clf.config = dataclasses.replace(config, temperature=_fit_temperature(net, *split["val"]))
    stats = {"rows": float(len(y)), "val_rows": float(len(split["val"][1])), "rows_certain": float(certain.sum()),
             "epochs": float(epochs), "val_log_loss": best, "temperature": clf.config.temperature, "seconds": time.perf_counter() - start}  # fmt: skip
    return clf, stats


def _fit_temperature(net: Any, x: Any, y: Any, mask: Any) -> float:
    """The logit temperature in [0.5, 5] with the lowest held-out log-loss (a grid, then a finer one)."""
    import torch

    with torch.no_grad():
        z = net(x.float()).masked_fill(~mask, -1e9)

        def nll(t: float) -> float:
            return float(torch.nn.functional.cross_entropy(z / t, y))

        grid = np.exp(np.linspace(np.log(0.5), np.log(5.0), 41))
        best = float(grid[np.argmin([nll(t) for t in grid])])
        fine = best * np.exp(np.linspace(-0.06, 0.06, 25))
        return round(float(fine[np.argmin([nll(t) for t in fine])]), 4)


def _loss(net: Any, x: Any, y: Any, mask: Any) -> float:
    import torch

    net.eval()
    with torch.no_grad():
        return float(torch.nn.functional.cross_entropy(net(x.float()).masked_fill(~mask, -1e9), y))


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
