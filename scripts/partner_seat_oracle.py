"""What would knowing who sits where be worth to the learned partner belief on `mix`? (an experiment)

In the benchmark's `mix` population each seat is dealt the heuristic, the shipped model or a random
player. This trains the learned belief's network on `mix` hands three times, alike but for 15 more
inputs, each maker-frame seat's player: zeros (not told); the probabilities of a classifier of the
seats' players trained on the same features (inferred: cross-fitted on two halves of the hands, so a
row's probabilities come from the half it is not in); the true player, one-hot (told: an oracle, no
belief a player could hold). Each is scored on the benchmark's 400 `mix` evaluation hands, given its
inputs likewise: log-loss against the counted belief's, from the seats and from the public, and the
seats' calibration (bins inside their 95% interval, ECE). The record is in
``docs/experiments/partner_bench.md`` (sixth session). About 25 minutes on 2 cores, under 2 GB.

    python scripts/partner_seat_oracle.py --work /tmp/oracle
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np
import torch

from agents.partner_model import PartnerClassifier, build_classifier, log_counted, new_config
from euchre_env.beliefs import PUBLIC, check_observations, settled_beliefs, view_observations
from euchre_env.rules import make_rules
from partner_lab.bench import HIDDEN, TRAIN_SHARD_HANDS, _settled
from partner_lab.classifier import (
    _fit_temperature,
    bins_inside,
    calibration,
    class_index,
    expected_calibration_error,
)
from partner_lab.dataset import draw_seats, load_dataset, parse_mix, to_arrays, write_dataset
from partner_lab.sets import POPULATIONS, positions, true_class

RULES = make_rules("five_handed")
P = RULES.num_players
MIX = parse_mix(POPULATIONS["mix"])
NAMES = list(MIX)


def training_rows(folder: Path, fraction: float, seed: int) -> dict[str, np.ndarray]:
    """The rows ``partner_lab.classifier.view_rows`` keeps, with each row's seat players and frame."""
    rng, parts = np.random.default_rng(seed), []
    for shard in range(json.loads((folder / "manifest.json").read_text())["shards"]):
        a = to_arrays(
            load_dataset(folder, columns=["hand", "viewer", "label", "obs", "agents"], shards=[shard])
        )
        n = len(a["viewer"])
        src = np.concatenate([np.arange(n), np.flatnonzero(a["viewer"] == 0)])  # seat rows, then public
        public = np.arange(len(src)) >= n
        pick = rng.random(len(src)) < fraction
        src, public = src[pick], public[pick]
        obs, public = check_observations(a["obs"][src], RULES, public)
        _, keep = settled_beliefs(obs, RULES, public)
        players = np.array([[NAMES.index(x) for x in s.split(",")] for s in a["agents"][src]])
        parts.append({"obs": obs[keep], "public": public[keep], "label": class_index(a["label"][src], P)[keep],
                      "hand": a["hand"][src][keep], "players": players[keep],
                      "frame": np.where(public, 0, a["viewer"][src]).astype(np.int64)[keep]})  # fmt: skip
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}


def maker_frame_seats(frame: np.ndarray, maker: np.ndarray) -> np.ndarray:
    """(N, P): the absolute seat of each maker-frame seat (``frame``: the viewer's seat; ``maker``: relative to it)."""
    return (frame[:, None] + maker[:, None] + np.arange(P)) % P


def features(clf: PartnerClassifier, obs, public, players, frame, mode: str, probs=None):
    """The belief's features plus 15 inputs on the seats' players (``mode``: ``"none"`` zeros, ``"oracle"``
    each maker-frame seat's true player one-hot, ``"inferred"`` ``probs`` (N, 15) or, without them, those
    of :data:`PLAYER_NETS`); the counted belief; the maker."""
    x, exact, maker = clf.inputs(obs, public)
    if mode == "inferred":
        extra = player_probs(x) if probs is None else probs
    else:
        who = players[np.arange(len(players))[:, None], maker_frame_seats(frame, maker)]
        extra = (who[:, :, None] == np.arange(len(NAMES))).reshape(len(who), -1) * (mode == "oracle")
    return np.concatenate([x, extra.astype(np.float32)], axis=1), exact, maker


PLAYER_NETS: list[torch.nn.Module] = []
"""The classifiers of the seats' players (one per half of the training hands), for ``"inferred"``."""


