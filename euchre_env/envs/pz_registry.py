"""PettingZoo registry entries for the Euchre AEC environments.

PettingZoo 1.27 (PR #1388) keeps a Gymnasium-style registry (``pettingzoo.register``,
``pettingzoo.make``, ``pettingzoo.aec_registry``; ids ``[namespace/]name[-vN]``,
with PettingZoo's ``name_vN`` spelling accepted). Importing this module (done by
``import euchre_env``) registers one id per versioned module:

==================================  ==============  ======================================
id                                  game            same as
==================================  ==============  ======================================
``euchre_env/euchre_v0``            four-handed     ``from euchre_env import euchre_v0; euchre_v0.env()``
``euchre_env/euchre_five_handed_v0``  five-handed   ``euchre_env.euchre_five_handed_v0.env()``
==================================  ==============  ======================================

Each points at its module's ``env`` (the wrapped env); keyword arguments of
``make`` reach it (``pettingzoo.make("aec", "euchre_env/euchre_v0",
points_to_win=5, episode="game")``). There is no parallel entry: Euchre is
turn-based (``is_parallelizable`` is False). With an older PettingZoo that has
no registry nothing is registered; import the modules directly.
"""

from __future__ import annotations

import pettingzoo

PETTINGZOO_IDS: dict[str, str] = {
    "euchre_env/euchre_v0": "four_handed",
    "euchre_env/euchre_five_handed_v0": "five_handed",
}
ENTRY_POINTS: dict[str, str] = {
    "euchre_env/euchre_v0": "euchre_env.euchre_v0:env",
    "euchre_env/euchre_five_handed_v0": "euchre_env.euchre_five_handed_v0:env",
}


def register_pettingzoo_envs() -> list[str]:
    """Register the ids of ``PETTINGZOO_IDS`` unless they already are.

    Returns:
        The ids registered by this call (empty without a PettingZoo registry or
        when they were registered before).
    """
    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", None)
    spec_type = getattr(pettingzoo, "EnvSpec", None)
    if register is None or registry is None or spec_type is None:
        return []
    done = []
    for env_id in PETTINGZOO_IDS:
        if spec_type(id=env_id).id not in registry:  # the registry keys ids in normal form
            register("aec", env_id, entry_point=ENTRY_POINTS[env_id])
            done.append(env_id)
    return done


register_pettingzoo_envs()
