"""The stable-baselines3 route: sb3-contrib's MaskablePPO on the Gymnasium envs (``euchre train sb3``)."""
