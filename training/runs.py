"""A training run's state and files: progress, checkpoints, the run folder, reports, Ctrl-C.

Everything is written atomically (a temporary file, then a rename), so a run
killed at any moment never leaves a half-written file under a final name.
Checkpoints are safetensors files (tensors plus JSON metadata): like model
files, loading one never runs code.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np


@dataclasses.dataclass
class Progress:
    """Where a run stands (saved in its checkpoint)."""

    iteration: int = 0
    imitated: int = 0  # decisions of the imitation phase learned from
    learner_decisions: int = 0
    decisions: int = 0  # every decision played at the tables, the opponents' included
    seconds: float = 0.0  # wall-clock time spent training (evaluations included)
    train_seconds: float = 0.0  # of which rollouts and updates (what --time-budget counts)
    best: float | None = None  # best periodic evaluation against the heuristic
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # periodic evaluations
    curve: list[list[float]] = dataclasses.field(default_factory=list)  # [decisions, reward vs heuristic]


CHECKPOINT = "checkpoint.safetensors"
_CKPT_KEY = "euchre_env_checkpoint"


def save_checkpoint(
    path: Path, net: Any, opt: Any, snapshots: list[Any], progress: Progress, args: Any,
    provenance: dict[str, Any] | None = None,
) -> None:
    """Everything ``--resume`` needs, as tensors and JSON (no pickle), written atomically.

    ``provenance`` (what made the run: the first command, seed, commit, and any
    resumptions) is kept so that a resumed run's model records where it began.
    """
    import torch
    from safetensors.torch import save_file

    tensors = {f"net.{k}": v for k, v in net.state_dict().items()}
    opt_state = opt.state_dict()
    for i, entry in opt_state["state"].items():
        for key, value in entry.items():
            tensors[f"opt.{i}.{key}"] = value if torch.is_tensor(value) else torch.tensor(value)
    for j, snap in enumerate(snapshots):
        tensors.update({f"snap.{j}.{k}": v for k, v in snap.state_dict().items()})
    meta = {"progress": dataclasses.asdict(progress), "param_groups": opt_state["param_groups"],
            "snapshots": len(snapshots), "args": dataclasses.asdict(args), "provenance": provenance}  # fmt: skip
    tensors = {k: v.detach().to("cpu", copy=True).contiguous() for k, v in tensors.items()}
    tmp = path.with_name(path.name + ".tmp")
    save_file(tensors, str(tmp), metadata={_CKPT_KEY: json.dumps(meta)})
    tmp.chmod(0o644)  # safetensors creates its files readable by the owner only
    tmp.replace(path)


def load_checkpoint(
    path: Path, net: Any, opt: Any, make_actor: Any
) -> tuple[Progress, list[Any], dict[str, Any] | None]:
    """Restore ``net`` and ``opt`` in place from :func:`save_checkpoint`.

    Returns the progress, the snapshot actors and the stored provenance (None in
    checkpoints written before it was kept).
    """
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        meta = json.loads((f.metadata() or {})[_CKPT_KEY])
        tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
    device = next(net.parameters()).device
    net.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("net.")})
    state: dict[int, dict[str, Any]] = {}
    for k, v in tensors.items():
        if k.startswith("opt."):
            _, i, key = k.split(".", 2)
            state.setdefault(int(i), {})[key] = v if key == "step" else v.to(device)
    opt.load_state_dict({"state": state, "param_groups": meta["param_groups"]})
    stored = {k.split(".", 2)[1] for k in tensors if k.startswith("snap.")}
    count = meta["snapshots"]
    if not isinstance(count, int) or count != len(stored) or stored != {str(j) for j in range(count)}:
        raise ValueError(
            f"checkpoint {path}: its metadata lists {meta['snapshots']} snapshots but it holds {len(stored)} "
            "(a damaged or edited file)"
        )
    snapshots = []
    for j in range(count):
        actor = make_actor()
        prefix = f"snap.{j}."
        actor.load_state_dict({k[len(prefix) :]: v for k, v in tensors.items() if k.startswith(prefix)})
        snapshots.append(actor.eval())
    return Progress(**meta["progress"]), snapshots, meta.get("provenance")


def prepare_run_dir(args: Any) -> Path:
    """The run folder: ``--resume``'s, ``--out`` (empty, or ``--overwrite``), or a new generated one."""
    if args.resume:
        path = Path(args.resume)
        if not path.is_dir():
            raise ValueError(f"--resume {args.resume!r}: no such run folder")
        if not (path / CHECKPOINT).is_file():
            raise ValueError(
                f"--resume {args.resume!r}: no {CHECKPOINT} in that folder, so nothing to continue (the run "
                f"stopped before its first checkpoint); start it again with --out {args.resume!r} --overwrite"
            )
        return path
    path = (
        Path(args.out)
        if args.out
        else Path(args.runs_dir) / (f"{args.variant}__{args.exp_name}__{args.seed}__{int(time.time())}")
    )
    if path.exists() and not path.is_dir():
        raise ValueError(f"--out {str(path)!r} is a file, not a folder")
    if path.is_dir() and any(path.iterdir()) and not args.overwrite:
        resume = f" or --resume {str(path)!r} to continue its run" if (path / CHECKPOINT).is_file() else ""
        raise ValueError(f"--out {str(path)!r} is not empty: pass --overwrite to replace its files{resume}")
    path.mkdir(parents=True, exist_ok=True)
    return path


