"""``SB3Policy``: a saved (Maskable)PPO model as an agent, loaded without running code from it.

Any model saved by ``training.sb3.train`` (or any stable-baselines3 actor-critic
zip whose observations are ``encoding.encode`` vectors and whose actions are
the 93 action ids) becomes a :class:`euchre_env.types.Policy`: an opponent in
the environments, an entrant of ``arena.evaluate`` and a partner in
``euchre play``. Illegal actions are masked out before choosing, so the agent
only ever takes legal actions::

    from agents import make_agent
    bot = make_agent("model:runs/demo/model.safetensors", rules)  # a saved run (data only)
    bot = make_agent("model:runs/demo/model.zip", rules)          # its SB3 zip, read as data too
    bot = make_agent("model:four_handed", rules)                  # a shipped model
    bot = make_agent("trained", rules)                            # the shipped model of rules.variant

``make_agent("model:<file>")`` picks the loader by file: a ``.safetensors``
file is an :class:`agents.neural.NeuralAgent`, a ``.zip`` an ``SB3Policy``.
Shipped models live in ``agents/models/<variant>.safetensors``.

Loading an SB3 zip by path never unpickles anything (SB3's own loader
unpickles parts of the zip, which can run any code a crafted file holds):
``policy.pth`` is read with ``torch.load(weights_only=True)``, the ``data``
entry as plain JSON, and the policy is rebuilt from known classes: an MLP
actor-critic (``MlpPolicy`` of PPO or MaskablePPO) whose layer sizes come
from the tensor shapes and whose activation (ReLU or Tanh) is read, not run,
from the pickled ``policy_kwargs`` (``pickletools``). Anything else is
refused with a ``ValueError``. ``SB3Policy(path, trust=True)`` (or
``make_agent("model:<zip>", rules, trust=True)``) uses SB3's full loader
instead: it RUNS CODE FROM THE FILE, so use it only for files you trust.

A model remembers the rules it was trained under (``model.euchre_rules``,
written by ``training.sb3.train``); loading it for other rules raises ``ValueError``.
:func:`convert_to_safetensors` turns a zip's actor into a ``.safetensors`` file.

Torch and stable-baselines3 (the ``train`` extra) are imported on first use,
so importing this module is cheap.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, LogitAgent
from agents.neural import NeuralAgent, PolicyConfig, build_mlp, import_torch, load_policy, save_policy
from agents.neural import rules_from_metadata as _rules_from_metadata
from agents.neural import rules_metadata as _rules_metadata
from agents.sb3_zip import SB3Zip, pickle_globals, read_sb3_zip
from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig

__all__ = [
    "MODELS_DIR",
    "SB3Policy",
    "SB3Zip",
    "convert_to_safetensors",
    "load_actor_into",
    "load_model_agent",
    "mlp_to_sb3_actor",
    "pickle_globals",
    "read_sb3_zip",
    "register",
    "resolve_model_path",
    "rules_metadata",
    "sb3_actor_to_mlp",
]

MODELS_DIR = Path(__file__).resolve().parent / "models"
MODEL_SUFFIXES = (".safetensors", ".zip")  # in order of preference

# Policy classes the safe loader rebuilds, by the (module, name) their pickle imports.
# Names a pickled ``policy_kwargs`` may import: the activation, and what does not change the network.


def rules_metadata(rules: RulesConfig) -> dict[str, Any]:
    """The JSON-able description of ``rules`` stored in a model (``model.euchre_rules``)."""
    return _rules_metadata(rules)


def rules_from_metadata(meta: dict[str, Any]) -> RulesConfig:
    """``RulesConfig`` (one-hand episodes) back from :func:`rules_metadata`."""
    return _rules_from_metadata(meta)


def resolve_model_path(name: str | Path, rules: RulesConfig | None = None) -> Path:
    """The model file a model name refers to.

    Args:
        name: a path (with or without ``.safetensors`` / ``.zip``), the name
            of a shipped model (``"four_handed"``, ``"five_handed"``), or ``""``
            for the shipped model of ``rules.variant``. Without a suffix a
            ``.safetensors`` file is preferred to a ``.zip``.
        rules: needed only for ``""``.

    Raises:
        ValueError: nothing matches (the message lists each path tried once,
            the accepted forms and the shipped models).
    """
    text = str(name)
    if not text:
        if rules is None:
            raise ValueError("an empty model name means the shipped model of the rules' variant: pass rules")
        text = rules.variant
    candidates = _model_candidates(text)
    for path in candidates:
        if path.is_file():
            return path
    shipped = sorted(p.name for s in MODEL_SUFFIXES for p in MODELS_DIR.glob(f"*{s}"))
    names = sorted({Path(n).stem for n in shipped})
    raise ValueError(
        f"no model file {text!r} (tried {', '.join(str(p) for p in candidates)}). A model is a path to a "
        f".safetensors file or a stable-baselines3 .zip, such a path without its suffix, or the name of a "
        f"shipped model ({', '.join(names) or 'none'}); shipped models: {shipped} in {MODELS_DIR}"
    )


def _model_candidates(text: str) -> list[Path]:
    """The distinct paths ``text`` may name, in order: as given, then with each suffix (unless it
    already ends with one), then the same in the shipped models' folder (a bare name only)."""
    has_suffix = Path(text).suffix.lower() in MODEL_SUFFIXES
    spellings = [text] if has_suffix else [text, *(text + s for s in MODEL_SUFFIXES)]
    candidates = [Path(s) for s in spellings]
    if Path(text).name == text:  # a bare name may be a shipped model
        candidates += [MODELS_DIR / s for s in spellings]
    out: list[Path] = []
    for path in candidates:
        if path not in out:
            out.append(path)
    return out


