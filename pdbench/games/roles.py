"""A game's third roles, declared as data: the parties of a game besides its players (the Keeper
of passcode, the judge of a debate), each of which a condition binds to an agent by the role's
name (`keeper=...` on the command line, `keeper:` in an experiment file, `"keeper"` in the
manifest's `third_parties`).

Everything outside `pdbench/games/` asks a game's entry (`registry.game_roles`) for its roles and
reads them from a `ThirdRole`: the config's fields, its Hydra groups and experiment-file keys,
validation, the runner (which seat each role plays, whether a panel or an audit may play it),
the config hash and the manifest. None of them writes a role's name out.

Who may play a role: one of the game's house third parties (`house`, the first of which plays
the role when a condition binds none), or any agent that can play the game (an llm agent, an
arena agent: each kind's spec says, `AgentSpecBase.problem_as_third_party`); with `panel`, an odd
panel of such agents deciding by majority (`pdbench.agents.panel`). A role that `audits` another
is never played: its agent is asked everything the audited role is asked, and its answers are
stored beside the played ones (`pdbench.agents.audited`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# How a condition that leaves a role unbound stores it (its resolved config in the manifest,
# and the config hash). "absent": left out, so a role a new game adds changes nothing for any
# other condition; this is what every role declares unless it says otherwise. The roles that
# were fixed fields of every condition before games declared their roles keep what was stored
# then, so that existing runs keep their config hashes and manifests their bytes: "null" (stored
# as null, left out of the hash) or "null_hashed" (stored and hashed as null).
Unbound = Literal["absent", "null", "null_hashed"]


@dataclass(frozen=True)
class PanelVote:
    """How an odd panel playing a role decides (`pdbench.agents.panel`): at a turn whose
    round_state `request` is `request` every member answers, and the majority of the legal
    answers' `verdict` fields is the panel's action `{"type": action_type, verdict: ...}`, with
    `panel` listing each member as `{member: its name, verdict: its verdict or None}`; at any
    other turn the chair (the first member listed) answers alone."""

    request: str  # the round_state["request"] the members vote at
    action_type: str  # the "type" of the action the majority's verdict is
    verdict: str  # the action's field the members vote on
    member: str  # the key each member's name is stored under in the action's `panel`


@dataclass(frozen=True)
class ThirdRole:
    name: str  # the condition's field, the Hydra group, the seat's role ("keeper", "keeper:a")
    shown: str  # what the role's seat is shown, in a few words (listings, docs, errors)
    # "module:NAME": a dict {house third party's name: factory}; the first name is the role's
    # default, played when a condition binds none. "": no house party (an audit: unbound).
    house: str = ""
    # How an odd panel of agents (3, 5, ...) playing the role decides; None: no panel may play it
    panel: PanelVote | None = None
    # The played role this one audits ("": it is played itself). An audit is asked what the
    # audited role is asked, answers alongside it, and its answers are stored, never played.
    audits: str = ""
    unbound: Unbound = "absent"
    # "module:function" (run_dir) -> {condition: [lines]}: what `pdbench analyze` prints of the
    # role's own measures on a stored run of the game (the judge's biases, an audit's
    # disagreement); "" when it has none. `missing` is what it says, exit 2, when a run of the
    # game stored nothing for them to measure.
    measures: str = ""
    missing: str = ""
    # "module:function" (prompt) -> answer or None: how the offline mock plays the role, reading
    # the role's prompt back (None: the prompt is not this role's); "" when it has none.
    mock: str = ""

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name.startswith("agent_"):
            raise ValueError(f"a third role's name is a field name, not a seat's: {self.name!r}")
        if self.audits and (self.house or self.panel is not None):
            raise ValueError(f"{self.name} audits {self.audits}: it has no house party or panel")
        if not self.audits and not self.house:
            raise ValueError(f"{self.name} is played: it needs a house party as its default")
        if bool(self.measures) != bool(self.missing):
            raise ValueError(
                f"{self.name}: measures and what to say when there are none go together"
            )

    @property
    def options_group(self) -> str:
        """The conf/ folder holding the options this role is bound with: its own, or for an
        audit the audited role's (conf/<audit> on the command line is a link to it)."""
        return self.audits or self.name

    @property
    def played(self) -> bool:
        """Whether the role plays a seat of the game (an audit does not)."""
        return not self.audits
