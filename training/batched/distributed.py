"""Data parallelism for the batched trainer: N processes train one learner (``euchre train --backend ray``).

Each process (a *rank* of the :class:`Group`) builds the same network from the same seed, plays its own
share of every iteration's tables on its own engine, and computes gradients on its own decisions; the
gradients are averaged over the processes (one all-reduce of one flat buffer per step, which is what
``DistributedDataParallel`` does with a single bucket, without wrapping the network: the update runs the
actor's and the critic's layers separately) before clipping and the optimizer's step, so every rank
takes the same step and the weights stay identical. Rank 0 (the *lead*) alone evaluates and writes files.

The tables of an iteration are drawn exactly as the local trainer draws them (seats, pool entries, deal
seeds) and rank ``r`` of ``N`` plays tables ``[r * T/N, (r+1) * T/N)``; rank 0 then keeps the local
trainer's random streams and the others draw their own. One process (``world == 1``) is the local trainer,
step for step.

The process group is ``torch.distributed``'s (gloo on CPU, nccl on GPU); :mod:`training.batched.ray_train`
starts it on Ray. :data:`LOCAL` is the one-process group, where every method is free.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Group:
    """This process's place among ``world`` processes training one learner (``rank`` 0 is the lead).

    ``device`` is where the small reductions (counters, statistics) travel: ``"cpu"`` under gloo, the
    process's GPU under nccl, which reduces only GPU tensors.
    """

    rank: int = 0
    world: int = 1
    device: str = "cpu"

    @property
    def lead(self) -> bool:
        """Whether this process evaluates and writes the run's files."""
        return self.rank == 0

    def share(self, n: int) -> slice:
        """This rank's rows of ``n`` (a multiple of ``world``: the iteration's tables)."""
        k = n // self.world
        return slice(self.rank * k, (self.rank + 1) * k)

    def sum(self, values: Sequence[float]) -> np.ndarray:
        """float64 (len(values),): each value summed over the ranks (every rank must call it)."""
        x = np.asarray(values, np.float64)
        if self.world == 1:
            return x
        return self._reduce(x, "sum")

    def max(self, value: float) -> float:
        """``value``'s largest over the ranks (every rank must call it)."""
        if self.world == 1:
            return float(value)
        return float(self._reduce(np.asarray([value], np.float64), "max")[0])

    def mean(self, stats: dict[str, float]) -> dict[str, float]:
        """``stats`` (the same keys on every rank) averaged over the ranks."""
        if self.world == 1:
            return stats
        keys = sorted(stats)
        return dict(zip(keys, (self.sum([stats[k] for k in keys]) / self.world).tolist(), strict=True))

    def average_gradients(self, params: Sequence[Any]) -> None:
        """Replace each parameter's gradient by its mean over the ranks (a missing gradient counts as 0)."""
        if self.world == 1:
            return
        import torch
        import torch.distributed as dist

        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
        flat = torch.cat([g.reshape(-1).float() for g in grads])
        dist.all_reduce(flat)
        flat /= self.world
        offset = 0
        for p, g in zip(params, grads, strict=True):
            p.grad = flat[offset : offset + g.numel()].view_as(p).to(p.dtype)
            offset += g.numel()

    def broadcast(self, module: Any) -> None:
        """Give every rank the lead's parameters and buffers of ``module`` (in place)."""
        if self.world == 1:
            return
        import torch.distributed as dist

        for tensor in module.state_dict().values():
            dist.broadcast(tensor, src=0)

    def _reduce(self, x: np.ndarray, op: str) -> np.ndarray:
        import torch
        import torch.distributed as dist

        t = torch.from_numpy(x.copy()).to(self.device)
        dist.all_reduce(t, op=dist.ReduceOp.SUM if op == "sum" else dist.ReduceOp.MAX)
        return t.cpu().numpy()


LOCAL = Group()


def minibatches(n: int, size: int, gen: Any, device: Any, group: Group = LOCAL) -> Iterator[Any]:
    """Index tensors of one pass over ``n`` rows in the random order of ``gen`` (a torch CPU generator).

    One process: ``ceil(n / size)`` minibatches of ``size`` rows (the last one shorter). Several: every
    rank takes the same number of steps (the most any rank needs) of ``ceil(size / world)`` rows, going round
    its rows again where it has fewer, so that each step's all-reduced gradient is that of about ``size`` rows.
    """
    import torch

    perm = torch.randperm(n, generator=gen).to(device)
    if group.world == 1:
        for start in range(0, n, size):
            yield perm[start : start + size]
        return
    if n == 0:
        raise RuntimeError(f"rank {group.rank} of {group.world} has no training rows this iteration")
    size = -(-size // group.world)
    steps = int(group.max(-(-n // size)))
    ring = torch.arange(size, device=device)
    for step in range(steps):
        yield perm[(step * size + ring) % n]


def optimizer_step(params: Sequence[Any], opt: Any, max_grad_norm: float, group: Group = LOCAL) -> None:
    """The update's step after ``backward()``: gradients averaged over ``group``, clipped to ``max_grad_norm``,
    applied by ``opt``."""
    import torch

    group.average_gradients(params)
    torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
    opt.step()
