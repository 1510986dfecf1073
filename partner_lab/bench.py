"""``euchre partner-bench``: how well each belief finds the hidden partner (five-handed).

Fresh hands are played by ``--agents`` (default the heuristic at every seat).
At the first decision of every trick once the maker has declared, every
belief is asked for the view of each seat and of the public (spectator), and
scored against the truth:

* ``uniform``: the baseline that reads no cards (``euchre_env.beliefs.UniformBelief``);
* ``exact``: rules-only, counted over every consistent deal (``ExactBelief``);
* ``policy-true``: worlds weighted by the model of the players who played
  (``agents.beliefs.PolicyBelief``; for the heuristic: ``HeuristicModel``, eps 0.1);
* ``policy-wrong``: the same with a wrong model (uniformly random players;
  for random players: the heuristic);
* ``learned``: a classifier trained on ``--train-hands`` other hands of the
  same agents (``partner_lab.dataset``, ``agents.partner_model``), or ``--classifier``;
* ``oracle``: the truth itself, the ceiling (log-loss 0).

Scores (``partner_lab.classifier``) are over the positions where the view does not
know the answer for sure (the called card not yet played, not held by the
viewer, nobody alone): log-loss (nats), Brier score, accuracy, overall and by
trick; *identification*: the share of (hand, view) pairs whose belief puts at
least 0.9 on the partner before the called card is played, and the mean trick
at which it first does (trick 5 = only when the card is played or never);
calibration over the seat views (a reliability table and plot, cluster-robust
intervals over hands). Writes ``partner_bench.json``, ``partner_bench.md`` and
``calibration.png`` to ``--out``.

Example::

    euchre partner-bench --hands 400 --train-hands 20000 --out runs/partner_bench
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env.actions import Phase
from euchre_env.beliefs import PUBLIC, ExactBelief, PartnerBelief, UniformBelief
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State
from partner_lab.classifier import calibration, scores
from partner_lab.dataset import draw_seats

IDENTIFIED = 0.9  # belief in the true partner that counts as "identified"
VIEWS = ("seat", "public")


def positions(
    rules: RulesConfig, agents: dict[str, float], hands: int, seed: int
) -> tuple[State, np.ndarray]:
    """States at the first decision of each trick after the declaration; ``(states, hand index (N,))``."""
    from agents import make_agent
    from arena.evaluate import play_tables

    names = list(agents)
    rng = np.random.default_rng(seed)
    slots = draw_seats(agents, hands, rules.num_players, rng)
    seeds = np.random.SeedSequence([seed, 1]).generate_state(hands, np.uint64)
    taken: list[State] = []
    hand_ids: list[np.ndarray] = []

    def observe(s: State, acts: np.ndarray) -> None:
        rows = np.flatnonzero((acts >= 0) & (s.phase == Phase.PLAY) & (s.n_played == 0) & (s.called >= 0))
        if rows.size:
            taken.append(s.take(rows))
            hand_ids.append(rows)

    play_tables(
        rules, seeds, slots, [make_agent(n, rules) for n in names], rng, names=names, observer=observe
    )
    return State.concatenate(taken), np.concatenate(hand_ids)


def true_class(s: State, p: int) -> np.ndarray:
    """The answer in absolute layout: the partner's seat, or ``p`` for none. Int64 (B,)."""
    return np.where(s.partner >= 0, s.partner, p).astype(np.int64)


def player_models(rules: RulesConfig, agents: dict[str, float]) -> tuple[Any, Any, str]:
    """``(true model, wrong model, description)`` for the agents that played."""
    from agents import make_agent
    from agents.base import LogitAgent
    from agents.beliefs import HeuristicModel, UniformModel

    if set(agents) == {"heuristic"}:
        return (
            HeuristicModel(rules, 0.1),
            UniformModel(),
            "true: heuristic (eps 0.1); wrong: uniform random",
        )
    if set(agents) == {"random"}:
        return (
            UniformModel(),
            HeuristicModel(rules, 0.1),
            "true: uniform random; wrong: heuristic (eps 0.1)",
        )
    if len(agents) == 1:
        agent = make_agent(next(iter(agents)), rules)
        if isinstance(agent, LogitAgent):
            return agent, UniformModel(), f"true: {next(iter(agents))} (softmax); wrong: uniform random"
    raise ValueError(f"--agents: partner-bench knows the player model of one agent kind "
                     f"(heuristic, random or a model), got {sorted(agents)}")  # fmt: skip


