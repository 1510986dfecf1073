"""Policy networks saved as data, and ``NeuralAgent``: such a file as an agent.

A model file is one ``.safetensors`` file: the actor's weights as named
float32 tensors, and a JSON config in the file's metadata (key
``"euchre_env"``) that says how to rebuild the network from the known
classes of this module. Loading one never runs code from the file (no
pickle): a file with unknown keys, wrong shapes or a config of another
format is refused with a ``ValueError`` that says what is wrong. The
config's sizes are checked (integers up to ``MAX_LAYER_SIZE``, equal to the
shapes of the file's tensors, read without loading them) before any network
is built, so a file cannot make loading allocate more than it holds.

The config (``PolicyConfig.to_json``)::

    {"format": "euchre-env-policy", "version": 1,
     "rules": {"variant": "four_handed", "stick_the_dealer": true, ...},
     "obs_size": 636, "num_actions": 93, "hidden": [256, 256], "activation": "relu",
     "provenance": {"command": "...", "seed": 1, "commit": "...", "decisions": ...}}

The network is an MLP: ``obs (B, obs_size) -> hidden layers -> logits (B, 93)``.
With ``"features"`` its input is more than the observation, computed from it
before the network (:func:`network_input`): ``"derived"`` appends the card
sets :func:`euchre_env.derived.derived_card_sets` works out (unseen cards,
where each may be, the trick's state); ``"partner"`` (five-handed) the
rules-only belief over the maker's hidden partner
(:class:`euchre_env.beliefs.ExactBelief`, ``P + 1`` columns);
``"derived+partner"`` both.
A policy may build on a rule-based agent (``"prior": "heuristic"``): that
agent's choice gets ``prior_weight`` added to its logit, so an untrained
network plays as the agent and training learns where to depart from it.
Illegal actions are masked out before choosing, so the agent only takes
legal actions::

    from agents import make_agent
    bot = make_agent("model:runs/demo/model.safetensors", rules)
    bot = make_agent("model:four_handed", rules)      # a shipped model

Torch threads: these networks are small, and on a busy machine torch's default
of one thread per core is far slower than one thread (a user test found
notebook 3's training 20x slower on two cores; a forward pass of 64 decisions
measured about 10x slower with other work on the cores). So when an agent of this package is the first to import
torch in a process, it sets one thread (``import_torch``), unless
``OMP_NUM_THREADS`` or ``MKL_NUM_THREADS`` is set. A count chosen before (torch
imported and ``torch.set_num_threads`` called first, as ``euchre train`` does)
or after is never changed.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, LogitAgent
from euchre_env.actions import DISCARD_BASE, NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig, make_rules

__all__ = [
    "FORMAT",
    "NeuralAgent",
    "PolicyConfig",
    "build_mlp",
    "load_policy",
    "network_input",
    "partner_columns",
    "rules_from_metadata",
    "rules_metadata",
    "save_policy",
]

FORMAT = "euchre-env-policy"
VERSION = 1
META_KEY = "euchre_env"
ACTIVATIONS = ("relu", "tanh")
FEATURES = ("", "derived", "partner", "derived+partner")  # what a network sees besides the observation (network_input)
PRIORS = ("heuristic",)  # agents a policy may build on (rule-based, deterministic, observation-only)
_SETTINGS = ("stick_the_dealer", "defend_alone", "points_to_win")
# Limits on what a model file's config may declare, checked before any network is built: no layer (nor the
# observation) wider than MAX_LAYER_SIZE, at most MAX_HIDDEN_LAYERS hidden layers. The config's sizes must
# also equal the shapes of the file's tensors (check_tensor_shapes), so a network is never larger than its file.
MAX_LAYER_SIZE = 1 << 16
MAX_HIDDEN_LAYERS = 64


def rules_metadata(rules: RulesConfig) -> dict[str, Any]:
    """The JSON-able description of ``rules`` stored with a model."""
    return {"variant": rules.variant, **{k: getattr(rules, k) for k in _SETTINGS}, "episode": rules.episode}


def rules_from_metadata(meta: dict[str, Any]) -> RulesConfig:
    """``RulesConfig`` (one-hand episodes) back from :func:`rules_metadata`."""
    if not isinstance(meta, dict) or "variant" not in meta:
        raise ValueError(f"model rules must be a dict with a 'variant', got {meta!r}")
    return make_rules(meta["variant"], **{k: meta[k] for k in _SETTINGS if k in meta})


@dataclass
class PolicyConfig:
    """What a model file's network is and where it came from (its JSON metadata)."""

    rules: dict[str, Any]
    obs_size: int
    hidden: list[int]
    activation: str = "relu"
    num_actions: int = NUM_ACTIONS
    provenance: dict[str, Any] = field(default_factory=dict)
    prior: str = ""  # "" or an agent of PRIORS whose choice gets prior_weight added to its logit
    prior_weight: float = 0.0
    # the weight at every decision but trick play (bidding, discard, partner call, alone); None: prior_weight
    prior_weight_bidding: float | None = None
    # the network sees each deal with its trump (else the upcard's suit) as suit 0: agents.suit_symmetry
    suit_symmetry: bool = False
    # with suit_symmetry: the other colour's two suits also ordered by their cards (agents.suit_symmetry)
    sort_other_colour: bool = False
    # "" (the observation alone), "derived" (followed by euchre_env.derived's card sets), "partner" (the
    # counted partner belief), "derived+partner": network_input
    features: str = ""

    def prior_weights(self, choice: np.ndarray) -> np.ndarray:
        """float32 (B,): the weight added at each row's prior choice ``choice`` (B,) (action ids)."""
        bidding = self.prior_weight if self.prior_weight_bidding is None else self.prior_weight_bidding
        return np.where(np.asarray(choice) < DISCARD_BASE, self.prior_weight, bidding).astype(np.float32)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "version": VERSION, **asdict(self)}, sort_keys=True)

    @staticmethod
    def from_json(text: str, source: str = "model") -> PolicyConfig:
        """Parse and check a config; raises ``ValueError`` naming the bad field."""
        try:
            d = json.loads(text)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{source}: its config is not JSON ({err})") from None
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            got = d.get("format") if isinstance(d, dict) else type(d).__name__
            raise ValueError(f"{source}: not a euchre-env policy (format must be {FORMAT!r}, got {got!r})")
        if d.get("version") != VERSION:
            raise ValueError(f"{source}: policy format version {d.get('version')!r} is not {VERSION}")
        hidden = d.get("hidden")
        if not isinstance(hidden, list) or not hidden or len(hidden) > MAX_HIDDEN_LAYERS:
            got = f"{len(hidden)} entries: {_shown(hidden)}" if isinstance(hidden, list) else _shown(hidden)
            raise ValueError(
                f"{source}: 'hidden' must be a non-empty list of at most {MAX_HIDDEN_LAYERS} layer sizes, got {got}"
            )
        for i, h in enumerate(hidden):
            _check_size(source, f"'hidden'[{i}]", h)
        if d.get("activation") not in ACTIVATIONS:
            raise ValueError(
                f"{source}: 'activation' must be one of {ACTIVATIONS}, got {_shown(d.get('activation'))}"
            )
        _check_size(source, "'obs_size'", d.get("obs_size"))
        if not _pos_int(d.get("num_actions")) or d.get("num_actions") != NUM_ACTIONS:
            raise ValueError(
                f"{source}: expected 'num_actions' {NUM_ACTIONS} (the action ids of euchre_env.actions), "
                f"got {_shown(d.get('num_actions'))}"
            )
        provenance = d.get("provenance", {})
        if not isinstance(provenance, dict):
            raise ValueError(f"{source}: 'provenance' must be a dict, got {type(provenance).__name__}")
        rules_from_metadata(d.get("rules"))  # raises for unknown variants or settings
        prior, weight = d.get("prior", ""), d.get("prior_weight", 0.0)
        bidding = d.get("prior_weight_bidding")
        number = lambda w: isinstance(w, (int, float)) and not isinstance(w, bool)
        if prior not in ("", *PRIORS) or not number(weight) or not (bidding is None or number(bidding)):
            raise ValueError(
                f"{source}: 'prior' must be '' or one of {PRIORS}, 'prior_weight' a number and "
                f"'prior_weight_bidding' a number or null, got {prior!r}, {weight!r} and {bidding!r}"
            )
        symmetry = d.get("suit_symmetry", False)  # files written before it existed: False
        if not isinstance(symmetry, bool):
            raise ValueError(f"{source}: 'suit_symmetry' must be true or false, got {symmetry!r}")
        sort_other = d.get("sort_other_colour", False)  # files written before it existed: False
        if not isinstance(sort_other, bool) or (sort_other and not symmetry):
            raise ValueError(
                f"{source}: 'sort_other_colour' must be true or false, and true only with 'suit_symmetry', "
                f"got {sort_other!r} with 'suit_symmetry' {symmetry!r}"
            )
        features = d.get("features", "")  # files written before it existed: ""
        if features not in FEATURES:
            raise ValueError(f"{source}: 'features' must be one of {FEATURES}, got {features!r}")
        if "partner" in features and d["rules"].get("variant") != "five_handed":
            raise ValueError(f"{source}: 'features' {features!r} needs five_handed rules (the hidden partner), "
                             f"got {d['rules'].get('variant')!r}")  # fmt: skip
        return PolicyConfig(
            rules=d["rules"], obs_size=d["obs_size"], hidden=list(hidden), activation=d["activation"],
            num_actions=d["num_actions"], provenance=provenance, prior=prior, prior_weight=float(weight),
            prior_weight_bidding=None if bidding is None else float(bidding), suit_symmetry=symmetry,
            sort_other_colour=sort_other, features=features,
        )  # fmt: skip


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def import_torch() -> Any:
    """``import torch``, choosing one torch thread if this is the process's first import of torch.

    Only then, and only when neither ``OMP_NUM_THREADS`` nor ``MKL_NUM_THREADS``
    is set: nobody can have chosen a thread count yet. A later
    ``torch.set_num_threads(n)`` wins as usual.
    """
    first = "torch" not in sys.modules
    import torch

    if first and not any(os.environ.get(v) for v in THREAD_VARIABLES):
        torch.set_num_threads(1)
    return torch


