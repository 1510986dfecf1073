"""Duplicate-deal evaluation of agents, as a library function and a CLI.

Agents play the *same deals* with the seats rotated, so that every agent holds
every hand and the luck of the cards cancels out:

* four-handed, two agents: A at seats 0 & 2 against B at 1 & 3, then the
  same deal with the agents swapped (2 rotations);
* five-handed, two agents: one agent alone in one seat against four copies of
  the other, the single seat moving through all five seats, and then the
  other way round (2 x 5 rotations); an agent's score is its single seat's;
* more agents: every pair plays its own duplicate match on the same deals,
  which gives the head-to-head table.

Deals are the unit of the statistics: an agent's points of one deal are
averaged over the rotations first, and the 95% confidence interval is taken
over deals. A separate game-mode run (games to ``points_to_win``, seeded the
same way for every rotation) gives the share of games won.

Example::

    euchre eval --variant four_handed --agents random heuristic \\
        --deals 2000 --seed 0 --out runs/eval

or from Python::

    result = evaluate({"heuristic": HeuristicAgent(rules), "random": RandomAgent(rules)}, rules, 2000)
    print(result.to_markdown())
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from arena.report import ROLES, AgentReport, EvalResult, Matchup, Stat, mean_ci
from euchre_env import engine
from euchre_env.encoding import encode
from euchre_env.records import HandRecorder, save_records
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

__all__ = [
    "ROLES",
    "EvalResult",
    "Matchup",
    "Stat",
    "evaluate",
    "evaluate_model",
    "main",
    "play_tables",
    "seat_patterns",
]


def seat_patterns(rules: RulesConfig) -> tuple[np.ndarray, np.ndarray]:
    """The rotations of one duplicate match between agent slots 0 and 1.

    Returns:
        ``(slots, focal)``: int (R, P), the agent slot at each seat in each
        rotation, and bool (R, P), the seats whose points count for their agent.
    """
    p = rules.num_players
    if not rules.called_card:  # fixed partners: agent slot = seat parity, then swapped
        slots = np.array([np.arange(p) % 2, 1 - np.arange(p) % 2])
        return slots, np.ones_like(slots, dtype=bool)
    rows = []
    for single in (0, 1):  # one seat for `single`, four for the other slot, moved round the table
        for seat in range(p):
            row = np.full(p, 1 - single)
            row[seat] = single
            rows.append(row)
    slots = np.array(rows)
    focal = np.zeros_like(slots, dtype=bool)
    focal[np.arange(len(rows)), np.tile(np.arange(p), 2)] = True
    return slots, focal


def play_rotations(
    rules: RulesConfig, deal_seeds: np.ndarray, slots: np.ndarray,
    first: Callable[[State, np.ndarray, np.ndarray, np.ndarray], np.ndarray], other: Policy, rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """Every rotation ``slots`` (R, P) (:func:`seat_patterns`) of each deal played out, for a yardstick whose
    slot-0 agent may see the real tables.

    Args:
        deal_seeds: uint64 (N,) deal seeds.
        first: slot 0's decisions: ``first(tables, turn, obs, masks) -> actions`` on the live tables where
            slot 0 acts (``tables`` the real states, ``turn`` (B,) int64 the acting seats, ``obs`` (B, D)
            float32 their observations, ``masks`` (B, A)).
        other: slot 1's policy, acting with ``rng``.

    Returns:
        Points float64 (N, R, P).
    """
    r, p = slots.shape
    s = engine.init_state(rules, seeds=np.repeat(deal_seeds, r))
    table_slots = np.tile(slots, (deal_seeds.size, 1))
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        turn = s.turn[live].astype(np.int64)
        sub = s.take(live)
        obs = encode(sub, turn, rules, dtype=np.float32)
        masks = engine.legal_action_mask(sub, rules)
        acts = np.full(s.batch_size, -1, np.int64)
        mine = table_slots[live, turn] == 0
        if (~mine).any():
            acts[live[~mine]] = other.act(obs[~mine], masks[~mine], rng)
        if mine.any():
            rows = np.flatnonzero(mine)
            acts[live[rows]] = first(sub.take(rows), turn[rows], obs[rows], masks[rows])
        s = engine.step(s, acts, rules)
    return s.last_points.reshape(deal_seeds.size, r, p).astype(np.float64)


def play_tables(
    rules: RulesConfig,
    seeds: np.ndarray,
    seat_slots: np.ndarray,
    policies: Sequence[Policy],
    rng: np.random.Generator,
    names: Sequence[str] | None = None,
    observer: Callable[[State, np.ndarray], None] | None = None,
) -> State:
    """Play tables to the end of their episode (a hand, or a game in game mode).

    Each step encodes the acting seat's observation, groups the tables by the
    agent to act and makes one ``act`` call per agent. A policy with an
    ``act_bits(base, bits, u)`` fast path (it ignores observations) is given
    the engine's compact legal sets instead.

    Args:
        rules: the rules.
        seeds: uint64 (N,), one table seed each (equal seeds deal equal cards).
        seat_slots: int (N, P), index into ``policies`` of the agent at each seat.
        policies: the agents.
        rng: source of the agents' randomness.
        names: agent names for error messages.
        observer: called before every step with the state and the chosen
            actions (int64 (N,), -1 at finished tables), e.g. to record
            trajectories (``partner_lab.dataset``); it must not change them.

    Returns:
        The final state of the ``N`` tables.

    Raises:
        engine.IllegalActionError: an agent chose an illegal action (the
            message names the agent).
    """
    s = engine.init_state(rules, seeds=seeds)
    names = list(names) if names is not None else [repr(p) for p in policies]
    while True:
        live = np.flatnonzero(~engine.is_done(s))
        if not live.size:
            return s
        acts = np.full(s.batch_size, -1, dtype=np.int64)
        turn = s.turn[live].astype(np.int64)
        slot = seat_slots[live, turn]
        base, bits = engine.legal_bits(s, rules)
        obs = masks = None
        for k, policy in enumerate(policies):
            sel = slot == k
            if not sel.any():
                continue
            rows = live[sel]
            if hasattr(policy, "act_bits"):
                acts[rows] = policy.act_bits(base[rows], bits[rows], rng.random(rows.size))
                continue
            if obs is None:
                sub = s.take(live)
                obs = encode(sub, turn, rules, dtype=np.float32)
                masks = engine.expand(base[live], bits[live])
            acts[rows] = np.asarray(policy.act(obs[sel], masks[sel], rng), dtype=np.int64)
        if observer is not None:
            observer(s, acts)
        try:
            s = engine.step(s, acts, rules)
        except engine.IllegalActionError as err:
            row = _first_illegal(s, acts, rules)
            who = names[seat_slots[row, s.turn[row]]] if row >= 0 else "an agent"
            raise engine.IllegalActionError(f"agent {who!r} chose an illegal action: {err}") from err


def _first_illegal(s: State, acts: np.ndarray, rules: RulesConfig) -> int:
    """First live table whose action is illegal, -1 if none."""
    live = ~engine.is_done(s)
    masks = engine.legal_action_mask(s, rules)
    ok = masks[np.arange(s.batch_size), np.clip(acts, 0, masks.shape[1] - 1)] & (acts >= 0)
    bad = np.flatnonzero(live & ~ok)
    return int(bad[0]) if bad.size else -1


def seat_roles(s: State, rules: RulesConfig) -> np.ndarray:
    """Role of each seat in the last finished hand: index into ``ROLES``. Int (N, P)."""
    n, p = s.batch_size, rules.num_players
    seat = np.arange(p)[None, :]
    maker = s.last_maker[:, None].astype(np.int64)
    partner = (maker + 2) % p if not rules.called_card else s.last_partner[:, None].astype(np.int64)
    alone = s.last_alone[:, None]
    lone_def = s.last_defender_alone[:, None].astype(np.int64)
    role = np.full((n, p), ROLES.index("defender"))
    if not rules.called_card:  # the partner of a lone defender sits out
        role = np.where((lone_def >= 0) & (seat == (lone_def + 2) % p), ROLES.index("sat_out"), role)
    role = np.where(seat == lone_def, ROLES.index("defend_alone"), role)
    role = np.where((seat == partner) & ~alone & (maker >= 0), ROLES.index("partner"), role)
    if not rules.called_card:
        role = np.where((seat == partner) & alone, ROLES.index("sat_out"), role)
    role = np.where(seat == maker, np.where(alone, ROLES.index("alone"), ROLES.index("maker")), role)
    return np.where(maker < 0, ROLES.index("thrown_in"), role)


def _chunks(n: int, size: int) -> list[slice]:
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


def _run_matchup(
    rules: RulesConfig,
    policies: Sequence[Policy],
    names: Sequence[str],
    deal_seeds: np.ndarray,
    game_seeds: np.ndarray,
    rng: np.random.Generator,
    batch_size: int,
    bar: object | None,
    records: Path | None = None,
) -> tuple[Matchup, np.ndarray]:
    """One duplicate match of two agents. Returns the matchup and per-deal scores (2, N).

    ``records``: a JSON Lines file to which every hand played is appended as a hand record.
    """
    slots, focal = seat_patterns(rules)
    r = slots.shape[0]
    per_chunk = max(1, batch_size // r)
    points, roles = [], []
    for part in _chunks(deal_seeds.size, per_chunk):
        seeds = np.repeat(deal_seeds[part], r)
        table_slots = np.tile(slots, (seeds.size // r, 1))
        rec = _recorder(records, rules, table_slots, names)
        s = play_tables(rules, seeds, table_slots, policies, rng, names, observer=rec)
        _save_records(records, rec, s)
        points.append(s.last_points.reshape(-1, r, rules.num_players).astype(np.float64))
        roles.append(seat_roles(s, rules).reshape(-1, r, rules.num_players))
        if bar is not None:
            bar.update(seeds.size)
    pts, rls = np.concatenate(points), np.concatenate(roles)  # (N, R, P)
    weights = [(slots == k) & focal for k in (0, 1)]  # (R, P) each
    scores = np.stack([(pts * w).sum(axis=(1, 2)) / w.sum() for w in weights])  # (2, N)
    rel = pts - pts.mean(axis=2, keepdims=True)  # a seat's points minus its table's mean
    relative = np.stack([(rel * w).sum(axis=(1, 2)) / w.sum() for w in weights])  # (2, N)
    wins, hands = _run_games(
        rules, policies, names, game_seeds, slots, weights, rng, batch_size, bar, records
    )
    reports = [
        AgentReport.build(names[k], scores[k], pts, rls, weights[k], None if wins is None else wins[k])
        for k in (0, 1)
    ]
    won = None if wins is None or wins.shape[1] < 2 else mean_ci(wins[0] - wins[1])
    return Matchup((names[0], names[1]), reports, mean_ci(scores[0] - scores[1]), hands,
                   mean_ci(relative[0] - relative[1]), won), scores  # fmt: skip


def _run_games(
    rules: RulesConfig,
    policies: Sequence[Policy],
    names: Sequence[str],
    game_seeds: np.ndarray,
    slots: np.ndarray,
    weights: list[np.ndarray],
    rng: np.random.Generator,
    batch_size: int,
    bar: object | None,
    records: Path | None = None,
) -> tuple[np.ndarray | None, float | None]:
    """Games to ``points_to_win``: per-game win share of each slot (2, G) and mean hands per game."""
    if not game_seeds.size:
        return None, None
    game_rules = make_rules(rules, episode="game")
    r, p = slots.shape
    won, hands = [], []
    for part in _chunks(game_seeds.size, max(1, batch_size // r)):
        seeds = np.repeat(game_seeds[part], r)
        table_slots = np.tile(slots, (seeds.size // r, 1))
        rec = _recorder(records, game_rules, table_slots, names)
        s = play_tables(game_rules, seeds, table_slots, policies, rng, names, observer=rec)
        _save_records(records, rec, s)
        bits = (s.winners[:, None].astype(np.int64) >> np.arange(p)) & 1
        won.append(bits.reshape(-1, r, p).astype(np.float64))
        hands.append(s.hand_no.astype(np.float64) + 1)
        if bar is not None:
            bar.update(seeds.size)
    w = np.concatenate(won)
    return np.stack([(w * m).sum(axis=(1, 2)) / m.sum() for m in weights]), float(
        np.concatenate(hands).mean()
    )


def match_seeds(
    seed: int, num_deals: int, num_games: int, num_streams: int
) -> tuple[np.ndarray, np.ndarray, list[np.random.SeedSequence]]:
    """What a match's ``seed`` draws: uint64 (num_deals,) deal seeds, uint64 (num_games,) game seeds, and
    ``num_streams`` seed sequences for the agents' random streams (the same deals for any number of streams)."""
    deal_ss, game_ss, *agent_ss = np.random.SeedSequence(seed).spawn(2 + num_streams)
    draw = lambda ss, n: np.random.default_rng(ss).integers(0, 2**63, size=n, dtype=np.uint64)
    return draw(deal_ss, num_deals), draw(game_ss, num_games), agent_ss


