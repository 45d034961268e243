"""The page of a normal-form game under a mechanism (`pdbench.ui.game_views`): its measures, and
a match as a table of its phases in order, built from the stored turn lines alone
(`phase_rows`): each design as proposed, each ballot and the tally with the winner, who signed and
whether the contract binds, then each round's answers, the actions drawn and played (a
delegator's the mediator's), the base payoffs, the transfers and the payoffs. The page shows what
the record holds; during play a player saw less (`observation`: the winner, never the ballots).
Under `reputation_shown: image` a table of the image each player had each round (`images`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.normal_form.images import image_rows
from pdbench.games.normal_form.rules import rules_of
from pdbench.ui.game_views import MatchView, Measure, MeasureKind

# each measure's meaning, as its metric row says it
_MEANINGS = {row.stem: row.help for row in game_metric_rows("normal_form")}


def _measure(stem: str, label: str, kind: MeasureKind) -> Measure:
    meaning = _MEANINGS[stem]
    return Measure(stem, label, kind, meaning[0].upper() + meaning[1:] + ".")


MEASURES = (
    _measure("score", "Score", "signed"),
    _measure("cooperation_rate", "Cooperation rate", "share"),
    _measure("approval_rate", "Approval rate", "share"),
    _measure("signing_rate", "Signing rate", "share"),
    _measure("delegation_rate", "Delegation rate", "share"),
    _measure("design_equilibrium", "Own designs making cooperation an equilibrium", "share"),
    _measure("winner_equilibrium", "Winning designs making cooperation an equilibrium", "share"),
    _measure("welfare_gain", "Welfare gain over the base game's equilibrium", "signed"),
    _measure(
        "reputation_gap",
        "Cooperation facing a partner shown cooperating, minus otherwise",
        "signed",
    ),
)


def _shown(value: Any) -> str:
    return json.dumps(value, sort_keys=False) if isinstance(value, Mapping) else str(value)


def phase_rows(
    turns: Sequence[Mapping[str, Any]], names: Mapping[str, str]
) -> list[dict[str, str]]:
    """One row per seat and phase, in the stored order (module docstring)."""
    rows: list[dict[str, str]] = []
    for turn in turns:
        shown = turn.get("revealed") or {}
        for seat, action in turn.get("actions", {}).items():
            answer = {k: v for k, v in action.items() if k != "type"}
            row = {
                "round": str(turn.get("round", "")),
                "phase": str(turn.get("phase", "")),
                "player": names.get(seat, seat),
                "answer": _shown(next(iter(answer.values())) if len(answer) == 1 else answer),
                "outcome": "",
            }
            if turn.get("phase") == "design" and shown:  # design_scope run: one design per run
                row["outcome"] = f"design {shown['design_ids'][seat]}, reused by every match"
            elif turn.get("phase") == "vote" and shown:
                row["outcome"] = f"approvals {shown['approvals'].get(seat)}" + (
                    "; wins" if shown.get("winner") == seat else ""
                )
            elif turn.get("phase") == "sign" and shown:
                row["outcome"] = "the contract binds" if shown.get("active") else "not binding"
            elif turn.get("phase") == "play" and shown:
                delegated = " (delegated)" if shown["delegated"].get(seat) else ""
                row["outcome"] = (
                    f"drew {shown['drawn'][seat]}, played {shown['actions'][seat]}{delegated}; "
                    f"base {shown['base_payoffs'][seat]}, transfer {shown['transfers'][seat]}, "
                    f"payoff {shown['payoffs'][seat]}"
                )
                for group in shown.get("groups", ()):  # reputation: who it met this round
                    if seat in group:
                        met = ", ".join(names.get(s, s) for s in group if s != seat)
                        row["outcome"] += f"; met {met}"
            rows.append(row)
    return rows


def action_words(options: Mapping[str, Any]) -> str:
    """ "A0 = C, A1 = D": the base game's words for the tokens players are shown."""
    try:
        game = rules_of(options).game
    except (TypeError, ValueError):
        return "A0 is the cooperative action"
    return ", ".join(f"{t} = {w}" for t, w in zip(game.tokens, game.names, strict=True))


def render_transcript(match: MatchView) -> None:
    options = match.options
    st.subheader("Phases of the match", anchor=False)
    st.caption(
        f"base game {options.get('base')}, mechanism {options.get('mechanism')}, "
        f"{options.get('rounds')} round(s), decided {options.get('decide')}, "
        f"{options.get('strategies')} strategies. Players are shown tokens: "
        f"{action_words(options)}; under mediation the next token delegates."
    )
    rows = phase_rows(match.turns, match.names)
    if not rows:
        st.info("No turn of this match is stored yet.")
        return
    st.dataframe(pd.DataFrame(rows), hide_index=True, use_container_width=True)
    images = image_rows(match.turns, rules_of(options), match.names)
    if images:  # `reputation_shown: image`
        st.subheader("Images", anchor=False)
        st.caption(
            f"Each player's image at each round's start under the norm {options.get('norm')}, "
            "replayed from the stored rounds: what its partner that round was shown."
        )
        st.dataframe(pd.DataFrame(images), hide_index=True, use_container_width=True)
