"""Fit a player model's noise on held-out hands, so that a policy belief is calibrated.

A policy belief (``agents.beliefs.PolicyBelief``) weighs sampled worlds by the
probability of every observed decision under a model of the players. A
model that is too sure of itself (a deterministic heuristic, a sharp
softmax) gives a few worlds all the weight: with a finite number of worlds
the belief is then confidently wrong. ``NoisyModel(base, epsilon)`` mixes
the model with uniform play (``with_noise`` mixes each part of a
``SeatMixtureModel``); :func:`fit_noise` picks ``epsilon`` from a grid
by the belief's log-loss on positions of hands kept apart from the ones it
is scored on, separately for the seat views and the public view (they weigh
different decisions: the public view counts every seat's). Worlds are drawn
once per view and every ``epsilon`` of the grid is weighed on them in one
replay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import ActionModel
from agents.beliefs import _MAX_WORLDS, history_log_likelihood, with_noise
from euchre_env.beliefs import (
    PUBLIC,
    check_observations,
    sample_view_worlds,
    settled_beliefs,
    to_absolute,
    view_observations,
)
from euchre_env.rules import RulesConfig
from euchre_env.state import State

GRID = (0.003, 0.01, 0.03, 0.1, 0.2, 0.4, 0.7, 1.0)
"""The epsilons tried by default (1.0: uniform play, which reads hand shapes from plays but no intent)."""


def grid_beliefs(
    base: ActionModel, grid: Sequence[float], obs: np.ndarray, rules: RulesConfig, public: np.ndarray,
    n_worlds: int, rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """The policy belief of ``with_noise(base, eps)`` for every ``eps`` in ``grid``, on the same worlds.

    Args:
        obs: (B, D) view observations; public: (B,) bool (``PartnerBelief.from_observations``).

    Returns:
        Float64 (B, P + 1, G) in the view's frame: settled rows one-hot (or NaN before the declaration)
        for every ``eps``.
    """
    obs, public = check_observations(obs, rules, public)
    settled, open_ = settled_beliefs(obs, rules, public)
    p, g = rules.num_players, len(grid)
    probs = np.repeat(settled[:, :, None], g, axis=2)
    model = with_noise(base, np.asarray(grid, dtype=np.float64))
    rows = np.flatnonzero(open_)
    step = max(1, _MAX_WORLDS // n_worlds)  # as PolicyBelief: the same worlds from the same generator
    for at in range(0, rows.size, step):
        r = rows[at : at + step]
        worlds = sample_view_worlds(obs[r], rules, public[r], n_worlds, rng)
        skip = np.repeat(np.where(public[r], -1, 0), n_worlds)  # the viewer's own decisions are no evidence
        logw = history_log_likelihood(worlds, rules, model, skip).reshape(r.size, n_worlds, g)
        top = logw.max(axis=1, keepdims=True)
        w = np.where(np.isfinite(top), np.exp(logw - np.where(np.isfinite(top), top, 0.0)), 0.0)
        col = np.where(worlds.partner >= 0, worlds.partner, p).reshape(r.size, n_worlds)
        onehot = col[:, :, None] == np.arange(p + 1)  # (R, N, P + 1)
        mass = np.einsum("rnk,rng->rkg", onehot.astype(np.float64), w)
        with np.errstate(invalid="ignore", divide="ignore"):
            probs[r] = mass / w.sum(axis=1)[:, None, :]
    return probs


def fit_noise(
    base: ActionModel, states: State, rules: RulesConfig, truth: np.ndarray, grid: Sequence[float] = GRID,
    n_worlds: int = 256, seed: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """The ``epsilon`` of ``grid`` whose policy belief has the lowest log-loss, per view kind.

    Args:
        base: the player model without noise.
        states: (B) positions of held-out hands; ``truth`` (B,) the answer in absolute seats (``P``: none).

    Returns:
        ``{"seat": {"epsilon": best, "grid": [{"epsilon", "log_loss", "n"}, ...]}, "public": {...}}``,
        log-loss over the positions each view does not know for sure.
    """
    from partner_lab.classifier import scores

    p = rules.num_players
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for kind, viewers in (("seat", range(p)), ("public", [PUBLIC])):
        parts, ys = [], []
        for v in viewers:
            obs, frame, public = view_observations(states, rules, v)
            rel = grid_beliefs(base, grid, obs, rules, public, n_worlds, rng)
            absolute = np.stack([to_absolute(rel[:, :, i], frame) for i in range(len(grid))], axis=2)
            _, open_ = settled_beliefs(obs.astype(bool), rules, public)
            parts.append(absolute[open_])
            ys.append(truth[open_])
        probs, y = np.concatenate(parts), np.concatenate(ys)
        table = [{"epsilon": float(e), **{k: v for k, v in scores(probs[:, :, i], y).items() if k in ("log_loss", "n")}}
                 for i, e in enumerate(grid)]  # fmt: skip
        best = min(table, key=lambda r: (np.nan_to_num(r["log_loss"], nan=np.inf), r["epsilon"]))
        out[kind] = {"epsilon": best["epsilon"], "grid": table}
    return out
