"""Beliefs per second over the hidden partner, for each kind of belief, at batch 1 and batch 4096.

Positions are five-handed decision points from heuristic self-play (so phases
and reveals appear as in real hands) at which there is something to infer:
the maker called a card and it has not been played yet. Each position is seen
by a random seat and by the public. Batch 1: ``--singles`` positions, one
call each (the latency an agent sees). Batch B: one call on ``--batch``
positions. The sampled (policy-based) beliefs use ``--worlds-1`` worlds per
view at batch 1 and ``--worlds-b`` at batch B (replaying every world's
history under the model costs time in proportion to the worlds). One core:
BLAS threads are pinned to one before numpy loads.

Besides speed, each batch-B row reports how well the belief predicts the true
partner on these positions: the log loss ``-mean log p(truth)`` (probabilities
clipped at 1e-3, as a sampled belief can miss the truth) and the mean ESS.
With few worlds the sampled beliefs lose accuracy (a peaked model leaves an
ESS of 2 or 3 of 16), so ``--quality N`` adds a table of log loss and
accuracy (argmax = truth) on N positions at ``--worlds-1`` worlds per view.

    python benchmarks/bench_beliefs.py --quality 300        # Markdown tables
    python benchmarks/bench_beliefs.py --batch 512 --singles 20 --models uniform heuristic
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time
from pathlib import Path

import numpy as np

from agents.beliefs import HeuristicModel, LogitModel, PolicyBelief, UniformModel
from agents.heuristic import HeuristicAgent
from euchre_env import engine
from euchre_env.beliefs import PUBLIC, ExactBelief, PartnerBelief, UniformBelief
from euchre_env.encoding import encode
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State

MODEL = Path(__file__).resolve().parents[1] / "agents" / "models" / "five_handed.safetensors"


def positions(rules: RulesConfig, count: int, rng: np.random.Generator) -> State:
    """``count`` decision points of heuristic self-play with a called card not yet played."""
    policy = HeuristicAgent(rules)
    s = engine.init_state(rules, max(64, count // 6), rng=rng)
    seen = []
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        seen.append(sub.take(np.flatnonzero((sub.called >= 0) & (sub.revealed < 0))))
        a = np.full(s.batch_size, -1)
        a[live] = policy.act(encode(sub, sub.turn, rules), engine.legal_action_mask(sub, rules), rng)
        s = engine.step(s, a, rules)
    every = State.concatenate(seen)
    if every.batch_size < count:
        return positions(rules, count * 2, rng).take(np.arange(count))
    return every.take(rng.permutation(every.batch_size)[:count])


def kinds(rules: RulesConfig, models: list[str], worlds: int) -> list[tuple[str, PartnerBelief, int | None]]:
    """``(label, belief, worlds)`` of every kind benchmarked."""
    out: list[tuple[str, PartnerBelief, int | None]] = [
        ("uniform baseline", UniformBelief(), None),
        ("exact (rules only)", ExactBelief(), None),
    ]
    for name in models:
        if name == "uniform":
            model = UniformModel()
        elif name == "heuristic":
            model = HeuristicModel(rules, epsilon=0.1)
        else:
            from agents.neural import NeuralAgent

            model = LogitModel(NeuralAgent(MODEL, rules), temperature=1.0)
        out.append((f"policy: {getattr(model, 'name', name)}", PolicyBelief(model, worlds, seed=0), worlds))
    return out


def log_loss(probs: np.ndarray, s: State) -> float:
    """``-mean log p(true partner)`` with probabilities clipped at 1e-3."""
    p = s.num_players
    truth = np.where(s.partner >= 0, s.partner, p)
    return float(-np.log(np.clip(probs[np.arange(s.batch_size), truth], 1e-3, 1)).mean())


def main() -> None:
    """Time every kind at batch 1 and batch B for a seat's and the public view; print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4096, help="positions in the batched call")
    parser.add_argument("--singles", type=int, default=40, help="positions timed one per call")
    parser.add_argument("--worlds-1", type=int, default=256, help="worlds per view at batch 1 (policy kinds)")
    parser.add_argument("--worlds-b", type=int, default=16, help="worlds per view in the batched call")
    parser.add_argument(
        "--models",
        nargs="*",
        default=["uniform", "heuristic", "neural"],
        choices=["uniform", "heuristic", "neural"],
    )
    parser.add_argument("--quality", type=int, default=0, help="positions of the accuracy table (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = make_rules("five_handed")
    rng = np.random.default_rng(args.seed)
    s = positions(rules, args.batch, rng)
    seats = rng.integers(0, rules.num_players, s.batch_size)
    print(f"{s.batch_size} positions from heuristic self-play, called card not yet played; one CPU core\n")
    print("| belief | view | batch | worlds/view | beliefs/s | log loss | mean ESS |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for view, viewer in (("seat", seats), ("public", np.full(s.batch_size, PUBLIC))):
        for batch, worlds in ((1, args.worlds_1), (s.batch_size, args.worlds_b)):
            for label, belief, n in kinds(rules, args.models, worlds):
                belief(s.take([0]), rules, viewer[:1])  # warm-up: imports, caches
                if batch == 1:
                    t = time.perf_counter()
                    for i in range(args.singles):
                        belief(s.take([i]), rules, viewer[i : i + 1])
                    rate, loss, ess = args.singles / (time.perf_counter() - t), "", ""
                else:
                    t = time.perf_counter()
                    out = belief(s, rules, viewer)
                    rate = s.batch_size / (time.perf_counter() - t)
                    loss = f"{log_loss(out.probs, s):.3f}"
                    ess = f"{np.nanmean(out.ess):.1f}" if out.ess is not None else ""
                print(
                    f"| {label} | {view} | {batch} | {n or ''} | {rate:,.0f} | {loss} | {ess} |", flush=True
                )
    if args.quality:
        q = s.take(np.arange(min(args.quality, s.batch_size)))
        truth = np.where(q.partner >= 0, q.partner, rules.num_players)
        print(f"\n{q.batch_size} positions, {args.worlds_1} worlds per view for the policy kinds\n")
        print("| belief | view | log loss | accuracy | mean ESS |")
        print("|---|---|---:|---:|---:|")
        for view, viewer in (("seat", seats[: q.batch_size]), ("public", PUBLIC)):
            for label, belief, _ in kinds(rules, args.models, args.worlds_1):
                out = belief(q, rules, viewer)
                acc = (out.probs.argmax(axis=1) == truth).mean()
                ess = f"{np.nanmean(out.ess):.1f}" if out.ess is not None else ""
                print(f"| {label} | {view} | {log_loss(out.probs, q):.3f} | {acc:.3f} | {ess} |", flush=True)


if __name__ == "__main__":
    main()
