"""Every prompt pdbench renders can be read back by the mock model: the action words (whatever
order the options are named in), the payoffs, the rounds shown and the current round, in every
history format, voice and label style (pdbench.games.matrix.wording <-> pdbench.providers.
prompt_reading)."""

import itertools
from pathlib import Path

import pytest

from pdbench.agents.llm.prompts import PromptBuilder
from pdbench.config.schema import GameSpec, LLMAgentSpec
from pdbench.core.actions import C, D
from pdbench.core.horizon import FixedHorizon
from pdbench.core.transcript import PlayedRound, observe
from pdbench.games.tables import GAMES
from pdbench.providers.prompt_reading import UnreadablePrompt, read_prompt

ROOT = Path(__file__).resolve().parents[2]
MOVES = [(C, D), (D, D), (D, C), (C, C), (C, D), (D, C)]
FORMATS = ["lines", "sentences", "table", "pairs"]
TEMPLATES = [  # (system_prompt, round_prompt): pdbench's own and the papers'
    ("prompts/pd_system.md", "prompts/pd_round.md"),
    (None, "prompts/akata2025/round.md"),
    (None, "prompts/fontana2025/round.md"),
    ("prompts/payne2025/system.md", "prompts/payne2025/round.md"),
]
AKATA_PD = GameSpec(
    payoffs={"CC": (8, 8), "CD": (0, 10), "DC": (10, 0), "DD": (5, 5)}, labels="JF"
).build()


def rendered(game, moves, *, window=None, side="a", order=(C, D), **spec):
    prompts = PromptBuilder(
        LLMAgentSpec(history_window=window, **spec),
        game=game.seen_by(side),
        horizon=FixedHorizon(10),
        project_root=ROOT,
    )
    rounds = [
        PlayedRound(i, a, b, *game.payoffs.payoffs(a, b)) for i, (a, b) in enumerate(moves, 1)
    ]
    obs = observe(rounds, side=side, history_window=window, include_totals=True)
    return prompts.system + "\n" + prompts.round_prompt(obs, order), obs


@pytest.mark.parametrize(
    ("history_format", "perspective", "label_style", "templates"),
    list(
        itertools.product(FORMATS, ["second_person", "third_person"], ["bare", "option"], TEMPLATES)
    ),
)
@pytest.mark.parametrize("window", [None, 3])
def test_every_format_reads_back_as_rendered(
    history_format, perspective, label_style, templates, window
):
    system_prompt, round_prompt = templates
    for played in range(len(MOVES) + 1):
        for order in ((C, D), (D, C)):  # the question's order never confuses the two words
            text, obs = rendered(
                AKATA_PD,
                MOVES[:played],
                window=window,
                order=order,
                system_prompt=system_prompt,
                round_prompt=round_prompt,
                history_format=history_format,
                perspective=perspective,
                label_style=label_style,
                include_totals=True,
                totals_format="counts_and_points",
            )
            seen = read_prompt(text)
            assert seen.labels == ("J", "F")
            assert seen.round_index == played + 1
            assert seen.history == obs.history, text
            assert seen.payoffs == AKATA_PD.payoffs


@pytest.mark.parametrize("history_format", FORMATS)
def test_each_side_of_an_asymmetric_game_reads_its_own_payoffs(history_format):
    bos = GAMES["battle_of_the_sexes"]
    for side in ("a", "b"):
        text, obs = rendered(
            bos,
            MOVES[:4],
            side=side,
            system_prompt=None,
            round_prompt="prompts/akata2025/round.md",
            history_format=history_format,
            label_style="option",
        )
        seen = read_prompt(text)
        assert seen.payoffs == bos.payoffs.seen_by(side)
        assert seen.history == obs.history
        mine_jj = 10.0 if side == "a" else 7.0
        assert seen.payoffs.payoffs(C, C)[0] == mine_jj


def test_a_prompt_without_rules_takes_the_labels_from_the_answer_instruction(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "bare.md").write_text("{history}\n{answer_instruction}")
    prompts = PromptBuilder(
        LLMAgentSpec(system_prompt=None, round_prompt="prompts/bare.md"),
        game=GAMES["split_or_steal"],
        horizon=FixedHorizon(5),
        project_root=tmp_path,
    )
    rounds = [PlayedRound(1, C, D, 0.0, 100.0)]
    obs = observe(rounds, side="a", history_window=None, include_totals=False)
    seen = read_prompt(prompts.round_prompt(obs))
    assert seen.labels == ("split", "steal")
    assert seen.payoffs is None
    assert [(p.own_action, p.opponent_action) for p in seen.history] == [(C, D)]


def test_a_hidden_history_is_read_as_hidden_and_an_unreadable_one_is_an_error():
    text, _ = rendered(GAMES["pd"], MOVES[:3], window=0)
    seen = read_prompt(text)
    assert seen.history == () and seen.round_index == 4
    with pytest.raises(UnreadablePrompt, match="no history in a format it reads"):
        read_prompt("Round 5. Past: CD, DD. Answer with exactly one of: C, D.")


def test_a_word_that_is_neither_action_is_an_error():
    text, _ = rendered(GAMES["pd"], MOVES[:2])
    with pytest.raises(UnreadablePrompt, match="neither of the actions"):
        read_prompt(
            text.replace("you played D, opponent played D", "you played X, opponent played D")
        )


def _rows():
    """Every row of the phrase table, each voice once."""
    from pdbench.core import phrases

    for name, value in vars(phrases).items():
        if isinstance(value, phrases.Phrase):
            yield name, value
        elif isinstance(value, phrases.Voiced):
            yield f"{name}.second", value.second
            yield f"{name}.third", value.third


@pytest.mark.parametrize(("name", "phrase"), list(_rows()), ids=[n for n, _ in _rows()])
def test_every_phrase_reads_back_what_it_writes(name, phrase):
    """The reader's pattern is derived from the writer's template, so each row reads back the
    values it was written with, action words with spaces and quotes included."""
    values = {
        "round": 12,
        "played": 11,
        "count": 3,
        "own": "Option J",
        "other": 'say "no"',
        "first": "split",
        "second": "steal it",
        "mine": "2.5",
        "theirs": "-1",
        "pairs": "(J, F), (F, F)",
        # Liar's Dice
        "faces": 6,
        "wild": "yes",
        "dice": "1, 3, 6",
        "own_count": 5,
        "other_count": 4,
        "quantity": 3,
        "face": 5,
        "turn": 2,
        "who": "opponent",
    }
    if name == "MOVE_PAIR":
        values.update(own="J", other="F")  # a pair's words hold no comma or parenthesis
    text = f"Some text before.\n{phrase.render(**values)}\nSome text after."
    match = phrase.pattern.search(text)
    assert match is not None, text
    for slot, read in match.groupdict().items():
        assert read == str(values[slot]), (slot, read)
