"""Do the learned and the policy partner beliefs read different evidence on `mix`? (an experiment)

On the benchmark's `mix` population the learned belief scores 0.94 of counting's log-loss from a seat and
the policy belief with the players' true model (seats tracked, noise as the published run fitted it,
256 worlds) 0.91. This pools the two log-linearly around the counted belief,

    p ∝ learned^a · policy^b · exact^(1 - a - b)    (what counting rules out stays out),

with (a, b) = (0.5, 0.5) (a geometric mean) and (1, 1) (a product of experts: each the counted belief
times its own evidence), and with (a, b) fitted on a grid by log-loss on another set of 400 hands made as
the frozen one is (seed 1), then scores each on the frozen set (seed 0): seat and public views, log-loss
as a share of counting's. The learned belief is the published one
(``docs/results/partner_bench/partner_classifier.safetensors``). About 13 minutes on one core (the policy
belief is the cost); the beliefs' outputs are kept under ``--work`` and reused. The record is in
``docs/experiments/partner_bench.md`` (eighth session).

    python scripts/partner_pooling.py --work /tmp/pool
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from agents.beliefs import PolicyBelief, with_noise
from agents.partner_model import PartnerClassifier
from euchre_env.beliefs import PUBLIC, ExactBelief
from euchre_env.rules import make_rules
from partner_lab.bench import _settled, player_models
from partner_lab.dataset import parse_mix
from partner_lab.sets import POPULATIONS, evaluation_set, true_class

CLASSIFIER = Path(__file__).resolve().parents[1] / "docs/results/partner_bench/partner_classifier.safetensors"
EPSILON = {"seat": 0.2, "public": 0.4}  # the noise the published run fitted for `mix` (seat / public views)
BELIEFS = ("exact", "learned", "policy")


def beliefs_on(seed: int, work: Path) -> dict[str, dict[str, np.ndarray]]:
    """Per view: each belief's probabilities (N, P + 1) at the open rows of the `mix` set of ``seed``, and ``y``."""
    path = work / f"mix_seed{seed}.npz"
    if not path.exists():
        rules = make_rules("five_handed")
        p = rules.num_players
        true_model, _, _ = player_models(rules, parse_mix(POPULATIONS["mix"]))
        learned = PartnerClassifier(str(CLASSIFIER))
        states, _, _ = evaluation_set(rules, "mix", 400, seed)
        y = true_class(states, p)
        arrays = {}
        for view, viewers in (("seat", list(range(p))), ("public", [PUBLIC])):
            policy = PolicyBelief(with_noise(true_model, EPSILON[view]), 256, seed=0)
            parts: dict[str, list[np.ndarray]] = {k: [] for k in (*BELIEFS, "y")}
            for v in viewers:
                open_ = ~_settled(states, rules, v)
                for name, belief in (("exact", ExactBelief()), ("learned", learned), ("policy", policy)):
                    parts[name].append(belief(states, rules, v).probs[open_])
                parts["y"].append(y[open_])
            arrays.update({f"{view}_{k}": np.concatenate(a) for k, a in parts.items()})
        np.savez(path, **arrays)
    data = np.load(path)
    return {v: {k: data[f"{v}_{k}"] for k in (*BELIEFS, "y")} for v in ("seat", "public")}


def log_loss(probs: np.ndarray, y: np.ndarray) -> float:
    return float(-np.log(np.maximum(probs[np.arange(len(y)), y], 1e-12)).mean())


def pooled(d: dict[str, np.ndarray], a: float, b: float) -> np.ndarray:
    """``learned^a · policy^b · exact^(1 - a - b)``, normalised; zero where counting says zero."""
    logs = {k: np.log(np.maximum(d[k], 1e-12)) for k in BELIEFS}
    z = a * logs["learned"] + b * logs["policy"] + (1 - a - b) * logs["exact"]
    z = np.where(d["exact"] > 0, z, -np.inf)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True, help="folder for the beliefs' outputs")
    work = Path(parser.parse_args().work)
    work.mkdir(parents=True, exist_ok=True)
    frozen, other = beliefs_on(0, work), beliefs_on(1, work)
    grid = [(a, b) for a in np.arange(0, 1.61, 0.1) for b in np.arange(0, 1.61, 0.1)]
    print("| view | learned | policy (true model) | geometric mean | product | fitted on seed 1: (a, b), share |")
    print("|---|---:|---:|---:|---:|---:|")
    for view in ("seat", "public"):
        d, f = frozen[view], other[view]
        share = lambda probs, d=d: log_loss(probs, d["y"]) / log_loss(d["exact"], d["y"])
        a, b = min(grid, key=lambda ab: log_loss(pooled(f, *ab), f["y"]))
        print(f"| {view} | {share(d['learned']):.3f} | {share(d['policy']):.3f} | {share(pooled(d, 0.5, 0.5)):.3f} | "
              f"{share(pooled(d, 1, 1)):.3f} | ({a:.1f}, {b:.1f}) {share(pooled(d, a, b)):.3f} |")  # fmt: skip


if __name__ == "__main__":
    main()
