"""The SB3 route's run files: TensorBoard tags, the learning curve, model export, the run folder, threads."""

from __future__ import annotations

import io
import json
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.logger import CSVOutputFormat, KVWriter, TensorBoardOutputFormat

_TAGS = {"train/": "losses/", "rollout/": "charts/", "time/": "charts/"}
_ROLLOUT_STATE = ("_last_obs", "_last_episode_starts", "_last_original_obs")


def set_threads(threads: int) -> None:
    """Use ``threads`` CPU threads for torch (the environments are numpy, single-threaded)."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    torch.set_num_threads(threads)


def run_folder(out: str | None, runs_dir: str, variant: str, exp_name: str, seed: int) -> Path:
    """``out`` exactly if given, else ``runs_dir/{variant}__{exp_name}__{seed}__{unix time}``; created."""
    path = Path(out) if out else Path(runs_dir) / f"{variant}__{exp_name}__{seed}__{int(time.time())}"
    path.mkdir(parents=True, exist_ok=True)
    return path


class RenamedOutput(KVWriter):
    """Writes SB3's ``train/``, ``rollout/``, ``time/`` keys as ``losses/``, ``charts/`` to TensorBoard and CSV."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.writers = [TensorBoardOutputFormat(str(folder)), CSVOutputFormat(str(folder / "progress.csv"))]

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0) -> None:
        """Rename the keys and pass them on."""
        values = {_tag(k): v for k, v in key_values.items()}
        excluded = {_tag(k): v for k, v in key_excluded.items()}
        for w in self.writers:
            w.write(values, excluded, step)

    def close(self) -> None:
        """Close both writers."""
        for w in self.writers:
            w.close()


def _tag(key: str) -> str:
    for old, new in _TAGS.items():
        if key.startswith(old):
            return new + key[len(old) :]
    return key


def plot_learning_curve(
    history: list[dict[str, Any]], train_curve: list[tuple[int, float]], path: Path
) -> Path:
    """Evaluation advantage over timesteps (with 95% bands) above the training reward; saved as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    steps = np.array([h["timesteps"] for h in history], dtype=float)
    names = sorted({k for h in history for k in h["eval"]})
    for name in names:
        adv = np.array([h["eval"][name]["advantage"] for h in history])
        ci = np.array([h["eval"][name]["ci95"] for h in history])
        ax1.plot(steps, adv, marker="o", label=f"vs {name}")
        ax1.fill_between(steps, adv - ci, adv + ci, alpha=0.2)
    ax1.axhline(0.0, color="grey", lw=0.8)
    ax1.set_ylabel("points per hand minus opponent's")
    ax1.set_title("duplicate-deal evaluation (95% CI)")
    if names:
        ax1.legend()
    if train_curve:
        x, y = zip(*train_curve, strict=True)
        ax2.plot(x, y, color="tab:green")
    ax2.set_xlabel("timesteps (learner decisions)")
    ax2.set_ylabel("mean reward, last 1000 hands")
    ax2.set_title("training reward (against the drawn opponents)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def export_model(src: Path | str, dst: Path | str, half: bool = True) -> Path:
    """Copy a model zip for playing: no optimizer state or last rollout, float16 weights if ``half``.

    The copy loads with ``SB3Policy`` (``model:<path>``, ``--init-model``),
    which casts the weights back to float32; ``MaskablePPO.load`` would ask
    for the optimizer state it no longer has.
    """
    dst = Path(dst)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            if item.filename == "policy.optimizer.pth":
                continue
            payload = zin.read(item.filename)
            if item.filename == "data":  # drop the last rollout's observations (large, not needed to play)
                data = json.loads(payload)
                payload = json.dumps(
                    {k: v for k, v in data.items() if k not in _ROLLOUT_STATE}, indent=4
                ).encode()
            if half and item.filename == "policy.pth":
                weights = torch.load(io.BytesIO(payload), map_location="cpu", weights_only=True)
                buffer = io.BytesIO()
                torch.save({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, buffer)
                payload = buffer.getvalue()
            zout.writestr(item, payload)
    return dst