def evaluate(
    agents: Mapping[str, Policy | str],
    rules: RulesConfig | str,
    num_deals: int,
    seed: int = 0,
    *,
    num_games: int = 0,
    batch_size: int = 4096,
    progress: bool = False,
    records: str | Path | None = None,
) -> EvalResult:
    """Duplicate-deal evaluation of two or more agents (every pair plays a match).

    Args:
        agents: name -> policy (or an agent name for ``agents.make_agent``), at least two.
        rules: a ``RulesConfig`` or a preset name such as ``"four_handed"``.
        num_deals: deals per match (at least 2; the confidence interval is over deals).
        seed: makes the deals and the agents' randomness reproducible.
        num_games: games to ``points_to_win`` per match (0 skips the game run, else at least 2).
        batch_size: tables played at once.
        progress: show a tqdm progress bar.
        records: a folder (made if need be) to write every hand played as hand records
            (:mod:`euchre_env.records`): one JSON Lines file per match, ``<k>-<agent>-vs-<agent>.jsonl``
            (its deals first, then its games' hands), replaced if present.

    Returns:
        An ``EvalResult`` (``to_json``, ``to_markdown``, ``save``).

    Raises:
        ValueError: a bad argument, saying which.
    """
    rules = make_rules(rules) if isinstance(rules, str) else rules
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig or a preset name, got {type(rules).__name__}")
    rules = make_rules(rules, episode="hand")
    policies = _resolve_agents(agents, rules)
    for arg, value, low in (("num_deals", num_deals, 2), ("batch_size", batch_size, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{arg} must be an integer >= {low}, got {value!r}")
    if (
        isinstance(num_games, bool)
        or not isinstance(num_games, (int, np.integer))
        or num_games == 1
        or num_games < 0
    ):
        raise ValueError(f"num_games must be 0 (no games) or an integer >= 2, got {num_games!r}")
    deal_seeds, game_seeds, agent_ss = match_seeds(int(seed), num_deals, num_games, len(policies) ** 2)
    pairs = list(itertools.combinations(range(len(policies)), 2))
    rotations = seat_patterns(rules)[0].shape[0]
    bar = _progress_bar(len(pairs) * rotations * (num_deals + num_games), progress)
    start = time.perf_counter()
    names = list(policies)
    matchups, per_deal = [], {n: [] for n in names}
    for k, (i, j) in enumerate(pairs):
        rng = np.random.default_rng(agent_ss[i * len(policies) + j])
        pols = [policies[names[i]], policies[names[j]]]
        path = None if records is None else _records_file(Path(records), k, names[i], names[j])
        m, scores = _run_matchup(
            rules, pols, [names[i], names[j]], deal_seeds, game_seeds, rng, batch_size, bar, path
        )
        matchups.append(m)
        per_deal[names[i]].append(scores[0])
        per_deal[names[j]].append(scores[1])
    if bar is not None:
        bar.close()
    overall = {n: mean_ci(np.mean(per_deal[n], axis=0)) for n in names}
    return EvalResult(
        rules=rules, agents=names, num_deals=int(num_deals), num_games=int(num_games), seed=int(seed),
        rotations=rotations, matchups=matchups, overall=overall, seconds=time.perf_counter() - start,
    )  # fmt: skip


def evaluate_model(
    agent: Policy, rules: RulesConfig, baselines: dict[str, Policy], num_deals: int, seed: int
) -> dict[str, dict[str, float]]:
    """Duplicate-deal match of ``agent`` against each baseline.

    Returns:
        ``{baseline: {"advantage", "ci95", "points", "relative", "relative_ci95"}}``: the
        agent's points per hand minus the baseline's (with the 95% half-width), its own
        points per hand, and the difference in relative points (a seat's points minus its
        table's mean; four-handed the same as ``advantage``, see ``Matchup.relative``).
    """
    out = {}
    for name, baseline in baselines.items():
        result = evaluate({"model": agent, name: baseline}, rules, num_deals, seed)
        m = result.matchups[0]
        out[name] = {"advantage": m.advantage.mean, "ci95": m.advantage.ci95,
                     "points": result.overall["model"].mean,
                     "relative": m.relative.mean, "relative_ci95": m.relative.ci95}  # fmt: skip
    return out


def _records_file(folder: Path, k: int, a: str, b: str) -> Path:
    """The (new, empty) records file of match ``k`` between agents ``a`` and ``b``."""
    folder.mkdir(parents=True, exist_ok=True)
    safe = lambda name: re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60]
    path = folder / f"{k}-{safe(a)}-vs-{safe(b)}.jsonl"
    path.write_text("", encoding="utf-8")
    return path


def _recorder(
    path: Path | None, rules: RulesConfig, slots: np.ndarray, names: Sequence[str]
) -> HandRecorder | None:
    """A hand recorder for tables seated by ``slots`` (N, P) when records go to ``path``."""
    return None if path is None else HandRecorder(rules, agents=[[names[k] for k in row] for row in slots])


def _save_records(path: Path | None, recorder: HandRecorder | None, s: State) -> None:
    if path is not None and recorder is not None:
        save_records(path, recorder.finish(s), append=True)


def _resolve_agents(agents: Mapping[str, Policy | str], rules: RulesConfig) -> dict[str, Policy]:
    if not isinstance(agents, Mapping) or len(agents) < 2:
        raise ValueError(f"agents must map at least two names to policies, got {agents!r}")
    out: dict[str, Policy] = {}
    for name, agent in agents.items():
        if isinstance(agent, str):
            from agents import make_agent  # agents is optional for library users passing policies

            agent = make_agent(agent, rules)
        if not callable(getattr(agent, "act", None)):
            raise ValueError(
                f"agent {name!r} must have an act(observations, action_masks, rng) method, got {agent!r}"
            )
        out[str(name)] = agent
    return out


def _progress_bar(total: int, enabled: bool) -> object | None:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is in the "train" extra; evaluate without a bar
        return None
    return tqdm(total=total, unit="table", desc="evaluate")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre eval``."""
    parser.add_argument("--variant", default="four_handed", choices=sorted(PRESETS), help="rules preset")
    from agents import agent_names

    parser.add_argument(
        "--agents", nargs="+", default=["random", "heuristic"],
        help=f"agent names, at least two (known: {', '.join(agent_names())})",
    )  # fmt: skip
    parser.add_argument("--deals", type=int, default=2000, help="deals per match (default 2000)")
    parser.add_argument("--games", type=int, default=200, help="games to points-to-win per match (0: none)")
    parser.add_argument("--points-to-win", type=int, default=None, help="game target (default: the preset's)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents' randomness")
    parser.add_argument("--batch-size", type=int, default=4096, help="tables played at once")
    parser.add_argument("--out", default="runs/eval", help="output folder for eval.json, eval.md, eval.png")
    parser.add_argument("--overwrite", action="store_true", help="replace the reports already in --out")
    parser.add_argument("--no-plot", action="store_true", help="skip the plot")
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no printed report")
    parser.add_argument("--records", default=None, metavar="DIR",
                        help="also write every hand played as hand records (euchre_env.records), one JSON Lines "
                        "file per match in DIR; replay them with euchre serve")  # fmt: skip


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="euchre eval", description="Duplicate-deal evaluation of Euchre agents.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    if len(args.agents) < 2 or len(set(args.agents)) != len(args.agents):
        parser.error(f"--agents needs at least two different agent names, got {args.agents}")
    if args.deals < 2 or args.games == 1 or args.games < 0:
        parser.error(f"--deals must be >= 2 and --games 0 or >= 2, got {args.deals} and {args.games}")
    if args.seed < 0 or args.batch_size < 1:
        parser.error(f"--seed must be >= 0 and --batch-size >= 1, got {args.seed} and {args.batch_size}")
    try:
        make_rules(
            args.variant, **({} if args.points_to_win is None else {"points_to_win": args.points_to_win})
        )
    except ValueError as err:
        parser.error(f"--points-to-win: {err}")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {args.out!r} is a file, not a folder")
    taken = [n for n in ("eval.json", "eval.md", "eval.png") if (out / n).exists()]
    if taken and not args.overwrite:
        parser.error(f"--out {args.out!r} already holds {', '.join(taken)}: pass --overwrite to replace them")
    if args.records is not None:
        folder = Path(args.records)
        if folder.exists() and not folder.is_dir():
            parser.error(f"--records {args.records!r} is a file, not a folder")
        if folder.is_dir() and any(folder.glob("*.jsonl")) and not args.overwrite:
            parser.error(
                f"--records {args.records!r} already holds records: pass --overwrite to replace them"
            )
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (also used by ``euchre eval``). Returns the exit status."""
    args = _parse_args(argv)
    settings = {} if args.points_to_win is None else {"points_to_win": args.points_to_win}
    rules = make_rules(args.variant, **settings)
    from agents import make_agent

    try:
        agents = {name: make_agent(name, rules) for name in args.agents}
    except ValueError as err:
        print(f"euchre eval: error: {err}", file=sys.stderr)
        return 2
    result = evaluate(agents, rules, args.deals, args.seed, num_games=args.games,
                      batch_size=args.batch_size, progress=not args.quiet, records=args.records)  # fmt: skip
    paths = result.save(Path(args.out), plot=not args.no_plot)
    if not args.quiet:
        print(result.to_markdown())
        print("wrote " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