def _pos_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x > 0


def _shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, shortened to about ``limit`` characters for error messages."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        return f"an integer of more than {sys.get_int_max_str_digits()} digits"
    return text if len(text) <= limit else f"{text[: limit - 20]}...{text[-10:]} ({len(text)} characters)"


def _check_size(source: str, name: str, value: Any) -> None:
    """A layer size from a config: an int from 1 to ``MAX_LAYER_SIZE``, else a ValueError naming it."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{source}: {name} must be an integer, got {_shown(value)} ({type(value).__name__})")
    if not 1 <= value <= MAX_LAYER_SIZE:
        raise ValueError(f"{source}: {name} must be from 1 to {MAX_LAYER_SIZE}, got {_shown(value)}")


def expected_shapes(config: PolicyConfig) -> dict[str, tuple[int, ...]]:
    """The tensor shapes of the actor ``config`` describes (``actor_for(config).state_dict()``), worked out
    without building it."""
    from euchre_env.encoding import CARD_SLOTS

    rules = rules_from_metadata(config.rules)
    extra = extra_card_sets(config.features, rules)
    sizes = [config.obs_size + extra_columns(config.features, rules) + CARD_SLOTS * extra, *config.hidden,
             config.num_actions]  # fmt: skip
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(len(sizes) - 1):
        shapes[f"{2 * i}.weight"] = (sizes[i + 1], sizes[i])
        shapes[f"{2 * i}.bias"] = (sizes[i + 1],)
    return shapes


def check_tensor_shapes(config: PolicyConfig, shapes: dict[str, tuple[int, ...]], source: str) -> None:
    """Check a model file's tensor shapes (name -> shape, read without loading) against its config.

    Done before the network is built, so a config that declares a bigger network than its file holds is
    refused without allocating it.

    Raises:
        ValueError: a tensor is missing, extra or of another shape than the config's network (the
            message names the config's sizes and the differing tensors), or an observation size that
            a suit-symmetric or ``features`` network cannot take.
    """
    expected = expected_shapes(config)
    got = {k: tuple(int(n) for n in v) for k, v in shapes.items()}
    if expected != got:
        missing = [k for k in expected if k not in got]
        extra = sorted(k for k in got if k not in expected)
        wrong = [f"{k!r} is {got[k]} in the file, {expected[k]} by the config"
                 for k in expected if k in got and got[k] != expected[k]]  # fmt: skip
        parts = [
            *([f"tensors {_listed(missing)} are missing"] if missing else []),
            *([f"tensors {_listed(extra)} are not part of it"] if extra else []),
            *wrong[:3],
            *([f"and {len(wrong) - 3} more differ"] if len(wrong) > 3 else []),
        ]
        raise ValueError(
            f"{source}: tensors do not match the network of its config ('obs_size' {config.obs_size}, "
            f"'hidden' {_shown(config.hidden)}, 'features' {config.features!r}, 'num_actions' "
            f"{config.num_actions}): {'; '.join(parts)}"
        )
    if config.suit_symmetry or config.features:
        rules = rules_from_metadata(config.rules)
        size = obs_layout(rules).size
        if config.obs_size != size:
            raise ValueError(
                f"{source}: 'obs_size' {config.obs_size} is not the observation size {size} of its rules "
                f"({rules.variant}, points_to_win={rules.points_to_win}), which a network with "
                f"'suit_symmetry' or 'features' needs"
            )


def _listed(names: list[str], limit: int = 6) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return f"[{shown}{f', ... ({len(names)} in all)' if len(names) > limit else ''}]"


def build_mlp(sizes: list[int], activation: str = "relu") -> Any:
    """``torch.nn.Sequential``: Linear layers of ``sizes`` with ``activation`` between them (none at the end)."""
    torch = import_torch()

    act = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[activation]
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(act())
    return torch.nn.Sequential(*layers)


def extra_card_sets(features: str, rules: RulesConfig) -> int:
    """Card sets ``features`` appends to the observation (``CARD_SLOTS`` entries each)."""
    from euchre_env.derived import num_derived_sets

    return num_derived_sets(rules) if "derived" in features.split("+") else 0


def extra_columns(features: str, rules: RulesConfig) -> int:
    """Columns ``features`` puts between the observation and its card sets: ``P + 1`` for ``"partner"`` (the
    five-handed game only; ``ValueError`` for four-handed rules), else 0."""
    if "partner" not in features.split("+"):
        return 0
    if rules.variant != "five_handed":
        raise ValueError(f"features {features!r}: 'partner' is the five-handed game's hidden partner, "
                         f"got {rules.variant} rules (partners there sit opposite)")  # fmt: skip
    return rules.num_players + 1


def partner_columns(obs: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """float32 (B, P + 1): each (B, D) observation's counted belief over the maker's partner
    (:class:`euchre_env.beliefs.ExactBelief`: column ``r`` relative seat ``r``, then "no partner"), 0 before the
    maker has declared."""
    from euchre_env.beliefs import ExactBelief

    probs = ExactBelief().from_observations(obs, rules, np.zeros(len(obs), bool)).probs
    return np.nan_to_num(probs, nan=0.0).astype(np.float32)


def network_input(obs: np.ndarray, features: str, rules: RulesConfig, partner: np.ndarray | None = None) -> np.ndarray:
    """What a network with ``features`` sees: (B, D) observations, then (``"partner"``) their partner
    belief's ``P + 1`` columns, then (``"derived"``) their derived card sets.

    ``partner`` (B, P + 1), when given, is :func:`partner_columns` of ``obs`` already worked out (the trainer keeps
    the rollout's). Returns ``obs`` itself for ``features == ""``, else a new array: ``obs``'s dtype, float32 with
    ``"partner"``.
    """
    if not features:
        return obs
    parts = features.split("+")
    out = [obs]
    if "partner" in parts:
        extra_columns(features, rules)  # the variant check
        out = [obs.astype(np.float32, copy=False), partner_columns(obs, rules) if partner is None else partner]
    if "derived" in parts:
        from euchre_env.derived import derived_card_sets

        out.append(derived_card_sets(obs, rules).astype(out[0].dtype, copy=False))
    return np.concatenate(out, axis=1)


def actor_for(config: PolicyConfig) -> Any:
    """The actor network a config describes (weights freshly initialised)."""
    from euchre_env.encoding import CARD_SLOTS

    rules = rules_from_metadata(config.rules)
    extra, cols = extra_card_sets(config.features, rules), extra_columns(config.features, rules)
    mlp = build_mlp(
        [config.obs_size + cols + CARD_SLOTS * extra, *config.hidden, config.num_actions], config.activation
    )
    if not config.suit_symmetry:
        return mlp
    from agents.suit_symmetry import SuitSymmetric

    return SuitSymmetric(mlp, rules, extra, sort_other_colour=config.sort_other_colour, extra_columns=cols)


def prior_agent(config: PolicyConfig, rules: RulesConfig) -> Agent | None:
    """The agent a policy builds on (``config.prior``), or None."""
    if not config.prior:
        return None
    from agents.heuristic import HeuristicAgent

    return {"heuristic": HeuristicAgent}[config.prior](rules)


def save_policy(path: str | Path, actor: Any, config: PolicyConfig) -> Path:
    """Write ``actor``'s weights and ``config`` to ``path`` atomically (a temporary file, then a rename)."""
    return write_model_file(path, actor, config.to_json())


def write_model_file(path: str | Path, module: Any, config_json: str) -> Path:
    """A module's weights (CPU tensors) and a JSON config as one safetensors file, written atomically."""
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().to("cpu", copy=True).contiguous() for k, v in module.state_dict().items()}
    tmp = path.with_name(path.name + ".tmp")
    save_file(tensors, str(tmp), metadata={META_KEY: config_json})
    tmp.chmod(0o644)  # safetensors creates its files readable by the owner only
    tmp.replace(path)
    return path