# ----------------------------------------------------------------------------------------------
# Rebuilding a policy from known classes


def _check_fits(meta: dict[str, Any] | None, rules: RulesConfig, n_obs: int) -> None:
    """Raise ``ValueError`` if a model of rules ``meta`` taking ``n_obs`` observations cannot play ``rules``."""
    if meta is not None and meta.get("variant") != rules.variant:
        raise ValueError(f"the model was trained for {meta.get('variant')!r}, not for {rules.variant!r}")
    size = obs_layout(rules).size
    if n_obs != size:
        raise ValueError(
            f"the model takes observations of size {n_obs}, but {rules.variant} with points_to_win="
            f"{rules.points_to_win} encodes {size} (train and play with the same settings)"
        )


def _rules_for(meta: dict[str, Any] | None, rules: RulesConfig | None) -> RulesConfig:
    """``rules`` if given, else the rules the model records."""
    if rules is not None:
        return rules
    if meta is None:
        raise ValueError("this model does not record its rules (model.euchre_rules): pass rules")
    return rules_from_metadata(meta)


def _build_policy(parts: SB3Zip, rules: RulesConfig, where: str) -> Any:
    """The policy module of ``parts`` (CPU, eval mode), its spaces from ``rules``; shapes must match."""
    torch = import_torch()
    from gymnasium import spaces

    _check_fits(parts.meta, rules, parts.obs_size)
    if parts.policy_class == "maskable":
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy as cls
    else:
        from stable_baselines3.common.policies import ActorCriticPolicy as cls
    act = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[parts.activation]
    obs_space = spaces.Box(0.0, 1.0, (obs_layout(rules).size,), np.float32)
    policy = cls(
        obs_space, spaces.Discrete(NUM_ACTIONS), _zero_schedule,
        net_arch={"pi": list(parts.pi), "vf": list(parts.vf)}, activation_fn=act,
    )  # fmt: skip
    expected = {k: tuple(v.shape) for k, v in policy.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in parts.state.items()}
    if expected != got:
        wrong = {k: f"{got.get(k)} (expected {expected.get(k)})" for k in sorted({*expected, *got})
                 if got.get(k) != expected.get(k)}  # fmt: skip
        raise ValueError(
            f"{where}: tensor shapes do not fit an MLP policy with {NUM_ACTIONS} actions: {wrong}"
        )
    policy.load_state_dict(parts.state)
    policy.set_training_mode(False)
    return policy


def _load_safe(path: Path, rules: RulesConfig | None) -> tuple[Any, dict[str, Any] | None]:
    """``(policy, rules metadata)`` from an SB3 zip, read as data (see :func:`read_sb3_zip`)."""
    parts = read_sb3_zip(path)
    return _build_policy(parts, _rules_for(parts.meta, rules), repr(str(path))), parts.meta


