"""Can the learned partner belief be recalibrated per population after training? (an experiment)

Trains the benchmark's learned belief exactly as ``euchre partner-bench`` does at its defaults (60,000
hands of each population, a 0.033 share of their rows, seed 0: the same classifier as the published
run), then fits calibrators of its logits on 5,000 other hands of each population (seed 7, a third of
every decision's rows, seat and public views) and scores each calibrator on the benchmark's 400
evaluation hands (seat views): reliability bins inside their 95% interval, and ECE, as the benchmark
counts them. The calibrators: the training's temperature; one temperature; a temperature per trick;
each population's own temperature; an isotonic map of the probabilities, pooled or per population.
Then the same on the benchmark's own kind of rows (seat views at the first decision of a trick, while
the partner is still open): calibrators fitted on half of those hands, scored on the other half (some
2,500 hands, and 400-hand chunks of it, the size of the frozen set) and on the frozen set, to tell
how often a calibrated belief passes 9 of 10 bins on 400 hands. Last, eight sets made as the frozen one is
(400 hands, seeds 0-7; seed 0 is the frozen set): the log-loss as a share of counting's, and the bins inside
as trained and through each population's own isotonic map. The record is in
``docs/experiments/partner_bench.md`` (sixth to eighth sessions). About 13 minutes on 2 cores, under 2 GB;
everything it makes goes under ``--work``.

    python scripts/recalibrate_partner_belief.py --work /tmp/recal
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.partner_model import PartnerClassifier
from agents.view import ObsView
from euchre_env.beliefs import PUBLIC, check_observations, settled_beliefs, view_observations
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State
from partner_lab.bench import HIDDEN, TRAIN_SHARD_HANDS, _settled, _train_rows, _union
from partner_lab.classifier import (
    bins_inside,
    calibration,
    expected_calibration_error,
    train_classifier,
    view_rows,
)
from partner_lab.dataset import load_dataset, parse_mix, to_arrays, write_dataset
from partner_lab.sets import POPULATIONS, positions, true_class

POPS = ("heuristic", "trained", "mix")


def shifted(label: np.ndarray, by: np.ndarray, p: int) -> np.ndarray:
    """Partner classes (a seat ``< p``, or ``p`` for none) seen from seat ``by``: ``(label - by) % p``, ``p`` kept."""
    return np.where(label == p, p, (label - by) % p)


def raw_logits(clf: PartnerClassifier, obs: np.ndarray, public: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Logits before the temperature, maker frame (N, P + 1), and the maker (N,)."""
    x, exact, maker = clf.inputs(obs, public)
    return clf.logits(x, exact) * clf.config.temperature, maker


def set_rows(clf: PartnerClassifier, rules: RulesConfig, states: State, hand: np.ndarray) -> dict[str, np.ndarray]:
    """The rows an evaluation set is scored on (every seat's view and the public's, partner open), maker frame:
    raw logits ``z``, the answer ``y``, the counted belief ``exact``, ``trick``, ``hand`` and ``public``."""
    p = rules.num_players
    y_abs, parts = true_class(states, p), []
    for viewer in [*range(p), PUBLIC]:
        obs, frame, public = view_observations(states, rules, viewer)
        rows = np.flatnonzero(~_settled(states, rules, viewer))
        x, exact, maker = clf.inputs(*check_observations(obs[rows].astype(bool), rules, public[rows]))
        z = clf.logits(x, exact) * clf.config.temperature
        y = shifted(shifted(y_abs[rows], frame[rows], p), maker, p)
        parts.append({"z": z, "y": y, "exact": exact, "trick": states.trick_no[rows], "hand": hand[rows],
                      "public": public[rows]})  # fmt: skip
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}


