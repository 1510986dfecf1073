"""``SB3Policy``: a saved (Maskable)PPO model as an agent.

Any model saved by ``training.train`` (or any stable-baselines3 actor-critic
zip whose observations are ``encoding.encode`` vectors and whose actions are
the 93 action ids) becomes a :class:`euchre_env.types.Policy`: an opponent in
the environments, an entrant of ``training.evaluate`` and a partner in
``euchre play``. Illegal actions are masked out before choosing, so the agent
only ever takes legal actions::

    from agents import make_agent
    bot = make_agent("model:runs/demo/model.zip", rules)      # a saved run
    bot = make_agent("model:four_handed", rules)              # a shipped model
    bot = make_agent("trained", rules)                        # the shipped model of rules.variant

Shipped models live in ``agents/models/<variant>.zip``. A model remembers the
rules it was trained under (``model.euchre_rules``, written by
``training.train``); loading it for other rules raises ``ValueError``.

Torch and stable-baselines3 (the ``train`` extra) are imported on first use,
so importing this module is cheap.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig, make_rules

__all__ = ["MODELS_DIR", "SB3Policy", "load_model_agent", "register", "resolve_model_path", "rules_metadata"]

MODELS_DIR = Path(__file__).resolve().parent / "models"
_SETTINGS = ("stick_the_dealer", "defend_alone", "points_to_win")


def rules_metadata(rules: RulesConfig) -> dict[str, Any]:
    """The JSON-able description of ``rules`` stored in a model (``model.euchre_rules``)."""
    return {"variant": rules.variant, **{k: getattr(rules, k) for k in _SETTINGS}, "episode": rules.episode}


def rules_from_metadata(meta: dict[str, Any]) -> RulesConfig:
    """``RulesConfig`` (one-hand episodes) back from :func:`rules_metadata`."""
    return make_rules(meta["variant"], **{k: meta[k] for k in _SETTINGS if k in meta})


def resolve_model_path(name: str | Path, rules: RulesConfig | None = None) -> Path:
    """The zip file a model name refers to.

    Args:
        name: a path (with or without ``.zip``), the name of a shipped model
            (``"four_handed"``, ``"five_handed"``), or ``""`` for the shipped
            model of ``rules.variant``.
        rules: needed only for ``""``.

    Raises:
        ValueError: nothing matches (the message lists the shipped models).
    """
    text = str(name)
    if not text:
        if rules is None:
            raise ValueError("an empty model name means the shipped model of the rules' variant: pass rules")
        text = rules.variant
    candidates = [Path(text), Path(text + ".zip"), MODELS_DIR / text, MODELS_DIR / f"{text}.zip"]
    for path in candidates:
        if path.is_file():
            return path
    shipped = sorted(p.stem for p in MODELS_DIR.glob("*.zip"))
    raise ValueError(
        f"no model file {text!r} (tried {[str(p) for p in candidates]}); shipped models: {shipped}"
    )


class SB3Policy(Agent):
    """An SB3 actor-critic policy acting on masked logits.

    Args:
        model: a path to a saved model zip, a loaded SB3 algorithm (its
            ``.policy`` is used) or an SB3 ``ActorCriticPolicy`` module. A
            module is used as is (not copied): a learner's live policy stays
            current; pass ``copy.deepcopy(policy)`` for a frozen snapshot.
        rules: the rules to play; default: the rules stored in the model.
        deterministic: True (default) takes the most likely legal action;
            False samples from the masked action distribution with ``rng``.
        name: label for reports.

    Raises:
        ValueError: the model's observation size or rules do not match ``rules``,
            or its action space is not ``Discrete(93)``.
    """

    name = "model"

    def __init__(
        self,
        model: Any,
        rules: RulesConfig | None = None,
        *,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        policy, meta = _policy_of(model)
        if rules is None:
            if meta is None:
                raise ValueError("this model does not record its rules (model.euchre_rules): pass rules")
            rules = rules_from_metadata(meta)
        super().__init__(rules)
        if meta is not None and meta.get("variant") != rules.variant:
            raise ValueError(f"the model was trained for {meta.get('variant')!r}, not for {rules.variant!r}")
        size, n_obs = obs_layout(rules).size, int(np.prod(policy.observation_space.shape))
        if n_obs != size:
            raise ValueError(
                f"the model takes observations of size {n_obs}, but {rules.variant} with points_to_win="
                f"{rules.points_to_win} encodes {size} (train and play with the same settings)"
            )
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
        as ``training.train`` trains) sees the ``scores`` piece as zeros, as in training.
        """
        import torch

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

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A legal action per row: the best masked logit, or a sample from the masked softmax.

        Args:
            observations: (B, D) observations of the acting seats.
            action_masks: (B, A) bool legal actions, at least one per row.
            rng: source of the Gumbel noise when sampling (unused when deterministic).

        Returns:
            Int64 array of shape (B,).
        """
        obs, masks = self.check_batch(observations, action_masks)
        if obs.shape[0] == 0:
            return np.zeros(0, np.int64)
        scores = self.logits(obs).astype(np.float64)  # (B, A)
        if not self.deterministic:
            scores = scores + rng.gumbel(size=scores.shape)  # Gumbel-max: a sample of softmax(logits)
        scores[~masks] = -np.inf
        return np.argmax(scores, axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return f"SB3Policy({self.rules.variant!r}, deterministic={self.deterministic})"


def _policy_of(model: Any) -> tuple[Any, dict[str, Any] | None]:
    """``(policy module on CPU in eval mode, rules metadata or None)`` from a path, algorithm or policy."""
    if isinstance(model, (str, Path)):
        return _load_policy(Path(model))
    policy = getattr(model, "policy", model)
    needed = ("extract_features", "mlp_extractor", "action_net", "observation_space")
    if not all(hasattr(policy, attr) for attr in needed):
        raise ValueError(
            f"model must be a path, an SB3 actor-critic algorithm or its policy, got {type(model).__name__}"
        )
    return policy, getattr(model, "euchre_rules", None)


def _load_policy(path: Path) -> tuple[Any, dict[str, Any] | None]:
    """Build the policy stored in an SB3 zip (the optimizer state, if any, is not needed)."""
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


def load_model_agent(name: str, rules: RulesConfig, **kwargs: Any) -> SB3Policy:
    """Loader for ``make_agent("model:<name>", rules)``: a path or a shipped model name (see ``resolve_model_path``)."""
    return SB3Policy(resolve_model_path(name, rules), rules, **kwargs)


def trained_agent(rules: RulesConfig, **kwargs: Any) -> SB3Policy:
    """Factory for ``make_agent("trained", rules)``: the shipped model of ``rules.variant``."""
    return SB3Policy(resolve_model_path("", rules), rules, name="trained", **kwargs)


def register() -> None:
    """Register the ``model:`` prefix and the ``trained`` agent with ``agents.make_agent``."""
    from agents import register_agent, register_prefix

    register_prefix("model", load_model_agent)
    register_agent("trained", trained_agent)


register()
