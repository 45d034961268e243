"""Generations in the donor game (issue 45, Vallinder & Hughes 2024's cultural evolution): a
match of generations x games x rounds, each game from the endowment with no past; after each
generation but the last the top share survives (ranked on its last game's final score, ties
seeded) and every other seat takes a new player, who writes its strategy shown the survivors'
strategies and scores; the strategy is stored and shown to its writer; house players copy a
survivor's parameters; the per-generation measures are recomputed from the stored rounds."""

from __future__ import annotations

from pathlib import Path

import pytest
from public_goods_loop import play

from pdbench.agents.judged_prompts import persona_text, render_prompt
from pdbench.config.schema import MockBehaviour
from pdbench.games import check
from pdbench.games.donor_game.generations import STRATEGY_LIMIT
from pdbench.games.donor_game.metrics import generation_rows
from pdbench.games.donor_game.mock import play as mock_play
from pdbench.games.donor_game.policies import DONOR_GAME_POLICIES, carried_player, spec
from pdbench.games.donor_game.prompts import PROMPTS
from pdbench.games.donor_game.stored import read_rounds, read_strategies
from pdbench.games.registry import build_turn_game

ROOT = Path(__file__).resolve().parents[2]
EVOLVING = {
    "players": 6,
    "rounds": 3,
    "generations": 3,
    "games_per_generation": 2,
    "amount": "continuous",
    "norm": "none",
    "endowment": 10,
    "recent_actions": 1,
}
KINDS = ["donor_share", "donor_never_give", "donor_match_share", "donor_always_give"]


def game(**options):
    return build_turn_game("donor_game", **{**EVOLVING, **options})


def house(rules):
    return {
        seat: DONOR_GAME_POLICIES[KINDS[i % len(KINDS)]]() for i, seat in enumerate(rules.seats)
    }


def played(rules, seed=3):
    seen: list = []
    lines, final = play(rules, house(rules), seed, seen=lambda s, seat, o: seen.append((s, o)))
    return lines, final, seen


def test_a_match_is_generations_times_games_of_rounds_each_from_the_endowment_and_no_past():
    rules = game()
    lines, final, seen = played(rules)
    rounds = read_rounds(lines)
    assert len(rounds) == 3 * 2 * 3
    assert [(r.generation, r.game) for r in rounds[::3]] == [
        (g, k) for g in (1, 2, 3) for k in (1, 2)
    ]
    assert [line["phase"] for line in lines].count("strategy") == 3  # one a generation
    for _, shown in seen:
        if shown["phase"] != "donate":
            continue
        stage = shown["stage"]
        assert shown["round_limit"] == 18
        if stage["round"] == 1:  # a game starts afresh: the endowment, no trace, no history
            assert shown["your_score"] == 10 and shown["recipient"]["resources"] == 10
            assert (
                shown["history"] == [] and shown["recipient"]["reputation"]["recent_actions"] == []
            )
        else:
            assert len(shown["history"]) == stage["round"] - 1
    assert final.phase == "over"
    assert rules.scores(final) == {s: r for s, r in rounds[-1].resources.items()}


def test_the_top_share_survives_each_generation_and_the_rest_are_new_players_who_write():
    rules = game()
    lines, _, seen = played(rules)
    rounds, phases = read_rounds(lines), read_strategies(lines)
    assert [p.generation for p in phases] == [1, 2, 3]
    assert set(phases[0].written) == set(rules.seats)  # everyone writes in generation 1
    for generation in (1, 2):
        last_game = [r for r in rounds if (r.generation, r.game) == (generation, 2)]
        finals = {s: 10 + sum(r.earnings[s] for r in last_game) for s in rules.seats}
        (kept,) = [r.survivors for r in last_game if r.survivors is not None]
        assert len(kept) == 3
        assert min(finals[s] for s in kept) >= max(finals[s] for s in rules.seats if s not in kept)
        assert [finals[s] for s in kept] == sorted((finals[s] for s in kept), reverse=True)
        new = set(rules.seats) - set(kept)
        assert set(phases[generation].written) == new  # only the new players write
        before = last_game[-1].labels
        after = next(r for r in rounds if r.generation == generation + 1).labels
        assert all(after[s] == before[s] for s in kept)
        assert all(after[s] not in before.values() for s in new)  # a new player, a new name
        # the new players are shown the survivors' strategies and scores, best first
        shown = [
            o["survivors"]
            for _, o in seen
            if o["phase"] == "strategy" and o["stage"]["generation"] == generation + 1
        ]
        assert len(shown) == 3 and all(x == shown[0] for x in shown)  # every new player
        assert [(x["label"], x["score"]) for x in shown[0]] == [
            (before[s], finals[s]) for s in kept
        ]
    assert all(r.survivors is None for r in rounds if r.generation == 3)  # no selection after


