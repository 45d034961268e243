"""Tournaments and dynamics: a round robin's payoff matrix and ranking, and population dynamics
(replicator, Moran, generations) on it."""