def read_model_header(path: str | Path, what: str = "model") -> tuple[str, dict[str, tuple[int, ...]]]:
    """``(config JSON, tensor shapes)`` of a file written by :func:`write_model_file`, loading no tensor.

    Raises:
        ValueError: the file is missing, not a safetensors file, has no config,
            or holds tensors that are not float32.
    """
    return _read(path, what, load=False)  # type: ignore[return-value]


def read_model_file(path: str | Path, what: str = "model") -> tuple[str, dict[str, Any]]:
    """``(config JSON, tensors)`` of a file written by :func:`write_model_file`; never runs code from it.

    Raises:
        ValueError: the file is missing, not a safetensors file, or has no config.
    """
    return _read(path, what, load=True)


def _read(path: str | Path, what: str, load: bool) -> tuple[str, dict[str, Any]]:
    """The config and the tensors (``load``) or their shapes (not ``load``: nothing is loaded)."""
    import_torch()
    from safetensors import SafetensorError, safe_open

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} file {str(path)!r} does not exist")
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            names = list(f.keys())
            if load:
                tensors = {k: f.get_tensor(k) for k in names}
            else:
                slices = {k: f.get_slice(k) for k in names}
                tensors = {k: tuple(v.get_shape()) for k, v in slices.items()}
                dtypes = {k: v.get_dtype() for k, v in slices.items()}
    except (SafetensorError, OSError, ValueError) as err:
        raise ValueError(f"{str(path)!r} is not a safetensors {what} file ({err})") from None
    if META_KEY not in meta:
        raise ValueError(f"{str(path)!r} has no {META_KEY!r} config in its metadata: not a euchre-env {what}")
    if not load and any(d != "F32" for d in dtypes.values()):
        raise ValueError(f"{str(path)!r}: every tensor must be float32, got {sorted(set(dtypes.values()))}")
    return meta[META_KEY], tensors


