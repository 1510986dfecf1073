"""A learned belief about the hidden partner: what the players' choices add to counting.

Five-handed only. ``PartnerClassifier`` maps a view's observation
(``encoding.encode``, ``(N, D)``) to probabilities over ``K = P + 1``
classes in the *viewer's* frame: the maker's partner sits ``k`` seats to the
viewer's left (``k = 0``: the viewer holds the called card), or the maker has
no partner (the last class: alone, or the called card lies in the kitty). This
is the ``label`` of ``partner_lab.dataset``. It is a
:class:`euchre_env.beliefs.PartnerBelief` like the counted and the
policy-based beliefs: ``clf(state, rules, viewer)`` gives absolute seats in
their ``(B, P + 1)`` layout, for a seat or the public view.

How: the view's counted rules-only belief ``e`` (``ExactBelief``) and the
evidence of the hand ``x`` (:mod:`agents.partner_features`: plays by trick
and seat, what each follower chose over cards it held, bidding, the called
card, the view, the viewer's hand; seats counted from the maker, suits
relative to trump) go through a small network whose output is added to
``log e``: ``probs = softmax((net(x) + log e) / T)`` over the classes
counting allows, in the maker's frame, then turned to the viewer's. A network
that outputs zeros is exactly the counted belief; training learns what bids
and plays say beyond the rules. ``T`` is fitted on held-out hands.

The network is shared by the seats (:func:`network_logits`): a *context* MLP
reads all of ``x``; for each maker-frame seat ``j`` a *seat* MLP reads that
seat's own features (``partner_features.seat_columns``: its plays, choices and
bids), ``j`` one-hot and the context, and gives seat ``j``'s logit; a linear
layer of the context gives "no partner". The same weights read every seat, so
what a seat's play says about it is learned from every seat's plays.

What the rules settle is never left to the network
(``euchre_env.beliefs.settled_beliefs``): the maker's seat gets 0, a seat
that does not hold the called card is not the partner, a viewer holding it is
certain, a called card that was played names the partner, and a lone maker has
none.

Saved like the policies (``agents.neural``): one ``.safetensors`` file of
float32 weights with a JSON config in its metadata (key ``"euchre_env"``,
``"format": "euchre-env-partner-classifier"``); loading never runs code.
Train one with ``partner_lab.classifier.train_classifier`` (``euchre partner-bench``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.neural import (
    MAX_HIDDEN_LAYERS,
    MAX_LAYER_SIZE,
    build_mlp,
    load_weights,
    read_model_file,
    read_model_header,
    rules_from_metadata,
    rules_metadata,
    write_model_file,
)
from agents.partner_features import (
    GROUPS,
    belief_features,
    group_slices,
    maker_seat,
    num_features,
    seat_columns,
    to_maker_frame,
    to_viewer_frame,
)
from euchre_env.beliefs import BeliefResult, ExactBelief, PartnerBelief, check_observations, settled_beliefs
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig
from euchre_env.state import State

FORMAT = "euchre-env-partner-classifier"
VERSION = 4  # 3: the feature group ``choices``; 4: the network shared by the seats
CONTEXT = (256, 64)  # the context MLP's layers
LOG_FLOOR = 1e-6  # the counted probability below which a class is impossible


@dataclass(frozen=True)
class PartnerConfig:
    """How to rebuild a classifier: ``features (N, num_features) -> logits (N, num_players + 1)``.

    ``context``: the context MLP's layer sizes (its last is the context's size); ``hidden``: the seat
    MLP's hidden layers (module docstring).

    ``dropped`` names feature groups (``agents.partner_features.GROUPS``) the
    network does not see (zeroed): what an input buys is measured this way.
    """

    rules: dict[str, Any]
    obs_size: int
    num_features: int
    hidden: list[int]
    context: list[int] = field(default_factory=lambda: list(CONTEXT))
    num_players: int = 5
    temperature: float = 1.0  # logits are divided by it (fitted on held-out hands: calibration)
    dropped: list[str] = field(default_factory=list)
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
        keys = {"rules", "obs_size", "num_features", "hidden", "context", "num_players", "temperature",
                "dropped", "provenance", "format", "version"}  # fmt: skip
        if set(raw) != keys:
            raise ValueError(f"{source}: config keys {sorted(raw)} differ from {sorted(keys)}")
        for key in ("hidden", "context"):
            sizes = raw[key]
            if not isinstance(sizes, list) or not all(isinstance(h, int) and not isinstance(h, bool) and h > 0
                                                      for h in sizes) or (key == "context" and not sizes):  # fmt: skip
                raise ValueError(f"{source}: {key} must be a list of positive ints, got {sizes!r}")
        t = raw["temperature"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t < 100:
            raise ValueError(f"{source}: temperature must be a number in (0, 100), got {t!r}")
        dropped = raw["dropped"]
        if not isinstance(dropped, list) or not set(dropped) <= set(GROUPS):
            raise ValueError(f"{source}: dropped must be a list of feature groups {list(GROUPS)}, got {dropped!r}")
        config = PartnerConfig(**raw)
        rules = rules_from_metadata(config.rules)
        if rules.variant != "five_handed" or config.num_players != rules.num_players:
            raise ValueError(f"{source}: a partner classifier is five-handed, got {rules.variant!r}")
        if config.obs_size != obs_layout(rules).size:
            raise ValueError(f"{source}: obs_size {config.obs_size} != {obs_layout(rules).size} of its rules")
        if config.num_features != num_features(rules.num_players):
            raise ValueError(
                f"{source}: num_features {config.num_features} != {num_features(rules.num_players)} of this version"
            )
        return config


def _layer_sizes(config: PartnerConfig) -> dict[str, list[int]]:
    """Each part of the network (module docstring) as its MLP's layer sizes."""
    p, ctx = config.num_players, config.context[-1]
    return {"context": [config.num_features, *config.context],
            "seat": [len(seat_columns(p)[0]) + p + ctx, *config.hidden, 1], "none": [ctx, 1]}  # fmt: skip


