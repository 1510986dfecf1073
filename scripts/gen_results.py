"""The figures of the user pages, generated from the results files under ``docs/results/``.

Every figure quoted on a user page (``README.md`` and the user guide in ``docs/``; the dated records
of ``docs/experiments/`` keep their numbers as recorded) comes from a results file written by the
command that measured it, and each results file holds that command. This script writes the tables
between markers in the pages::

    <!-- results:NAME -->
    (generated: do not edit by hand)
    <!-- /results:NAME -->

``NAME`` is a key of :data:`TABLES`. ``tests/test_docs.py`` fails when a page differs from what
this script writes, or a results file lacks its command.

    python scripts/gen_results.py                    # rewrite the tables in README.md and docs/**/*.md
    python scripts/gen_results.py --check            # exit 1 (naming the page) if one is out of date
    python scripts/gen_results.py --measure all      # rerun every measuring command (about 40 minutes on 2
                                                     # cores, the leaderboards most of it), then
    python scripts/gen_results.py                    # ... rewrite the tables from the new files

The results files (:data:`SOURCES`), each with the command that wrote it:

* ``docs/results/four_handed_models/eval.json``, ``docs/results/five_handed_models/eval.json``:
  ``euchre eval`` reports (``eval.json`` records its command, ``arena.report.command_line``);
* ``docs/results/partner_bench/partner_bench.json``: ``euchre partner-bench`` (its
  ``provenance.command``); its training data and classifier are not kept;
* ``docs/results/partner_policy/eval.json``: ``euchre eval`` of the two five-handed policies kept under
  ``docs/results/partner_policy/models/`` (each model file records the ``euchre train`` command that made it)
  against the shipped model;
* ``docs/results/partner_truth_*/partner_truth.json``: ``euchre analyse partner-truth`` (its ``"command"``);
  the policy trained told (``euchre train --told-partner``) is kept beside those two; the search agent's
  match is run in pieces, ``docs/results/partner_truth_search/seed_<S>/partner_truth.json`` (each with its
  command; not remeasured by ``--measure``: some ten hours);
* ``docs/results/leaderboard_four_handed/leaderboard.json``, ``docs/results/leaderboard_five_handed/
  leaderboard.json``: ``euchre leaderboard`` reports (their ``"command"``; the pairs they played are
  cached beside them, under ``pairs/``, so a rerun with one more agent plays only its pairs);
* ``docs/results/exploit_*/exploit.json``: ``euchre exploit`` reports (their ``"command"``; the
  response models they trained are not kept);
* ``docs/results/compare_*/compare.json`` (four- and five-handed, one file per command and its budgets):
  ``euchre compare-learners`` (its ``"command"``; the
  runs it trained and the matches it played stay under the folder, not in git);
* ``docs/results/ray_scaling/scaling.json``, ``docs/results/ray_curves/curves.json``:
  ``benchmarks/bench_ray.py`` (its ``"command"``): the Ray backend's speed-up and learning per decision;
* ``docs/results/bench.json``: ``euchre bench``'s figures (``"figures"``) with the command, the CPU
  (``lscpu``) and the load when it ran, written by ``--measure bench`` (``euchre bench --json``
  records neither the command nor the CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"

# name -> (results file, the command that writes it when it does not exist yet; afterwards the file's own)
PARTNER_MODELS = "docs/results/partner_policy/models"  # the two five-handed policies it compares (kept)
SOURCES: dict[str, tuple[str, str]] = {
    "four_handed_models": (
        "docs/results/four_handed_models/eval.json",
        (
            "euchre eval --variant four_handed --agents model:four_handed heuristic random --deals 10000 "
            "--games 1000 --seed 400 --out docs/results/four_handed_models"
        ),
    ),
    "five_handed_models": (
        "docs/results/five_handed_models/eval.json",
        (
            "euchre eval --variant five_handed --agents model:five_handed heuristic random --deals 10000 "
            "--games 1000 --seed 400 --out docs/results/five_handed_models"
        ),
    ),
    "partner_bench": (
        "docs/results/partner_bench/partner_bench.json",
        "euchre partner-bench --hands 400 --train-hands 60000 --out docs/results/partner_bench",
    ),
    **{
        f"partner_truth_{name}": (
            f"docs/results/partner_truth_{name}/partner_truth.json",
            f"euchre analyse partner-truth --agent {agent} --deals 10000 --seed 600 --out docs/results/partner_truth_{name}",
        )
        for name, agent in (("model", "model:five_handed"), ("heuristic", "heuristic"))
    },
    "partner_truth_told": (
        "docs/results/partner_truth_told/partner_truth.json",
        (
            f"euchre analyse partner-truth --agent model:{PARTNER_MODELS}/told.safetensors --against "
            f"model:{PARTNER_MODELS}/plain.safetensors --deals 10000 --seed 600 --out docs/results/partner_truth_told"
        ),
    ),
    "partner_policy": (
        "docs/results/partner_policy/eval.json",
        (
            f"euchre eval --variant five_handed --agents model:{PARTNER_MODELS}/partner.safetensors model:five_handed "
            f"model:{PARTNER_MODELS}/plain.safetensors --deals 10000 --seed 800 --out docs/results/partner_policy"
        ),
    ),
    "bench": ("docs/results/bench.json", "euchre bench --seconds 1 --repeats 3"),
    "leaderboard_four_handed": (
        "docs/results/leaderboard_four_handed/leaderboard.json",
        (
            "euchre leaderboard --deal-set four_handed-v1 --agents random heuristic model:four_handed search@400 "
            "search:model:four_handed@200 --out docs/results/leaderboard_four_handed --quiet"
        ),
    ),
    "leaderboard_five_handed": (
        "docs/results/leaderboard_five_handed/leaderboard.json",
        (
            "euchre leaderboard --deal-set five_handed-v1 --agents random heuristic model:five_handed search@100 "
            "--out docs/results/leaderboard_five_handed --quiet"
        ),
    ),
    "compare_five_handed": (
        "docs/results/compare_five_handed/compare.json",
        (
            "euchre compare-learners --deal-set five_handed-v1 --learners ppo dmc --minutes 10 "
            "--out docs/results/compare_five_handed"
        ),
    ),
    "compare_four_handed": (
        "docs/results/compare_four_handed/compare.json",
        (
            "euchre compare-learners --deal-set four_handed-v1 --learners ppo dmc dmc-heuristic --minutes 4 "
            "--out docs/results/compare_four_handed"
        ),
    ),
    "compare_four_handed_40": (
        "docs/results/compare_four_handed_40/compare.json",
        (
            "euchre compare-learners --deal-set four_handed-v1 --learners ppo dmc --minutes 40 "
            "--out docs/results/compare_four_handed_40"
        ),
    ),
    "compare_five_handed_40": (
        "docs/results/compare_five_handed_40/compare.json",
        (
            "euchre compare-learners --deal-set five_handed-v1 --learners ppo dmc --minutes 40 "
            "--out docs/results/compare_five_handed_40"
        ),
    ),
    "compare_four_handed_120": (
        "docs/results/compare_four_handed_120/compare.json",
        (
            "euchre compare-learners --deal-set four_handed-v1 --learners ppo dmc --minutes 120 "
            "--out docs/results/compare_four_handed_120"
        ),
    ),
    "compare_five_handed_120": (
        "docs/results/compare_five_handed_120/compare.json",
        (
            "euchre compare-learners --deal-set five_handed-v1 --learners ppo dmc --minutes 120 "
            "--out docs/results/compare_five_handed_120"
        ),
    ),
    "ray_scaling": (
        "docs/results/ray_scaling/scaling.json",
        "python benchmarks/bench_ray.py scaling --seconds 45 --out docs/results/ray_scaling",
    ),
    "ray_curves": (
        "docs/results/ray_curves/curves.json",
        "python benchmarks/bench_ray.py curves --decisions 2000000 --eval-every 400000 --out docs/results/ray_curves",
    ),
    **{
        f"exploit_{name}": (
            f"docs/results/exploit_{name}/exploit.json",
            f"euchre exploit --target {target} --deal-set {deal_set} --minutes 30 --out docs/results/exploit_{name}",
        )
        for name, target, deal_set in (
            ("heuristic_four_handed", "heuristic", "four_handed-v1"),
            ("model_four_handed", "model:four_handed", "four_handed-v1"),
            ("model_five_handed", "model:five_handed", "five_handed-v1"),
        )
    },
}
# what a run leaves in its folder that the docs do not need (partner-bench's training hands, the exploit probe's model)
NOT_KEPT = ("train_data", "response.safetensors")
MARKER = re.compile(r"(<!-- results:([\w-]+) -->\n)(.*?)(<!-- /results:\2 -->)", re.DOTALL)


# --------------------------------------------------------------------------------------------- reading
def load(name: str) -> dict[str, Any]:
    """The results file ``name`` of :data:`SOURCES`, parsed."""
    return json.loads((ROOT / SOURCES[name][0]).read_text(encoding="utf-8"))


def command_of(name: str, data: dict[str, Any] | None = None) -> str:
    """The command recorded in results file ``name`` ("" when it records none)."""
    data = load(name) if data is None else data
    if "command" in data:
        return data["command"] or ""
    return (data.get("provenance") or {}).get("command", "")


def _pm(stat: dict[str, float], digits: int = 3) -> str:
    return f"{stat['mean']:+.{digits}f} ± {stat['ci95']:.{digits}f}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _num(x: float) -> str:
    return f"{x:,.0f}"


def _matchup(data: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    for m in data["matchups"]:
        if m["agents"] == [a, b]:
            return m
    raise KeyError(f"{data['command']}: no match {a} vs {b}")


def _label(agent: str) -> str:
    return "shipped model" if agent.startswith("model:") else agent


# ---------------------------------------------------------------------------------------------- tables
def models_rows(name: str) -> list[str]:
    """One row per match of an ``euchre eval`` results file: the difference, games won, the command."""
    data = load(name)
    five = data["variant"] == "five_handed"
    rows = []
    for k, m in enumerate(data["matchups"]):
        a, b = m["agents"]
        if five:
            diff = f"**{_pm(m['relative_advantage'])}** relative (raw {_pm(m['advantage'])})"
        else:
            diff = f"**{_pm(m['advantage'])}**"
        won = ""
        if m["games_won_difference"] is not None:
            ra, rb = (r["win_rate"]["mean"] for r in m["reports"])
            won = f"{_pct(ra)} vs {_pct(rb)}"
        game = data["variant"].replace("_", "-")
        command = f"`{command_of(name, data)}`" if k == 0 else "(same run)"
        rows.append(f"| {game} | {_label(a)} vs {_label(b)} | {diff} | {won} | {command} |")
    return rows


def table_models() -> str:
    """The shipped models against the heuristic and random, both games (README, evaluation page)."""
    head = [
        "| game | match (row − column) | points per hand, 95% interval over deals | games won | command |",
        "|---|---|---|---|---|",
    ]
    runs = {
        (d["num_deals"], d["num_games"], d["seed"])
        for d in map(load, ("four_handed_models", "five_handed_models"))
    }
    design = "; ".join(
        f"{n:,} duplicate deals and {g:,} games per match, seed {s}" for n, g, s in sorted(runs)
    )
    note = (
        f"{design} (used for neither training nor choosing the models). Five-handed, an agent sits alone among four "
        "copies of the other, in each seat in turn; *relative* points (a seat's points minus its table's "
        "mean) are what five individual scores make count, and games won are each agent's share as the "
        "lone seat (a fair share is 20%)."
    )
    return (
        "\n".join(head + models_rows("four_handed_models") + models_rows("five_handed_models"))
        + "\n\n"
        + note
    )


def _cpu(data: dict[str, Any]) -> str:
    return f"{data['cpu']}, {data['cores']} cores"


def table_speed() -> str:
    """The README's speed table: the engine and the environments against OpenSpiel, one run."""
    data = load("bench")
    fig = data["figures"]
    cpp = fig["reference"]["openspiel_cpp_random_bots"]
    pyref = fig["reference"]["openspiel_python_loop_with_infostate"]
    rows = ["| decisions per second, one core | four-handed | five-handed |", "|---|---:|---:|"]
    rows.append(f"| OpenSpiel's C++ euchre, random bots (reference) | {_num(cpp)} | (no five-handed game) |")

    def eng(v: str, b: int) -> float:
        return fig["engine"][v]["decisions_per_s"][str(b)]

    for b in (4096, 16384):
        cells = [f"{_num(eng(v, b))} ({eng(v, b) / cpp:.2f}x C++)" for v in ("four_handed", "five_handed")]
        rows.append(f"| engine, batch {b:,} | " + " | ".join(cells) + " |")
    if "envs" in fig:
        env = fig["envs"]
        vec = next(k for k in env["four_handed"] if k.startswith("vector_env_"))
        n = int(vec.rsplit("_", 1)[1])
        cells = [
            f"{_num(env[v][vec])} ({env[v][vec] / cpp:.2f}x C++)" for v in ("four_handed", "five_handed")
        ]
        rows.append(f"| `EuchreVectorEnv`, {n:,} tables | " + " | ".join(cells) + " |")
        rows.append(f"| OpenSpiel's euchre driven from Python (reference) | {_num(pyref)} | |")
        cells = [f"{_num(env[v]['aec_raw'])} ({env[v]['aec_raw'] / pyref:.2f}x Python ref.)"
                 for v in ("four_handed", "five_handed")]  # fmt: skip
        rows.append("| PettingZoo AEC loop, `raw_env`, one table | " + " | ".join(cells) + " |")
    return (
        "\n".join(rows)
        + f"\n\n`{data['command']}` on {_cpu(data)} ({data['date']}); ratios within the one run."
    )


