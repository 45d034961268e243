"""Providers answer prompts and cache answers. They know no agent, match or run."""