def test_the_written_strategy_is_shown_to_its_writer_and_house_players_copy_a_survivor():
    rules = game()
    lines, _, seen = played(rules)
    phases = read_strategies(lines)
    for _, shown in seen:
        if shown["phase"] != "donate":
            continue
        writer = next(
            p.written[seat]
            for p in reversed(phases)
            for seat in p.written
            if p.written[seat][0] == shown["you"] and p.round_number <= shown["round_number"]
        )
        assert shown["your_strategy"] == writer[1]
    first = phases[0].written
    assert first["a"][1] == spec(DONOR_GAME_POLICIES["donor_share"]())  # its own parameters
    survivors_texts = {text for _, text in first.values()}
    assert all(text in survivors_texts for p in phases[1:] for _, text in p.written.values())
    assert carried_player(spec(DONOR_GAME_POLICIES["donor_share"](share=0.3))) == (
        DONOR_GAME_POLICIES["donor_share"](share=0.3)
    )
    assert carried_player("give half when they gave last") is None
    # a replaced seat bound to never_give that copied donor_share gives half
    rounds = read_rounds(lines)
    for phase in phases[1:]:
        for seat, (_, text) in phase.written.items():
            if text == spec(DONOR_GAME_POLICIES["donor_share"]()):
                first_round = next(r for r in rounds if r.round_number == phase.round_number)
                assert first_round.amounts[seat] == 5


def test_the_same_seed_gives_the_same_evolution_and_check_games_contract_holds():
    rules = game()
    assert played(rules, 5)[0] == played(rules, 5)[0]
    assert read_rounds(played(rules, 5)[0]) != read_rounds(played(rules, 6)[0])
    policies = {name: factory() for name, factory in DONOR_GAME_POLICIES.items()}
    check._matches(rules, policies, {}, 2)
    check._refusal_and_fallbacks(rules, 2)
    check._hidden(rules, policies, {}, 2)
    binary = game(amount="binary", endowment=0, norm="image_scoring")
    check._matches(binary, policies, {}, 2)


def test_a_strategy_answer_is_text_within_the_limit_and_the_fallback_writes_none():
    rules = game()
    state = rules.initial_state(0)
    assert state.phase == "strategy" and rules.to_move(state) == rules.seats
    assert rules.problem(state, "a", {"type": "strategy", "text": "give half"}) is None
    assert '"text" must be a string' in rules.problem(state, "a", {"type": "strategy", "text": 3})
    too_long = {"type": "strategy", "text": "x" * (STRATEGY_LIMIT + 1)}
    assert "at most 2000 characters" in rules.problem(state, "a", too_long)
    assert "type must be" in rules.problem(state, "a", {"type": "donate", "amount": 1})
    assert rules.fallback(state, "a", "invalid") == {"type": "strategy", "text": ""}
    with pytest.raises(ValueError, match=r"^survivors must keep at least 1 player"):
        game(survivors=0.1)
    with pytest.raises(ValueError, match=r"^generations must be"):
        game(generations=0)