def load_weights(module: Any, tensors: dict[str, Any], source: str) -> Any:
    """Load float32 ``tensors`` into ``module`` (eval mode) if their names and shapes are exactly its own."""
    torch = import_torch()
    expected = {k: tuple(v.shape) for k, v in module.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in tensors.items()}
    if expected != got:
        raise ValueError(f"{source}: tensors {got} do not match the network of its config {expected}")
    if any(v.dtype != torch.float32 for v in tensors.values()):
        raise ValueError(f"{source}: every tensor must be float32")
    module.load_state_dict(tensors)
    return module.eval()


def load_policy(path: str | Path) -> tuple[Any, PolicyConfig]:
    """``(actor module in eval mode on the CPU, config)`` from a model file; never runs code from it.

    Raises:
        ValueError: the file is missing, not a safetensors file, or its config
            or tensors do not describe a policy of this library. The config's
            sizes are checked against the file's tensor shapes (read without
            loading them) before any network is built.
    """
    source = repr(str(path))
    text, shapes = read_model_header(path)  # sizes are checked before anything is built or loaded
    config = PolicyConfig.from_json(text, source=source)
    check_tensor_shapes(config, shapes, source)
    _, tensors = read_model_file(path)
    check_tensor_shapes(config, {k: tuple(v.shape) for k, v in tensors.items()}, source)
    return load_weights(actor_for(config), tensors, source), config


