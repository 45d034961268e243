"""The judged debates' shared family (AgentDuel's nuclear-war and nil-recruitment): what the two
games have in common, used by their packages (`pdbench.games.nuclear_war.rules`,
`pdbench.games.nil_recruitment.rules`).

- `rules`: `DebateGame`, a debate judged by a third seat, and its state.
- `policies`: the house debaters and house judges.
- `aggregates`: the per-player measures of a finished debate.
- `transcript` and `view`: the viewer's page of a debate; each game's own page adds its facts.
"""

from __future__ import annotations

from pdbench.games.roles import PanelVote, ThirdRole

# The judge both debates are decided by (a condition's `judge`, one agent or an odd panel).
JUDGE = ThirdRole(
    name="judge",
    shown="the scenario, its persona and the speeches",
    house="pdbench.games.debate.policies:JUDGES",
    # the stored key of each member ("judge") is the first panels' records', which the
    # measures and the transcript read back
    panel=PanelVote(request="decision", action_type="decision", verdict="winner", member="judge"),
    unbound="null",
    measures="pdbench.games.debate.measures:judge_report",
    missing="no stored verdict to analyse yet",
    mock="pdbench.games.debate.judge_mock:answer_as_judge",
)