def test_the_llm_writes_its_strategy_from_the_prompt_and_the_mock_copies_a_survivor():
    rules = game()
    _, _, seen = played(rules)
    opening = next(o for _, o in seen if o["phase"] == "strategy")
    later = next(o for _, o in seen if o["phase"] == "strategy" and o["survivors"])
    text = render_prompt(ROOT, later, persona_text(ROOT, later, "cooperative"))
    assert "{" not in text and "generation 2" in text
    for shown in later["survivors"]:
        assert f"- {shown['label']} (final score {shown['score']:g}): {shown['strategy']}" in text
    answer = mock_play(text, MockBehaviour(), "k", lean="cooperative", allowed=None)
    assert answer in {s["strategy"] for s in later["survivors"]}
    first = render_prompt(ROOT, opening, persona_text(ROOT, opening, "cooperative"))
    assert mock_play(first, MockBehaviour(), "k", lean="cooperative", allowed=None) == spec(
        DONOR_GAME_POLICIES["donor_match_share"]()
    )
    assert PROMPTS.action(later, "  Give what they gave.\n") == {
        "type": "strategy",
        "text": "Give what they gave.",
    }
    with pytest.raises(ValueError, match="at most 2000 characters"):
        PROMPTS.action(later, "y" * 2001)
    assert PROMPTS.legal_answers(later) is None and PROMPTS.max_tokens(later) == 600
    donate = next(o for _, o in seen if o["phase"] == "donate" and o["stage"]["generation"] == 2)
    text = render_prompt(ROOT, donate, persona_text(ROOT, donate, "cooperative"))
    assert "Generation 2 of 3, game 1 of 2, round 1 of 3 of this game." in text
    assert f"Your strategy (you wrote it when you joined): {donate['your_strategy']}" in text


def test_the_generation_measures_are_the_stored_rounds():
    rules = game()
    lines, _, _ = played(rules)
    rounds = read_rounds(lines)
    rows = generation_rows(rounds, 10)
    assert [row["generation"] for row in rows] == [1, 2, 3]
    for row in rows:
        mine = [r for r in rounds if r.generation == row["generation"]]
        last = [r for r in mine if r.game == 2]
        finals = {s: 10 + sum(r.earnings[s] for r in last) for s in rules.seats}
        assert row["mean_score"] == pytest.approx(sum(finals.values()) / 6)
        assert finals == pytest.approx(last[-1].resources)
        kept = next((r.survivors for r in last if r.survivors), None)
        expected = None if kept is None else sum(finals[s] for s in kept) / len(kept)
        assert row["survivors_score"] == (expected if expected is None else pytest.approx(expected))
        amounts = [a for r in mine for a in r.amounts.values()]
        assert row["mean_amount"] == pytest.approx(sum(amounts) / len(amounts))
        assert row["giving_rate"] == sum(a > 0 for a in amounts) / len(amounts)


def test_the_example_agent_file_answers_the_strategy_phase_and_gives_amounts():
    """examples/agents/donor_game.py, read from the round_state only, plays a legal match of
    continuous giving with generations (the sandboxed run of its binary play is
    tests/integration/test_donor_game_example.py)."""
    import contextlib
    import importlib.util
    import io

    spec_ = importlib.util.spec_from_file_location(
        "donor_example", ROOT / "examples/agents/donor_game.py"
    )
    assert spec_ is not None and spec_.loader is not None
    module = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(module)

    class FileSeat:
        agent = module.Agent()

        def act(self, round_state, rng):
            with contextlib.redirect_stdout(io.StringIO()):
                return self.agent.on_turn(round_state)

    rules = game(players=4, generations=2)
    players = house(rules) | {"a": FileSeat()}
    lines, _ = play(rules, players, 1)  # every answer checked legal by the loop
    written = [
        line["actions"]["a"]["text"]
        for line in lines
        if "a" in line["actions"] and line["phase"] == "strategy"
    ]
    assert written and written[0] == module.STRATEGY
    amounts = [line["actions"]["a"]["amount"] for line in lines if line["phase"] == "donate"]
    assert any(a > 0 for a in amounts)


def test_under_a_norm_every_game_starts_good_and_the_measures_judge_it_so():
    """A binary match of several games under a norm: each game starts with every image good
    (no past), and the measures' recomputed images (`metrics.images_under`) are the stored."""
    from pdbench.games.donor_game.metrics import images_under

    rules = game(amount="binary", endowment=0, norm="stern_judging", games_per_generation=3)
    kinds = ["donor_discriminator", "donor_never_give", "donor_always_give", "donor_random"]
    players = {s: DONOR_GAME_POLICIES[kinds[i % 4]]() for i, s in enumerate(rules.seats)}
    lines, _ = play(rules, players, 2)
    rounds = read_rounds(lines)
    for played in rounds:
        if (played.round_number - 1) % 3 == 0:  # a game's first round
            assert set(played.images_before.values()) == {1}
    recomputed = images_under("stern_judging", rounds)
    assert recomputed[:-1] == [r.images_before for r in rounds]
    assert any(0 in r.images_before.values() for r in rounds)
