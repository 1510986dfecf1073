"""``euchre leaderboard``: every pair of agents on a frozen deal set, and ratings with 95% intervals.

    euchre leaderboard --deal-set four_handed-v1 --agents random heuristic model:four_handed search@400 \\
        --out runs/board

Each pair plays one duplicate match (:func:`arena.evaluate.evaluate`) on the first deals of the set
(:mod:`arena.deal_sets`): all of them, or fewer where an agent is slow: ``NAME@N`` caps the deals of
every pair it plays to ``N``. A pair's result is cached under ``--out`` (``pairs/``), keyed by the deal
set and its checksum, the two names, the deal count and, for a model file, the file's sha256; run the
board again with one more agent and only its new pairs are played. The cache trusts a name to play the
same agent: after changing an agent's code (your own ``py:`` agent, say), play again with ``--overwrite``.

**The rating** of an agent is its points per hand against a fixed reference, the anchor (``--anchor``,
the heuristic by default), head to head on the set's deals: the difference in points per hand (relative
points five-handed, see :mod:`arena.evaluate`) with its 95% interval over deals. Points per hand are the
game's own currency, which a win-probability model of per-deal wins (Bradley-Terry) would throw away,
and a fixed reference keeps a rating's meaning when agents are added: it is the very match ``euchre
eval --agents AGENT ANCHOR --seed SEED --deals N`` plays.

Every other pair is played too, and **a one-number-per-agent fit of all pairs** is reported beside the
rating (:func:`fit_ratings`: weighted least squares of ``rating[a] - rating[b]`` on each pair's
difference, the anchor at 0). It is not the headline because results among card players are not
transitive: against the random player nearly every agent scores alike while the same agents differ
widely against each other, so on the shipped boards no single rating per agent explains the pairs
(five-handed, chi-square in the thousands on 3 degrees of freedom). The fit's intervals are widened by
that misfit, and the report lists every pair's difference beside the one the fit implies.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.deal_sets import DealSet, load, shipped
from arena.report import command_line, pyplot, report_folder, save_figure

FORMAT = "euchre-env-leaderboard"


@dataclass(frozen=True)
class Entrant:
    """An agent name and the most deals a pair with it plays (``None``: the whole set)."""

    name: str
    max_deals: int | None = None


def parse_entrant(text: str) -> Entrant:
    """``"search@400"`` -> ``Entrant("search", 400)``; ``"heuristic"`` -> ``Entrant("heuristic")``.

    Raises:
        ValueError: an empty name or a cap that is not an integer >= 2.
    """
    name, sep, cap = text.rpartition("@") if "@" in text else (text, "", "")
    if not name:
        raise ValueError(f"--agents: {text!r} has no agent name")
    if not sep:
        return Entrant(name)
    try:
        deals = int(cap)
    except ValueError:
        deals = 0
    if deals < 2:
        raise ValueError(f"--agents: the deals after '@' in {text!r} must be an integer >= 2")
    return Entrant(name, deals)


@dataclass(frozen=True)
class Fit:
    """Fitted ratings: name -> ``(rating, 95% half-width)``, and how well one rating per agent explains the
    pairs (``chi2`` of the misfit on ``dof`` degrees of freedom; ``scale``, the factor the intervals were
    widened by, ``sqrt(chi2 / dof)`` when that exceeds 1, else 1)."""

    ratings: dict[str, tuple[float, float]]
    chi2: float
    dof: int
    scale: float


def fit_ratings(names: Sequence[str], pairs: Sequence[tuple[str, str, float, float]], anchor: str) -> Fit:
    """Ratings with 95% intervals from pairwise results (weighted least squares, the anchor at 0).

    Args:
        names: the agents.
        pairs: ``(a, b, mean of a's points minus b's per deal, its standard error)``.
        anchor: the agent rated 0.

    Returns:
        The :class:`Fit`. The intervals are widened by ``sqrt(chi2 / dof)`` when the pairs disagree with
        one rating per agent by more than their errors (the Birge ratio), so a board of non-transitive
        results does not claim more precision than its ratings have; the anchor's half-width is 0.

    Raises:
        ValueError: an unknown anchor or agent, a standard error that is not positive, or agents not
            connected to the anchor by pairs (their ratings would be undetermined).
    """
    if anchor not in names:
        raise ValueError(f"the anchor {anchor!r} is not among the agents {list(names)}")
    free = [n for n in names if n != anchor]
    col = {n: k for k, n in enumerate(free)}
    rows, y, w = [], [], []
    for a, b, diff, se in pairs:
        if a not in names or b not in names:
            raise ValueError(f"a pair names an agent that is not on the board: {(a, b)}")
        if not se > 0:
            raise ValueError(f"the standard error of {a} - {b} must be positive, got {se}")
        x = np.zeros(len(free))
        if a != anchor:
            x[col[a]] += 1.0
        if b != anchor:
            x[col[b]] -= 1.0
        rows.append(x)
        y.append(diff)
        w.append(1.0 / se**2)
    if not free:
        return Fit({anchor: (0.0, 0.0)}, 0.0, len(pairs), 1.0)
    x, y, w = np.array(rows).reshape(-1, len(free)), np.array(y), np.array(w)
    info = x.T @ (x * w[:, None])
    if np.linalg.matrix_rank(info) < len(free):
        raise ValueError("some agents are not connected to the anchor by any chain of pairs")
    cov = np.linalg.inv(info)
    rating = cov @ (x.T @ (w * y))
    chi2 = float(np.sum(w * (y - x @ rating) ** 2))
    dof = len(pairs) - len(free)
    scale = float(np.sqrt(chi2 / dof)) if dof > 0 and chi2 > dof else 1.0
    out = {anchor: (0.0, 0.0)}
    for n in free:
        k = col[n]
        out[n] = (float(rating[k]), float(1.96 * scale * np.sqrt(cov[k, k])))
    return Fit(out, chi2, dof, scale)


def file_digest(name: str, deal_set: DealSet) -> str | None:
    """sha256 of the model file a ``model:`` name plays (so a retrained file is a new entrant), else None."""
    if not name.startswith("model:") and "model:" not in name:
        return None
    from agents.sb3_policy import resolve_model_path

    path = resolve_model_path(name[name.index("model:") + len("model:") :], deal_set.rules)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pair_key(deal_set: DealSet, a: str, b: str, deals: int) -> dict[str, Any]:
    """What makes a cached pair result valid: the set (with its checksum), the names, their files, deals."""
    return {"deal_set": deal_set.name, "sha256": deal_set.sha256, "agents": [a, b], "deals": deals,
            "files": [file_digest(a, deal_set), file_digest(b, deal_set)]}  # fmt: skip


def play_pair(deal_set: DealSet, a: str, b: str, deals: int, cache: Path) -> tuple[dict[str, Any], bool]:
    """One pair's result (from the cache when it holds this very match). Returns ``(result, played)``."""
    from arena.evaluate import evaluate

    key = pair_key(deal_set, a, b, deals)
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    path = cache / f"{digest}.json"
    if path.is_file():
        stored = json.loads(path.read_text())
        if stored.get("key") == key:
            return stored, False
    result = evaluate({a: a, b: b}, deal_set.rules, deals, seed=deal_set.seed)
    m = result.matchups[0]
    stat = m.relative if deal_set.rules.called_card else m.advantage
    record = {"key": key, "agents": [a, b], "deals": deals, "mean": stat.mean, "ci95": stat.ci95,
              "points": m.advantage.to_dict(), "seconds": result.seconds}  # fmt: skip
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(path)
    return record, True