class NeuralAgent(LogitAgent):
    """A policy network acting on masked logits.

    Args:
        model: a model file's path, or ``(actor, config)`` (an actor module is
            used as is, not copied: a trainer's live actor stays current).
        rules: the rules to play; default: the rules stored in the model.
        deterministic: True (default) takes the most likely legal action;
            False samples from the masked softmax with ``rng``.
        name: label for reports.

    Raises:
        ValueError: the model was trained for another variant, or its
            observation size does not match ``rules``.
    """

    name = "model"

    def __init__(
        self,
        model: str | Path | tuple[Any, PolicyConfig],
        rules: RulesConfig | None = None,
        *,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        actor, config = load_policy(model) if isinstance(model, (str, Path)) else model
        rules = rules if rules is not None else rules_from_metadata(config.rules)
        super().__init__(rules)
        if config.rules.get("variant") != rules.variant:
            raise ValueError(
                f"the model was trained for {config.rules.get('variant')!r}, not {rules.variant!r}"
            )
        size = obs_layout(rules).size
        if config.obs_size != size:
            raise ValueError(
                f"the model takes observations of size {config.obs_size}, but {rules.variant} with "
                f"points_to_win={rules.points_to_win} encodes {size} (train and play with the same settings)"
            )
        self.actor, self.config, self.deterministic = actor, config, bool(deterministic)
        # A model trained on single hands only ever saw zero running scores: hide them in games too.
        hand_only = config.rules.get("episode", "hand") == "hand"
        self._hidden = obs_layout(rules).slice("scores") if hand_only else None
        self._prior = prior_agent(config, rules)
        if name is not None:
            self.name = name

    def frozen(self, *, deterministic: bool | None = None, name: str | None = None) -> NeuralAgent:
        """A copy with its own weights, unaffected by later training of this agent's actor."""
        det = self.deterministic if deterministic is None else deterministic
        actor = copy.deepcopy(self.actor).to("cpu").eval()
        return NeuralAgent((actor, self.config), self.rules, deterministic=det, name=name or self.name)

    def logits(self, observations: np.ndarray, action_masks: np.ndarray | None = None) -> np.ndarray:
        """Unmasked action logits, float32 (B, A), for (B, D) observations.

        A model with a ``prior`` adds ``prior_weight`` (``prior_weight_bidding``
        outside trick play, when set) to the logit of the prior agent's choice,
        which needs the (B, A) bool ``action_masks``.
        """
        torch = import_torch()

        x = np.asarray(observations, np.float32)
        if self._hidden is not None and x[:, self._hidden].any():
            x = x.copy()
            x[:, self._hidden] = 0.0
        x = network_input(x, self.config.features, self.rules)
        device = next(self.actor.parameters()).device
        with torch.no_grad():
            out = self.actor(torch.as_tensor(x, device=device)).cpu().numpy().astype(np.float32, copy=False)
        if self._prior is not None:
            if action_masks is None:
                raise ValueError(
                    f"this model builds on the {self.config.prior} agent: logits() needs action_masks"
                )
            choice = self._prior.act(observations, action_masks, np.random.default_rng(0))
            out[np.arange(len(out)), choice] += self.config.prior_weights(choice)
        return out

    def scores(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The logits (see :meth:`logits`); ``act`` takes the best legal one (``LogitAgent``)."""
        return self.logits(observations, action_masks)

    def __repr__(self) -> str:
        return f"NeuralAgent({self.rules.variant!r}, hidden={self.config.hidden})"
