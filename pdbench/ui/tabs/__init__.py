"""The viewer's tabs, one module each: match, conditions, inspector (rounds), run_facts.

Each has one `render(...)` that draws its tab from the loaded run and prepared frames.
"""
