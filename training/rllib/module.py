"""``MaskedMLPModule``: an action-masking PPO RL module whose actor is the project's policy network.

The env's observations are dicts ``{"observations": (B, D), "action_mask": (B, 93)}``
(:mod:`training.rllib.env`). The actor ``pi`` is exactly the MLP of a model
file (``agents.neural.build_mlp``: ``D -> hidden -> 93``), so
:func:`export_policy` writes it as a model file (weights plus a JSON config,
loaded without unpickling) that ``euchre eval``, ``euchre play``, the
PettingZoo env and the default trainer's opponent pools take as
``model:<path>``. The critic ``vf`` is a separate MLP of the same hidden sizes
on the same observation (``D -> hidden -> 1``).

Illegal actions get the logit ``MASKED`` before any distribution is formed,
in exploration, inference and training alike, so sampling never picks one and
their probability (and gradient) is zero. A terminal observation has an
all-zero mask: its logits are all ``MASKED`` (a uniform distribution that no
one samples from).

A module may build on the heuristic, as the default trainer's policies do
(``model_config["prior"] = "heuristic"``): the heuristic's choice, computed
from the same observation, gets ``prior_weight`` added to its logit, so the
untrained module plays as the heuristic and PPO learns where departing from
it pays. The exported model file records the prior, so the agent it makes
plays exactly as the module.

``model_config``: ``{"hidden": [256, 256], "activation": "relu", "prior": ""
or "heuristic", "prior_weight": 3.0, "variant": "four_handed"}`` (the variant
is needed only with a prior).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from agents.neural import PRIORS, PolicyConfig, build_mlp, prior_agent, rules_metadata, save_policy
from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig, make_rules

__all__ = ["MASKED", "MaskedMLPModule", "export_policy"]

MASKED = -1e9  # the logit of an illegal action (exp underflows to exactly 0)
DEFAULT_HIDDEN = [256, 256]


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """Actor ``pi`` and critic ``vf`` MLPs over ``obs["observations"]``, logits masked by ``obs["action_mask"]``."""

    def setup(self) -> None:
        space = self.observation_space
        if not hasattr(space, "spaces") or set(space.spaces) != {"observations", "action_mask"}:
            raise ValueError(
                "MaskedMLPModule needs a Dict observation space with 'observations' and 'action_mask', "
                f"got {space}"
            )
        size = int(space["observations"].shape[0])
        hidden = list(self.model_config.get("hidden", DEFAULT_HIDDEN))
        activation = self.model_config.get("activation", "relu")
        self.pi = build_mlp([size, *hidden, NUM_ACTIONS], activation)
        self.vf = build_mlp([size, *hidden, 1], activation)
        prior = self.model_config.get("prior", "")
        if prior not in ("", *PRIORS):
            raise ValueError(
                f"MaskedMLPModule model_config 'prior' must be '' or one of {PRIORS}, got {prior!r}"
            )
        self.prior_weight = float(self.model_config.get("prior_weight", 0.0))
        self._prior = None
        if prior:
            rules = make_rules(self.model_config.get("variant", "four_handed"))
            if obs_layout(rules).size != size:
                raise ValueError(f"MaskedMLPModule: observations of size {size} are not {rules.variant}'s")
            self._prior = prior_agent(
                PolicyConfig(rules={}, obs_size=size, hidden=hidden, prior=prior), rules
            )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        x, legal = obs["observations"], obs["action_mask"] >= 0.5
        logits = self.pi(x)
        if self._prior is not None:
            logits = logits + self._prior_bonus(x, legal)
        return {Columns.ACTION_DIST_INPUTS: logits.masked_fill(~legal, MASKED)}

    def _prior_bonus(self, x: Any, legal: Any) -> Any:
        """(B, 93): ``prior_weight`` at the prior agent's choice of each row with a legal action, else 0."""
        bonus = torch.zeros(legal.shape, dtype=x.dtype, device=x.device)
        masks = legal.detach().cpu().numpy()
        rows = np.flatnonzero(masks.any(axis=1))
        if rows.size:
            choice = self._prior.act(x.detach().cpu().numpy()[rows], masks[rows], np.random.default_rng(0))
            bonus[torch.as_tensor(rows, device=x.device), torch.as_tensor(choice, device=x.device)] = (
                self.prior_weight
            )
        return bonus

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)


def export_policy(
    weights: dict[str, Any], rules: RulesConfig, hidden: list[int], activation: str, path: str | Path,
    provenance: dict[str, Any], prior: str = "", prior_weight: float = 0.0,
) -> Path:  # fmt: skip
    """Write the actor of a ``MaskedMLPModule`` state (``{"pi.0.weight": ..., "vf...": ...}``) as a model file.

    The file is the ``agents.neural`` format: ``model:<path>`` loads it as an agent without running code.

    Raises:
        ValueError: the weights do not fit an actor of ``hidden`` sizes for ``rules``.
    """
    size = obs_layout(rules).size
    actor = build_mlp([size, *hidden, NUM_ACTIONS], activation)
    tensors = {k[len("pi."):]: torch.as_tensor(v).detach().to("cpu", torch.float32)
               for k, v in weights.items() if k.startswith("pi.")}  # fmt: skip
    expected = {k: tuple(v.shape) for k, v in actor.state_dict().items()}
    if {k: tuple(v.shape) for k, v in tensors.items()} != expected:
        raise ValueError(f"the module's actor weights do not match an actor {[size, *hidden, NUM_ACTIONS]}")
    actor.load_state_dict(tensors)
    config = PolicyConfig(rules=rules_metadata(rules), obs_size=size, hidden=list(hidden), activation=activation,
                          provenance=provenance, prior=prior, prior_weight=float(prior_weight) if prior else 0.0)  # fmt: skip
    return save_policy(path, actor, config)
