"""Results of a duplicate-deal evaluation: statistics, JSON, Markdown and a plot.

The numbers come from :func:`arena.evaluate.evaluate`; this module only
summarises and renders them.
"""

from __future__ import annotations

import json
import math
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env.rules import RulesConfig

# A seat's role in a hand. "partner" is the four-handed maker's partner or the
# five-handed hidden partner; "sat_out" is a four-handed seat whose partner
# plays alone; "thrown_in" is a hand nobody made (four-handed, no stick).
ROLES: tuple[str, ...] = ("maker", "partner", "defender", "alone", "defend_alone", "sat_out", "thrown_in")
Z95 = 1.959964  # two-sided 95% normal quantile


@dataclass(frozen=True)
class Stat:
    """A mean with the half-width of its 95% confidence interval over ``n`` samples."""

    mean: float
    ci95: float
    n: int

    @property
    def low(self) -> float:
        """Lower end of the interval."""
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.mean + self.ci95

    def to_dict(self) -> dict[str, float | int]:
        """``{"mean", "ci95", "low", "high", "n"}``."""
        return {"mean": self.mean, "ci95": self.ci95, "low": self.low, "high": self.high, "n": self.n}

    def __str__(self) -> str:
        return f"{self.mean:+.3f} ± {self.ci95:.3f}"


def command_line() -> str | None:
    """The shell command this process runs, when it is ``euchre ...`` (also as ``python -m apps.cli``) or
    ``python -m arena.<module> ...``.

    A report records it (``eval.json``'s ``"command"``), so a results file says which command wrote
    it; called from Python (a script, a notebook, the tests) it is ``None``.
    """
    if not sys.argv or not sys.argv[0]:
        return None
    program = Path(sys.argv[0])
    if program.name == "euchre" or (program.name == "cli.py" and program.parent.name == "apps"):
        return shlex.join(["euchre", *sys.argv[1:]])
    if program.suffix == ".py" and program.parent.name == "arena":
        return shlex.join(["python", "-m", f"arena.{program.stem}", *sys.argv[1:]])
    return None


