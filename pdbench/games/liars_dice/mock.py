"""The offline mock as a Liar's Dice player: it reads the prompt the LLM agent wrote
(prompts/liars_dice/turn.md, its data lines written from `pdbench.core.phrases`, so the mock
reads exactly what the agent writes) and answers a legal move in the game's answer format.

What it reads: the faces ("Each die shows a face from 1 to F."), whether ones are wild ("Ones
are wild: yes|no."), its own dice ("Your dice: 2, 3, 5"), both dice counts ("Dice in play: you
have N, your opponent has M.") and the bid to beat ("The bid to beat: Q x F.", or none yet).

What it answers, as the house players would (`pdbench.games.liars_dice.policies`):
- strategy `random`: a uniformly random legal move (drawn from a hash of the request's cache key,
  so one request always gets one answer);
- every other strategy: the probability player's move: challenge when the bid to beat is less
  likely than 1/2 given its own dice, otherwise the smallest legal bid on the face it holds most;
- strategy `reciprocate` (the default) with a competitive persona in the prompt (the words of the
  mock's competitive lean, e.g. prompts/liars_dice/personas/exploitative.md): the bluffer's move,
  overbidding its most likely face by one die (`Bluffer(margin=1)`).
A share `invalid_rate` of its answers are garbage, as in a 2x2 game, so re-asks can be tested;
never under a constraint (`constrain: grammar`), which it honours as llama.cpp's server does.

`answer_liars_dice_prompt` returns None for any other prompt.
"""

from __future__ import annotations

from pdbench.config.schema import MockBehaviour
from pdbench.core import phrases
from pdbench.games.liars_dice.policies import Bluffer, LiarsPolicy, ProbabilityLiar, RandomLiar
from pdbench.games.mock_play import garbled, mock_rng
from pdbench.games.prompt_adapter import MockAsk

GARBAGE = ("I bid high.", "Let me think about the odds first.", "BID three fives")


def read_round_state(prompt: str) -> dict[str, object] | None:
    """What a Liar's Dice prompt says, in the round_state's shape; None if it is not one."""
    found = {
        name: phrase.pattern.search(prompt)
        for name, phrase in (
            ("faces", phrases.LIARS_FACES),
            ("wild", phrases.LIARS_WILD),
            ("dice", phrases.LIARS_OWN_DICE),
            ("counts", phrases.LIARS_COUNTS),
        )
    }
    if any(match is None for match in found.values()):
        return None
    faces, wild, dice, counts = (found[n] for n in ("faces", "wild", "dice", "counts"))
    assert faces and wild and dice and counts
    to_beat = phrases.LIARS_BID_TO_BEAT.pattern.search(prompt)
    shown = dice["dice"]
    return {
        "faces": int(faces["faces"]),
        "wild_ones": wild["wild"] == "yes",
        "your_dice": [] if shown == "none" else [int(d) for d in shown.split(", ")],
        "your_dice_count": int(counts["own_count"]),
        "opponent_dice_count": int(counts["other_count"]),
        "current_bid": None
        if to_beat is None
        else {"quantity": int(to_beat["quantity"]), "face": int(to_beat["face"])},
    }


def answer_liars_dice_prompt(
    prompt: str,
    behaviour: MockBehaviour,
    key: str,
    *,
    bluffs: bool = False,
    allowed: tuple[str, ...] | None = None,
) -> str | None:
    """The mock's answer to a Liar's Dice prompt (see the module docstring), or None."""
    round_state = read_round_state(prompt)
    if round_state is None:
        return None
    # A constrained request (`allowed`: its grammar's answers) is honoured as a server honours it.
    garbage = garbled(key, behaviour, allowed, GARBAGE)
    if garbage is not None:
        return garbage
    player: LiarsPolicy = ProbabilityLiar()
    if behaviour.strategy == "random":
        player = RandomLiar()
    elif bluffs:
        player = Bluffer(margin=1)
    answer = phrases.liars_answer_text(player.act(round_state, mock_rng(key, "move")))
    if allowed is not None and answer not in allowed:
        return allowed[0]  # cannot happen for a legal move; the grammar would force one anyway
    return answer


def play(
    prompt: str,
    behaviour: MockBehaviour,
    key: str,
    *,
    lean: str | None,
    allowed: tuple[str, ...] | None,
    asked: MockAsk | None = None,  # the prompt holds all this game's mock reads
) -> str | None:
    """The game's mock (`pdbench.games.prompt_adapter.GameMock`, named by its registry entry):
    the bluffer's move where the default strategy (`reciprocate`) meets a competitive persona."""
    bluffs = behaviour.strategy == "reciprocate" and lean == "competitive"
    return answer_liars_dice_prompt(prompt, behaviour, key, bluffs=bluffs, allowed=allowed)
