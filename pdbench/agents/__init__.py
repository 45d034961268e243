"""Agents: classic policies, LLM agents and user-written arena agents, behind one protocol."""
