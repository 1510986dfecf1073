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

``model_config``: ``{"hidden": [256, 256], "activation": "relu"}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from agents.neural import PolicyConfig, build_mlp, rules_metadata, save_policy
from euchre_env.actions import NUM_ACTIONS
from euchre_env.encoding import obs_layout
from euchre_env.rules import RulesConfig

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

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.pi(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: logits.masked_fill(obs["action_mask"] < 0.5, MASKED)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)


def export_policy(
    weights: dict[str, Any], rules: RulesConfig, hidden: list[int], activation: str, path: str | Path,
    provenance: dict[str, Any],
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
                          provenance=provenance)  # fmt: skip
    return save_policy(path, actor, config)
