"""Proximal Policy Optimization (PPO) self-play with action masks and an opponent pool.

One actor-critic for every seat and role (the role is in the observation); a masked
categorical policy over the legal actions; rollouts from many games at once with one batched
forward pass per step (`rollout.Rollouts`); GAE, the clipped objective, optional value
clipping, advantage normalisation and a learning-rate schedule (`trainer`); opponents drawn
from a pool of past snapshots and scripted bots in a configurable mix (`PPOConfig.opponent_mix`).
"""

from .agent import PPOAgent
from .config import PPOConfig
from .model import ActorCritic, MaskedCategorical, gae

__all__ = ["ActorCritic", "MaskedCategorical", "PPOAgent", "PPOConfig", "gae"]