def _load_trusted(path: Path) -> tuple[Any, dict[str, Any] | None]:
    """SB3's own loader: unpickles the zip's data, RUNNING ANY CODE IN IT. Only for trusted files."""
    import copy

    from stable_baselines3.common.save_util import load_from_zip_file

    if not path.is_file():
        raise ValueError(f"model file {str(path)!r} does not exist")
    data, params, _ = load_from_zip_file(path, device="cpu", print_system_info=False)
    if not data or "policy" not in params:
        raise ValueError(f"{str(path)!r} is not a stable-baselines3 model zip (no policy in it)")
    kwargs = copy.copy(data.get("policy_kwargs") or {})
    policy = data["policy_class"](data["observation_space"], data["action_space"], _zero_schedule, **kwargs)
    policy.load_state_dict(params["policy"])
    policy.set_training_mode(False)
    return policy, data.get("euchre_rules")


def _zero_schedule(_: float) -> float:
    return 0.0


# ----------------------------------------------------------------------------------------------
# The agent


class SB3Policy(LogitAgent):
    """An SB3 actor-critic policy acting on masked logits.

    Args:
        model: a path to a saved model zip (read as data, see the module
            docstring), a loaded SB3 algorithm (its ``.policy`` is used) or an
            SB3 ``ActorCriticPolicy`` module. A module is used as is (not
            copied): a learner's live policy stays current; pass
            ``copy.deepcopy(policy)`` for a frozen snapshot.
        rules: the rules to play; default: the rules stored in the model.
        deterministic: True (default) takes the most likely legal action;
            False samples from the masked action distribution with ``rng``.
        name: label for reports.
        trust: load a path with stable-baselines3's own loader, which
            unpickles the file and so RUNS CODE FROM IT (only for files you
            trust, e.g. policies with custom classes the safe loader refuses).

    Raises:
        ValueError: the model's observation size or rules do not match ``rules``,
            its action space is not ``Discrete(93)``, or a file is not a model
            the safe loader can read.
    """

    name = "model"

    def __init__(
        self,
        model: Any,
        rules: RulesConfig | None = None,
        *,
        deterministic: bool = True,
        name: str | None = None,
        trust: bool = False,
    ) -> None:
        policy, meta = _policy_of(model, rules, trust)
        rules = _rules_for(meta, rules)
        super().__init__(rules)
        _check_fits(meta, rules, int(np.prod(policy.observation_space.shape)))
        if getattr(policy.action_space, "n", None) != NUM_ACTIONS:
            raise ValueError(
                f"the model's action space must be Discrete({NUM_ACTIONS}), got {policy.action_space}"
            )
        self.policy = policy
        self.deterministic = bool(deterministic)
        self.metadata = meta
        # A model trained on single hands only ever saw zero running scores: hide them in games too.
        hand_only = meta is not None and meta.get("episode", "hand") == "hand"
        self._hidden = obs_layout(rules).slice("scores") if hand_only else None
        if name is not None:
            self.name = name

    def frozen(self, *, deterministic: bool | None = None, name: str | None = None) -> SB3Policy:
        """A copy with its own weights, unaffected by later training of this policy's module."""
        policy = self.policy
        clone = type(policy)(**policy._get_constructor_parameters()).to(policy.device)
        clone.load_state_dict(policy.state_dict())
        clone.set_training_mode(False)
        out = SB3Policy(
            clone, self.rules, deterministic=self.deterministic if deterministic is None else deterministic
        )
        out.metadata, out.name, out._hidden = self.metadata, name or self.name, self._hidden
        return out

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Unmasked action logits, float32 (B, A), for (B, D) observations.

        A model trained on one-hand episodes (``euchre_rules["episode"] == "hand"``,
        as ``training.sb3.train`` trains) sees the ``scores`` piece as zeros, as in training.
        """
        torch = import_torch()

        policy = self.policy
        x = np.asarray(observations, np.float32)
        if self._hidden is not None and x[:, self._hidden].any():
            x = x.copy()
            x[:, self._hidden] = 0.0
        with torch.no_grad():
            obs = torch.as_tensor(x, device=policy.device)
            features = policy.extract_features(obs, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            return policy.action_net(latent).cpu().numpy().astype(np.float32, copy=False)

    def scores(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The logits (see :meth:`logits`); ``act`` takes the best legal one (``LogitAgent``)."""
        return self.logits(observations)

    def __repr__(self) -> str:
        return f"SB3Policy({self.rules.variant!r}, deterministic={self.deterministic})"


