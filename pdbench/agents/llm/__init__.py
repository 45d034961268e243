"""LLM agents: prompts rendered from templates (`prompts`), answered through the gateway (`agent`),
a turn game's turns (`turns`).

This door imports nothing: importing one module of the package (a template helper, say) runs it,
and were it to import the agent, that module would pull the agent's whole import chain in with it
(the import circle judged_prompts -> llm -> agent -> turns -> judged_prompts). Import from the
modules: `from pdbench.agents.llm.agent import LLMAgent`.
"""