def run(args: argparse.Namespace, command: str = "") -> dict[str, Any]:
    """Play, believe, score; returns the report (also written to ``args.out``)."""
    from agents.beliefs import PolicyBelief
    from agents.partner_model import PartnerClassifier
    from partner_lab.classifier import train_classifier
    from partner_lab.dataset import load_dataset, parse_mix, to_arrays, write_dataset
    from training.runs import provenance, write_json

    rules = make_rules("five_handed")
    p = rules.num_players
    mix = parse_mix(args.agents)
    true_model, wrong_model, models_text = player_models(rules, mix)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    train_stats: dict[str, float] = {}
    if args.classifier:
        clf = PartnerClassifier(args.classifier)
    else:
        data = write_dataset(out / "train_data", mix, args.train_hands, max(1000, args.train_hands // 4),
                             seed=args.seed + 1, overwrite=True, command=command)  # fmt: skip
        clf, train_stats = train_classifier(to_arrays(load_dataset(data)), hidden=(256, 256), seed=args.seed)
        clf.save(out / "partner_classifier.safetensors")
    beliefs: dict[str, PartnerBelief] = {
        "uniform": UniformBelief(),
        "exact": ExactBelief(),
        "policy-true": PolicyBelief(true_model, args.worlds, seed=args.seed),
        "policy-wrong": PolicyBelief(wrong_model, args.worlds, seed=args.seed),
        "learned": clf,
    }
    states, hand = positions(rules, mix, args.hands, args.seed)
    trick = states.trick_no.astype(np.int64)
    report: dict[str, Any] = {"hands": args.hands, "positions": states.batch_size, "agents": mix,
                              "models": models_text, "worlds": args.worlds, "seed": args.seed,
                              "train": train_stats, "beliefs": {}}  # fmt: skip
    seconds: dict[str, float] = {}
    cal: dict[str, list[dict[str, float]]] = {}
    # what does not depend on the belief, once per view: the truth, who knows it already, trick, (hand, viewer)
    y_all = true_class(states, p)
    frames: dict[str, dict[str, Any]] = {}
    for view in VIEWS:
        viewers = list(range(p)) if view == "seat" else [PUBLIC]
        frames[view] = {
            "viewers": viewers,
            "y": np.tile(y_all, len(viewers)),
            "open": ~np.concatenate([_settled(states, rules, v) for v in viewers]),
            "trick": np.tile(trick, len(viewers)),
            "key": np.concatenate([hand * (p + 1) + (v % (p + 1)) for v in viewers]),
            "groups": np.tile(hand, len(viewers)),
        }
    for name, belief in [*beliefs.items(), ("oracle", None)]:
        per_view: dict[str, Any] = {}
        for view, f in frames.items():
            start = time.perf_counter()
            parts = [
                np.eye(p + 1)[y_all] if belief is None else belief(states, rules, v).probs
                for v in f["viewers"]
            ]
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start
            probs, y, open_, tr = np.concatenate(parts), f["y"], f["open"], f["trick"]
            entry = scores(probs[open_], y[open_])
            entry["by_trick"] = {
                int(t): scores(probs[open_ & (tr == t)], y[open_ & (tr == t)]) for t in range(5)
            }
            entry["identification"] = _identification(probs, y, open_, tr, f["key"])
            per_view[view] = entry
            if view == "seat" and belief is not None:
                cal[name] = calibration(probs[open_], y[open_], groups=f["groups"][open_])
        report["beliefs"][name] = per_view
    report["calibration"] = cal
    views = states.batch_size * (p + 1)
    report["beliefs_per_second"] = {n: views / max(t, 1e-9) for n, t in seconds.items() if n != "oracle"}
    report["provenance"] = provenance(argparse.Namespace(seed=args.seed, variant="five_handed"), command)
    report["provenance"]["algo"] = "partner-bench"
    write_json(out / "partner_bench.json", report)
    text = to_markdown(report)
    tmp = out / "partner_bench.md.tmp"
    tmp.write_text(text)
    tmp.replace(out / "partner_bench.md")
    plot_calibration(cal, out / "calibration.png")
    return report


def _settled(states: State, rules: RulesConfig, viewer: int) -> np.ndarray:
    """(B,) bool: the view knows the answer for sure (or there is nothing to know)."""
    from euchre_env.beliefs import settled_beliefs, view_observations

    obs, _, public = view_observations(states, rules, viewer)
    _, open_ = settled_beliefs(obs.astype(bool), rules, public)
    return ~open_


def _identification(probs: np.ndarray, y: np.ndarray, open_: np.ndarray, trick: np.ndarray,
                    key: np.ndarray) -> dict[str, float]:  # fmt: skip
    """Per (hand, view): identified before the card is played (belief >= 0.9 at an open position), and the
    first trick at which the belief reaches 0.9 (5 if only the card's play or the hand's end tells)."""
    hit = probs[np.arange(len(y)), y] >= IDENTIFIED
    pairs = np.unique(key[open_])
    first = np.full(pairs.size, 5.0)
    at = np.searchsorted(pairs, key)
    sel = open_ & hit & np.isin(key, pairs)
    np.minimum.at(first, at[sel], trick[sel].astype(float))
    return {"pairs": int(pairs.size), "identified_before_reveal": float(np.mean(first < 5)) if pairs.size else 0.0,
            "mean_trick": float(np.mean(first)) if pairs.size else float("nan")}  # fmt: skip


def to_markdown(report: dict[str, Any]) -> str:
    """The tables of a report."""
    intro = (
        f"{report['hands']} hands, {report['positions']} positions (first decision of each trick after the "
        f"declaration) x 6 views; agents {report['agents']}; player models {report['models']}; policy beliefs "
        f"with {report['worlds']} worlds. Scores over the positions where the view does not know the partner "
        f"for sure. Identified: belief >= {IDENTIFIED} in the partner before its card is played.\n"
    )
    lines = ["# Partner-inference benchmark (five-handed)\n", intro]
    for view in VIEWS:
        lines += [
            f"\n## {view} view\n",
            "| belief | log-loss | Brier | accuracy | log-loss by trick 1-5 | identified | mean trick |",
            "|---|---:|---:|---:|---|---:|---:|",
        ]
        for name, per in report["beliefs"].items():
            e = per[view]
            by = " / ".join(f"{s['log_loss']:.2f}" if s["n"] else "-" for s in e["by_trick"].values())
            ident = e["identification"]
            lines.append(f"| {name} | {e['log_loss']:.3f} | {e['brier']:.3f} | {e['accuracy']:.3f} | {by} | "
                         f"{ident['identified_before_reveal']:.3f} | {ident['mean_trick']:.2f} |")  # fmt: skip
    lines += ["\n## Calibration (seat views)\n", "| belief | bins whose 95% interval holds the mean prediction |",
              "|---|---:|"]  # fmt: skip
    for name, table in report["calibration"].items():
        inside = sum(r["low"] <= r["predicted"] <= r["high"] for r in table)
        lines.append(f"| {name} | {inside} of {len(table)} |")
    lines += ["\n## Beliefs per second (this run, every view)\n", "| belief | views/s |", "|---|---:|"]
    lines += [f"| {n} | {r:,.0f} |" for n, r in report["beliefs_per_second"].items()]
    if report.get("train"):
        t = report["train"]
        lines.append(f"\nLearned classifier: {int(t['rows']):,} training rows, held-out log-loss "
                     f"{t['val_log_loss']:.3f}, temperature {t['temperature']:.2f}.")  # fmt: skip
    return "\n".join(lines) + "\n"


def plot_calibration(cal: dict[str, list[dict[str, float]]], path: Path) -> None:
    """Reliability diagram: observed frequency (95% interval) against the mean prediction, per belief."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    for name, table in cal.items():
        x = np.array([r["predicted"] for r in table])
        obs = np.array([r["observed"] for r in table])
        err = np.array(
            [[r["observed"] - r["low"] for r in table], [r["high"] - r["observed"] for r in table]]
        )
        ax.errorbar(x, obs, yerr=err, marker="o", ms=3, capsize=2, label=name)
    ax.set_xlabel("predicted probability")
    ax.set_ylabel("observed frequency (95% interval)")
    ax.set_title("calibration of partner beliefs (seat views)")
    ax.legend()
    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)


OUTPUTS = ("partner_bench.json", "partner_bench.md", "calibration.png", "partner_classifier.safetensors", "train_data")
"""What a run writes into --out."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre partner-bench``."""
    parser.add_argument("--out", required=True, help="report folder")
    parser.add_argument("--overwrite", action="store_true", help="replace a report already in --out")
    parser.add_argument("--hands", "--deals", dest="hands", type=int, default=400, help="hands to score on (default 400)")
    parser.add_argument("--agents", default="heuristic", help="who plays: heuristic (default), random or "
                        "model:PATH")  # fmt: skip
    parser.add_argument("--worlds", type=int, default=256, help="worlds per view of the policy beliefs")
    parser.add_argument(
        "--train-hands", type=int, default=20000, help="hands the learned classifier trains on"
    )
    parser.add_argument("--classifier", default="", help="a trained classifier file instead of training one")
    parser.add_argument("--seed", type=int, default=0, help="seed (the training hands use seed + 1)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")


def check_out(out: str, overwrite: bool) -> None:
    """Refuse an ``--out`` that is a file, or a folder holding a report, unless ``overwrite``.

    Raises:
        ValueError: naming ``--out`` and what is in the way.
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {out!r} is a file, not a folder")
    taken = [name for name in OUTPUTS if (folder / name).exists()]
    if taken and not overwrite:
        raise ValueError(f"--out {out!r} already holds {', '.join(taken)}: pass --overwrite to replace them")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre partner-bench``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="euchre partner-bench", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        check_out(args.out, args.overwrite)
    except ValueError as err:
        parser.error(str(err))
    for name in ("hands", "worlds", "train_hands", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.seed < 0:
        parser.error(f"--seed must be at least 0, got {args.seed}")
    import torch

    torch.set_num_threads(args.threads)
    try:
        report = run(args, command="euchre partner-bench " + shlex.join(argv))
    except ValueError as err:
        parser.error(str(err))
    print(to_markdown(report))
    print(f"wrote {Path(args.out) / 'partner_bench.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