def build_classifier(config: PartnerConfig) -> Any:
    """The network a config describes (a ``ModuleDict`` of MLPs, :func:`network_logits` runs it); its last
    layers start at zero (the counted belief exactly)."""
    import torch

    sizes = _layer_sizes(config)
    net = torch.nn.ModuleDict({
        "context": torch.nn.Sequential(build_mlp(sizes["context"], "relu"), torch.nn.ReLU()),
        "seat": build_mlp(sizes["seat"], "relu"),
        "none": build_mlp(sizes["none"], "relu"),
    })  # fmt: skip
    for last in (net["seat"][-1], net["none"][-1]):
        torch.nn.init.zeros_(last.weight)
        torch.nn.init.zeros_(last.bias)
    return net


def network_logits(net: Any, x: Any, columns: Any) -> Any:
    """``net(x)``: float tensor (N, P + 1) of features ``x`` (N, F), maker frame; ``columns`` (P, S) int64
    tensor, each seat's own features (``partner_features.seat_columns``)."""
    import torch

    n, p = x.shape[0], columns.shape[0]
    context = net["context"](x)  # (N, C)
    seats = torch.cat([x[:, columns], torch.eye(p, dtype=x.dtype).expand(n, p, p),
                       context[:, None, :].expand(n, p, context.shape[1])], dim=2)  # fmt: skip
    return torch.cat([net["seat"](seats)[:, :, 0], net["none"](context)], dim=1)


def new_config(
    rules: RulesConfig, hidden: list[int], provenance: dict[str, Any] | None = None, dropped: list[str] = ()
) -> PartnerConfig:
    """A config for ``rules`` (five-handed) with ``hidden`` layer sizes, the feature groups ``dropped`` unseen."""
    if rules.variant != "five_handed":
        raise ValueError(f"the hidden partner is five-handed, got rules of {rules.variant!r}")
    unknown = sorted(set(dropped) - set(GROUPS))
    if unknown:
        raise ValueError(f"dropped must name feature groups {list(GROUPS)}, got {unknown}")
    return PartnerConfig(rules_metadata(rules), obs_layout(rules).size, num_features(rules.num_players),
                         list(hidden), list(CONTEXT), rules.num_players, dropped=list(dropped),
                         provenance=dict(provenance or {}))  # fmt: skip


def log_counted(exact: np.ndarray) -> np.ndarray:
    """The log of the counted belief (N, P + 1) the network's output is added to: float64, ``-inf`` where
    counting gives less than ``LOG_FLOOR`` (an impossible class)."""
    possible = exact > LOG_FLOOR
    return np.where(possible, np.log(np.where(possible, exact, 1.0)), -np.inf)


