"""Runners tie the parts together: plan a run, play its matches, hand rounds to storage."""