def player_probs(x: np.ndarray, nets: list[torch.nn.Module] | None = None) -> np.ndarray:
    """(N, 15): each maker-frame seat's player probabilities, the mean of ``nets`` (default :data:`PLAYER_NETS`)."""
    with torch.no_grad():
        outs = [torch.softmax(net(torch.as_tensor(x).float()).reshape(len(x), P, len(NAMES)), dim=2)
                for net in (nets or PLAYER_NETS)]  # fmt: skip
    return (sum(outs) / len(outs)).reshape(len(x), -1).numpy()


def fit_players(rows: dict[str, np.ndarray]) -> np.ndarray:
    """Train a classifier of each maker-frame seat's player on each half of the hands (an MLP on the belief's
    features, 3 epochs), keep both in :data:`PLAYER_NETS`, and return every row's probabilities from the
    classifier of the other half (N, 15); prints their accuracy and log-loss."""
    plain = PartnerClassifier((None, new_config(RULES, list(HIDDEN))))
    n = len(rows["label"])
    xs, who = np.empty((n, plain.config.num_features), np.float16), np.empty((n, P), np.int64)
    for at in range(0, n, 8192):
        sl = slice(at, at + 8192)
        x, _, maker = plain.inputs(rows["obs"][sl], rows["public"][sl])
        seats = maker_frame_seats(rows["frame"][sl], maker)
        xs[sl], who[sl] = x, rows["players"][sl][np.arange(len(x))[:, None], seats]
    hands = np.unique(rows["hand"])
    half = np.isin(rows["hand"], np.random.default_rng(2).choice(hands, hands.size // 2, replace=False))
    rng, probs = np.random.default_rng(1), np.empty((n, P * len(NAMES)), np.float32)
    for fit_on in (np.flatnonzero(half), np.flatnonzero(~half)):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(xs.shape[1], 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                                  torch.nn.ReLU(), torch.nn.Linear(256, P * len(NAMES)))  # fmt: skip
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        for _ in range(3 * (len(fit_on) // 1024)):
            b = fit_on[rng.integers(0, len(fit_on), 1024)]
            z = net(torch.as_tensor(xs[b]).float()).reshape(-1, len(NAMES))
            loss = torch.nn.functional.cross_entropy(z, torch.as_tensor(who[b]).reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        PLAYER_NETS.append(net)
        other = np.setdiff1d(np.arange(n), fit_on)
        for at in range(0, len(other), 8192):
            rows_ = other[at : at + 8192]
            probs[rows_] = player_probs(xs[rows_], [net])
    p3 = probs.reshape(n, P, len(NAMES))
    hit = p3[np.arange(n)[:, None], np.arange(P), who]
    print(f"players inferred (cross-fitted): accuracy {(p3.argmax(axis=2) == who).mean():.3f}, log-loss "
          f"{-np.log(np.maximum(hit, 1e-9)).mean():.3f} (knowing nothing: {np.log(len(NAMES)):.3f})\n")  # fmt: skip
    return probs


def train(rows: dict[str, np.ndarray], mode: str) -> tuple[PartnerClassifier, PartnerClassifier]:
    """The network trained as ``train_classifier`` trains it (3 epochs, the best held-out weights, then the
    temperature); returns the base-feature classifier (its ``inputs``) and the widened one."""
    base = new_config(RULES, list(HIDDEN))
    config = dataclasses.replace(base, num_features=base.num_features + P * len(NAMES))
    torch.manual_seed(0)
    net = build_classifier(config)
    plain, wide = PartnerClassifier((net, base)), PartnerClassifier((net, config))
    n = len(rows["label"])
    xs, logs, ys = (
        np.empty((n, config.num_features), np.float16),
        np.empty((n, P + 1), np.float32),
        np.empty(n, np.int64),
    )
    for at in range(0, n, 8192):
        sl = slice(at, at + 8192)
        probs = rows["probs"][sl] if mode == "inferred" else None
        x, exact, maker = features(plain, rows["obs"][sl], rows["public"][sl], rows["players"][sl],
                                   rows["frame"][sl], mode, probs)  # fmt: skip
        xs[sl], logs[sl] = x, np.maximum(log_counted(exact), -1e9)
        ys[sl] = np.where(rows["label"][sl] == P, P, (rows["label"][sl] - maker) % P)
    x_all, base_all, y_all = torch.as_tensor(xs), torch.as_tensor(logs), torch.as_tensor(ys)
    rng = np.random.default_rng(0)
    hands = np.unique(rows["hand"])
    held = np.isin(rows["hand"], rng.choice(hands, size=round(0.1 * hands.size), replace=False))
    train_rows, val = np.flatnonzero(~held), torch.as_tensor(np.flatnonzero(held))

    def logits(idx):
        return wide.network(x_all[idx].float()) + base_all[idx]

    def val_logits():
        net.eval()
        with torch.no_grad():
            return torch.cat([logits(val[a : a + 8192]) for a in range(0, len(val), 8192)])

    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    check, best, best_state, step = max(1, -(-len(train_rows) // 1024) // 8), float("inf"), None, 0
    for _ in range(3):
        order = torch.as_tensor(rng.permutation(train_rows))
        for i in range(0, len(order), 1024):
            idx = order[i : i + 1024]
            net.train()
            loss = torch.nn.functional.cross_entropy(logits(idx), y_all[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % check == 0 or i + 1024 >= len(order):
                v = float(torch.nn.functional.cross_entropy(val_logits(), y_all[val]))
                if v < best:
                    best, best_state = v, {k: t.clone() for k, t in net.state_dict().items()}
    net.load_state_dict(best_state)
    net.eval()
    wide.config = dataclasses.replace(config, temperature=_fit_temperature(val_logits(), y_all[val]))
    return plain, wide


def score(plain: PartnerClassifier, wide: PartnerClassifier, mode: str) -> str:
    """Log-loss (x the counted belief's) from the seats and the public, and the seats' calibration."""
    states, hand = positions(RULES, MIX, 400, 0)
    players = draw_seats(MIX, 400, P, np.random.default_rng(0))  # as positions() draws them
    y_abs, cells = true_class(states, P), []
    for view, viewers in (("seats", list(range(P))), ("public", [PUBLIC])):
        probs, ys, groups, counted = [], [], [], []
        for v in viewers:
            obs, frame, public = view_observations(states, RULES, v)
            rows = np.flatnonzero(~_settled(states, RULES, v))
            o, pb = check_observations(obs[rows].astype(bool), RULES, public[rows])
            x, exact, maker = features(plain, o, pb, players[hand[rows]], frame[rows], mode)
            with torch.no_grad():
                z = wide.network(torch.as_tensor(x)).numpy().astype(np.float64)
            z = (z + log_counted(exact)) / wide.config.temperature
            e = np.exp(z - z.max(axis=1, keepdims=True))
            rel = np.where(y_abs[rows] == P, P, (y_abs[rows] - frame[rows]) % P)
            probs.append(e / e.sum(axis=1, keepdims=True))
            ys.append(np.where(rel == P, P, (rel - maker) % P))
            groups.append(hand[rows])
            counted.append(exact)
        pr, y, g, ex = (np.concatenate(c) for c in (probs, ys, groups, counted))
        at = np.arange(len(y))
        ll, ll_exact = (
            -np.log(np.maximum(pr[at, y], 1e-12)).mean(),
            -np.log(np.maximum(ex[at, y], 1e-12)).mean(),
        )
        cells.append(f"{ll:.3f} ({ll / ll_exact:.3f})")
        if view == "seats":
            table = calibration(pr, y, groups=g)
            calib = f"{bins_inside(table)} of 10, {expected_calibration_error(table):.3f}"
    return " | ".join([*cells, calib])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True, help="folder for the training hands")
    parser.add_argument("--hands", type=int, default=60000, help="mix hands to train on")
    parser.add_argument("--row-fraction", type=float, default=0.1, help="share of their rows")
    args = parser.parse_args()
    torch.set_num_threads(1)
    folder = write_dataset(
        Path(args.work) / "mix", MIX, args.hands, TRAIN_SHARD_HANDS, seed=1, overwrite=True
    )
    rows = training_rows(folder, args.row_fraction, 0)
    print(f"{len(rows['label']):,} rows of {args.hands:,} mix hands\n")
    rows["probs"] = fit_players(rows)
    print("| players' seats | seat log-loss (x exact) | public (x exact) | seat calibration: bins, ECE |")
    print("|---|---:|---:|---:|")
    for mode, label in (
        ("none", "not told"),
        ("inferred", "inferred from play"),
        ("oracle", "told (oracle)"),
    ):
        print(f"| {label} | {score(*train(rows, mode), mode)} |", flush=True)


if __name__ == "__main__":
    main()
