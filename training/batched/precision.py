"""The arithmetic of the update's network passes: ``--precision fp32|bf16|auto``, decided in one place.

``auto`` is ``bf16`` where the device multiplies bfloat16 matrices natively (a CUDA GPU that supports it,
a CPU with AMX or AVX512-BF16), else ``fp32``. Weights, losses and the rollout stay float32 either way;
saved models are float32.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

BF16_ENV = "EUCHRE_CPU_BF16"
"""Environment variable that overrides :func:`cpu_has_bf16`: ``1`` (as on a CPU with bfloat16 matrix units) or
``0`` (as on one without), to run ``--precision auto`` as the other kind of CPU would."""


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices natively (``amx_bf16`` or ``avx512_bf16`` among the flags of
    /proc/cpuinfo), unless ``EUCHRE_CPU_BF16`` is ``1`` or ``0``."""
    forced = os.environ.get(BF16_ENV, "")
    if forced:
        if forced not in ("0", "1"):
            raise ValueError(f"{BF16_ENV} must be 0 or 1 (or unset), got {forced!r}")
        return forced == "1"
    cpuinfo = Path("/proc/cpuinfo")
    flags = cpuinfo.read_text() if cpuinfo.is_file() else ""
    return "amx_bf16" in flags or "avx512_bf16" in flags


def resolve_precision(precision: str, device: str) -> str:
    """``precision`` with ``auto`` made ``bf16`` where the device multiplies bfloat16 matrices natively (a CUDA GPU
    that supports it; a CPU for which :func:`cpu_has_bf16`), else ``fp32``. The one place ``auto`` is decided."""
    if precision != "auto":
        return precision
    if device.startswith("cuda"):
        import torch

        return "bf16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "fp32"
    return "bf16" if cpu_has_bf16() else "fp32"


def autocast(device: Any, precision: str) -> Any:
    """Context in which the network's passes run at ``precision`` (``bf16``: torch autocast; ``fp32``: no-op)."""
    import torch

    return torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=precision == "bf16")


def run_at(module: Any, inputs: Any, precision: str) -> Any:
    """``module(inputs)`` with its arithmetic at ``precision``, whatever dtype ``inputs`` are stored in
    (:func:`to_tensors` stores them as bfloat16 at ``bf16``): ``bf16`` under autocast, ``fp32`` on the inputs as
    float32. Returns the module's output in the dtype that arithmetic gives (bfloat16 or float32)."""
    if precision not in ("fp32", "bf16"):
        raise ValueError(f"precision must be 'fp32' or 'bf16' (resolve 'auto' first), got {precision!r}")
    with autocast(inputs.device, precision):
        return module(inputs if precision == "bf16" else inputs.float())
