"""A 2x2 round's negotiation phase in the reference loop (`reference_loop`; on the turn loop
the rules play it, `pdbench.games.matrix.rules`, held to this by
test_matrix_talk_equivalence.py): the agents take their turns in the platform's order, each
message is held to the rules (cut to the limit, a timeout's message, marks), and both sides are
shown the conversation from their own point of view.

The turn order is `Negotiation.speakers(round)`: alternating speakers, the first one alternating
by round (AgentDuel) or fixed. Agents speak one after the other, never at once, as each message
may answer the one before it.
"""

from __future__ import annotations

from dataclasses import replace

from pdbench.agents.base import TableAgent
from pdbench.core.talk import Negotiation, Said, cut_to_limit, is_promise
from pdbench.core.transcript import Observation
from pdbench.storage.schema import ConversationMessage


def seen_by(conversation: tuple[ConversationMessage, ...], side: str) -> tuple[Said, ...]:
    """The conversation as one side sees it: its own messages and the opponent's, in order."""
    return tuple(Said(m.turn, m.speaker == side, m.text) for m in conversation)


def with_conversation(
    obs: Observation, conversation: tuple[ConversationMessage, ...], side: str
) -> Observation:
    """`obs` with the conversation so far, at the turn that follows it."""
    return replace(obs, messages=seen_by(conversation, side), turn=len(conversation) + 1)


async def negotiate_round(
    rules: Negotiation,
    round_index: int,
    agents: dict[str, TableAgent],
    observations: dict[str, Observation],
) -> tuple[ConversationMessage, ...]:
    """Every message of one round's negotiation, in order. `observations` are each side's view
    of the match before this round (the conversation is added turn by turn)."""
    conversation: tuple[ConversationMessage, ...] = ()
    for turn, side in enumerate(rules.speakers(round_index), start=1):
        obs = with_conversation(observations[side], conversation, side)
        utterance = await agents[side].negotiate(obs)
        said = rules.timeout_message if utterance.timeout else utterance.text
        text, cut = cut_to_limit(said.strip(), rules.max_chars)
        conversation += (
            ConversationMessage(
                speaker=side,
                turn=turn,
                text=text,
                cut=cut,
                empty=not text,
                timeout=utterance.timeout,
                invalid=utterance.invalid,
                promise=is_promise(text, rules.promise_phrases),
                error=utterance.error,
                attempts=utterance.attempts,
            ),
        )
    return conversation