# Args that say where a run's files go or how it reports, not what it trains: left out of a model's settings.
NOT_SETTINGS = ("exp_name", "out", "runs_dir", "overwrite", "resume", "progress", "address")


def provenance(args: Any, command: str) -> dict[str, Any]:
    """What made a model: the command, seed and the code's commit (``-dirty`` with local changes), and,
    when ``args`` is a dataclass (a trainer's ``Args``), ``settings``: every training setting as the run
    used it (defaults resolved), so a model says how it was made even after a default changes."""
    commit = "unknown"
    try:
        here = Path(__file__).resolve().parent
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], check=False, cwd=here, capture_output=True, text=True, timeout=10
        )
        if head.returncode == 0:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], check=False, cwd=here,
                                   capture_output=True, text=True, timeout=10).stdout.strip()  # fmt: skip
            commit = head.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    out = {"command": command, "seed": args.seed, "commit": commit, "algo": getattr(args, "algo", "ppo"),
           "variant": args.variant}
    if dataclasses.is_dataclass(args):  # a trainer's Args (other callers pass a few fields in a Namespace)
        out["settings"] = {k: v for k, v in dataclasses.asdict(args).items() if k not in NOT_SETTINGS}
    return out


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (a temporary file, then a rename)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.replace(path)


def plot_curves(progress: Progress, path: Path, relative: bool = False) -> Path:
    """Evaluation against learner decisions and against wall-clock minutes, and the training reward.

    ``relative``: also draw the relative points (five-handed, see ``Matchup.relative``) where recorded.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    hist = progress.history
    names = sorted({k for h in hist for k in h["eval"]})
    for ax, key, label in (
        (axes[0], "learner_decisions", "learner decisions"),
        (axes[1], "seconds", "minutes"),
    ):
        x = np.array([h[key] for h in hist], float) / (60.0 if key == "seconds" else 1.0)
        for name in names:
            pts = [(xi, h["eval"][name]) for xi, h in zip(x, hist, strict=True) if name in h["eval"]]
            xs = np.array([p[0] for p in pts])
            adv = np.array([p[1]["advantage"] for p in pts])
            ci = np.array([p[1]["ci95"] for p in pts])
            ax.plot(xs, adv, marker="o", label=f"vs {name}")
            ax.fill_between(xs, adv - ci, adv + ci, alpha=0.2)
            if relative and all("relative" in p[1] for p in pts):  # five-handed: relative points too
                rel = np.array([p[1]["relative"] for p in pts])
                rci = np.array([p[1]["relative_ci95"] for p in pts])
                ax.plot(xs, rel, marker="s", ls="--", label=f"vs {name}, relative points")
                ax.fill_between(xs, rel - rci, rel + rci, alpha=0.1)
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.set_xlabel(label)
        ax.set_ylabel("points per hand minus opponent's (95% CI)")
        if names:
            ax.legend()
    axes[0].set_title("duplicate evaluation by learner decisions")
    axes[1].set_title("duplicate evaluation by wall-clock time")
    if progress.curve:
        c = np.array(progress.curve)
        axes[2].plot(c[:, 0], c[:, 1], color="tab:green", lw=0.8)
    axes[2].axhline(0.0, color="grey", lw=0.8)
    axes[2].set_xlabel("learner decisions")
    axes[2].set_title("training reward per hand vs the heuristic (sampling)")
    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    tmp.replace(path)
    return path


class StopFlag:
    """Ctrl-C (or SIGTERM) asks the run to stop at the end of the iteration; a second Ctrl-C aborts."""

    def __init__(self) -> None:
        self.set = False
        self._old: dict[int, Any] = {}

    def __enter__(self) -> StopFlag:  # noqa: PYI034 (the class is final)
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.set and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.set = True
        print("\nstopping at the end of this iteration and saving (Ctrl-C again to abort)", flush=True)

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
