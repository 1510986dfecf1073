"""Can the learned partner belief learn the policy belief's reading of the players? (an experiment)

On the benchmark's `mix` population the learned belief scores about 0.94 of counting's log-loss from a seat,
the policy belief with the players' true model 0.91, and the two read different evidence (a pool of them
scores 0.905: ``scripts/partner_pooling.py``). This distils the slow belief into the fast one: the learned
belief's network is trained on `mix` hands (60,000, seed 1, a 0.1 share of their rows, as
``scripts/partner_seat_oracle.py`` trains it) with, beside the true labels, ``--weight`` times the
cross-entropy to the policy belief's probabilities (true model with the published run's noise, 256 worlds)
on a random ``--teacher-rows`` of those rows (``train_classifier(..., teacher=...)``). Trained with no
teacher, half and all of the teacher's rows, two seeds each, and scored on the benchmark's frozen `mix` set
(seat and public views: log-loss and its share of counting's; seat calibration: bins inside and ECE). The
policy belief is the cost: about 17 rows a second on a core, so the default 48,000 rows take about 25
minutes on 2 cores; the trainings about 70 s each. Outputs are kept under ``--work`` and reused. The
record is in ``docs/experiments/partner_bench.md`` (ninth session).

    python scripts/partner_distill.py --work /tmp/distill
"""

from __future__ import annotations

import argparse
import concurrent.futures
from pathlib import Path

import numpy as np

from euchre_env.beliefs import PUBLIC
from euchre_env.rules import make_rules
from partner_lab.bench import (
    HIDDEN,
    TRAIN_SHARD_HANDS,
    _settled,
    _train_rows,
)
from partner_lab.classifier import bins_inside, calibration, expected_calibration_error, train_classifier
from partner_lab.dataset import parse_mix, write_dataset
from partner_lab.sets import POPULATIONS, evaluation_set, true_class

RULES = make_rules("five_handed")
MIX = parse_mix(POPULATIONS["mix"])
EPSILON = {False: 0.2, True: 0.4}  # the noise the published run fitted for `mix` (seat / public views)


def training_rows(work: Path) -> dict[str, np.ndarray]:
    """The view rows of 60,000 `mix` hands (seed 1), a 0.1 share of them (``rows.npz``, made once)."""
    path = work / "rows.npz"
    if not path.exists():
        folder = write_dataset(work / "mix", MIX, 60000, TRAIN_SHARD_HANDS, seed=1, overwrite=True)
        np.savez(path, **_train_rows(folder, 0.1, 2))
    return dict(np.load(path))


def teach(work: Path, rows: np.ndarray, part: int) -> Path:
    """The true-model policy belief's probabilities (viewer frame) at ``rows`` of ``rows.npz`` -> ``teach_<part>.npz``."""
    import torch

    from agents.beliefs import PolicyBelief, with_noise
    from partner_lab.bench import player_models

    torch.set_num_threads(1)
    path = work / f"teach_{part}.npz"
    d = np.load(work / "rows.npz")
    obs, public = d["obs"][rows], d["public"][rows]
    model = player_models(RULES, MIX)[0]
    out = np.full((len(rows), RULES.num_players + 1), np.nan)
    for pub, eps in EPSILON.items():
        sel = np.flatnonzero(public == pub)
        belief = PolicyBelief(with_noise(model, eps), 256, seed=part)
        for at in range(0, len(sel), 256):
            r = sel[at : at + 256]
            out[r] = belief.from_observations(obs[r], RULES, public[r]).probs
    np.savez(path, rows=rows, probs=out)
    return path


def teacher_probs(work: Path, n: int, m: int, parts: int) -> list[np.ndarray]:
    """Per part: (n, P + 1) the teacher's probabilities on its share of ``m`` random rows, NaN elsewhere."""
    pick = np.sort(np.random.default_rng(5).choice(n, m, replace=False))
    todo = [k for k in range(parts) if not (work / f"teach_{k}.npz").exists()]
    with concurrent.futures.ProcessPoolExecutor(max(1, len(todo))) as pool:
        list(pool.map(teach, [work] * len(todo), [pick[k::parts] for k in todo], todo))
    out = []
    for k in range(parts):
        t = np.load(work / f"teach_{k}.npz")
        probs = np.full((n, RULES.num_players + 1), np.nan)
        probs[t["rows"]] = t["probs"]
        out.append(probs)
    return out


