"""Reading a stable-baselines3 zip as data: its ``data`` entry as JSON, ``policy.pth`` as tensors
(``torch.load(weights_only=True)``), and the pickled ``policy_kwargs`` read with ``pickletools``, never
run (:func:`pickle_globals` lists what a pickle would import). :class:`SB3Zip` is what was read."""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickletools
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.neural import import_torch

_HARMLESS_GLOBALS = {("stable_baselines3.common.torch_layers", "FlattenExtractor")}
_HARMLESS_MODULES = ("torch.optim.",)  # optimizer_class: not used to act
_MAX_ENTRY_BYTES = 1 << 30  # refuse zip entries that inflate beyond 1 GiB
_UNSAFE_HINT = "SB3Policy(path, trust=True) loads it with SB3's own loader, which runs code from the file"
POLICY_CLASSES = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "maskable",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "actor_critic",
}
ACTIVATION_CLASSES = {
    ("torch.nn.modules.activation", "ReLU"): "relu",
    ("torch.nn.modules.activation", "Tanh"): "tanh",
}


@dataclass
class SB3Zip:
    """What the safe loader read from an SB3 zip (nothing in it was run).

    Attributes:
        state: the policy's tensors, float32 on the CPU (``mlp_extractor.policy_net.0.weight``, ...).
        meta: the model's rules (``euchre_rules``), or None when it has none.
        policy_class: ``"maskable"`` or ``"actor_critic"`` (see ``POLICY_CLASSES``).
        activation: ``"relu"`` or ``"tanh"``.
        obs_size: the observation size the first layers take.
        pi, vf: hidden layer sizes of the actor and the critic (may be empty).
    """

    state: dict[str, Any]
    meta: dict[str, Any] | None
    policy_class: str
    activation: str
    obs_size: int
    pi: list[int]
    vf: list[int]


def read_sb3_zip(path: str | Path) -> SB3Zip:
    """Read a stable-baselines3 model zip as data: JSON and tensors only, never a pickle.

    Raises:
        ValueError: the file is missing, not a zip, its ``policy.pth`` is not
            plain tensor data, or its policy is not an MLP actor-critic this
            loader can rebuild (the message names the problem).
    """
    path = Path(path)
    where = repr(str(path))
    if not path.is_file():
        raise ValueError(f"model file {where} does not exist")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            missing = [n for n in ("data", "policy.pth") if n not in names]
            if missing:
                raise ValueError(f"{where} is not a stable-baselines3 model zip (no {missing} in it)")
            raw_data, raw_weights = (_read_entry(archive, n, where) for n in ("data", "policy.pth"))
    except (zipfile.BadZipFile, OSError) as err:
        raise ValueError(f"{where} is not a stable-baselines3 model zip ({err})") from None
    data = _parse_data(raw_data, where)
    state = _load_weights(raw_weights, where)
    meta = data.get("euchre_rules")
    if meta is not None and not isinstance(meta, dict):
        raise ValueError(f"{where}: 'euchre_rules' must be a JSON object, got {type(meta).__name__}")
    obs_size, pi, vf = _mlp_arch(state, where)
    return SB3Zip(
        state=state, meta=meta, policy_class=_policy_class(data, where), activation=_activation(data, where),
        obs_size=obs_size, pi=pi, vf=vf,
    )  # fmt: skip


