"""The published designs' prompts render as the papers show them (../shared/references/papers.md
and the authors' code): Akata et al.'s single message, Fontana et al.'s third-person prompt,
Payne and Alloui-Cros's move pairs with reasoning first; and the prompting options behind them."""

from pathlib import Path

import pytest

from pdbench.agents.llm.prompts import PromptBuilder, check_prompt_files
from pdbench.config.load import load_config
from pdbench.config.schema import GameSpec, LLMAgentSpec
from pdbench.core.actions import C, D
from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.transcript import PlayedRound, observe
from pdbench.games.tables import GAMES
from pdbench.providers.base import CompletionRequest

ROOT = Path(__file__).resolve().parents[2]
AKATA_PD = GameSpec(
    payoffs={"CC": (8, 8), "CD": (0, 10), "DC": (10, 0), "DD": (5, 5)}, labels="JF"
).build()
FONTANA_PD = GameSpec(labels="cooperate_defect").build()


def paper_agent(config: str, condition: int = 0) -> LLMAgentSpec:
    """The LLM agent of a shipped paper config, as validated."""
    spec = load_config(ROOT / "conf" / "experiment" / config, project_root=ROOT).spec
    agent = spec.conditions[condition].agent_a
    assert isinstance(agent, LLMAgentSpec)
    return agent


def prompt_after(spec, game, moves, *, rounds=10, side="a", order=(C, D), horizon=None):
    builder = PromptBuilder(
        spec, game=game.seen_by(side), horizon=horizon or FixedHorizon(rounds), project_root=ROOT
    )
    played = [
        PlayedRound(i, a, b, *game.payoffs.payoffs(a, b)) for i, (a, b) in enumerate(moves, 1)
    ]
    obs = observe(
        played, side=side, history_window=spec.history_window, include_totals=spec.include_totals
    )
    return builder, builder.round_prompt(obs, order)


AKATA_RULES = """\
You are playing a game repeatedly with another player. In this game, you can choose between Option J and Option F. You will play 10 rounds in total with the same player. The rules of the game are as follows:
If you choose Option J and the other player chooses Option J, then you win 8 points and the other player wins 8 points.
If you choose Option J and the other player chooses Option F, then you win 0 points and the other player wins 10 points.
If you choose Option F and the other player chooses Option J, then you win 10 points and the other player wins 0 points.
If you choose Option F and the other player chooses Option F, then you win 5 points and the other player wins 5 points."""


def test_akata_single_message_word_for_word():
    builder, prompt = prompt_after(
        paper_agent("akata2025_pd.yaml"), AKATA_PD, [(C, D), (D, C)], order=(D, C)
    )
    assert builder.system == ""  # one user message, no system message
    assert prompt == (
        AKATA_RULES
        + "\n\n"
        + "In round 1, you chose Option J and the other player chose Option F. Thus, you won 0 "
        "points and the other player won 10 points.\n"
        "In round 2, you chose Option F and the other player chose Option J. Thus, you won 10 "
        "points and the other player won 0 points.\n"
        "\n"
        "You are currently playing round 3.\n"
        "Q: Which Option do you choose, Option F or Option J?\n"
        "A: Option"
    )


def test_akata_round_one_and_the_request_has_no_system_message():
    builder, prompt = prompt_after(paper_agent("akata2025_pd.yaml"), AKATA_PD, [])
    assert prompt == (
        AKATA_RULES + "\n\nYou are currently playing round 1.\n"
        "Q: Which Option do you choose, Option J or Option F?\nA: Option"
    )
    request = CompletionRequest(
        provider="mock",
        model="m",
        api_base=None,
        system=builder.system,
        messages=(("user", prompt),),
        temperature=0.0,
        max_tokens=1,
    )
    assert request.chat_messages() == [{"role": "user", "content": prompt}]


def test_akata_battle_of_the_sexes_each_player_sees_its_own_payoffs_first():
    bos = GAMES["battle_of_the_sexes"]
    spec = paper_agent("akata2025_bos.yaml")
    _, for_a = prompt_after(spec, bos, [], side="a")
    _, for_b = prompt_after(spec, bos, [], side="b")
    jj = "If you choose Option J and the other player chooses Option J, then you win {} points and the other player wins {} points."
    ff = "If you choose Option F and the other player chooses Option F, then you win {} points and the other player wins {} points."
    assert jj.format(10, 7) in for_a and ff.format(7, 10) in for_a
    assert jj.format(7, 10) in for_b and ff.format(10, 7) in for_b