def table_bench() -> str:
    """Every figure of one ``euchre bench`` run (the getting-started page)."""
    data = load("bench")
    fig = data["figures"]
    cpp = fig["reference"]["openspiel_cpp_random_bots"]
    pyref = fig["reference"]["openspiel_python_loop_with_infostate"]
    rows = ["| same run, decisions per second on one core | four-handed | five-handed |", "|---|---:|---:|"]
    rows.append(
        f"| reference: OpenSpiel's C++ euchre, random bots (`pyspiel.evaluate_bots`) | {_num(cpp)} | |"
    )
    rows.append(
        f"| reference: OpenSpiel driven from Python, information-state tensor read each step | {_num(pyref)} | |"
    )
    four, five = fig["engine"]["four_handed"], fig["engine"]["five_handed"]
    for b in four["decisions_per_s"]:
        x, y = four["decisions_per_s"][b], five["decisions_per_s"][b]
        rows.append(
            f"| engine, batch {int(b):,} | {_num(x)} ({x / cpp:.2f}x C++) | {_num(y)} ({y / cpp:.2f}x) |"
        )
    x, y = four["full_mask_4096"], five["full_mask_4096"]
    rows.append(
        f"| engine, batch 4,096, expanding the bool `(B, 93)` mask each step | {_num(x)} | {_num(y)} |"
    )
    if "envs" in fig:
        env = fig["envs"]
        vec = next(k for k in env["four_handed"] if k.startswith("vector_env_"))
        n = int(vec.rsplit("_", 1)[1])
        named = [
            (
                "aec_raw",
                "PettingZoo AEC loop, `raw_env` (`agent_iter`, `last`, a random legal action, `step`)",
                pyref,
                "Python ref.",
            ),
            ("aec_wrapped", "PettingZoo AEC loop, wrapped `env()`", pyref, "Python ref."),
            (
                "gym_env",
                "`EuchreEnv` (one learner, random opponents; every seat's decisions)",
                pyref,
                "Python ref.",
            ),
            (vec, f"`EuchreVectorEnv`, {n:,} tables, random opponents (every seat's decisions)", cpp, "C++"),
        ]
        for key, what, ref, refname in named:
            x, y = env["four_handed"][key], env["five_handed"][key]
            rows.append(f"| {what} | {_num(x)} ({x / ref:.2f}x {refname}) | {_num(y)} ({y / ref:.2f}x) |")
    state = f"{four['state_bytes_per_table']} bytes per table four-handed, {five['state_bytes_per_table']} five-handed"
    return (
        "\n".join(rows)
        + f"\n\n`{data['command']}` on {_cpu(data)} ({data['date']}; load average {data['load_average']} when it "
        f"began, so read the figures as ratios within the run). Engine state: {state}."
    )


