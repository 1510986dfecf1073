"""``euchre partner-bench``: how well each belief finds the hidden partner (five-handed), per population.

A *population* is who plays the hands (:data:`POPULATIONS`): the heuristic at
every seat, the shipped model (``trained``) at every seat, or each seat drawn
from a mix with random players. For each population the benchmark plays

* an evaluation set: ``--hands`` hands from ``--seed``, a pure function of the
  seed and the agents, kept as hand records (``sets/<name>.jsonl.gz``, replayed
  with no player by ``--sets``); at the defaults (400 hands, seed 0) the frozen
  set ``partner-<population>-v1``, whose positions must hash to
  ``partner_lab.sets.FROZEN_SHA256`` (the report names the set and its sha256);
* ``--fit-hands`` other hands (seed + 2) on which the player model's noise is
  fitted (``partner_lab.noise``);
* ``--train-hands`` other hands (seed + 1), a dataset the learned belief
  trains on (``partner_lab.dataset``, ``partner_lab.classifier``).

At the first decision of every trick once the maker has declared, every belief
is asked for the view of each seat and of the public (spectator), and scored
against the truth:

* ``uniform``: the baseline that reads no cards (``euchre_env.beliefs.UniformBelief``);
* ``exact``: rules-only, counted over every consistent deal (``ExactBelief``);
* ``policy-true``: worlds weighted by the model of the players who played
  (``agents.beliefs.PolicyBelief``: the heuristic, the shipped model or their
  mix with random, seats tracked as dealt (``SeatMixtureModel``), each mixed
  with uniform play by the ``epsilon`` fitted per view kind on the fit hands);
* ``policy-wrong``: the same with a wrong model (uniformly random players;
  for random players: the heuristic), no noise fitted;
* ``learned``: the classifier trained on every population's training hands,
  or ``--classifier``; ``learned-<population>`` (cross-population table only):
  trained on that population alone;
* ``oracle``: the truth itself, the ceiling (log-loss 0).

``--beliefs`` picks among them (the learned beliefs are trained and the noise
fitted only when asked for) and scores your own beliefs beside them, each named
``module:attribute`` (a ``euchre_env.beliefs.PartnerBelief``, or a class or
function of no arguments that makes one); from Python, :func:`score_belief`
scores one belief on a population's frozen set.

Scores (``partner_lab.classifier``) are over the positions where the view does not
know the answer for sure (the called card not yet played, not held by the
viewer, nobody alone): log-loss (nats), Brier score, accuracy, overall, by
trick and by the viewer's role (maker, defender, spectator; the hidden
partner knows the answer); *identification*: the share of (hand, view) pairs
whose belief puts at least 0.9 on the partner before the called card is played,
and the mean first trick at which it does (5 = only when the card is played or
never); calibration over the seat views (a reliability table, its expected
calibration error, and a plot, cluster-robust intervals over hands); beliefs
per second. Every log-loss and ECE comes with a 95% interval over hands (a
bootstrap of the hands), and every log-loss with its share of the counted
belief's, paired on the same resamples (``x_exact``). The learned beliefs'
training also gives the held-out log-loss of the network retrained with each
group of its inputs zeroed (``--no-ablation`` skips it): what each input buys.
Writes ``partner_bench.json``, ``partner_bench.md``, ``calibration.png``, the
evaluation sets (``sets/``), the classifier trained on every population
(``partner_classifier.safetensors``) and the training hands (``train_data/``)
to ``--out``. At the defaults it runs in about 30 minutes on two cores and
stays under 2 GB of memory.

Examples::

    euchre partner-bench --hands 400 --train-hands 60000 --out runs/partner_bench
    euchre partner-bench --beliefs exact,my_beliefs:MyBelief --out runs/mine   # seconds, not half an hour
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

from euchre_env.beliefs import PUBLIC, ExactBelief, PartnerBelief, UniformBelief
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State
from partner_lab.classifier import (
    EPS,
    bins_inside,
    calibration,
    expected_calibration_error,
    not_distributions,
    scores,
)
from partner_lab.sets import (
    POPULATIONS,
    evaluation_set,
    positions,
    set_name,
    set_records,
    true_class,
)  # fmt: skip

IDENTIFIED = 0.9  # belief in the true partner that counts as "identified"
VIEWS = ("seat", "public")
ROLES = ("maker", "defender", "spectator")
HIDDEN = (256, 256)  # the hidden layers of the learned beliefs' seat network
BUILTIN = ("uniform", "exact", "policy-true", "policy-wrong", "learned", "oracle")
"""The beliefs ``--beliefs`` can name besides ``module:attribute`` (module docstring)."""
TRAIN_SHARD_HANDS = 5000  # hands per shard of the training data: a shard's rows are held while it is played


def load_belief(spec: str) -> PartnerBelief:
    """A belief named ``module:attribute``: a ``PartnerBelief``, or a callable of no arguments (a class, a factory)
    that returns one. Raises ``ValueError`` naming ``spec`` and what went wrong."""
    import importlib

    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ValueError(f"a belief to load must be written module:attribute, got {spec!r}")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"cannot load the belief {spec!r}: {err}") from None
    if not isinstance(obj, PartnerBelief) and callable(obj):
        try:
            obj = obj()
        except Exception as err:  # noqa: BLE001 - whatever the user's factory raises, say which one
            raise ValueError(f"cannot make the belief {spec!r} by calling it with no arguments: {err}") from None
    if not isinstance(obj, PartnerBelief):
        raise ValueError(f"{spec!r} must be a euchre_env.beliefs.PartnerBelief or make one when called with no "
                         f"arguments, got {type(obj).__name__}")  # fmt: skip
    return obj


def score_belief(belief: PartnerBelief, population: str = "heuristic", name: str = "belief") -> dict[str, Any]:
    """One belief's scores on a population's frozen set, as ``euchre partner-bench`` reports them.

    Returns:
        ``{"seat": scores, "public": scores, "calibration": reliability table (seat views),
        "views_per_second": float, "set": the set's name and sha256}``; each view's scores hold ``log_loss``
        and ``log_loss_ci95``, ``x_exact`` and ``x_exact_ci95`` (its share of the counted belief's, scored
        beside it), ``brier``, ``accuracy``, ``n``, ``by_trick``, ``by_role`` and ``identification`` (the seat
        view also ``ece``), over the positions where the view does not know the partner for sure.
    """
    if name == "exact" and type(belief) is not ExactBelief:
        raise ValueError("name 'exact' is the counted belief's, the reference every share is of: name yours otherwise")
    rules = make_rules("five_handed")
    states, hand, meta = evaluation_set(rules, population)
    beliefs = {name: dict.fromkeys(VIEWS, belief), "exact": dict.fromkeys(VIEWS, ExactBelief())}
    entry = score_population(states, hand, rules, beliefs)
    return {**entry["beliefs"][name], "calibration": entry["calibration"][name],
            "views_per_second": entry["beliefs_per_second"][name], "set": meta}  # fmt: skip


def player_models(rules: RulesConfig, agents: dict[str, float]) -> tuple[Any, Any, str]:
    """``(true model without noise, wrong model, description)`` for the agents that played."""
    from agents import make_agent
    from agents.base import LogitAgent
    from agents.beliefs import HeuristicModel, SeatMixtureModel, UniformModel

    def model(name: str) -> Any:
        if name == "heuristic":
            return HeuristicModel(rules, 0.0)
        if name == "random":
            return UniformModel()
        agent = make_agent(name, rules)
        if isinstance(agent, LogitAgent):
            return agent
        raise ValueError(f"--populations: partner-bench knows the player model of the heuristic, random and "
                         f"trained models, not {name!r}")  # fmt: skip

    total = sum(agents.values())
    if len(agents) == 1:
        true = model(next(iter(agents)))
    else:
        true = SeatMixtureModel([(w / total, model(n)) for n, w in agents.items()])
    if set(agents) == {"random"}:
        return true, HeuristicModel(rules, 0.1), "true: uniform random; wrong: heuristic (eps 0.1)"
    return true, UniformModel(), f"true: {', '.join(agents)} with fitted noise; wrong: uniform random"


def _train_rows(folder: Path, fraction: float, seed: int) -> dict[str, np.ndarray]:
    """The view rows (``partner_lab.classifier.view_rows``) of a ``fraction`` of a dataset's rows, sampled
    before the observations are unpacked (memory)."""
    import json

    import pyarrow as pa

    from partner_lab.classifier import view_rows
    from partner_lab.dataset import load_dataset, to_arrays

    rng, parts = np.random.default_rng(seed), []
    for shard in range(json.loads((folder / "manifest.json").read_text())["shards"]):  # a shard at a time
        table = load_dataset(folder, columns=["hand", "viewer", "label", "obs"], shards=[shard])
        parts.append(view_rows(to_arrays(table.filter(rng.random(table.num_rows) < fraction))))
        del table
        pa.default_memory_pool().release_unused()  # arrow keeps freed buffers otherwise
    return {c: np.concatenate([r[c] for r in parts]) for c in parts[0]}


def _union(rows: dict[str, dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The view rows of every population in one table (hand ids made distinct), emptying ``rows`` as it goes:
    memory holds one copy of the observations."""
    first = next(iter(rows.values()))
    total = sum(len(r["label"]) for r in rows.values())
    out = {c: np.empty((total, *a.shape[1:]), a.dtype) for c, a in first.items()}
    at = 0
    for i, q in enumerate(list(rows)):
        r = rows.pop(q)
        n = len(r["label"])
        for c, a in r.items():
            out[c][at : at + n] = a + i * 10**9 if c == "hand" else a
        at += n
        del r
    return out


def train_learned(args: argparse.Namespace, out: Path, command: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Learned beliefs: one per population and one on all of them (``"all"``); ``(classifiers, stats)``.

    With ``args.ablation`` the stats also hold ``"ablation"``: held-out log-loss of classifiers trained on a
    share of the union (one population's worth of rows) with each feature group dropped, beside the same
    training with every group seen (``"none"``) and with only the counted belief (``"all but exact"``).
    """
    from agents.partner_features import GROUPS
    from agents.partner_model import PartnerClassifier
    from partner_lab.classifier import train_classifier
    from partner_lab.dataset import parse_mix, write_dataset

    if args.classifier:
        return {"all": PartnerClassifier(args.classifier)}, {}
    rows: dict[str, dict[str, np.ndarray]] = {}
    classifiers, stats = {}, {}
    for k, pop in enumerate(args.populations):
        data = write_dataset(out / "train_data" / pop, parse_mix(POPULATIONS[pop]), args.train_hands,
                             TRAIN_SHARD_HANDS, seed=args.seed + 1, overwrite=True, command=command)  # fmt: skip
        rows[pop] = _train_rows(data, args.row_fraction, args.seed + k)
        classifiers[pop], stats[pop] = train_classifier(rows[pop], hidden=HIDDEN, seed=args.seed, viewed=True)
    union = _union(rows)
    classifiers["all"], stats["all"] = train_classifier(union, hidden=HIDDEN, seed=args.seed, viewed=True)
    classifiers["all"].save(out / "partner_classifier.safetensors")
    if args.ablation:
        share = np.random.default_rng(args.seed).random(len(union["label"])) < 1.0 / len(args.populations)
        union = {c: a[share] for c, a in union.items()}
        stats["ablation"] = {}
        for name, dropped in [("none", []), *[(g, [g]) for g in GROUPS], ("all but exact", list(GROUPS[1:]))]:
            stats["ablation"][name] = train_classifier(union, hidden=HIDDEN, seed=args.seed, viewed=True, dropped=dropped)[1]
    return classifiers, stats


def run(args: argparse.Namespace, command: str = "") -> dict[str, Any]:
    """Play, believe, score; returns the report (also written to ``args.out``).

    ``args.beliefs`` (default :data:`BUILTIN`) picks the beliefs: the learned ones are trained (or
    ``args.classifier`` read) and the policy belief's noise fitted only when they are asked for.
    """
    from agents.beliefs import PolicyBelief, with_noise
    from euchre_env.records import load_records, save_records
    from partner_lab.dataset import parse_mix
    from partner_lab.noise import fit_noise
    from training.runs import provenance, write_json

    names = list(getattr(args, "beliefs", BUILTIN))
    loaded = {n: load_belief(n) for n in names if n not in BUILTIN}  # before any long work: a bad name fails now
    rules = make_rules("five_handed")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    classifiers, train_stats = train_learned(args, out, command) if "learned" in names else ({}, {})
    report: dict[str, Any] = {"hands": args.hands, "fit_hands": args.fit_hands, "train_hands": args.train_hands,
                              "worlds": args.worlds, "seed": args.seed, "train": train_stats, "populations": {}}  # fmt: skip
    for pop in args.populations:
        mix = parse_mix(POPULATIONS[pop])
        true_model, wrong_model, models_text = player_models(rules, mix)
        noise = None
        if "policy-true" in names:
            fit_states, _ = positions(rules, mix, args.fit_hands, args.seed + 2)
            noise = fit_noise(true_model, fit_states, rules, true_class(fit_states, rules.num_players),
                              n_worlds=args.worlds, seed=args.seed)  # fmt: skip
        beliefs: dict[str, dict[str, PartnerBelief | None]] = {}
        for name in names:
            if name == "uniform":
                beliefs[name] = dict.fromkeys(VIEWS, UniformBelief())
            elif name == "exact":
                beliefs[name] = dict.fromkeys(VIEWS, ExactBelief())
            elif name == "policy-true":
                beliefs[name] = {v: PolicyBelief(with_noise(true_model, noise[v]["epsilon"]), args.worlds,
                                                 seed=args.seed) for v in VIEWS}  # fmt: skip
            elif name == "policy-wrong":
                beliefs[name] = dict.fromkeys(VIEWS, PolicyBelief(wrong_model, args.worlds, seed=args.seed))
            elif name == "learned":
                beliefs[name] = dict.fromkeys(VIEWS, classifiers["all"])
                beliefs.update({f"learned-{q}": dict.fromkeys(VIEWS, c) for q, c in classifiers.items() if q != "all"})
            elif name == "oracle":
                beliefs[name] = dict.fromkeys(VIEWS, None)
            else:
                beliefs[name] = dict.fromkeys(VIEWS, loaded[name])
        set_file = f"{set_name(pop, args.hands, args.seed)}.jsonl.gz"
        if getattr(args, "sets", ""):  # replay the recorded hands
            if not (Path(args.sets) / set_file).is_file():
                raise ValueError(f"--sets {args.sets!r} holds no {set_file} (the set of {pop})")
            records = load_records(Path(args.sets) / set_file)
        else:  # play them, keeping their records (the scores are over their replay: what the file holds)
            records = set_records(pop, args.hands, args.seed)
        states, hand, meta = evaluation_set(rules, pop, args.hands, args.seed, records)
        (out / "sets").mkdir(exist_ok=True)
        save_records(out / "sets" / set_file, records)
        entry = score_population(states, hand, rules, beliefs)
        entry.update({"agents": mix, "models": models_text, "noise": noise, "positions": states.batch_size,
                      "set": meta})  # fmt: skip
        report["populations"][pop] = entry
    report["provenance"] = provenance(argparse.Namespace(seed=args.seed, variant="five_handed"), command)
    report["provenance"]["algo"] = "partner-bench"
    write_json(out / "partner_bench.json", report)
    text = to_markdown(report)
    tmp = out / "partner_bench.md.tmp"
    tmp.write_text(text)
    tmp.replace(out / "partner_bench.md")
    first = report["populations"][args.populations[0]]
    if first["calibration"]:
        plot_calibration(first["calibration"], out / "calibration.png", args.populations[0])
    return report


def score_population(states: State, hand: np.ndarray, rules: RulesConfig,
                     beliefs: dict[str, dict[str, PartnerBelief | None]]) -> dict[str, Any]:  # fmt: skip
    """Every belief's scores on one evaluation set (module docstring), with speeds and calibration."""
    p = rules.num_players
    y_all = true_class(states, p)
    trick = states.trick_no.astype(np.int64)
    frames: dict[str, dict[str, Any]] = {}
    for view in VIEWS:
        viewers = list(range(p)) if view == "seat" else [PUBLIC]
        role = [np.where(states.maker == v, 0, 1) if v != PUBLIC else np.full(states.batch_size, 2) for v in viewers]
        frames[view] = {
            "viewers": viewers,
            "y": np.tile(y_all, len(viewers)),
            "open": ~np.concatenate([_settled(states, rules, v) for v in viewers]),
            "trick": np.tile(trick, len(viewers)),
            "role": np.concatenate(role),
            "key": np.concatenate([hand * (p + 1) + (v % (p + 1)) for v in viewers]),
            "groups": np.tile(hand, len(viewers)),
        }
        f = frames[view]
        seen, f["hands"] = np.unique(f["groups"][f["open"]], return_inverse=True)  # each open row's hand, 0..H-1
        f["resamples"] = _resamples(max(seen.size, 1))
        f["loss_by_hand"] = {}
    out: dict[str, Any] = {"beliefs": {}, "calibration": {}, "beliefs_per_second": {}}
    for name, per_view in beliefs.items():
        entry_views: dict[str, Any] = {}
        seconds = 0.0
        for view, f in frames.items():
            belief = per_view[view]
            start = time.perf_counter()
            parts = [np.eye(p + 1)[y_all] if belief is None else _checked(belief(states, rules, v).probs, name, v, p)
                     for v in f["viewers"]]  # fmt: skip
            seconds += time.perf_counter() - start
            probs, y, open_, tr = np.concatenate(parts), f["y"], f["open"], f["trick"]
            entry = scores(probs[open_], y[open_])
            entry["by_trick"] = {int(t): scores(probs[open_ & (tr == t)], y[open_ & (tr == t)]) for t in range(5)}
            entry["by_role"] = {r: scores(probs[open_ & (f["role"] == i)], y[open_ & (f["role"] == i)])
                                for i, r in enumerate(ROLES) if (f["role"] == i).any()}  # fmt: skip
            entry["identification"] = _identification(probs, y, open_, tr, f["key"])
            loss = -np.log(np.maximum(probs[open_][np.arange(int(open_.sum())), y[open_]], EPS))
            f["loss_by_hand"][name] = np.bincount(f["hands"], weights=loss, minlength=f["resamples"].shape[1])
            entry_views[view] = entry
            if view == "seat" and belief is not None and not name.startswith("learned-"):
                table = calibration(probs[open_], y[open_], groups=f["groups"][open_])
                out["calibration"][name] = table
                entry["ece"] = expected_calibration_error(table)
                entry["ece_ci95"] = _ece_interval(probs[open_], y[open_], f["hands"], f["resamples"])
        out["beliefs"][name] = entry_views
        if name != "oracle":
            out["beliefs_per_second"][name] = states.batch_size * (p + 1) / max(seconds, 1e-9)
    for view, f in frames.items():
        rows_by_hand = np.bincount(f["hands"], minlength=f["resamples"].shape[1])
        _intervals({n: out["beliefs"][n][view] for n in beliefs}, f["loss_by_hand"], rows_by_hand, f["resamples"])
    return out


def _checked(probs: Any, name: str, viewer: int, p: int) -> np.ndarray:
    """A belief's ``probs`` at the evaluation positions (every maker has declared): ``(B, P + 1)``, finite,
    at least 0, each row summing to 1. Raises ``ValueError`` naming the belief and the view."""
    probs = np.asarray(probs, dtype=np.float64)
    view = "the public view" if viewer == PUBLIC else f"seat {viewer}'s view"
    if probs.ndim != 2 or probs.shape[1] != p + 1:
        raise ValueError(f"belief {name!r} ({view}): probs must have shape (B, {p + 1}), got {probs.shape}")
    bad = np.flatnonzero(not_distributions(probs))
    if bad.size:
        raise ValueError(f"belief {name!r} ({view}): each row of probs must be finite, at least 0 and sum to 1; "
                         f"{bad.size} rows are not, the first {probs[bad[0]].round(4).tolist()}")  # fmt: skip
    return probs


BOOTSTRAP = 2000
"""Resamples of the hands behind every 95% interval of a log-loss or an ECE (:func:`_resamples`)."""


def _resamples(hands: int) -> np.ndarray:
    """(BOOTSTRAP, hands) float64: how many times each hand is drawn in each resample of the hands (seeded)."""
    return np.random.default_rng(0).multinomial(hands, np.full(hands, 1 / hands), size=BOOTSTRAP).astype(np.float64)


def _intervals(entries: dict[str, dict[str, Any]], loss_by_hand: dict[str, np.ndarray], rows_by_hand: np.ndarray,
               counts: np.ndarray) -> None:  # fmt: skip
    """Add to each belief's scores of one view 95% intervals over hands (a percentile bootstrap, the same
    resamples ``counts`` for every belief): ``log_loss_ci95``, and with the counted belief among them
    ``x_exact`` (the log-loss as a share of the counted belief's) and ``x_exact_ci95``, paired on the same
    hands."""
    exact = loss_by_hand.get("exact")
    for name, entry in entries.items():
        total = counts @ loss_by_hand[name]
        entry["log_loss_ci95"] = np.percentile(total / (counts @ rows_by_hand), [2.5, 97.5]).tolist()
        if exact is not None:
            entry["x_exact"] = float(loss_by_hand[name].sum() / exact.sum())
            entry["x_exact_ci95"] = np.percentile(total / (counts @ exact), [2.5, 97.5]).tolist()


def _ece_interval(probs: np.ndarray, y: np.ndarray, hands: np.ndarray, counts: np.ndarray, bins: int = 10) -> list[float]:
    """95% interval over hands of the expected calibration error of ``probs`` (N, K) with answers ``y`` (N,),
    rows of hands ``hands`` (N,) in 0..H-1, for the resamples ``counts`` (R, H); binned as
    ``partner_lab.classifier.calibration`` bins (ECE = the sum over bins of |hits - predictions| / pairs)."""
    k = probs.shape[1]
    hit = np.zeros_like(probs)
    hit[np.arange(len(y)), y] = 1.0
    which = np.clip(np.digitize(probs.ravel(), np.linspace(0.0, 1.0, bins + 1)[1:-1]), 0, bins - 1)
    by_hand = np.repeat(hands, k)
    resid = np.zeros((counts.shape[1], bins))
    np.add.at(resid, (by_hand, which), (hit - probs).ravel())
    pairs = np.bincount(by_hand, minlength=counts.shape[1]).astype(np.float64)
    return np.percentile(np.abs(counts @ resid).sum(axis=1) / (counts @ pairs), [2.5, 97.5]).tolist()


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
    lines = ["# Partner-inference benchmark (five-handed)\n",
             (f"Per population: {report['hands']} hands scored (the first decision of each trick after the declaration, "
             f"x 6 views), noise fitted on {report['fit_hands']} other hands, the learned beliefs trained on "
             f"{report['train_hands']} other hands of each population; policy beliefs with {report['worlds']} worlds. "
             f"Scores over the positions where the view does not know the partner for sure. Identified: belief >= "
             f"{IDENTIFIED} in the partner before its card is played.\n")]  # fmt: skip
    pops = report["populations"]
    for pop, e in pops.items():
        s = e["set"]
        lines += [f"\n## {pop}: {', '.join(f'{k}={v:g}' for k, v in e['agents'].items())}\n",
                  (f"Set {s['name']} (seed {s['seed']}, {s['hands']} hands, {e['positions']} positions, sha256 "
                  f"{s['sha256'][:16]}...); player models {e['models']}"
                  + (f"; fitted epsilon: seat views {e['noise']['seat']['epsilon']:g}, public "
                     f"{e['noise']['public']['epsilon']:g}" if e.get("noise") else "") + ".\n")]  # fmt: skip
        for view in VIEWS:
            lines += [f"\n### {view} view\n",
                      ("| belief | log-loss (95% interval) | x exact (95% interval) | Brier | accuracy "
                       "| log-loss by trick 1-5 | identified | mean trick | ECE |"),
                      "|---|---:|---:|---:|---:|---|---:|---:|---:|"]  # fmt: skip
            for name, per in e["beliefs"].items():
                if name.startswith("learned-"):
                    continue
                v = per[view]
                by = " / ".join(f"{t['log_loss']:.2f}" if t["n"] else "-" for t in v["by_trick"].values())
                ident = v["identification"]
                ece = f"{v['ece']:.3f}" if "ece" in v else ""
                ci = v.get("log_loss_ci95")
                loss = f"{v['log_loss']:.3f}" + (f" ({ci[0]:.3f}-{ci[1]:.3f})" if ci else "")
                share = f"{v['x_exact']:.3f} ({v['x_exact_ci95'][0]:.3f}-{v['x_exact_ci95'][1]:.3f})" if "x_exact" in v else ""
                lines.append(f"| {name} | {loss} | {share} | {v['brier']:.3f} | {v['accuracy']:.3f} | {by} | "
                             f"{ident['identified_before_reveal']:.3f} | {ident['mean_trick']:.2f} | {ece} |")  # fmt: skip
        lines += ["\n### by role (log-loss; the hidden partner knows the answer)\n",
                  "| belief | maker | defender | spectator |", "|---|---:|---:|---:|"]  # fmt: skip
        for name, per in e["beliefs"].items():
            if name.startswith("learned-") or name == "oracle":
                continue
            roles = {**per["seat"]["by_role"], **per["public"]["by_role"]}
            lines.append(f"| {name} | " + " | ".join(f"{roles[r]['log_loss']:.3f}" if r in roles and roles[r]["n"]
                                                      else "-" for r in ROLES) + " |")  # fmt: skip
        lines += ["\n### calibration (seat views)\n",
                  "| belief | bins whose 95% interval holds the mean prediction | ECE (95% interval) |",
                  "|---|---:|---:|"]  # fmt: skip
        for name, table in e["calibration"].items():
            ci = e["beliefs"][name]["seat"].get("ece_ci95")
            lines.append(f"| {name} | {bins_inside(table)} of {len(table)} | {expected_calibration_error(table):.3f}"
                         + (f" ({ci[0]:.3f}-{ci[1]:.3f})" if ci else "") + " |")  # fmt: skip
        lines += ["\n### beliefs per second (every view)\n", "| belief | views/s |", "|---|---:|"]
        lines += [f"| {n} | {r:,.0f} |" for n, r in e["beliefs_per_second"].items() if not n.startswith("learned-")]
    learned = [n for n in next(iter(pops.values()))["beliefs"] if n.startswith("learned")]
    if len(learned) > 1:
        lines += [("\n## Cross-population: log-loss of the learned belief trained on one population (rows), "
                  "scored on another (columns), seat views / public view\n"),
                  "| trained on | " + " | ".join(pops) + " |", "|---|" + "---:|" * len(pops)]  # fmt: skip
        for name in learned:
            label = "all" if name == "learned" else name.removeprefix("learned-")
            cells = [f"{pops[q]['beliefs'][name]['seat']['log_loss']:.3f} / "
                     f"{pops[q]['beliefs'][name]['public']['log_loss']:.3f}" for q in pops]  # fmt: skip
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        if "exact" in pops[next(iter(pops))]["beliefs"]:
            exact = [" / ".join(f"{pops[q]['beliefs']['exact'][v]['log_loss']:.3f}" for v in VIEWS) for q in pops]
            lines.append("| (exact, for reference) | " + " | ".join(exact) + " |")
    if report.get("train"):
        lines += ["\n## Learned beliefs: training\n", "| trained on | rows | held-out log-loss | counted belief's | temperature |",
                  "|---|---:|---:|---:|---:|"]  # fmt: skip
        for name, t in report["train"].items():
            if name != "ablation":
                lines.append(f"| {name} | {int(t['rows']):,} | {t['val_log_loss']:.3f} | {t['val_exact_log_loss']:.3f} | "
                             f"{t['temperature']:.2f} |")  # fmt: skip
    if report.get("train", {}).get("ablation"):
        abl = report["train"]["ablation"]
        base = abl["none"]["val_log_loss"]
        lines += [(f"\n## What each input buys: held-out log-loss with a feature group dropped ({int(abl['none']['rows']):,} "
                   "rows of all populations; counted belief's held-out log-loss "
                   f"{abl['none']['val_exact_log_loss']:.3f})\n"),
                  "| dropped | held-out log-loss | cost of dropping it |", "|---|---:|---:|"]  # fmt: skip
        lines += [f"| {name} | {t['val_log_loss']:.3f} | {t['val_log_loss'] - base:+.3f} |" for name, t in abl.items()]
    return "\n".join(lines) + "\n"


def plot_calibration(cal: dict[str, list[dict[str, float]]], path: Path, population: str = "") -> None:
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
    ax.set_title(f"calibration of partner beliefs (seat views{', ' + population if population else ''})")
    ax.legend()
    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)


OUTPUTS = ("partner_bench.json", "partner_bench.md", "calibration.png", "partner_classifier.safetensors", "train_data",
           "sets")  # fmt: skip
"""What a run writes into --out."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre partner-bench``."""
    parser.add_argument("--out", required=True, help="report folder")
    parser.add_argument("--overwrite", action="store_true", help="replace a report already in --out")
    parser.add_argument("--hands", "--deals", dest="hands", type=int, default=400,
                        help="hands of each population's evaluation set (default 400)")  # fmt: skip
    parser.add_argument("--populations", type=_populations, default=list(POPULATIONS),
                        help=f"comma-separated populations to score (default all: {', '.join(POPULATIONS)})")  # fmt: skip
    parser.add_argument("--beliefs", type=_beliefs, default=list(BUILTIN),
                        help=f"comma-separated beliefs to score: any of {', '.join(BUILTIN)} (default all), and your "
                             "own as module:attribute (a PartnerBelief, or what makes one)")  # fmt: skip
    parser.add_argument("--sets", default="",
                        help="a folder of evaluation sets as hand records (<set name>.jsonl.gz, as a run writes them "
                             "under sets/) to replay instead of playing the hands")  # fmt: skip
    parser.add_argument("--worlds", type=int, default=256, help="worlds per view of the policy beliefs")
    parser.add_argument("--fit-hands", type=int, default=60, help="hands per population the noise is fitted on")
    parser.add_argument("--train-hands", type=int, default=60000, help="hands per population the learned beliefs train on")
    parser.add_argument("--row-fraction", type=float, default=0.033,
                        help="share of the training hands' rows the learned beliefs use (default 0.033: memory; "
                             "more hands beat more rows of each hand)")  # fmt: skip
    parser.add_argument("--no-ablation", dest="ablation", action="store_false",
                        help="skip training with each feature group dropped (what each input buys)")  # fmt: skip
    parser.add_argument("--classifier", default="", help="a trained classifier file instead of training them")
    parser.add_argument("--seed", type=int, default=0, help="seed (training hands: seed + 1, fit hands: seed + 2)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")


def _populations(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in POPULATIONS]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"must be some of {', '.join(POPULATIONS)}, got {text!r}")
    return list(dict.fromkeys(names))


def _beliefs(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in BUILTIN and ":" not in n]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"must be some of {', '.join(BUILTIN)} or module:attribute, got {text!r}")
    return list(dict.fromkeys(names))


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
    for name in ("hands", "worlds", "train_hands", "fit_hands", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if not 0 < args.row_fraction <= 1:
        parser.error(f"--row-fraction must be in (0, 1], got {args.row_fraction}")
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