def leaderboard(
    deal_set: str, entrants: Sequence[Entrant], out: str | Path, anchor: str = "heuristic",
    progress: bool = True, fresh: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Play every pair not yet cached under ``out``, fit the ratings, and write ``leaderboard.json``,
    ``leaderboard.md`` and ``leaderboard.png`` there. Returns the JSON report (``"played"`` lists the pairs
    this call played). ``fresh`` forgets the cached pairs first (once every name is checked).

    Raises:
        ValueError: an unknown deal set or agent, fewer than two agents, an anchor not among them.
    """
    ds = load(deal_set)
    names = [e.name for e in entrants]
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError(f"--agents needs at least two different agents, got {names}")
    if anchor not in names:
        raise ValueError(f"--anchor {anchor!r} is not among --agents {names}")
    from agents import make_agent

    for name in names:  # a bad name fails before any match
        make_agent(name, ds.rules)
    out = Path(out)
    if fresh and (out / "pairs").is_dir():
        for old in (out / "pairs").glob("*.json"):
            old.unlink()
    pairs, played = [], []
    for i, ea in enumerate(entrants):
        for eb in entrants[i + 1 :]:
            caps = [c for c in (ea.max_deals, eb.max_deals) if c is not None]
            deals = min([ds.num_deals, *caps])
            if progress:
                print(f"{ea.name} - {eb.name}: {deals} deals", end="", flush=True)
            record, new = play_pair(ds, ea.name, eb.name, deals, out / "pairs")
            if progress:
                print(f"  {record['mean']:+.3f} ± {record['ci95']:.3f}" + ("" if new else "  (cached)"))
            pairs.append(record)
            if new:
                played.append([ea.name, eb.name])
    fit = fit_ratings(
        names, [(p["agents"][0], p["agents"][1], p["mean"], p["ci95"] / 1.96) for p in pairs], anchor
    )
    for p in pairs:
        p["fitted"] = fit.ratings[p["agents"][0]][0] - fit.ratings[p["agents"][1]][0]

    def row(entrant: Entrant) -> dict[str, Any]:
        """``entrant``'s rating (head to head against the anchor) and its all-pairs fit."""
        mean, ci95 = 0.0, 0.0
        for p in pairs:
            if entrant.name != anchor and sorted(p["agents"]) == sorted([entrant.name, anchor]):
                mean, ci95 = (p["mean"] if p["agents"][0] == entrant.name else -p["mean"]), p["ci95"]
        fitted, fitted_ci = fit.ratings[entrant.name]
        return {"agent": entrant.name, "rating": mean, "ci95": ci95, "max_deals": entrant.max_deals,
                "all_pairs": {"rating": fitted, "ci95": fitted_ci}}  # fmt: skip

    report = {
        "format": FORMAT, "deal_set": ds.to_dict(), "anchor": anchor,
        "unit": "relative points per hand" if ds.rules.called_card else "points per hand",
        "command": command_line(),
        "ratings": sorted((row(e) for e in entrants), key=lambda r: -r["rating"]),
        "pairs": [{k: p[k] for k in ("agents", "deals", "mean", "ci95", "fitted", "seconds")} for p in pairs],
        "all_pairs_fit": {"chi2": fit.chi2, "dof": fit.dof, "interval_scale": fit.scale},
        "played": played,
    }  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    (out / "leaderboard.json").write_text(json.dumps(report, indent=1))
    (out / "leaderboard.md").write_text(to_markdown(report))
    plot(report, out / "leaderboard.png")
    return report


def to_markdown(report: dict[str, Any]) -> str:
    """The board as a Markdown table, then every pair."""
    ds = report["deal_set"]
    lines = [
        f"# Leaderboard on {ds['name']}",
        "",
        (
            f"Ratings: {report['unit']} against `{report['anchor']}`, head to head, with 95% intervals; deal set "
            f"`{ds['name']}` ({ds['num_deals']} deals, sha256 {ds['sha256'][:12]}...)."
        ),
        "",
        f"| rank | agent | rating: against `{report['anchor']}` | all-pairs fit | deals per pair |",
        "|---:|---|---|---|---|",
    ]
    for k, r in enumerate(report["ratings"], 1):
        cap = "all" if r["max_deals"] is None else f"at most {r['max_deals']}"
        fit = r["all_pairs"]
        lines.append(f"| {k} | `{r['agent']}` | {r['rating']:+.3f} ± {r['ci95']:.3f} "
                     f"| {fit['rating']:+.3f} ± {fit['ci95']:.3f} | {cap} |")  # fmt: skip
    lines += [
        "",
        "| pair (first − second) | deals | difference | from the all-pairs fit |",
        "|---|---:|---|---:|",
    ]
    for p in report["pairs"]:
        lines.append(
            f"| `{p['agents'][0]}` − `{p['agents'][1]}` | {p['deals']} | {p['mean']:+.3f} ± {p['ci95']:.3f} "
            f"| {p['fitted']:+.3f} |"
        )
    c = report["all_pairs_fit"]
    lines += ["", (f"Misfit of the all-pairs fit: chi² {c['chi2']:.1f} on {c['dof']} degrees of freedom (about "
              "the degrees of freedom when every pair's difference is the difference of two ratings); its "
              f"intervals are widened {c['interval_scale']:.1f}-fold to match.")]  # fmt: skip
    return "\n".join(lines) + "\n"


def plot(report: dict[str, Any], path: Path) -> None:
    """The ratings as points with 95% bars (needs matplotlib; skipped without it)."""
    plt = pyplot()
    if plt is None:
        return
    rows = report["ratings"][::-1]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.2), dpi=100)
    ax.errorbar([r["rating"] for r in rows], range(len(rows)), xerr=[r["ci95"] for r in rows], fmt="o",
                capsize=4, color="tab:green")  # fmt: skip
    ax.axvline(0, color="0.6", lw=1)
    ax.set_yticks(range(len(rows)), [r["agent"] for r in rows])
    ax.set_xlabel(f"{report['unit']} against {report['anchor']}, head to head (95% intervals)")
    ax.set_title(f"{report['deal_set']['name']}")
    fig.tight_layout()
    save_figure(fig, path)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre leaderboard``."""
    parser.add_argument("--deal-set", default="four_handed-v1", choices=sorted(shipped()),
                        help="the frozen deals every pair plays (its variant is the board's game)")  # fmt: skip
    parser.add_argument("--agents", nargs="+", required=True,
                        help="agent names (any the other commands take, your own py:... included); NAME@N "
                        "caps every pair of that agent at N deals (for slow agents)")  # fmt: skip
    parser.add_argument("--anchor", default="heuristic", help="the agent rated 0 (default heuristic)")
    parser.add_argument("--out", required=True, help="board folder: the pairs cached there are reused")
    parser.add_argument(
        "--overwrite", action="store_true", help="forget the cached pairs and play every pair again"
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre leaderboard``)."""
    parser = argparse.ArgumentParser(prog="euchre leaderboard", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    out = report_folder(parser, args.out)
    try:
        entrants = [parse_entrant(t) for t in args.agents]
        report = leaderboard(args.deal_set, entrants, out, args.anchor, not args.quiet, args.overwrite)
    except ValueError as err:
        parser.error(str(err))
    if not args.quiet:
        print(to_markdown(report))
        print(f"wrote {out / 'leaderboard.json'}, {out / 'leaderboard.md'}, {out / 'leaderboard.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
