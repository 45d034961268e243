"""LLM agents: prompts rendered from templates (`prompts`), answered through the gateway (`agent`)."""

from pdbench.agents.llm.agent import LLMAgent
from pdbench.agents.llm.prompts import check_prompt_files
from pdbench.agents.llm.templates import available_personas

__all__ = ["LLMAgent", "available_personas", "check_prompt_files"]