def test_fontana_third_person_prompt_word_for_word():
    moves = [(C, D), (C, C), (D, C)] * 4  # 12 rounds: the last 10 are shown
    _, prompt = prompt_after(paper_agent("fontana2025_alpha.yaml"), FONTANA_PD, moves, rounds=100)
    lines = prompt.splitlines()
    assert lines[:8] == [
        "Context: Player A and player B are playing a multi-round game.",
        "At each turn player A and player B simultaneously perform one of the following actions: "
        '{"Cooperate", "Defect"}',
        "The payoffs for each combination of chosen actions are the following:",
        'If A plays "Cooperate" and B plays "Cooperate", A collects 3 points and B collects 3 points.',
        'If A plays "Cooperate" and B plays "Defect", A collects 0 points and B collects 5 points.',
        'If A plays "Defect" and B plays "Cooperate", A collects 5 points and B collects 0 points.',
        'If A plays "Defect" and B plays "Defect", A collects 1 points and B collects 1 points.',
        "They will play a total of 100 rounds of this game.",
    ]
    assert lines[9] == "The history of the game in the last 10 rounds is the following:"
    assert lines[10] == (
        'Round 3: A played "Defect" and B played "Cooperate" A collected 5 points and B collected 0 points.'
    )
    assert lines[19] == (
        'Round 12: A played "Defect" and B played "Cooperate" A collected 5 points and B collected 0 points.'
    )
    # counts and totals over the whole match (12 rounds), not only the window
    assert lines[20:] == [
        'In total, A chose "Cooperate" 8 times and chose "Defect" 4 times, '
        'B chose "Cooperate" 8 times and chose "Defect" 4 times.',
        "In total, A collected 32 points and B collected 32 points.",
        "Current round: 13.",
        'Remember to use only the following JSON format: {"action": <ACTION_of_A>}',
        "Answer saying which action player A should play.",
        "Remember to answer using the right format.",
    ]


def test_fontana_first_round():
    _, prompt = prompt_after(paper_agent("fontana2025_alpha.yaml"), FONTANA_PD, [], rounds=100)
    assert "This is the first round of the game.\n\nCurrent round: 1." in prompt
    assert "In total" not in prompt


def test_payne_pairs_and_reasoning_last():
    spec = paper_agent("payne2025_shadow.yaml", condition=10)  # 25 % ending probability
    moves = [(C, C)] * 3 + [(C, D), (D, D)] * 10  # 23 rounds, the last 20 shown
    builder, prompt = prompt_after(
        spec, GAMES["pd"], moves, horizon=GeometricHorizon(0.25, max_rounds=30)
    )
    assert "After every round, the game ends with probability 0.25." in builder.system
    assert "30" not in builder.system  # the cap is hidden
    history, instruction = prompt.split("\n\n")
    # rounds 4-23 are shown: (C, D) and (D, D) ten times each, the oldest first
    assert history == "Moves so far: 23.\nThe last 20 moves (you, opponent): " + ", ".join(
        ["(C, D)", "(D, D)"] * 10
    )
    assert instruction == (
        "Answer with exactly one of: C, D. Think it through first, step by step. Then give your "
        "move alone on the very last line: C or D, and nothing else on that line."
    )
    assert spec.answer_max_tokens == 1000 and spec.temperature == 0.7


@pytest.mark.parametrize(
    ("response_format", "max_tokens", "expected"),
    [("label", None, 16), ("json", None, 16), ("reasoning", None, 1000), ("reasoning", 300, 300)],
)
def test_max_tokens_null_is_sized_per_format(response_format, max_tokens, expected):
    spec = LLMAgentSpec(response_format=response_format, max_tokens=max_tokens)
    assert spec.answer_max_tokens == expected


def test_table_format_and_window_summary(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "r.md").write_text("{history}\n{window_summary}\n{answer_instruction}")
    spec = LLMAgentSpec(
        system_prompt=None, round_prompt="prompts/r.md", history_format="table", history_window=2
    )
    builder = PromptBuilder(spec, game=GAMES["pd"], horizon=FixedHorizon(5), project_root=tmp_path)
    played = [
        PlayedRound(i, a, b, *GAMES["pd"].payoffs.payoffs(a, b))
        for i, (a, b) in enumerate([(C, C), (C, D), (D, D)], 1)
    ]
    obs = observe(played, side="a", history_window=2, include_totals=False)
    assert builder.round_prompt(obs, (D, C)) == (
        "The last 2 rounds (earlier rounds are not shown):\n"
        "Round | You | Opponent | Your points | Opponent's points\n"
        "2 | C | D | 0 | 5\n"
        "3 | D | D | 1 | 1\n"
        "In the last 2 rounds, you chose C 1 times and D 1 times, the opponent chose C 0 times "
        "and D 2 times.\n"
        "Answer with exactly one of: D, C. Reply with only your action, nothing else."
    )


def test_rounds_placeholder_needs_a_disclosed_number_of_rounds():
    spec = LLMAgentSpec(system_prompt=None, round_prompt="prompts/akata2025/round.md")
    with pytest.raises(ConfigError, match=r"uses \{rounds\}") as raised:
        check_prompt_files(spec, ROOT, GeometricHorizon(0.1))
    assert raised.value.field == "round_prompt"


def test_every_template_is_rendered_once_when_checked(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "r.md").write_text("{history:d}")  # refused before the render
    with pytest.raises(
        ConfigError, match=r"\{history:d\}: templates take no format specs"
    ) as raised:
        check_prompt_files(LLMAgentSpec(system_prompt=None, round_prompt="prompts/r.md"), tmp_path)
    assert raised.value.file == "prompts/r.md" and raised.value.field == "round_prompt"


def test_label_presets():
    assert GameSpec(labels="JF").build().labels == ("J", "F")
    assert GameSpec(labels="cooperate_defect").build().labels == ("Cooperate", "Defect")
    assert GameSpec(labels="split_steal").build().labels == ("split", "steal")
    with pytest.raises(ValueError, match='unknown label preset "jf"'):
        GameSpec(labels="jf")