def table_vector_speed() -> str:
    """One sentence: the vector env's rate (its page)."""
    data = load("bench")
    env = data["figures"]["envs"]
    vec = next(k for k in env["four_handed"] if k.startswith("vector_env_"))
    n = int(vec.rsplit("_", 1)[1])
    return (
        f"At {n:,} tables it plays {_num(env['four_handed'][vec])} decisions per second four-handed and "
        f"{_num(env['five_handed'][vec])} five-handed on one core of {_cpu(data)}, random opponents "
        f"(`{data['command']}`, [all figures](../index.md#speed))."
    )


BELIEF_NAMES = {
    "uniform": "uniform (reads no cards)",
    "exact": "exact (counts the cards)",
    "policy-true": "policy, true player model, fitted noise",
    "policy-wrong": "policy, a wrong player model",
    "learned": "learned (counting + network)",
}


def _loss_share(scores: dict[str, Any]) -> str:
    """One view's log-loss in a partner-bench report, with its share of counting's and that share's interval."""
    low, high = scores["x_exact_ci95"]
    interval = "" if low == high else f", {low:.2f}-{high:.2f}"
    return f"{scores['log_loss']:.3f} ({scores['x_exact']:.2f}{interval})"


def table_partner_bench() -> str:
    """Each belief's scores in each population, with calibration (hidden-partner page)."""
    data = load("partner_bench")
    rows = [
        ("| players | belief | seat log-loss (x exact, 95% interval) | public log-loss (x exact, 95% interval) | "
         "seat Brier | identified | seat calibration: bins, ECE (95% interval) | views/s |"),
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for pop, e in data["populations"].items():
        b = e["beliefs"]
        for key, label in BELIEF_NAMES.items():
            seat, public = b[key]["seat"], b[key]["public"]
            cal = e["calibration"][key]
            inside = sum(r["low"] <= r["predicted"] <= r["high"] for r in cal)
            rows.append(
                f"| {pop} | {label} | {_loss_share(seat)} | {_loss_share(public)} | {seat['brier']:.3f} | "
                f"{seat['identification']['identified_before_reveal']:.3f} "
                f"| {inside} of {len(cal)}, {seat['ece']:.3f} ({seat['ece_ci95'][0]:.3f}-{seat['ece_ci95'][1]:.3f}) "
                f"| {_num(e['beliefs_per_second'][key])} |"
            )
    noise = ", ".join(f"{pop} {e['noise']['seat']['epsilon']:g} / {e['noise']['public']['epsilon']:g}"
                      for pop, e in data["populations"].items())  # fmt: skip
    return (
        "\n".join(rows)
        + f"\n\nPer population {data['hands']} hands (the first decision of each trick after the call, each seat's "
        f"view and the public's), scored where the view does not know the partner for sure; the intervals of the "
        f"share of counting's log-loss are over the hands (a bootstrap, paired with counting); identified: belief at "
        f"least 0.9 in the partner before its card is played. Policy beliefs with {data['worlds']} worlds; their "
        f"noise (epsilon, seat / public view) fitted on {data['fit_hands']} other hands: {noise}. The learned belief "
        f"is one network trained on {data['train_hands']:,} other hands of each population. "
        f"Command: `{command_of('partner_bench', data)}`."
    )


def table_partner_inputs() -> str:
    """The ablation and the cross-population table of a partner-bench run (hidden-partner page)."""
    data = load("partner_bench")
    pops = data["populations"]
    rows = ["| learned belief trained on | " + " | ".join(f"scored on {q}" for q in pops) + " |",
            "|---|" + "---:|" * len(pops)]  # fmt: skip
    for name in ["learned", *[f"learned-{q}" for q in pops]]:
        label = "all populations" if name == "learned" else name.removeprefix("learned-")
        rows.append(f"| {label} | " + " | ".join(f"{pops[q]['beliefs'][name]['seat']['log_loss']:.3f}" for q in pops) + " |")
    rows.append("| (exact, for reference) | " + " | ".join(f"{pops[q]['beliefs']['exact']['seat']['log_loss']:.3f}"
                                                           for q in pops) + " |")  # fmt: skip
    abl = data["train"]["ablation"]
    base = abl["none"]["val_log_loss"]
    rows += ["", "| feature group dropped | held-out log-loss | what the group buys |", "|---|---:|---:|"]
    rows += [f"| {name} | {t['val_log_loss']:.3f} | {t['val_log_loss'] - base:+.3f} |" for name, t in abl.items()]
    return (
        "\n".join(rows)
        + f"\n\nSeat-view log-loss. The second table: the network retrained on {int(abl['none']['rows']):,} rows of "
        f"all populations with one group of inputs zeroed (the counted belief alone scores "
        f"{abl['none']['val_exact_log_loss']:.3f} on those held-out hands). Command: `{command_of('partner_bench', data)}`."
    )


def table_partner_truth() -> str:
    """What the truth of the partnership is worth to each agent, and to a policy trained told (hidden-partner
    page)."""
    label = {f"model:{PARTNER_MODELS}/told.safetensors": "policy trained told (`--told-partner`)",
             f"model:{PARTNER_MODELS}/plain.safetensors": "the same training untold"}  # fmt: skip
    rows = ["| agent told who the partner is | against, untold | relative points per hand | points | deals | command |",
            "|---|---|---:|---:|---:|---|"]  # fmt: skip
    for name in ("model", "heuristic", "told"):
        data = load(f"partner_truth_{name}")
        agent, against = data["agent"], data.get("against", data["agent"])
        who = label.get(agent, _label(agent))
        rows.append(f"| {who} | {'itself' if against == agent else label.get(against, _label(against))} | "
                    f"{_pm(data['relative'])} | {_pm(data['points'])} | {data['deals']:,} | "
                    f"`{command_of(f'partner_truth_{name}', data)}` |")  # fmt: skip
    return "\n".join(rows)


SEARCH_PIECES = "docs/results/partner_truth_search"
"""``euchre analyse partner-truth --agent search``, 1,000 deals at a time: one folder per seed (``seed_<S>``)."""


def table_partner_truth_search() -> str:
    """The search agent told against itself untold, run in pieces of deals with seeds of their own: a row per
    piece and their total (deal-weighted means; intervals combined as independent) (hidden-partner page)."""
    pieces = sorted((ROOT / SEARCH_PIECES).glob("seed_*/partner_truth.json"))
    rows = ["| seed | relative points per hand | points | deals | minutes | command |",
            "|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    total = {"relative": [0.0, 0.0], "points": [0.0, 0.0], "deals": 0}
    for path in pieces:
        data = json.loads(path.read_text(encoding="utf-8"))
        piece = data["command"].startswith("euchre analyse partner-truth --agent search ") and data["agent"] == "search"
        if not piece:
            raise ValueError(f"{path}: not a piece of the search agent's match ({data['command']!r})")
        n = data["deals"]
        for key in ("relative", "points"):
            total[key][0] += n * data[key]["mean"]
            total[key][1] += (n * data[key]["ci95"]) ** 2
        total["deals"] += n
        command = data["command"].split(" --out ")[0]  # where it wrote first is beside the point
        rows.append(f"| {data['seed']} | {_pm(data['relative'])} | {_pm(data['points'])} | {n:,} | "
                    f"{data['seconds'] / 60:.0f} | `{command}` |")  # fmt: skip
    n = max(total["deals"], 1)
    stat = {k: {"mean": total[k][0] / n, "ci95": total[k][1] ** 0.5 / n} for k in ("relative", "points")}
    rows.append(f"| all | **{_pm(stat['relative'])}** | {_pm(stat['points'])} | {total['deals']:,} | | |")
    return "\n".join(rows)


def table_partner_policy() -> str:
    """The five-handed policy that reads the counted partner belief, against the shipped model and against the
    same training without it (hidden-partner page)."""
    from agents.neural import read_model_header

    data = load("partner_policy")
    label, trained = {"model:five_handed": "shipped model"}, []
    for name, what in (("partner", "`--features partner`"), ("plain", "the same without it")):
        label[f"model:{PARTNER_MODELS}/{name}.safetensors"] = what
        config = json.loads(read_model_header(ROOT / PARTNER_MODELS / f"{name}.safetensors")[0])
        provenance = config["provenance"]
        trained.append(f"{what}: `{provenance['command']}` ({provenance['learner_decisions'] / 1e6:.1f}M decisions)")
    rows = ["| match (row − column) | relative points per hand | points per hand |", "|---|---:|---:|"]
    for m in data["matchups"]:
        a, b = (label[x] for x in m["agents"])
        rows.append(f"| {a} − {b} | **{_pm(m['relative_advantage'])}** | {_pm(m['advantage'])} |")
    return (
        "\n".join(rows)
        + f"\n\n{data['num_deals']:,} duplicate deals per match (seed {data['seed']}, none used in training), an agent "
        "alone among four copies of the other in each seat in turn; 95% intervals over deals. Trained by "
        + "; ".join(trained)
        + f" (kept in `{PARTNER_MODELS}`). Command: `{command_of('partner_policy', data)}`."
    )


def table_leaderboard(name: str) -> str:
    """A board's ratings, its all-pairs fit and the command (benchmarking page)."""
    data = load(name)
    ds, anchor = data["deal_set"], data["anchor"]
    rows = [
        f"| rank | agent | rating: {data['unit']} against `{anchor}` | all-pairs fit | deals per pair |",
        "|---:|---|---|---|---|",
    ]
    for k, r in enumerate(data["ratings"], 1):
        cap = "all" if r["max_deals"] is None else f"{r['max_deals']:,}"
        rating = "(the anchor)" if r["agent"] == anchor else _pm({"mean": r["rating"], "ci95": r["ci95"]})
        fit = _pm({"mean": r["all_pairs"]["rating"], "ci95": r["all_pairs"]["ci95"]})
        rows.append(f"| {k} | `{r['agent']}` | {rating} | {fit} | {cap} |")
    fit = data["all_pairs_fit"]
    return (
        "\n".join(rows)
        + f"\n\nDeal set `{ds['name']}` ({ds['num_deals']:,} deals, sha256 `{ds['sha256'][:12]}`); 95% intervals over "
        f"deals. All-pairs fit: chi² {fit['chi2']:.0f} on {fit['dof']} degrees of freedom, its intervals widened "
        f"{fit['interval_scale']:.1f}-fold. Every pair: `{SOURCES[name][0].replace('.json', '.md')}`. Command: "
        f"`{command_of(name, data)}`."
    )


def table_exploit() -> str:
    """Each best response's edge over its target, and where its learning curve started (benchmarking page)."""
    rows = [
        "| target | game | training | learner decisions | edge at the start | edge after training | command |",
        "|---|---|---|---:|---|---|---|",
    ]
    cpus = set()
    for name in (n for n in SOURCES if n.startswith("exploit_")):
        data = load(name)
        start, final = ({"mean": x["edge"], "ci95": x["ci95"]} for x in (data["curve"][0], data["final"]))
        game = data["deal_set"]["variant"].replace("_", "-")
        cpus.add(f"{data['threads']} threads of {data['cpu']} ({data['device']}, {data['precision']})")
        rows.append(
            f"| `{data['target']}` | {game} | {data['train_seconds'] / 60:.0f} min | {data['learner_decisions']:,} "
            f"| {_pm(start)} ({data['curve_deals']:,} deals) | **{_pm(final)}** ({data['final']['deals']:,} deals) "
            f"| `{command_of(name, data)}` |"
        )
    return "\n".join(rows) + f"\n\nTrained on {', '.join(sorted(cpus))}; the learning curves are `exploit.png` beside each file."


def table_learners(variant: str) -> str:
    """Learners trained for equal minutes, every budget run so far in one game: each learner against the
    heuristic and head to head, one row per budget of each ``compare_<variant>*`` results file (training page)."""
    names = sorted((n for n in SOURCES if n.startswith(f"compare_{variant}")),
                   key=lambda n: min(r["minutes"] for r in load(n)["runs"]))  # fmt: skip
    files = {n: load(n) for n in names}
    learners = list(dict.fromkeys(n for data in files.values() for n in data["learners"]))
    rows = [
        "| training minutes | " + " | ".join(f"`{n}` against the heuristic" for n in learners) + " | head to head |",
        "|---:|" + "---|" * (len(learners) + 1),
    ]
    for data in files.values():
        at = {(r["learner"], r["minutes"]): r for r in data["runs"]}
        for m in sorted({r["minutes"] for r in data["runs"]}):
            cells = []
            for n in learners:
                r = at.get((n, m))
                cells.append(f"{_pm(r['vs_heuristic'])} ({r['learner_decisions'] / 1e6:.1f}M decisions)" if r else "")
            duels = "; ".join(f"`{h['a']}` − `{h['b']}` {_pm(h)}" for h in data["head_to_head"] if h["minutes"] == m)
            rows.append(f"| {m:g} | " + " | ".join(cells) + f" | {duels} |")
    first = next(iter(files.values()))
    ds, setups = first["deal_set"], sorted({f"{d['threads']} threads of {d['cpu']}" for d in files.values()})
    commands = "; ".join(f"`{command_of(n, d)}` (plot: `{SOURCES[n][0].replace('.json', '.png')}`)"
                         for n, d in files.items())  # fmt: skip
    return (
        "\n".join(rows)
        + f"\n\n{first['unit'].capitalize()}, {first['deals']:,} deals of `{ds['name']}`, 95% intervals; each run "
        f"trained from scratch on {', '.join(setups)}, seed {first['seed']}; the learners of a row one after the other on "
        f"one machine. Commands, each for the rows of its budgets: {commands}."
    )


def table_ray_scaling() -> str:
    """Learner decisions per second of the Ray backend and the local trainer, per game (Ray page)."""
    data = load("ray_scaling")
    rows = ["| game | how it runs | precision | learner decisions per second | against 1 Ray worker |",
            "|---|---|---|---:|---:|"]  # fmt: skip
    for variant, game in data["games"].items():
        for r in game["runs"]:
            config = r["config"].removesuffix(", fp32")
            rows.append(f"| {variant.replace('_', '-')} | {config} | {r['precision']} | {_num(r['rate'])} | "
                        f"{r['speedup']:.2f}x |")  # fmt: skip
    return (
        "\n".join(rows)
        + f"\n\nThe default trainer (PPO) for {data['seconds']:g} s of training each, one run after the other on "
        f"{data['cpus']} cores of {data['cpu']}; each speed-up is against one Ray worker at the same precision. "
        f"Command: `{command_of('ray_scaling', data)}`."
    )


# a cluster's network, for the bound worked out from the measured figures: (name, bits per second, latency s)
NETWORKS = (("1 Gb/s Ethernet", 1e9, 100e-6), ("10 Gb/s Ethernet", 10e9, 50e-6))


def table_ray_bound() -> str:
    """The speed-up N one-thread workers can reach on a cluster network, from the measured figures (Ray page).

    Each worker keeps one worker's batch (the default tables and minibatch rows), so its share of an iteration
    takes what one worker's iteration takes, ``T = rows / rate`` (the one-worker Ray run at the default
    precision); on top of it, per update step, a ring all-reduce of the gradient: ``2 (N - 1) / N`` times its
    bytes over each link, and ``2 (N - 1)`` hops of latency. The speed-up is ``N T / (T + steps x all-reduce)``.
    """
    data = load("ray_scaling")
    sizes = (2, 4, 8, 16, 32, 64)
    rows = ["| game | network | " + " | ".join(f"{n} workers" for n in sizes) + " |", "|---|---|" + "---:|" * len(sizes)]
    notes = []
    for variant, game in data["games"].items():
        net = game["network"]
        one = next(r for r in game["runs"] if r["workers"] == 1 and r["precision"] == game["runs"][0]["precision"])
        t_iter = net["rows_per_iteration"] / one["rate"]
        for name, bits, latency in NETWORKS:
            cells = []
            for n in sizes:
                comm = 2 * (n - 1) / n * net["allreduce_bytes"] * 8 / bits + 2 * (n - 1) * latency
                cells.append(f"{n * t_iter / (t_iter + net['steps_per_iteration'] * comm):.1f}x")
            rows.append(f"| {variant.replace('_', '-')} | {name} | " + " | ".join(cells) + " |")
        notes.append(f"{variant.replace('_', '-')}: {_num(net['parameters'])} parameters ({net['allreduce_bytes'] / 1e6:.1f} MB "
                     f"per all-reduce), {net['steps_per_iteration']:.0f} update steps and {_num(net['rows_per_iteration'])} "
                     f"learner decisions per iteration of one worker, {t_iter:.2f} s per iteration (one Ray worker, "
                     f"{one['precision']})")  # fmt: skip
    return "\n".join(rows) + "\n\nFrom the figures of the same command: " + "; ".join(notes) + "."


def table_ray_curves() -> str:
    """Strength against the heuristic along training, local and data-parallel (Ray page)."""
    data = load("ray_curves")
    rows = []
    for variant, runs in data["games"].items():
        names = list(runs)
        if not rows:
            rows = ["| game | learner decisions | " + " | ".join(names) + " | difference |", "|---|---:|" + "---|" * (len(names) + 1)]
        for a, b in zip(*runs.values(), strict=False):
            diff = b["vs_heuristic"] - a["vs_heuristic"]
            rows.append(f"| {variant.replace('_', '-')} | {a['learner_decisions'] / 1e6:.1f}M | "
                        f"{a['vs_heuristic']:+.3f} ± {a['ci95']:.3f} | {b['vs_heuristic']:+.3f} ± {b['ci95']:.3f} | "
                        f"{diff:+.3f} |")  # fmt: skip
    return (
        "\n".join(rows)
        + f"\n\nPoints per hand against the heuristic (five-handed: relative points) on 1,000 deals per evaluation, "
        f"95% intervals; decisions are the local run's (the Ray run's evaluations fall within one iteration of them). "
        f"Same seed and total batch, {data['cpus']} cores of {data['cpu']}. The plot is "
        f"`{SOURCES['ray_curves'][0].replace('.json', '.png')}`. Command: `{command_of('ray_curves', data)}`."
    )


TABLES: dict[str, Callable[[], str]] = {
    "models": table_models,
    "speed": table_speed,
    "bench": table_bench,
    "vector-speed": table_vector_speed,
    "partner-bench": table_partner_bench,
    "partner-inputs": table_partner_inputs,
    "partner-truth": table_partner_truth,
    "partner-truth-search": table_partner_truth_search,
    "partner-policy": table_partner_policy,
    "leaderboard-four-handed": lambda: table_leaderboard("leaderboard_four_handed"),
    "leaderboard-five-handed": lambda: table_leaderboard("leaderboard_five_handed"),
    "exploit": table_exploit,
    "learners-four-handed": lambda: table_learners("four_handed"),
    "learners-five-handed": lambda: table_learners("five_handed"),
    "ray-scaling": table_ray_scaling,
    "ray-bound": table_ray_bound,
    "ray-curves": table_ray_curves,
}


# ----------------------------------------------------------------------------------------------- pages
def pages() -> list[Path]:
    """README.md and every page of docs/ (the experiments' records hold no markers)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def render(text: str, where: str = "") -> str:
    """``text`` with every marked table regenerated."""

    def one(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in TABLES:
            raise KeyError(f"{where}: unknown results table {name!r} (known: {', '.join(TABLES)})")
        return m.group(1) + TABLES[name]().rstrip("\n") + "\n" + m.group(4)

    return MARKER.sub(one, text)


def stale_pages() -> list[Path]:
    """The pages whose tables differ from what the results files give."""
    out = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        if "<!-- results:" in text and render(text, str(page)) != text:
            out.append(page)
    return out


def write_pages() -> list[Path]:
    """Rewrite the stale pages; returns them."""
    changed = stale_pages()
    for page in changed:
        page.write_text(render(page.read_text(encoding="utf-8"), str(page)), encoding="utf-8")
    return changed


# ----------------------------------------------------------------------------------------------- measure
def _lscpu_model() -> str:
    try:
        text = subprocess.run(["lscpu"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "an unnamed CPU"
    found = re.search(r"^Model name:\s*(.+)$", text, re.MULTILINE)
    return found.group(1).strip() if found else "an unnamed CPU"


def measure(name: str) -> None:
    """Rerun the command behind results file ``name`` (the file's own command when it exists)."""
    path = ROOT / SOURCES[name][0]
    command = command_of(name) if path.exists() else SOURCES[name][1]
    argv = shlex.split(command)
    print(f"{name}: {command}", flush=True)
    if name == "bench":
        with tempfile.TemporaryDirectory() as tmp:
            load_average = " ".join(f"{x:.2f}" for x in os.getloadavg())
            subprocess.run([*argv, "--json", f"{tmp}/bench.json"], check=True, cwd=ROOT)
            figures = json.loads(Path(tmp, "bench.json").read_text())
        import datetime

        data = {
            "command": command,
            "written_by": "python scripts/gen_results.py --measure bench",
            "cpu": _lscpu_model(),
            "cores": os.cpu_count(),
            "load_average": load_average,
            "date": datetime.date.today().isoformat(),
            "figures": figures,
        }
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        return
    if argv[0] == "python":  # a script under benchmarks/ (it replaces its file)
        argv[0] = sys.executable
    elif "--overwrite" not in argv:
        argv.append("--overwrite")
    subprocess.run(argv, check=True, cwd=ROOT)
    for extra in NOT_KEPT:
        target = path.parent / extra
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a page is out of date; change nothing"
    )
    parser.add_argument("--measure", nargs="+", metavar="NAME", choices=[*SOURCES, "all"],
                        help=f"rerun the commands behind these results files ({', '.join(SOURCES)}, all)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.measure:
        for name in SOURCES if "all" in args.measure else args.measure:
            measure(name)
        return 0
    if args.check:
        stale = stale_pages()
        for page in stale:
            print(
                f"{page.relative_to(ROOT)} is out of date: run python scripts/gen_results.py", file=sys.stderr
            )
        return 1 if stale else 0
    for page in write_pages():
        print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
