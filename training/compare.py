"""``euchre compare-learners``: learners trained for the same wall-clock minutes, compared on frozen deals.

    euchre compare-learners --deal-set four_handed-v1 --learners ppo dmc --minutes 10 40 --out runs/compare

Each learner of :data:`LEARNERS` (a route of ``euchre train`` and its settings) is trained from scratch once
per budget of ``--minutes`` by the batched trainer, which stops after that many minutes of rollouts and
updates (``--time-budget``; the learning rate decays over it; periodic evaluations are not counted), all
with the same seed and threads. Then, on the frozen deal set (:mod:`arena.deal_sets`), each model plays the
heuristic, and at each budget every pair of learners plays head to head (``arena.leaderboard.play_pair``:
four-handed points per hand of the duplicate match, five-handed relative points).

The runs stay in ``OUT/runs/<learner>__<minutes>min`` (a run whose settings match is not trained again, so a
longer budget or another learner can be added later; one stopped by Ctrl-C or SIGTERM is resumed from its
checkpoint by the same command) and the matches in ``OUT/pairs``. The folder receives
``compare.json`` (every figure, the command, the CPU), ``compare.md`` and ``compare.png``: strength against
the heuristic along each run (its periodic evaluations) and at each budget, against training minutes.

Runs are timed: nothing else should use the machine's cores meanwhile.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from arena.deal_sets import load, shipped
from arena.report import pyplot, report_folder, save_figure

FORMAT = "euchre-env-compare-learners"

# name -> (route of euchre train, settings besides its defaults)
LEARNERS: dict[str, tuple[str, dict[str, Any]]] = {
    "ppo": ("ppo", {}),
    "ppo-scratch": ("ppo", {"prior": ""}),
    "dmc": ("dmc", {}),
    "dmc-heuristic": ("dmc", {"prior": "heuristic"}),
}


def run_settings(learner: str, variant: str, minutes: float, seed: int, threads: int, eval_every: int) -> Any:
    """The trainer's ``Args`` of one learner's run at one budget."""
    from training.batched.args import algo_args, check_args

    algo, extra = LEARNERS[learner]
    args = algo_args(algo, **{**extra, "variant": variant, "seed": seed, "threads": threads,
                              "time_budget": 60.0 * minutes, "total_decisions": 10**15, "eval_every": eval_every,
                              "final_eval_deals": 0, "progress": False})  # fmt: skip
    check_args(args)
    return args


class Stopped(Exception):
    """A run stopped before its budget (Ctrl-C or SIGTERM); its checkpoint stays and the same command goes on."""


def train_or_reuse(args: Any, run_dir: Path, command: str) -> dict[str, Any]:
    """Train ``args`` into ``run_dir`` unless it holds a finished run of the same settings; returns the run's
    ``{"train_seconds", "learner_decisions", "history", "trained"}``.

    A run of the same settings that stopped early (its checkpoint is there, its budget not spent) is resumed
    where it stopped, so a long budget can be trained in several sittings.

    Raises:
        Stopped: the run was stopped (Ctrl-C or SIGTERM) before its budget was spent.
    """
    from agents.neural import load_policy
    from training.batched.ppo import train
    from training.runs import CHECKPOINT, NOT_SETTINGS

    settings = lambda a: {k: v for k, v in a.items() if k not in (*NOT_SETTINGS, "precision")}
    model = run_dir / "model.safetensors"
    spent = lambda: model.is_file() and load_policy(model)[1].provenance.get("train_seconds", 0) >= args.time_budget
    stored = None
    if (run_dir / "args.json").is_file():  # settings added since the run was made take their defaults
        stored = {**dataclasses.asdict(type(args)()), **json.loads((run_dir / "args.json").read_text())}
    same = stored is not None and settings(stored) == settings(dataclasses.asdict(args))
    trained = not (same and spent())
    if trained:
        resume = str(run_dir) if same and (run_dir / CHECKPOINT).is_file() else ""
        train(dataclasses.replace(args, out=str(run_dir), overwrite=True, resume=resume), command=command)
        if not spent():
            raise Stopped(f"the run in {run_dir} stopped before its {args.time_budget / 60:g} minutes; "
                          "the same command continues it from its checkpoint")  # fmt: skip
    provenance = load_policy(model)[1].provenance
    history = json.loads((run_dir / "eval_history.json").read_text())["history"]
    return {"train_seconds": provenance.get("train_seconds"), "learner_decisions": provenance["learner_decisions"],
            "history": history, "trained": trained}  # fmt: skip


def compare_learners(
    learners: Sequence[str], minutes: Sequence[float], out: str | Path, deal_set: str = "four_handed-v1", *,
    deals: int | None = None, seed: int = 1, threads: int = 2, eval_every: int = 2_000_000, progress: bool = True,
) -> dict[str, Any]:  # fmt: skip
    """Train each learner for each budget, play the matches, write the report; returns it (see the module).

    Raises:
        ValueError: an unknown learner or deal set, a budget that is not positive, fewer deals than 2.
    """
    from arena.leaderboard import play_pair
    from arena.report import command_line
    from training.exploit import cpu_name

    unknown = [name for name in learners if name not in LEARNERS]
    if unknown or not learners:
        raise ValueError(f"--learners must name some of {sorted(LEARNERS)}, got {list(learners)}")
    if not minutes or min(minutes) <= 0:
        raise ValueError(f"--minutes must be positive numbers, got {list(minutes)}")
    ds = load(deal_set)
    deals = ds.num_deals if deals is None else int(deals)
    if not 2 <= deals <= ds.num_deals:
        raise ValueError(f"--deals must be in [2, {ds.num_deals}] (the deals of {ds.name}), got {deals}")
    out = Path(out)
    command = command_line_here() or command_line() or "training.compare.compare_learners"
    runs = []
    for budget in minutes:
        for learner in learners:
            args = run_settings(learner, ds.variant, budget, seed, threads, eval_every)
            run_dir = out / "runs" / f"{learner}__{budget:g}min"
            run = train_or_reuse(args, run_dir, f"{command} (run {learner}, {budget:g} min)")
            model = f"model:{run_dir / 'model.safetensors'}"
            vs = play_pair(ds, model, "heuristic", deals, out / "pairs")[0]
            runs.append({"learner": learner, "minutes": budget, "model": str(run_dir / "model.safetensors"),
                         "vs_heuristic": {"mean": vs["mean"], "ci95": vs["ci95"]},
                         **{k: v for k, v in run.items() if k != "trained"}})  # fmt: skip
            if progress:
                print(f"{learner:>14} {budget:6g} min: {run['learner_decisions']:>12,} learner decisions, "
                      f"{vs['mean']:+.3f} ± {vs['ci95']:.3f} against the heuristic"
                      + (" (trained now)" if run["trained"] else ""), flush=True)  # fmt: skip
    head_to_head = []
    for budget in minutes:
        at = [r for r in runs if r["minutes"] == budget]
        for a, b in combinations(at, 2):
            pair = play_pair(ds, f"model:{a['model']}", f"model:{b['model']}", deals, out / "pairs")[0]
            head_to_head.append({"minutes": budget, "a": a["learner"], "b": b["learner"], "mean": pair["mean"],
                                 "ci95": pair["ci95"]})  # fmt: skip
    report = {
        "format": FORMAT, "deal_set": ds.to_dict(), "deals": deals, "command": command, "cpu": cpu_name(),
        "threads": threads, "seed": seed,
        "unit": "relative points per hand" if ds.rules.called_card else "points per hand",
        "learners": {name: {"route": LEARNERS[name][0], "settings": LEARNERS[name][1]} for name in learners},
        "runs": runs, "head_to_head": head_to_head,
    }  # fmt: skip
    (out / "compare.json").write_text(json.dumps(report, indent=1))
    (out / "compare.md").write_text(to_markdown(report))
    plot(report, out / "compare.png")
    return report


def command_line_here() -> str | None:
    """``euchre compare-learners ...`` (or ``python -m training.compare ...``) when this process is it."""
    if sys.argv and Path(sys.argv[0]).name == "compare.py":
        return shlex.join(["python", "-m", "training.compare", *sys.argv[1:]])
    return None


def to_markdown(report: dict[str, Any]) -> str:
    """The budgets table and the head-to-head matches as Markdown."""
    ds, unit = report["deal_set"], report["unit"]
    lines = [
        f"# Learners at equal training time: `{ds['name']}`",
        "",
        (
            f"Each learner trained from scratch for each budget on {report['threads']} threads of {report['cpu']} "
            f"(seed {report['seed']}), then played on {report['deals']:,} deals of `{ds['name']}` ({unit}, 95% "
            "intervals)."
        ),
        "",
        "| learner | training minutes | learner decisions | against the heuristic |",
        "|---|---:|---:|---|",
    ]
    for r in report["runs"]:
        v = r["vs_heuristic"]
        lines.append(f"| {r['learner']} | {r['minutes']:g} | {r['learner_decisions']:,} | "
                     f"{v['mean']:+.3f} ± {v['ci95']:.3f} |")  # fmt: skip
    if report["head_to_head"]:
        lines += ["", "| training minutes | match | first − second |", "|---:|---|---|"]
        for h in report["head_to_head"]:
            lines.append(f"| {h['minutes']:g} | {h['a']} − {h['b']} | {h['mean']:+.3f} ± {h['ci95']:.3f} |")
    if report["command"]:
        lines += ["", f"Command: `{report['command']}`"]
    return "\n".join(lines) + "\n"


def plot(report: dict[str, Any], path: Path) -> None:
    """Strength against the heuristic against training minutes: each run's periodic evaluations (lines) and
    each budget's final match (points with 95% bars). Needs matplotlib (skipped without it)."""
    plt = pyplot()
    if plt is None:
        return
    key = "relative" if report["deal_set"]["variant"] == "five_handed" else "advantage"
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    colours = dict(zip(report["learners"], plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False))
    for r in report["runs"]:
        h = [e for e in r["history"] if "train_seconds" in e]
        if h:
            x = np.array([e["train_seconds"] for e in h]) / 60.0
            ax.plot(x, [e["eval"]["heuristic"][key] for e in h], color=colours[r["learner"]], alpha=0.35, lw=1)
    for name in report["learners"]:
        rs = [r for r in report["runs"] if r["learner"] == name]
        ax.errorbar([r["minutes"] for r in rs], [r["vs_heuristic"]["mean"] for r in rs],
                    yerr=[r["vs_heuristic"]["ci95"] for r in rs], fmt="o-", capsize=4, color=colours[name],
                    label=name)  # fmt: skip
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("training minutes (rollouts and updates)")
    ax.set_ylabel(f"{report['unit']} against the heuristic")
    ax.set_title(f"learners at equal training time ({report['deal_set']['name']}, {report['deals']:,} deals)")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre compare-learners``."""
    parser.add_argument("--learners", nargs="+", default=["ppo", "dmc"], choices=sorted(LEARNERS),
                        help="learners to train (a route of euchre train and its settings: training.compare.LEARNERS)")  # fmt: skip
    parser.add_argument("--minutes", nargs="+", type=float, default=[10.0], help="training budgets, minutes each")
    parser.add_argument("--deal-set", default="four_handed-v1", choices=sorted(shipped()),
                        help="the frozen deals of the matches (its variant is the game trained)")  # fmt: skip
    parser.add_argument("--deals", type=int, default=None, help="deals per match (default: the whole set)")
    parser.add_argument("--seed", type=int, default=1, help="every run's seed")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads of every run")
    parser.add_argument("--eval-every", type=int, default=2_000_000,
                        help="learner decisions between a run's periodic evaluations (its curve in the plot)")  # fmt: skip
    parser.add_argument("--out", required=True, help="report folder (runs and matches are kept under it)")
    parser.add_argument("--overwrite", action="store_true", help="replace the report in --out")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre compare-learners``)."""
    parser = argparse.ArgumentParser(prog="euchre compare-learners", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    out = report_folder(parser, args.out, "compare.json", args.overwrite, " (its runs and matches are reused)")
    try:
        report = compare_learners(args.learners, args.minutes, out, args.deal_set, deals=args.deals, seed=args.seed,
                                  threads=args.threads, eval_every=args.eval_every, progress=not args.quiet)  # fmt: skip
    except ValueError as err:
        parser.error(str(err))
    except Stopped as err:
        print(f"euchre compare-learners: {err}", file=sys.stderr)
        return 130
    if not args.quiet:
        print(to_markdown(report))
        print(f"wrote {out / 'compare.json'}, {out / 'compare.md'}, {out / 'compare.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
