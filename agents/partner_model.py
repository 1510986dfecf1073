"""A learned belief about the hidden partner: a small classifier over a seat's observation.

Five-handed only. ``PartnerClassifier`` maps a seat's observation
(``encoding.encode``, ``(N, D)``) to probabilities over ``K = P + 1``
classes in the *viewer's* frame: the maker's partner sits ``k`` seats to the
viewer's left (``k = 0``: the viewer holds the called card), or the maker has
no partner (the last class: alone, or the called card lies in the kitty). This
is the ``label`` of ``training.dataset``. ``absolute`` turns it into the
absolute-seat layout ``(N, P + 1)`` of the other beliefs (seats ``0..P-1``,
then "none").

What the rules settle is never left to the network: the maker's seat gets 0,
a viewer holding the called card is certain, a called card that was played
names the partner, and a lone maker has none (all read from the observation).

Saved like the policies (``agents.neural``): one ``.safetensors`` file of
float32 weights with a JSON config in its metadata (key ``"euchre_env"``,
``"format": "euchre-env-partner-classifier"``); loading never runs code.
Train one with ``training.partner.train_classifier`` (``euchre partner-bench``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.neural import META_KEY, build_mlp, rules_from_metadata, rules_metadata
from euchre_env.encoding import encode, obs_layout
from euchre_env.rules import RulesConfig
from euchre_env.state import State

FORMAT = "euchre-env-partner-classifier"
VERSION = 1


@dataclass(frozen=True)
class PartnerConfig:
    """How to rebuild a classifier: ``obs (N, obs_size) -> hidden -> logits (N, num_players + 1)``."""

    rules: dict[str, Any]
    obs_size: int
    hidden: list[int]
    num_players: int = 5
    temperature: float = 1.0  # logits are divided by it (fitted on held-out hands: calibration)
    provenance: dict[str, Any] = field(default_factory=dict)
    format: str = FORMAT
    version: int = VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str, source: str = "config") -> PartnerConfig:
        """Parse and check a config; ``ValueError`` names what is wrong."""
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"{source}: config is not JSON ({err})") from None
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            got = raw.get("format") if isinstance(raw, dict) else type(raw).__name__
            raise ValueError(f"{source}: not a partner classifier (format {got!r}, expected {FORMAT!r})")
        if raw.get("version") != VERSION:
            raise ValueError(
                f"{source}: version {raw.get('version')!r} is not supported (expected {VERSION})"
            )
        keys = {
            "rules",
            "obs_size",
            "hidden",
            "num_players",
            "temperature",
            "provenance",
            "format",
            "version",
        }
        if set(raw) != keys:
            raise ValueError(f"{source}: config keys {sorted(raw)} differ from {sorted(keys)}")
        hidden = raw["hidden"]
        if not isinstance(hidden, list) or not all(isinstance(h, int) and not isinstance(h, bool) and h > 0
                                                   for h in hidden):  # fmt: skip
            raise ValueError(f"{source}: hidden must be a list of positive ints, got {hidden!r}")
        t = raw["temperature"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t < 100:
            raise ValueError(f"{source}: temperature must be a number in (0, 100), got {t!r}")
        config = PartnerConfig(**raw)
        rules = rules_from_metadata(config.rules)
        if rules.variant != "five_handed" or config.num_players != rules.num_players:
            raise ValueError(f"{source}: a partner classifier is five-handed, got {rules.variant!r}")
        if config.obs_size != obs_layout(rules).size:
            raise ValueError(f"{source}: obs_size {config.obs_size} != {obs_layout(rules).size} of its rules")
        return config


def build_classifier(config: PartnerConfig) -> Any:
    """The network a config describes (weights freshly initialised)."""
    return build_mlp([config.obs_size, *config.hidden, config.num_players + 1], "relu")


def new_config(
    rules: RulesConfig, hidden: list[int], provenance: dict[str, Any] | None = None
) -> PartnerConfig:
    """A config for ``rules`` (five-handed) with ``hidden`` layer sizes."""
    if rules.variant != "five_handed":
        raise ValueError(f"the hidden partner is five-handed, got rules of {rules.variant!r}")
    return PartnerConfig(rules_metadata(rules), obs_layout(rules).size, list(hidden), rules.num_players,
                         provenance=dict(provenance or {}))  # fmt: skip


class PartnerClassifier:
    """Partner probabilities from observations, with the rules' certainties imposed.

    Args:
        source: a ``.safetensors`` file written by :meth:`save`, or ``(net, config)``.
    """

    def __init__(self, source: str | Path | tuple[Any, PartnerConfig]) -> None:
        if isinstance(source, tuple):
            self.net, self.config = source
        else:
            self.net, self.config = _load(Path(source))
        self.rules = rules_from_metadata(self.config.rules)
        layout = obs_layout(self.rules)
        self._hold = layout.slice("i_hold_called")
        self._maker = layout.slice("maker")
        self._revealed = layout.slice("revealed_by")
        self._alone = layout.slice("alone")
        self._called = layout.slice("called_card")

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Raw network output, float32 ``(N, P + 1)`` (before the temperature)."""
        import torch

        with torch.no_grad():
            x = torch.as_tensor(np.asarray(obs, dtype=np.float32))
            return self.net(x).numpy()

    def relative(self, obs: np.ndarray) -> np.ndarray:
        """Probabilities in the viewer's frame, float64 ``(N, P + 1)`` (module docstring)."""
        obs = np.asarray(obs)
        p = self.config.num_players
        if obs.ndim != 2 or obs.shape[1] != self.config.obs_size:
            raise ValueError(f"obs must have shape (N, {self.config.obs_size}), got {obs.shape}")
        z = self.logits(obs).astype(np.float64) / self.config.temperature
        allowed = np.ones_like(z, dtype=bool)
        allowed[:, :p] &= obs[:, self._maker] == 0  # the maker is not its own partner
        known = np.zeros_like(z, dtype=bool)
        hold = obs[:, self._hold][:, 0] == 1
        known[hold, 0] = True
        revealed = obs[:, self._revealed] == 1
        allowed[:, 0] &= hold | revealed[:, 0]  # the viewer is the partner only if it holds (held) the card
        known[:, :p] |= revealed
        known[obs[:, self._alone][:, 0] == 1, p] = True
        certain = known.any(axis=1)
        allowed[certain] = known[certain]
        z = np.where(allowed, z, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def absolute(self, obs: np.ndarray, viewer: np.ndarray | int) -> np.ndarray:
        """Probabilities over absolute seats then "none", float64 ``(N, P + 1)``."""
        rel = self.relative(obs)
        p = self.config.num_players
        v = np.broadcast_to(np.asarray(viewer, dtype=np.int64), (rel.shape[0],))
        out = np.empty_like(rel)
        cols = (v[:, None] + np.arange(p)[None, :]) % p  # absolute seat of relative seat k
        np.put_along_axis(out[:, :p], cols, rel[:, :p], axis=1)
        out[:, p] = rel[:, p]
        return out

    def belief(self, state: State, viewer: np.ndarray | int) -> np.ndarray:
        """The belief of seat ``viewer`` at each table of ``state``: ``(B, P + 1)`` absolute layout."""
        return self.absolute(encode(state, viewer, self.rules, np.float32), viewer)

    def save(self, path: str | Path) -> Path:
        """Write weights and config atomically (a temporary file, then a rename)."""
        from safetensors.torch import save_file

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tensors = {k: v.detach().to("cpu", copy=True).contiguous() for k, v in self.net.state_dict().items()}
        tmp = path.with_name(path.name + ".tmp")
        save_file(tensors, str(tmp), metadata={META_KEY: self.config.to_json()})
        tmp.chmod(0o644)
        tmp.replace(path)
        return path


def _load(path: Path) -> tuple[Any, PartnerConfig]:
    import torch
    from safetensors import SafetensorError, safe_open

    if not path.is_file():
        raise ValueError(f"classifier file {str(path)!r} does not exist")
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (safe_open has no __iter__)
    except (SafetensorError, OSError, ValueError) as err:
        raise ValueError(f"{str(path)!r} is not a safetensors file ({err})") from None
    if META_KEY not in meta:
        raise ValueError(f"{str(path)!r} has no {META_KEY!r} config in its metadata")
    config = PartnerConfig.from_json(meta[META_KEY], source=repr(str(path)))
    net = build_classifier(config)
    expected = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in tensors.items()}
    if expected != got or any(v.dtype != torch.float32 for v in tensors.values()):
        raise ValueError(f"{str(path)!r}: tensors {got} do not match the network of its config {expected}")
    net.load_state_dict(tensors)
    return net.eval(), config