def _read_entry(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    """The bytes of one zip entry, refusing entries that would inflate beyond ``_MAX_ENTRY_BYTES``."""
    if archive.getinfo(name).file_size > _MAX_ENTRY_BYTES:
        raise ValueError(f"{where}: zip entry {name!r} is larger than {_MAX_ENTRY_BYTES} bytes")
    return archive.read(name)


def _parse_data(raw: bytes, where: str) -> dict[str, Any]:
    """The zip's ``data`` entry as plain JSON (its ``":serialized:"`` strings stay strings)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"{where}: its 'data' entry is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: its 'data' entry must be a JSON object, got {type(data).__name__}")
    return data


def _load_weights(raw: bytes, where: str) -> dict[str, Any]:
    """``policy.pth`` through ``torch.load(weights_only=True)``: tensors only, float32 on the CPU."""
    torch = import_torch()

    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 (torch raises many types; each means "not plain tensors")
        raise ValueError(
            f"{where}: its policy.pth is not plain tensor data (torch.load(weights_only=True) refused it: "
            f"{str(err).splitlines()[0] if str(err) else type(err).__name__})"
        ) from None
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise ValueError(f"{where}: its policy.pth must map names to tensors")
    bad = sorted(k for k, v in state.items() if not v.is_floating_point())
    if bad:
        raise ValueError(f"{where}: tensors {bad} of policy.pth are not floating point")
    return {k: v.to(torch.float32) for k, v in state.items()}


def _layers(state: dict[str, Any], prefix: str, where: str) -> list[int]:
    """Output sizes of the Linear layers ``prefix.0``, ``prefix.2``, ... (an activation between them)."""
    sizes = []
    while f"{prefix}.{2 * len(sizes)}.weight" in state:
        w = state[f"{prefix}.{2 * len(sizes)}.weight"]
        if w.ndim != 2:
            raise ValueError(f"{where}: {prefix}.{2 * len(sizes)}.weight must be 2-D, got {tuple(w.shape)}")
        sizes.append(int(w.shape[0]))
    return sizes


def _mlp_arch(state: dict[str, Any], where: str) -> tuple[int, list[int], list[int]]:
    """``(obs_size, pi, vf)`` of an SB3 ``MlpPolicy`` state dict; unknown or missing keys are refused.

    Shapes are checked against the rebuilt network later (``_build_policy``).
    """
    pi = _layers(state, "mlp_extractor.policy_net", where)
    vf = _layers(state, "mlp_extractor.value_net", where)
    expected = {"action_net.weight", "action_net.bias", "value_net.weight", "value_net.bias"}
    for prefix, sizes in (("mlp_extractor.policy_net", pi), ("mlp_extractor.value_net", vf)):
        expected |= {f"{prefix}.{2 * i}.{p}" for i in range(len(sizes)) for p in ("weight", "bias")}
    unknown, missing = sorted(set(state) - expected), sorted(expected - set(state))
    if unknown or missing:
        raise ValueError(
            f"{where}: not an MLP actor-critic policy of stable-baselines3 "
            f"(unknown tensors {unknown}, missing tensors {missing}); {_UNSAFE_HINT}"
        )
    first = state["mlp_extractor.policy_net.0.weight" if pi else "action_net.weight"]
    if first.ndim != 2:
        raise ValueError(f"{where}: the first actor layer must be 2-D, got {tuple(first.shape)}")
    return int(first.shape[1]), pi, vf


def _serialized(data: dict[str, Any], key: str, where: str) -> bytes | None:
    """The pickle bytes of ``data[key][":serialized:"]`` (only decoded from base64), None if absent."""
    entry = data.get(key)
    if not isinstance(entry, dict) or ":serialized:" not in entry:
        return None
    try:
        return base64.b64decode(str(entry[":serialized:"]).encode(), validate=True)
    except (binascii.Error, ValueError) as err:
        raise ValueError(f"{where}: its {key!r} entry is not base64 ({err})") from None


def _policy_class(data: dict[str, Any], where: str) -> str:
    """``"maskable"`` or ``"actor_critic"``: the policy class the zip names, read from its pickle."""
    payload = _serialized(data, "policy_class", where)
    if payload is None:
        raise ValueError(f"{where}: its data names no policy_class: not a stable-baselines3 model")
    found = pickle_globals(payload, where)
    if len(found) != 1 or found[0] not in POLICY_CLASSES:
        names = [".".join(g) for g in found]
        known = [".".join(g) for g in POLICY_CLASSES]
        raise ValueError(f"{where}: policy class {names} is not one of {known}; {_UNSAFE_HINT}")
    return POLICY_CLASSES[found[0]]


def _activation(data: dict[str, Any], where: str) -> str:
    """``"relu"`` or ``"tanh"`` from ``policy_kwargs`` (read with pickletools); SB3's Tanh when not given."""
    payload = _serialized(data, "policy_kwargs", where)
    if payload is None:
        kwargs = data.get("policy_kwargs") or {}
        if not isinstance(kwargs, dict):
            raise ValueError(f"{where}: 'policy_kwargs' must be a JSON object, got {type(kwargs).__name__}")
        return "tanh"
    found = pickle_globals(payload, where)
    unknown = [
        ".".join(g)
        for g in found
        if g not in ACTIVATION_CLASSES
        and g not in _HARMLESS_GLOBALS
        and not g[0].startswith(_HARMLESS_MODULES)
    ]
    if unknown:
        raise ValueError(
            f"{where}: policy_kwargs names {unknown}, which this loader does not know; {_UNSAFE_HINT}"
        )
    acts = {ACTIVATION_CLASSES[g] for g in found if g in ACTIVATION_CLASSES}
    if len(acts) > 1:
        raise ValueError(f"{where}: policy_kwargs names more than one activation: {sorted(acts)}")
    return acts.pop() if acts else "tanh"


_MARK = object()
_STRING_OPS = {
    "STRING",
    "BINSTRING",
    "SHORT_BINSTRING",
    "UNICODE",
    "SHORT_BINUNICODE",
    "BINUNICODE",
    "BINUNICODE8",
}
_BY_CODE = {"EXT1", "EXT2", "EXT4", "PERSID", "BINPERSID"}  # imports a pickle can make without naming them


def pickle_globals(payload: bytes, where: str = "pickle") -> list[tuple[str, str]]:
    """Every ``(module, name)`` a pickle would import, found by walking its opcodes; nothing is run.

    The stack is simulated with ``pickletools``' opcode descriptions so that
    ``STACK_GLOBAL`` is named by the two strings really under it (memo gets
    included). A name that cannot be read (not a string, an extension code,
    a persistent id) is reported as ``("?", opcode)``, which no allowlist holds.

    Raises:
        ValueError: the bytes are not a well-formed pickle.
    """
    found: list[tuple[str, str]] = []
    stack: list[Any] = []
    memo: dict[int, Any] = {}
    try:
        for op, arg, _ in pickletools.genops(payload):
            before = [s.name for s in op.stack_before]
            if op.name == "STACK_GLOBAL":
                module, name = stack[-2], stack[-1]
                ok = isinstance(module, str) and isinstance(name, str)
                found.append((module, name) if ok else ("?", op.name))
            elif op.name in ("GLOBAL", "INST"):
                module, _, name = str(arg).partition(" ")
                found.append((module, name))
            elif op.name in _BY_CODE:
                found.append(("?", op.name))
            if op.name == "MEMOIZE":
                memo[len(memo)] = stack[-1]
                continue
            if op.name in ("PUT", "BINPUT", "LONG_BINPUT"):
                memo[int(arg)] = stack[-1]
                continue
            if op.name == "DUP":
                stack.append(stack[-1])
                continue
            if "mark" in before:
                while stack.pop() is not _MARK:
                    pass
                before = before[: before.index("mark")]
            for _ in before:
                stack.pop()
            if op.name == "MARK":
                stack.append(_MARK)
            elif op.name in _STRING_OPS:
                stack.append(arg if isinstance(arg, str) else None)
            elif op.name in ("GET", "BINGET", "LONG_BINGET"):
                stack.append(memo[int(arg)])
            else:
                stack.extend([None] * len(op.stack_after))
    except (ValueError, IndexError, KeyError, EOFError) as err:
        raise ValueError(f"{where}: a serialized entry is not a well-formed pickle ({err})") from None
    return found
