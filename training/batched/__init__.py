"""The batched trainer: self-play PPO on the vectorised engine (``euchre train``, the default route)."""