def prepare(work: Path) -> None:
    """Classifier, and per population the calibration rows and evaluation rows as ``.npz`` (logits, labels)."""
    rules = make_rules("five_handed")
    p = rules.num_players
    path = work / "classifier.safetensors"
    if not path.exists():
        rows = {}
        for k, pop in enumerate(POPS):
            data = write_dataset(work / "train" / pop, parse_mix(POPULATIONS[pop]), 60000, TRAIN_SHARD_HANDS,
                                 seed=1, overwrite=True)  # fmt: skip
            rows[pop] = _train_rows(data, 0.033, k)
        train_classifier(_union(rows), hidden=HIDDEN, seed=0, viewed=True)[0].save(path)
    clf = PartnerClassifier(str(path))
    for pop in POPS:
        data = write_dataset(
            work / "cal" / pop, parse_mix(POPULATIONS[pop]), 5000, 5000, seed=7, overwrite=True
        )
        r = view_rows(to_arrays(load_dataset(data, columns=["hand", "viewer", "label", "obs"])), 0, 0.33)
        z, maker = raw_logits(clf, r["obs"], r["public"])
        trick = (ObsView(r["obs"], rules).trick_winner >= 0).sum(axis=1)
        y = shifted(r["label"], maker, p)
        np.savez(work / f"cal_{pop}.npz", z=z, y=y, trick=trick, public=r["public"], hand=r["hand"])
        r = set_rows(clf, rules, *positions(rules, parse_mix(POPULATIONS[pop]), 400, 0))  # the frozen set
        np.savez(work / f"eval_{pop}.npz", z=r["z"], y=r["y"], trick=r["trick"], public=r["public"], hand=r["hand"],
                 temperature=clf.config.temperature)  # fmt: skip


def prepare_matched(work: Path) -> None:
    """Per population, the calibration hands' rows of the benchmark's kind: seat views, trick starts, open."""
    rules = make_rules("five_handed")
    clf = PartnerClassifier(str(work / "classifier.safetensors"))
    for pop in POPS:
        r = view_rows(
            to_arrays(load_dataset(work / "cal" / pop, columns=["hand", "viewer", "label", "obs"])), 0, 1.0
        )
        _, open_ = settled_beliefs(r["obs"].astype(bool), rules, r["public"])
        keep = open_ & (ObsView(r["obs"], rules).n_in_trick == 0) & ~r["public"]
        z, maker = raw_logits(clf, r["obs"][keep], r["public"][keep])
        y = shifted(r["label"][keep], maker, rules.num_players)
        np.savez(work / f"start_{pop}.npz", z=z, y=y, hand=r["hand"][keep])


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def fit_temperature(z: np.ndarray, y: np.ndarray) -> float:
    """The temperature on a grid over [0.4, 3] with the least log-loss."""
    grid = np.exp(np.linspace(np.log(0.4), np.log(3.0), 60))
    nll = [-np.log(np.maximum(softmax(z / t)[np.arange(len(y)), y], 1e-12)).mean() for t in grid]
    return float(grid[int(np.argmin(nll))])


def isotonic(probs: np.ndarray, y: np.ndarray, most: int = 400_000) -> Callable[[np.ndarray], np.ndarray]:
    """Isotonic regression (pool adjacent violators) of "this class is the answer" on its probability."""
    hit = np.zeros_like(probs, dtype=bool)
    hit[np.arange(len(y)), y] = True
    p, h = probs.ravel(), hit.ravel()
    keep = np.random.default_rng(0).random(p.size) < min(1.0, most / p.size)
    order = np.argsort(p[keep])
    xs, vals, weights = p[keep][order], [], []
    for v in h[keep][order].astype(float):
        vals.append(v)
        weights.append(1.0)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            w = weights[-2] + weights[-1]
            vals[-2:], weights[-2:] = [(vals[-2] * weights[-2] + vals[-1] * weights[-1]) / w], [w]
    fitted = np.repeat(vals, np.array(weights, dtype=np.int64))
    return lambda q: np.interp(q, xs, fitted)


def mapped(iso: Callable[[np.ndarray], np.ndarray], z: np.ndarray, t: float) -> np.ndarray:
    """Probabilities at temperature ``t`` through an isotonic map, renormalised."""
    probs = softmax(z / t)
    out = np.maximum(iso(probs), 1e-6) * (probs > 0)  # what counting rules out stays out
    return out / out.sum(axis=1, keepdims=True)


