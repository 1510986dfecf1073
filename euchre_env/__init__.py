"""euchre-env: Euchre (five-handed called-card and four-handed) for reinforcement learning.

Environments (every one a thin adapter over the one engine):

* PettingZoo AEC: ``euchre_v0`` / ``euchre_five_handed_v0`` (``.env()``, ``.raw_env()``),
  ``env(variant)``, ``pettingzoo.make("aec", "euchre_env/euchre_v0")``;
* Gymnasium: ``EuchreEnv``, ``gymnasium.make("euchre_env/Euchre-v0")``;
  ``EuchreVectorEnv``, ``gymnasium.make_vec(...)``; for stable-baselines3
  ``euchre_env.envs.sb3_vec_env.EuchreSB3VecEnv``.

Conventions shared by all of them:

* Action masks are int8 0/1 arrays of the 93 action ids (1 = legal), as
  Gymnasium's ``Discrete.sample(mask=...)`` wants: the AEC env's
  ``observation["action_mask"]``, ``info["action_mask"]`` and ``action_masks()``
  of the Gymnasium and vector envs (``(B, 93)`` there) and of the SB3 env.
  ``env.action_space(agent).sample(observation["action_mask"])`` and
  ``env.action_space.sample(info["action_mask"])`` draw a legal action.
* ``render_mode``: ``"ansi"`` (text), ``"human"`` (the text, printed) and
  ``"rgb_array"`` (a picture, uint8 ``(720, 960, 3)``), each showing only what
  the seat may see (``render.to_ansi``, ``render_image.to_rgb``).
* An illegal action ends the episode with reward -1 (PettingZoo's classic
  convention: the wrapped AEC ``env()`` and, by default, the Gymnasium envs);
  ``raw_env`` and ``illegal_action="raise"`` raise ``engine.IllegalActionError``.
* The AEC env's ``state()`` is the full-information state, for centralised
  critics (``global_state``).
"""

from euchre_env import actions, cards
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State

__version__ = "0.1.0"
__all__ = ["PRESETS", "RulesConfig", "State", "actions", "cards", "make_rules"]

# PettingZoo AEC environments: env(variant) / raw_env(variant), and one versioned module per game
# as PettingZoo's classic games (``from euchre_env import euchre_v0``); importing pz_registry
# registers their PettingZoo ids.
from euchre_env import euchre_five_handed_v0, euchre_v0
from euchre_env.envs import pz_registry
from euchre_env.envs.aec_env import env, raw_env

__all__ += ["env", "euchre_five_handed_v0", "euchre_v0", "pz_registry", "raw_env"]

# Single-agent Gymnasium env, batched vector env, Gymnasium ids (EuchreSB3VecEnv: euchre_env.envs.sb3_vec_env).
from euchre_env.envs.gym_env import EuchreEnv
from euchre_env.envs.registration import register_envs
from euchre_env.envs.vector_env import EuchreVectorEnv
from euchre_env.policies import RandomPolicy

__all__ += ["EuchreEnv", "EuchreVectorEnv", "RandomPolicy", "register_envs"]
register_envs()