def teacher_score(rows: dict[str, np.ndarray], teacher: np.ndarray) -> str:
    """The teacher's log-loss as a share of counting's on the rows it labelled, seat and public views."""
    from euchre_env.beliefs import ExactBelief, check_observations

    asked = np.flatnonzero(np.isfinite(teacher).all(axis=1))
    obs, public = check_observations(rows["obs"][asked], RULES, rows["public"][asked])
    y, at = rows["label"][asked], np.arange(len(asked))
    exact = ExactBelief().from_observations(obs, RULES, public).probs
    cells = []
    for view, sel in (("seat", ~public), ("public", public)):
        ll, ll_exact = (-np.log(np.maximum(q[at, y], 1e-12))[sel].mean() for q in (teacher[asked], exact))
        cells.append(f"{view} {ll:.3f} ({ll / ll_exact:.3f} of counting's)")
    return ", ".join(cells)


def score(clf) -> str:
    """Seat and public log-loss (x counting's) on the frozen `mix` set, and the seats' calibration."""
    from euchre_env.beliefs import ExactBelief

    states, hand, _ = evaluation_set(RULES, "mix", 400, 0)
    y, cells = true_class(states, RULES.num_players), []
    for view, viewers in (("seat", range(RULES.num_players)), ("public", [PUBLIC])):
        probs, exact, ys, groups = [], [], [], []
        for v in viewers:
            open_ = ~_settled(states, RULES, v)
            probs.append(clf(states, RULES, v).probs[open_])
            exact.append(ExactBelief()(states, RULES, v).probs[open_])
            ys.append(y[open_])
            groups.append(hand[open_])
        pr, ex, yy = np.concatenate(probs), np.concatenate(exact), np.concatenate(ys)
        at = np.arange(len(yy))
        ll, ll_exact = (-np.log(np.maximum(q[at, yy], 1e-12)).mean() for q in (pr, ex))
        cells.append(f"{ll:.3f} ({ll / ll_exact:.3f})")
        if view == "seat":
            table = calibration(pr, yy, groups=np.concatenate(groups))
            cells.append(f"{bins_inside(table)} of 10, {expected_calibration_error(table):.3f}")
    return " | ".join(cells)


def train_and_score(work: Path, taught: int, seed: int, weight: float, parts: int) -> str:
    """One row of the table: trained with the teacher's first ``taught`` parts."""
    import torch

    torch.set_num_threads(1)
    rows = training_rows(work)
    n = len(rows["label"])
    teacher = None
    if taught:
        probs = [np.load(work / f"teach_{k}.npz") for k in range(taught)]
        teacher = np.full((n, RULES.num_players + 1), np.nan)
        for t in probs:
            teacher[t["rows"]] = t["probs"]
    clf, stats = train_classifier(rows, hidden=HIDDEN, seed=seed, viewed=True, teacher=teacher,
                                  teacher_weight=weight if taught else 0.0)  # fmt: skip
    asked = int(stats.get("teacher_rows", 0))
    return (f"| {asked:,} | {weight if taught else 0:g} | {seed} | {stats['val_log_loss']:.4f} "
            f"({stats['val_log_loss'] / stats['val_exact_log_loss']:.3f}) | {score(clf)} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True, help="folder for the hands, the teacher's outputs and more")
    parser.add_argument("--teacher-rows", type=int, default=48000, help="rows the policy belief labels")
    parser.add_argument("--weight", type=float, default=10.0, help="weight of the teacher's cross-entropy")
    parser.add_argument("--workers", type=int, default=2, help="processes (the teacher's rows are split in two)")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = training_rows(work)
    n = len(rows["label"])
    teacher = np.fmax(*teacher_probs(work, n, args.teacher_rows, 2))  # the two parts' rows do not overlap
    print(f"{n:,} training rows of 60,000 mix hands; the teacher labelled {args.teacher_rows:,} of them: "
          f"{teacher_score(rows, teacher)}\n")  # fmt: skip
    del rows, teacher
    print("| teacher rows (training) | weight | seed | held-out (x counted) | seat log-loss (x exact) | seat "
          "calibration: bins, ECE | public (x exact) |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|")
    runs = [(taught, seed) for taught in (0, 1, 2) for seed in (0, 1)]
    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        jobs = [pool.submit(train_and_score, work, t, s, args.weight, 2) for t, s in runs]
        for job in jobs:
            print(job.result(), flush=True)


if __name__ == "__main__":
    main()
