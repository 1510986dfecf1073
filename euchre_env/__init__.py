"""euchre-env: Euchre (five-handed called-card and four-handed) for reinforcement learning."""

from euchre_env import actions, cards
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State

__version__ = "0.1.0"
__all__ = ["PRESETS", "RulesConfig", "State", "actions", "cards", "make_rules"]

# PettingZoo AEC environments; importing pz_registry registers their PettingZoo ids.
from euchre_env import pz_registry
from euchre_env.aec_env import env, raw_env

__all__ += ["env", "pz_registry", "raw_env"]

# Single-agent Gymnasium env, batched vector env, Gymnasium ids (EuchreSB3VecEnv: euchre_env.sb3_vec_env).
from euchre_env.gym_env import EuchreEnv
from euchre_env.policies import RandomPolicy
from euchre_env.registration import register_envs
from euchre_env.vector_env import EuchreVectorEnv

__all__ += ["EuchreEnv", "EuchreVectorEnv", "RandomPolicy", "register_envs"]
register_envs()
