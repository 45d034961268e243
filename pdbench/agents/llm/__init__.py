"""LLM agents: prompts rendered from templates (`prompts`), answered through the gateway (`agent`)."""

from pdbench.agents.llm.agent import LLMAgent
from pdbench.agents.llm.prompts import available_personas, check_prompt_files

__all__ = ["LLMAgent", "available_personas", "check_prompt_files"]