def report_folder(parser: Any, out: str, report: str | None = None, overwrite: bool = False,
                  note: str = "") -> Path:  # fmt: skip
    """``--out`` of a command that writes a report folder, as a ``Path``; ``parser.error`` (exit 2) when it is
    a file, or when it already holds ``report`` (a file name) and not ``overwrite`` (``note`` is added to that
    message)."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        parser.error(f"--out {out!r} is a file, not a folder")
    if report is not None and (path / report).exists() and not overwrite:
        parser.error(f"--out {out!r} holds a report ({report}); pass --overwrite to replace it{note}")
    return path


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the file-only Agg backend, or None where matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save_figure(fig: Any, path: Path) -> None:
    """Write ``fig`` to the PNG ``path`` atomically (a temporary file, then a rename) and close it."""
    import matplotlib.pyplot as plt

    tmp = path.with_suffix(".tmp.png")
    try:
        fig.savefig(tmp, format="png")
    finally:
        plt.close(fig)
    tmp.replace(path)


def mean_ci(samples: np.ndarray) -> Stat:
    """Mean and normal-approximation 95% CI of 1-D ``samples`` (at least 2)."""
    x = np.asarray(samples, dtype=np.float64).reshape(-1)
    if x.size < 2:
        raise ValueError(f"a confidence interval needs at least 2 samples, got {x.size}")
    return Stat(float(x.mean()), float(Z95 * x.std(ddof=1) / math.sqrt(x.size)), int(x.size))


@dataclass
class AgentReport:
    """One agent's results in one match.

    Attributes:
        name: the agent.
        points_per_hand: points per hand, per-deal averages over the rotations, CI over deals.
        roles: role -> ``{"share", "hands", "points_per_hand", "made"}``: how often the
            agent's seats had the role, their mean points in it, and (maker, alone) the
            share of those hands where the makers scored.
        win_rate: share of games won (a shared victory counts as won), CI over games.
    """

    name: str
    points_per_hand: Stat
    roles: dict[str, dict[str, float | int | None]]
    win_rate: Stat | None = None

    @staticmethod
    def build(
        name: str,
        scores: np.ndarray,
        points: np.ndarray,
        roles: np.ndarray,
        weight: np.ndarray,
        wins: np.ndarray | None,
    ) -> AgentReport:
        """From per-deal scores (N,), seat points and roles (N, R, P), the agent's seats (R, P)."""
        total = weight.sum() * points.shape[0]
        table: dict[str, dict[str, float | int | None]] = {}
        for k, role in enumerate(ROLES):
            sel = weight[None] & (roles == k)
            hands = int(sel.sum())
            if not hands:
                continue
            pts = points[sel]
            made = float((pts > 0).mean()) if role in ("maker", "alone") else None
            table[role] = {
                "share": float(hands / total),
                "hands": hands,
                "points_per_hand": float(pts.mean()),
                "made": made,
            }
        win = None if wins is None else mean_ci(wins)
        return AgentReport(name, mean_ci(scores), table, win)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form."""
        return {
            "name": self.name,
            "points_per_hand": self.points_per_hand.to_dict(),
            "roles": self.roles,
            "win_rate": None if self.win_rate is None else self.win_rate.to_dict(),
        }


@dataclass
class Matchup:
    """A duplicate match of two agents: their reports and A's advantage over B in points per hand.

    Attributes:
        advantage: A's points per hand minus B's (CI over deals).
        relative: the same difference in *relative* points: a seat's points minus the mean of
            its table's seats. Four-handed it equals ``advantage`` (a side's points minus the
            other side's, halved, on both sides); five-handed it is the zero-sum score of a
            game played by five individuals, which is what winning games rewards (points
            given to the other four count against a seat) and what training maximises
            (``--zero-sum``). Five-handed the two can disagree: an agent that takes the
            contract more often scores more raw points when alone among the other agent's
            copies, and gives its lone opponent more points as a defender.
        won: A's share of games won minus B's (CI over games), when games were played.
    """

    agents: tuple[str, str]
    reports: list[AgentReport]
    advantage: Stat
    hands_per_game: float | None = None
    relative: Stat | None = None
    won: Stat | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form."""
        return {
            "agents": list(self.agents),
            "advantage": self.advantage.to_dict(),
            "relative_advantage": None if self.relative is None else self.relative.to_dict(),
            "games_won_difference": None if self.won is None else self.won.to_dict(),
            "hands_per_game": self.hands_per_game,
            "reports": [r.to_dict() for r in self.reports],
        }