def matched(work: Path, ev: dict[str, dict[str, np.ndarray]], t0: float) -> None:
    """Calibrators fitted on half the hands' rows of the benchmark's kind, scored on the other half and frozen set."""
    st = {q: dict(np.load(work / f"start_{q}.npz")) for q in POPS}
    rng = np.random.default_rng(1)
    fit = {}  # per population: the rows of the hands the calibrators are fitted on
    for q in POPS:
        hands = np.unique(st[q]["hand"])
        fit[q] = np.isin(st[q]["hand"], rng.permutation(hands)[: hands.size // 2])
    z_all = np.concatenate([st[q]["z"][fit[q]] for q in POPS])
    y_all = np.concatenate([st[q]["y"][fit[q]] for q in POPS])
    t_all = fit_temperature(z_all, y_all)
    t_own = {q: fit_temperature(st[q]["z"][fit[q]], st[q]["y"][fit[q]]) for q in POPS}
    iso_all = isotonic(softmax(z_all / t0), y_all)
    iso_own = {q: isotonic(softmax(st[q]["z"][fit[q]] / t0), st[q]["y"][fit[q]]) for q in POPS}
    calibrators: dict[str, Callable[[str, np.ndarray], np.ndarray]] = {
        f"none (the training's temperature, {t0:.3f})": lambda q, z: softmax(z / t0),
        f"one temperature, {t_all:.3f} (all three)": lambda q, z: softmax(z / t_all),
        f"each population's own temperature ({' / '.join(f'{t_own[q]:.3f}' for q in POPS)})":
            lambda q, z: softmax(z / t_own[q]),
        "an isotonic map (all three)": lambda q, z: mapped(iso_all, z, t0),
        "each population's own isotonic map": lambda q, z: mapped(iso_own[q], z, t0),
    }  # fmt: skip
    print("\nFitted on half the hands' trick-start open seat rows. Per population: bins inside and ECE on the "
          "other half; mean (least-most) bins over its 400-hand chunks; bins and ECE on the frozen set.")  # fmt: skip
    print("| calibrator | " + " | ".join(POPS) + " |\n|---|" + "---:|" * len(POPS))
    for name, fn in calibrators.items():
        cells = []
        for q in POPS:
            z, y, hand, held = st[q]["z"], st[q]["y"], st[q]["hand"], ~fit[q]
            probs = fn(q, z)
            half = calibration(probs[held], y[held], groups=hand[held])
            other = np.unique(hand[held])
            chunks = [np.isin(hand, other[i : i + 400]) for i in range(0, other.size - 399, 400)]
            per = [bins_inside(calibration(probs[c], y[c], groups=hand[c])) for c in chunks]
            e, seat = ev[q], ~ev[q]["public"]
            frozen = calibration(fn(q, e["z"])[seat], e["y"][seat], groups=e["hand"][seat])
            cells.append(f"{bins_inside(half)}, {expected_calibration_error(half):.3f}; "
                         f"{np.mean(per):.1f} ({min(per)}-{max(per)}); "
                         f"{bins_inside(frozen)}, {expected_calibration_error(frozen):.3f}")  # fmt: skip
        print(f"| {name} | " + " | ".join(cells) + " |")


def other_sets(work: Path, t0: float, seeds: range = range(8)) -> None:
    """The belief as trained, and each population's own isotonic map (fitted on all its calibration hands' rows
    of the benchmark's kind), on sets made as the frozen one is (400 hands; seed 0 is the frozen set)."""
    rules = make_rules("five_handed")
    clf = PartnerClassifier(str(work / "classifier.safetensors"))
    print("\nSets of 400 hands made as the frozen one is (seed 0 is it), seat views: log-loss as a share of "
          "counting's; bins inside as trained, and with the population's own isotonic map.")  # fmt: skip
    print("| players | " + " | ".join(f"seed {k}" for k in seeds) + " |\n|---|" + "---|" * len(seeds))
    for pop in POPS:
        st = dict(np.load(work / f"start_{pop}.npz"))
        iso = isotonic(softmax(st["z"] / t0), st["y"])
        cells = []
        for seed in seeds:
            r = set_rows(clf, rules, *positions(rules, parse_mix(POPULATIONS[pop]), 400, seed))
            seat = ~r["public"]
            z, y, hand, n = r["z"][seat], r["y"][seat], r["hand"][seat], int(seat.sum())
            ratio = -np.log(softmax(z / t0)[np.arange(n), y]).mean() / -np.log(r["exact"][seat][np.arange(n), y]).mean()
            raw = bins_inside(calibration(softmax(z / t0), y, groups=hand))
            fitted = bins_inside(calibration(mapped(iso, z, t0), y, groups=hand))
            cells.append(f"{ratio:.3f}; {raw}, {fitted}")
        print(f"| {pop} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True, help="folder for the data, classifier and logits")
    work = Path(parser.parse_args().work)
    work.mkdir(parents=True, exist_ok=True)
    if not all((work / f"eval_{q}.npz").exists() for q in POPS):
        prepare(work)
    if not all((work / f"start_{q}.npz").exists() for q in POPS):
        prepare_matched(work)
    ev = {q: dict(np.load(work / f"eval_{q}.npz")) for q in POPS}
    cal = {q: dict(np.load(work / f"cal_{q}.npz")) for q in POPS}
    pooled = {k: np.concatenate([cal[q][k] for q in POPS]) for k in ("z", "y", "trick")}
    t0 = float(ev["heuristic"]["temperature"])
    t_all = fit_temperature(pooled["z"], pooled["y"])
    t_trick = np.array([fit_temperature(pooled["z"][pooled["trick"] == k], pooled["y"][pooled["trick"] == k])
                        for k in range(5)])  # fmt: skip
    t_own = {q: fit_temperature(cal[q]["z"], cal[q]["y"]) for q in POPS}
    iso_all = isotonic(softmax(pooled["z"] / t0), pooled["y"])
    iso_own = {q: isotonic(softmax(cal[q]["z"] / t0), cal[q]["y"]) for q in POPS}

    calibrators: dict[str, Callable[[str, dict[str, np.ndarray]], np.ndarray]] = {
        f"the training's temperature, {t0:.3f}": lambda q, e: softmax(e["z"] / t0),
        f"one temperature, {t_all:.3f} (all three)": lambda q, e: softmax(e["z"] / t_all),
        f"a temperature per trick, {' / '.join(f'{t:.2f}' for t in t_trick)}":
            lambda q, e: softmax(e["z"] / t_trick[e["trick"]][:, None]),
        f"each population's own temperature ({' / '.join(f'{t_own[q]:.3f}' for q in POPS)})":
            lambda q, e: softmax(e["z"] / t_own[q]),
        "an isotonic map (all three)": lambda q, e: mapped(iso_all, e["z"], t0),
        "each population's own isotonic map": lambda q, e: mapped(iso_own[q], e["z"], t0),
    }  # fmt: skip
    print("| calibrator (fitted on) | " + " | ".join(POPS) + " |\n|---|" + "---:|" * len(POPS))
    for name, fn in calibrators.items():
        cells = []
        for q in POPS:
            e = ev[q]
            seat = ~e["public"]
            table = calibration(fn(q, e)[seat], e["y"][seat], groups=e["hand"][seat])
            cells.append(f"{bins_inside(table)}, {expected_calibration_error(table):.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    for q in POPS:
        top = [r for r in calibration(softmax(cal[q]["z"][~cal[q]["public"]] / t0), cal[q]["y"][~cal[q]["public"]])
               if r["bin_low"] >= 0.9]  # fmt: skip
        print(
            f"{q}: highest bin on the calibration hands, predicted {top[0]['predicted']:.3f}, "
            f"observed {top[0]['observed']:.3f}"
        )
    matched(work, ev, t0)
    other_sets(work, t0)


if __name__ == "__main__":
    main()
