"""euchre-env: Euchre (five-handed called-card and four-handed) for reinforcement learning."""

from euchre_env import actions, cards
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State

__version__ = "0.1.0"
__all__ = ["PRESETS", "RulesConfig", "State", "actions", "cards", "make_rules"]

# PettingZoo AEC environments; importing pz_registry registers their PettingZoo ids.
from euchre_env import pz_registry  # noqa: E402
from euchre_env.aec_env import env, raw_env  # noqa: E402

__all__ += ["env", "pz_registry", "raw_env"]

# Single-agent Gymnasium env, batched vector env, Gymnasium ids (EuchreSB3VecEnv: euchre_env.sb3_vec_env).
from euchre_env.gym_env import EuchreEnv  # noqa: E402
from euchre_env.policies import RandomPolicy  # noqa: E402
from euchre_env.registration import register_envs  # noqa: E402
from euchre_env.vector_env import EuchreVectorEnv  # noqa: E402

__all__ += ["EuchreEnv", "EuchreVectorEnv", "RandomPolicy", "register_envs"]
register_envs()