@dataclass
class EvalResult:
    """Everything an evaluation measured; ``to_json``, ``to_markdown``, ``plot``, ``save``."""

    rules: RulesConfig
    agents: list[str]
    num_deals: int
    num_games: int
    seed: int
    rotations: int
    matchups: list[Matchup]
    overall: dict[str, Stat] = field(default_factory=dict)
    seconds: float = 0.0
    command: str | None = field(default_factory=command_line)  # the shell command that ran it, if known

    @property
    def design(self) -> str:
        """How the seats rotate in one match, in words."""
        if self.rules.called_card:
            return (
                "each agent sits alone in one seat against four copies of the other, in each of the five "
                "seats in turn; an agent's score is its single seat's points"
            )
        return "agent A at seats 0 & 2 against B at 1 & 3, then swapped; a partnership's points per hand"

    def head_to_head(self) -> dict[str, dict[str, Stat]]:
        """``table[a][b]``: a's points per hand minus b's in their match (with CI)."""
        table: dict[str, dict[str, Stat]] = {a: {} for a in self.agents}
        for m in self.matchups:
            a, b = m.agents
            adv = m.advantage
            table[a][b] = adv
            table[b][a] = Stat(-adv.mean, adv.ci95, adv.n)
        return table

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form of the whole result."""
        r = self.rules
        return {
            "command": self.command,
            "variant": r.variant,
            "rules": {
                "stick_the_dealer": r.stick_the_dealer,
                "defend_alone": r.defend_alone,
                "points_to_win": r.points_to_win,
            },
            "agents": self.agents,
            "num_deals": self.num_deals,
            "num_games": self.num_games,
            "seed": self.seed,
            "rotations_per_deal": self.rotations,
            "design": self.design,
            "seconds": self.seconds,
            "overall_points_per_hand": {n: s.to_dict() for n, s in self.overall.items()},
            "head_to_head": {
                a: {b: s.to_dict() for b, s in row.items()} for a, row in self.head_to_head().items()
            },
            "matchups": [m.to_dict() for m in self.matchups],
        }

    def to_json(self) -> str:
        """The result as indented JSON."""
        return json.dumps(self.to_dict(), indent=2)

    def to_markdown(self) -> str:
        """A Markdown report: overall table, head-to-head table, per-match role tables."""
        r = self.rules
        lines = [
            f"# Duplicate-deal evaluation: {r.variant}",
            "",
            (
                f"{self.num_deals} deals x {self.rotations} seat rotations per match, {self.num_games} games "
                f"to {r.points_to_win} per match, seed {self.seed}; stick the dealer {r.stick_the_dealer}, "
                f"defend alone {r.defend_alone}. Seats: {self.design}. Points of a deal are averaged over "
                "its rotations first; 95% confidence intervals are over deals (games)."
            ),
            "",
            "## Points per hand",
            "",
            "| agent | points per hand | 95% CI |",
            "|---|---|---|",
        ]
        lines += [f"| {n} | {s.mean:.3f} | [{s.low:.3f}, {s.high:.3f}] |" for n, s in self.overall.items()]
        h2h = self.head_to_head()
        lines += ["", "## Head-to-head (row's points per hand minus column's)", ""]
        lines += ["| | " + " | ".join(self.agents) + " |", "|---" * (len(self.agents) + 1) + "|"]
        for a in self.agents:
            cells = [str(h2h[a][b]) if b in h2h[a] else "" for b in self.agents]
            lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
        for m in self.matchups:
            lines += ["", f"## {m.agents[0]} vs {m.agents[1]}", ""]
            lines += ["| agent | points per hand | games won |", "|---|---|---|"]
            for rep in m.reports:
                win = "" if rep.win_rate is None else f"{rep.win_rate.mean:.1%} ± {rep.win_rate.ci95:.1%}"
                lines.append(f"| {rep.name} | {rep.points_per_hand} | {win} |")
            a, b = m.agents
            if r.called_card and m.relative is not None:
                rel = f"Relative points per hand (a seat's points minus its table's mean), {a} − {b}: {m.relative}."
                lines += ["", rel]
            if m.won is not None:
                lines += ["", f"Games won, {a} − {b}: {m.won.mean:+.1%} ± {m.won.ci95:.1%}."]
            if m.hands_per_game is not None:
                lines += ["", f"Mean hands per game: {m.hands_per_game:.1f}."]
            lines += [
                "",
                "| agent | role | share of hands | points per hand | makers scored |",
                "|---|---|---|---|---|",
            ]
            for rep in m.reports:
                for role, v in rep.roles.items():
                    made = "" if v["made"] is None else f"{v['made']:.1%}"
                    lines.append(
                        f"| {rep.name} | {role} | {v['share']:.1%} | {v['points_per_hand']:.3f} | {made} |"
                    )
        return "\n".join(lines) + "\n"

    def forest_rows(self) -> list[tuple[str, Stat]]:
        """The plotted head-to-head rows: one per match, ``("A − B", A's points per hand minus B's)``.

        Each pair is oriented so that the difference is not negative (the agent
        ahead is named first) and the rows are sorted by it, largest first; the
        interval is the match's 95% CI over deals. A difference between two
        agents measured on the same deals is what ranks them; absolute points
        per hand also depend on the opponents an agent happened to meet.
        """
        rows = []
        for m in self.matchups:
            (a, b), adv = m.agents, m.advantage
            if adv.mean < 0:
                (a, b), adv = (b, a), Stat(-adv.mean, adv.ci95, adv.n)
            rows.append((f"{a} − {b}", adv))
        return sorted(rows, key=lambda row: -row[1].mean)

    def figure(self) -> Any:
        """The report's matplotlib figure (``plot`` saves it).

        Left: a forest plot of :meth:`forest_rows`, each pair's difference in
        points per hand with its 95% interval and a line at 0 (an interval that
        misses 0 is drawn filled). Right: each agent's points per hand by role.
        """
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = self.forest_rows()
        fig, (ax1, ax2) = plt.subplots(
            1, 2, figsize=(12, max(3.5, 1.2 + 0.45 * len(rows))), gridspec_kw={"width_ratios": [1.2, 1]}
        )
        y = np.arange(len(rows))[::-1]  # first row on top
        for yi, (_, st) in zip(y, rows, strict=True):
            clear = st.low > 0
            ax1.errorbar(st.mean, yi, xerr=st.ci95, fmt="o", capsize=5, color="tab:blue",
                         markerfacecolor="tab:blue" if clear else "white")  # fmt: skip
            ax1.annotate(f"{st}", (st.mean, yi), textcoords="offset points", xytext=(0, 7),
                         ha="center", fontsize=8)  # fmt: skip
        ax1.axvline(0.0, color="grey", linewidth=1, linestyle="--")
        ax1.set_yticks(y, [label for label, _ in rows])
        ax1.set_ylim(-0.7, len(rows) - 0.3)
        ax1.set_xlabel("difference in points per hand (95% CI over deals)")
        ax1.set_title(f"{self.rules.variant}: head-to-head, {self.num_deals} duplicate deals per match")
        names = list(self.overall)
        roles = [r for r in ROLES if any(r in rep.roles for m in self.matchups for rep in m.reports)]
        width = 0.8 / max(len(names), 1)
        for i, n in enumerate(names):
            reps = [rep for m in self.matchups for rep in m.reports if rep.name == n]
            vals = [_pooled(reps, role) for role in roles]
            ax2.bar(np.arange(len(roles)) + i * width, vals, width, label=n)
        ax2.set_xticks(np.arange(len(roles)) + width * (len(names) - 1) / 2, roles, rotation=20)
        ax2.set_ylabel("points per hand in the role")
        ax2.set_title("by role (pooled over matches)")
        ax2.legend()
        fig.tight_layout()
        return fig

    def plot(self, path: Path | str) -> Path:
        """Save :meth:`figure` (head-to-head forest plot; points by role) as a PNG at ``path``."""
        import matplotlib.pyplot as plt

        fig = self.figure()
        path = Path(path)
        try:
            fig.savefig(path, dpi=120, format="png")
        finally:
            plt.close(fig)
        return path

    def save(self, out_dir: Path | str, plot: bool = True) -> list[Path]:
        """Write ``eval.json``, ``eval.md`` and (``plot``) ``eval.png`` into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "eval.json", out / "eval.md"]
        for path, text in zip(paths, (self.to_json(), self.to_markdown()), strict=True):
            tmp = path.with_name(path.name + ".tmp")  # a temporary file, then a rename: never half written
            tmp.write_text(text)
            tmp.replace(path)
        if plot:
            tmp = self.plot(out / "eval.tmp.png")
            paths.append(tmp.replace(out / "eval.png"))
        return paths


def _pooled(reports: list[AgentReport], role: str) -> float:
    """Mean points per hand in ``role`` pooled over an agent's matches (0 if it never had it)."""
    hands = sum(int(r.roles[role]["hands"]) for r in reports if role in r.roles)
    pts = sum(
        float(r.roles[role]["points_per_hand"]) * int(r.roles[role]["hands"])
        for r in reports
        if role in r.roles
    )
    return pts / hands if hands else 0.0