class PartnerClassifier(PartnerBelief):
    """A learned ``PartnerBelief``: the counted belief corrected by a network (module docstring).

    Seat views and the public view (``euchre_env.beliefs.PUBLIC``: a seat's
    observation with its private pieces zeroed) go through the same network;
    ``partner_lab.classifier.train_classifier`` trains it on both. What the
    rules settle is never left to the network.

    Args:
        source: a ``.safetensors`` file written by :meth:`save`, or ``(net, config)``.
    """

    name = "learned"

    def __init__(self, source: str | Path | tuple[Any, PartnerConfig]) -> None:
        if isinstance(source, tuple):
            self.net, self.config = source
        else:
            self.net, self.config = _load(Path(source))
        self.rules = rules_from_metadata(self.config.rules)
        self.columns = seat_columns(self.rules.num_players)
        slices = group_slices(self.rules.num_players)
        self._keep = np.ones(self.config.num_features, bool)
        for group in self.config.dropped:
            self._keep[slices[group]] = False

    def inputs(self, obs: np.ndarray, public: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(features (N, F) float32, counted belief (N, P + 1) maker frame, maker (N,))`` of checked, open
        observations (``euchre_env.beliefs.check_observations``; the rows ``settled_beliefs`` leaves open)."""
        exact = ExactBelief().from_observations(obs, self.rules, public).probs
        x = belief_features(obs, public, self.rules, exact)
        x[:, ~self._keep] = 0.0
        maker = maker_seat(obs, self.rules)
        return x, to_maker_frame(exact, maker), maker

    def logits(self, x: np.ndarray, exact: np.ndarray) -> np.ndarray:
        """``(net(x) + log exact) / T``, float64 (N, P + 1), maker frame; ``-inf`` where counting gives 0."""
        import torch

        with torch.no_grad():
            z = self.network(torch.as_tensor(np.asarray(x, dtype=np.float32))).numpy().astype(np.float64)
        return (z + log_counted(exact)) / self.config.temperature

    def network(self, x: Any) -> Any:
        """The network's logits, float tensor (N, P + 1), of features ``x`` (N, F) float tensor (maker frame)."""
        import torch

        return network_logits(self.net, x, torch.as_tensor(self.columns))

    def from_observations(
        self, observations: np.ndarray, rules: RulesConfig | None = None, public: np.ndarray | bool = False
    ) -> BeliefResult:
        """Beliefs in the view's frame, float64 ``(N, P + 1)``; NaN rows before the maker has declared."""
        obs, pub = check_observations(observations, self.rules, np.asarray(public))
        probs, open_ = settled_beliefs(obs, self.rules, pub)
        rows = np.flatnonzero(open_)
        if rows.size:
            x, exact, maker = self.inputs(obs[rows], pub[rows])
            z = self.logits(x, exact)
            e = np.exp(z - z.max(axis=1, keepdims=True))
            probs[rows] = to_viewer_frame(e / e.sum(axis=1, keepdims=True), maker)
        return BeliefResult(probs)

    def relative(self, obs: np.ndarray, public: np.ndarray | bool = False) -> np.ndarray:
        """``from_observations(obs, public=public).probs``: the view's frame (module docstring)."""
        return self.from_observations(obs, public=public).probs

    def belief(self, state: State, viewer: np.ndarray | int) -> np.ndarray:
        """The belief of ``viewer`` (a seat or ``PUBLIC``) at each table: ``(B, P + 1)`` absolute seats."""
        return self(state, self.rules, viewer).probs

    def save(self, path: str | Path) -> Path:
        """Write weights and config atomically (a temporary file, then a rename)."""
        return write_model_file(path, self.net, self.config.to_json())


def _load(path: Path) -> tuple[Any, PartnerConfig]:
    """The classifier of a file: its sizes bounded and its tensor shapes checked before the network is built,
    so a crafted config cannot make loading allocate more than the file holds."""
    source = repr(str(path))
    text, shapes = read_model_header(path, "classifier")
    config = PartnerConfig.from_json(text, source=source)
    for key in ("hidden", "context"):
        sizes = getattr(config, key)
        if len(sizes) > MAX_HIDDEN_LAYERS:
            raise ValueError(f"{source}: at most {MAX_HIDDEN_LAYERS} {key} layers, got {len(sizes)}")
        for i, size in enumerate(sizes):
            if size > MAX_LAYER_SIZE:
                raise ValueError(f"{source}: {key!r}[{i}] must be from 1 to {MAX_LAYER_SIZE}, got {size}")
    expected = {}
    for part, sizes in _layer_sizes(config).items():
        for i in range(len(sizes) - 1):
            at = f"{part}.0.{2 * i}" if part == "context" else f"{part}.{2 * i}"
            expected[f"{at}.weight"] = (sizes[i + 1], sizes[i])
            expected[f"{at}.bias"] = (sizes[i + 1],)
    got = {k: tuple(int(n) for n in v) for k, v in shapes.items()}
    if got != expected:
        differ = sorted(k for k in {*expected, *got} if expected.get(k) != got.get(k))
        raise ValueError(
            f"{source}: tensors do not match the classifier of its config ('hidden' {config.hidden}, "
            f"'context' {config.context}): {', '.join(differ[:5])} differ"
        )
    _, tensors = read_model_file(path, "classifier")
    return load_weights(build_classifier(config), tensors, source), config