def _policy_of(model: Any, rules: RulesConfig | None, trust: bool) -> tuple[Any, dict[str, Any] | None]:
    """``(policy module, rules metadata or None)`` from a path, algorithm or policy."""
    if isinstance(model, (str, Path)):
        return _load_trusted(Path(model)) if trust else _load_safe(Path(model), rules)
    policy = getattr(model, "policy", model)
    needed = ("extract_features", "mlp_extractor", "action_net", "observation_space")
    if not all(hasattr(policy, attr) for attr in needed):
        raise ValueError(
            f"model must be a path, an SB3 actor-critic algorithm or its policy, got {type(model).__name__}"
        )
    return policy, getattr(model, "euchre_rules", None)


# ----------------------------------------------------------------------------------------------
# SB3 actor <-> safetensors MLP


def sb3_actor_to_mlp(state: dict[str, Any]) -> dict[str, Any]:
    """The actor of an SB3 ``MlpPolicy`` state dict under ``build_mlp`` keys.

    ``mlp_extractor.policy_net.{2i}.*`` -> ``{2i}.*`` and ``action_net.*`` ->
    ``{2n}.*`` for ``n`` hidden layers; the critic is dropped.
    """
    n = len([k for k in state if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")])
    out = {
        f"{2 * i}.{p}": state[f"mlp_extractor.policy_net.{2 * i}.{p}"]
        for i in range(n)
        for p in ("weight", "bias")
    }
    out.update({f"{2 * n}.{p}": state[f"action_net.{p}"] for p in ("weight", "bias")})
    return out


def mlp_to_sb3_actor(state: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`sb3_actor_to_mlp`: ``build_mlp`` keys -> SB3 actor keys."""
    n = len([k for k in state if k.endswith(".weight")]) - 1
    out = {
        f"mlp_extractor.policy_net.{2 * i}.{p}": state[f"{2 * i}.{p}"]
        for i in range(n)
        for p in ("weight", "bias")
    }
    out.update({f"action_net.{p}": state[f"{2 * n}.{p}"] for p in ("weight", "bias")})
    return out


def _activation_of(policy: Any) -> str:
    """``"relu"`` or ``"tanh"``: the activation of a live SB3 policy (ValueError for others)."""
    torch = import_torch()

    names = {torch.nn.ReLU: "relu", torch.nn.Tanh: "tanh"}
    act = getattr(policy, "activation_fn", None)
    if act not in names:
        raise ValueError(f"the policy's activation must be ReLU or Tanh for a safetensors model, got {act}")
    return names[act]


def convert_to_safetensors(
    zip_path: str | Path,
    out_path: str | Path,
    provenance: dict[str, Any] | None = None,
    *,
    rules: RulesConfig | None = None,
) -> Path:
    """Write the actor of an SB3 zip as a ``.safetensors`` model file (read safely, never unpickled).

    Args:
        zip_path: an SB3 ``MlpPolicy`` zip (as ``training.sb3.train`` writes).
        out_path: the ``.safetensors`` file to write (atomically).
        provenance: JSON-able notes stored in the config (where the model came from).
        rules: the model's rules when the zip does not record them (``euchre_rules``).

    Returns:
        ``out_path``. ``make_agent("model:<out_path>")`` then acts exactly as the zip did.

    Raises:
        ValueError: the zip is not a policy the safe loader reads, records no
            rules (and none are given), or its actor has no hidden layer.
    """
    where = repr(str(zip_path))
    parts = read_sb3_zip(zip_path)
    if parts.meta is None and rules is None:
        raise ValueError(f"{where} records no rules (euchre_rules): pass rules=")
    meta = dict(parts.meta) if parts.meta is not None else rules_metadata(rules)
    meta.setdefault("episode", "hand")  # what a model without the field was trained on
    policy = _build_policy(parts, _rules_for(meta, rules), where)  # checks every shape
    if not parts.pi:
        raise ValueError(f"{where}: the actor has no hidden layer; a safetensors policy needs at least one")
    config = PolicyConfig(
        rules=meta, obs_size=parts.obs_size, hidden=list(parts.pi), activation=parts.activation,
        provenance=dict(provenance or {}),
    )  # fmt: skip
    actor = build_mlp([parts.obs_size, *parts.pi, NUM_ACTIONS], parts.activation)
    actor.load_state_dict(sb3_actor_to_mlp(policy.state_dict()))
    return save_policy(out_path, actor, config)


def load_actor_into(policy: Any, path: str | Path, rules: RulesConfig) -> Any:
    """Copy a ``.safetensors`` actor into a live SB3 policy (``mlp_extractor.policy_net`` + ``action_net``).

    The critic keeps its weights. Returns ``policy``.

    Raises:
        ValueError: the model is for other rules, is suit-symmetric, or its
            layers or activation differ from the policy's (the message gives both).
    """
    actor, config = load_policy(path)
    where = repr(str(path))
    if config.rules.get("variant") != rules.variant:
        raise ValueError(f"{where} was trained for {config.rules.get('variant')!r}, not {rules.variant!r}")
    if config.suit_symmetry:
        raise ValueError(
            f"{where} is suit-symmetric (it relabels suits around its layers), which an SB3 MlpPolicy cannot "
            f"do: start from a model trained with euchre train --no-suit-symmetry"
        )
    if config.features:
        raise ValueError(
            f"{where} sees {config.features!r} features besides the observation, which an SB3 MlpPolicy cannot "
            f"compute: start from a model trained without --features"
        )
    ours = policy.state_dict()
    n = len([k for k in ours if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")])
    hidden = [int(ours[f"mlp_extractor.policy_net.{2 * i}.weight"].shape[0]) for i in range(n)]
    n_obs = int(np.prod(policy.observation_space.shape))
    if (config.obs_size, config.hidden) != (n_obs, hidden) or config.activation != _activation_of(policy):
        raise ValueError(
            f"{where}: its actor {config.obs_size}-{'-'.join(map(str, config.hidden))}-{NUM_ACTIONS} "
            f"({config.activation}) does not fit the policy's {n_obs}-{'-'.join(map(str, hidden))}-"
            f"{NUM_ACTIONS} ({_activation_of(policy)}): use the same --net-arch and --activation"
        )
    weights = mlp_to_sb3_actor(actor.state_dict())
    device = next(policy.parameters()).device
    policy.load_state_dict({**ours, **{k: v.to(device) for k, v in weights.items()}})
    return policy


# ----------------------------------------------------------------------------------------------
# make_agent hooks


def _is_zip(path: Path) -> bool:
    """True for an SB3 zip: by suffix, else by content (``.safetensors`` is never a zip)."""
    suffix = path.suffix.lower()
    if suffix in MODEL_SUFFIXES:
        return suffix == ".zip"
    return zipfile.is_zipfile(path)


def load_model_agent(model: str, rules: RulesConfig, *, trust: bool = False, **kwargs: Any) -> Agent:
    """Loader for ``make_agent("model:<model>", rules)``: a path or a shipped model name (see ``resolve_model_path``).

    A ``.safetensors`` file becomes a :class:`agents.neural.NeuralAgent`, a
    ``.zip`` an :class:`SB3Policy` (``trust=True``: SB3's loader, which runs
    code from the file). ``kwargs`` (``deterministic``, ``name``) go to the agent.
    """
    path = resolve_model_path(model, rules)
    if _is_zip(path):
        return SB3Policy(path, rules, trust=trust, **kwargs)
    return NeuralAgent(path, rules, **kwargs)


def trained_agent(rules: RulesConfig, *, trust: bool = False, **kwargs: Any) -> Agent:
    """Factory for ``make_agent("trained", rules)``: the shipped model of ``rules.variant``."""
    kwargs.setdefault("name", "trained")
    return load_model_agent("", rules, trust=trust, **kwargs)


def register() -> None:
    """Register the ``model:`` prefix and the ``trained`` agent with ``agents.make_agent``."""
    from agents import register_agent, register_prefix

    register_prefix("model", load_model_agent)
    register_agent("trained", trained_agent)


register()
