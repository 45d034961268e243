"""The viewer's tabs a game's page reuses, one module each: run_facts, analysis, tournament,
turn_metrics (a turn game's measures), ladder (the Ladder page). The 2x2 games' own tabs (Match,
Conditions, Round inspector) are their page's, in `pdbench.games.matrix.view`.

Each has one `render(...)` that draws its tab from the loaded run and prepared frames.
"""
