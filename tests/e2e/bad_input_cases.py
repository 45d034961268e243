"""The corpus of careless and hostile inputs (issue 20): one row per mistake, as researchers make
them and as a hostile file would try. Each row says how pdbench is invoked, what the error line
must name, and (`today=`) how it fails today: such rows are strict xfails that must fail for that
reason. Inputs are files under tests/fixtures/bad_input/ unless they depend on the sandbox.

Placeholders in arguments and written files: {case} (the sandbox), {out} (run.output_dir),
{proj} (the project copy, the working directory). Grow it with every bug. The first milestone's
config errors and the newcomer's errors are rows here too (classes "config" and "newcomer").
"""

from __future__ import annotations

from bad_input_corpus import (
    EXISTING_RUN,
    Case,
    Traceback,
    edit_file,
    existing_run,
    fixture_bytes,
    make_file,
    read_only,
    remove,
)

F = "tests/fixtures/bad_input"
Y, V, N, S, P = f"{F}/yaml", f"{F}/values", f"{F}/names", f"{F}/sizes", f"{F}/prompts"
POLICIES = f"{F}/run/policies.yaml"  # two policy conditions, 2 replicates of 5 rounds
LLM = f"{F}/run/llm.yaml"  # one mock-LLM condition, 1 replicate of 3 rounds
ARENA = f"{F}/run/arena.yaml"  # arena agents as a mapping and as a ref whose path is ??? (required)
TFT_FILE = "examples/agents/tit_for_tat.py"
PRIMARY = "conf/config.yaml"
EXPERIMENT = "conf/experiment.yaml"
TAKEN = f"out/{EXISTING_RUN}"


def validate(path: str, *overrides: str) -> tuple[str, ...]:
    return ("validate", path, *overrides)


def run(path: str, *more: str) -> tuple[str, ...]:
    return ("run", path, "-q", "run.output_dir={out}", *more)


def hydra(*overrides: str, flags: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`python -m pdbench [flags]` with its run folder and Hydra's own folders in the sandbox
    (the case's overrides come last, so they win)."""
    return (*flags, "run.output_dir={out}", "hydra.run.dir={case}/hydra/run",
            "hydra.sweep.dir={case}/hydra/sweep", *overrides)  # fmt: skip


def yaml_file(path: str, **kw) -> Case:
    """A YAML mistake in a fixture file, through `pdbench validate`."""
    name = path.rsplit("/", 1)[-1].removesuffix(".yaml")
    line = (f"{Y}/{path}", *kw.pop("line", ()))
    return Case(name, "yaml", validate(f"{Y}/{path}"), line=line, **kw)


def value_file(path: str, *fields: str, **kw) -> Case:
    name = path.removesuffix(".yaml")
    return Case(name, "values", validate(f"{V}/{path}"), line=(f"{V}/{path}", *fields), **kw)


def llm_prompts(*overrides: str) -> tuple[str, ...]:
    return validate(PRIMARY, "agent_a=llm_default", *overrides)


TB = Traceback  # the most common way to fail today
# Typer vendors click (typer._click), so main()'s `isinstance(error, click.ClickException)` misses.
USAGE_TB = (TB, "typer's own click exception escapes main(): traceback, exit 1")

# One row per case; kept one to three lines each so the table reads as a table.
# fmt: off
UTF8_BAD = b"caf\xe9"  # latin-1 bytes: not UTF-8
DEEP = b"horizon: {type: fixed, rounds: 5}\nconditions: " + b"[" * 100_000 + b"]" * 100_000 + b"\n"

YAML = [
    yaml_file("duplicate_top_key.yaml", line=("horizon",)),
    yaml_file("duplicate_condition_key.yaml", line=("agent_b",)),
    yaml_file("duplicate_payoff_key.yaml", line=("CD",)),
    Case("duplicate_key_in_ref_file", "yaml", validate(f"{Y}/ref_duplicate_key.yaml"), line=("conf/agent/dup_llm.yaml", "temperature"),
         files=(("proj/conf/agent/dup_llm.yaml", fixture_bytes("conf/agent/dup_llm.yaml")),)),
    Case("duplicate_key_in_group_file", "yaml", validate(PRIMARY, "agent_a=dup_llm"), line=("conf/agent/dup_llm.yaml", "temperature"),
         files=(("proj/conf/agent/dup_llm.yaml", fixture_bytes("conf/agent/dup_llm.yaml")),)),
    yaml_file("billion_laughs.yaml", quick=True, process=True),
    Case("deep_nesting", "yaml", validate("deep.yaml"), line=("deep.yaml",), quick=True, process=True, files=(("proj/deep.yaml", DEEP),)),
    yaml_file("nan_payoff.yaml", line=("game.payoffs",)),
    yaml_file("inf_payoff.yaml", line=("game.payoffs",)),
    Case("nan_payoff_in_group_file", "yaml", validate(PRIMARY, "game=nan_game"), line=(PRIMARY, "game.payoffs"),
         files=(("proj/conf/game/nan_game.yaml", fixture_bytes("conf/game/nan_game.yaml")),)),
    Case("nan_payoff_override", "yaml", validate(EXPERIMENT, "game.payoffs.CC=[.nan,3]"), line=(EXPERIMENT, "game.payoffs")),
    Case("inf_payoff_override_primary", "yaml", validate(PRIMARY, "game.check_pd=false", "game.payoffs.DD=[inf,inf]"),
         line=(PRIMARY, "game.payoffs")),
    # Dates are read as the strings they look like (a run named after its day is a fine name).
    yaml_file("date_condition_name.yaml", line=(), codes=(0,)),
    yaml_file("date_run_id.yaml", line=(), codes=(0,)),
    yaml_file("tab_indent.yaml", line=("line 3",)),
    Case("non_utf8_value", "yaml", validate("latin1.yaml"), line=("latin1.yaml", "utf-8"),
         files=(("proj/latin1.yaml", b"horizon: {type: fixed, rounds: 5}\nconditions:\n  - {name: " + UTF8_BAD + b", agent_a: tft, agent_b: alld}\n"),)),
    Case("nul_byte", "yaml", validate("nul.yaml"), line=("nul.yaml",),
         files=(("proj/nul.yaml", b"horizon: {type: fixed, rounds: 5}\x00\nconditions:\n  - {name: x, agent_a: tft, agent_b: alld}\n"),)),
    yaml_file("empty.yaml", line=("conditions",)),
    yaml_file("top_level_list.yaml", line=("top level",)),
    yaml_file("python_tag.yaml", line=("line 4",)),
    yaml_file("conditions_mapping.yaml", line=("conditions",)),
    yaml_file("payoff_three_numbers.yaml", line=("game.payoffs", "CC")),
    yaml_file("norway_labels.yaml", line=("game.labels",)),
    yaml_file("bad_interpolation.yaml", line=("seed",)),
    Case("huge_int_seed", "yaml", run(f"{Y}/huge_int_seed.yaml"), line=(f"{Y}/huge_int_seed.yaml", "run.seed"), codes=(0, 2)),
]

SIZES = [
    Case("replicates_billion_override", "sizes", run(POLICIES, "run.replicates=1000000000"), line=(POLICIES, "run.replicates"),
         quick=True),
    Case("replicates_billion_option", "sizes", run(POLICIES, "--replicates", "1000000000"), line=("--replicates",),
         quick=True, process=True),
    Case("replicates_billion_validate", "sizes", validate(POLICIES, "run.replicates=1000000000"), line=(POLICIES, "run.replicates"),
         quick=True),
    Case("replicates_dry_run", "sizes", run(POLICIES, "--dry-run", "run.replicates=100000000"), line=(POLICIES, "run.replicates"),
         quick=True),
    Case("rounds_trillion", "sizes", run(POLICIES, "horizon.rounds=1000000000000"), line=(POLICIES, "horizon.rounds"),
         quick=True),
    Case("rounds_times_matches", "sizes", run(POLICIES, "horizon.rounds=100000", "run.replicates=100000"), line=(POLICIES,),
         quick=True),
    Case("replicates_beyond_int64", "sizes", run(POLICIES, "--replicates", "99999999999999999999999"), line=("--replicates",),
         quick=True),
    Case("rounds_beyond_int64", "sizes", run(POLICIES, "horizon.rounds=9223372036854775808"), line=(POLICIES, "horizon.rounds"),
         quick=True),
    Case("rounds_huge_primary", "sizes", run(PRIMARY, "horizon.rounds=10000000000"), line=(PRIMARY, "horizon.rounds"),
         quick=True),
    Case("geometric_huge_cap", "sizes", run(f"{S}/geometric_huge_cap.yaml"), line=(f"{S}/geometric_huge_cap.yaml", "horizon"),
         quick=True),
    Case("llm_ten_million_rounds", "sizes", run(f"{S}/many_rounds_llm.yaml"), line=(f"{S}/many_rounds_llm.yaml", "horizon.rounds"),
         quick=True),
    Case("replicates_billion_hydra", "sizes", hydra("run.replicates=1000000000"), line=(PRIMARY, "run.replicates"),
         entry="module", quick=True, process=True),
    # Valid but large: must run (or validate) without a word of complaint.
    Case("matches_beyond_their_limit", "sizes", validate(POLICIES, "run.limits.matches=3"), line=(POLICIES, "run.replicates", "run.limits.matches")),
    Case("limit_zero", "sizes", validate(POLICIES, "run.limits.rounds=0"), line=(POLICIES, "run.limits.rounds")),
    Case("seed_below_int64", "sizes", validate(POLICIES, "run.seed=-9223372036854775809"), line=(POLICIES, "run.seed")),
    Case("limit_raised_on_purpose", "sizes", validate(POLICIES, "horizon.rounds=60000000", "run.limits.rounds=300000000"), codes=(0,)),
    Case("large_but_sane_validate", "sizes", validate(POLICIES, "run.replicates=2000", "horizon.rounds=100"), codes=(0,)),
    Case("large_but_sane_run", "sizes", run(POLICIES, "run.replicates=100", "horizon.rounds=200"), codes=(0,)),
]

VALUES = [
    value_file("blank_condition_name.yaml", "name"),
    value_file("empty_condition_name.yaml", "name"),
    value_file("null_condition_name.yaml", "name"),
    value_file("padded_condition_name.yaml", "name"),
    value_file("duplicate_condition_name.yaml", "tft_vs_alld"),
    value_file("empty_label.yaml", "game.labels"),
    value_file("padded_label.yaml", "game.labels"),
    value_file("padded_label_collision.yaml", "game.labels"),
    value_file("identical_labels.yaml", "game.labels"),
    value_file("newline_label.yaml", "game.labels"),
    value_file("stop_prob_tiny.yaml", "horizon.stop_prob"),
    Case("stop_prob_tiny_capped", "values", validate(f"{V}/stop_prob_tiny_capped.yaml"), codes=(0,)),
    Case("stop_prob_tiny_primary", "values", validate(PRIMARY, "horizon=geometric", "horizon.stop_prob=1e-9"), line=(PRIMARY, "horizon.stop_prob")),
    value_file("arena_timeout_inf.yaml", "timeout_s"),
    Case("arena_timeout_zero", "values", validate(f"{V}/arena_timeout_inf.yaml"), line=("timeout_s",),
         setup=(edit_file(f"proj/{V}/arena_timeout_inf.yaml", lambda b: b.replace(b".inf", b"0")),)),
    value_file("mock_latency_inf.yaml", "latency_s"),
    Case("mock_latency_inf_primary", "values", validate(PRIMARY, "agent_a=llm_default", "provider.mock.latency_s=inf"),
         line=(PRIMARY, "latency_s")),
    value_file("provider_timeout_inf.yaml", "timeout_s"),
    Case("provider_max_attempts_zero", "values", validate(LLM, "provider.max_attempts=0"), line=(LLM, "max_attempts")),
    value_file("generous_prob_nan.yaml", "generous_prob"),
    value_file("not_a_dilemma.yaml", "game.payoffs"),
    value_file("max_cost_nan.yaml", "max_cost_usd"),
    Case("max_rounds_zero", "values", validate(PRIMARY, "horizon=geometric", "horizon.max_rounds=0"), line=(PRIMARY, "horizon.max_rounds")),
    # a mechanism's options (issue 45): out of range, unknown, on a game without mechanisms
    Case("mechanism_rounds_zero", "values", validate(PRIMARY, "mechanism=mediation", "mechanism.rounds=0"), line=(PRIMARY, "mechanism.rounds"), quick=True),
    Case("mechanism_decide_unknown", "values", validate(PRIMARY, "mechanism=contracting", "mechanism.decide=sometimes"), line=(PRIMARY, "mechanism.decide"), quick=True),
    Case("mechanism_on_liars_dice", "values", validate(PRIMARY, "game=liars_dice", "agent_a=liars_random", "agent_b=liars_random", "mechanism=contracting"), line=(PRIMARY, "mechanism:"), quick=True),
    Case("mechanism_with_a_2x2_policy", "values", validate(PRIMARY, "mechanism=mediation", "agent_b=grim"), line=(PRIMARY, "agent_b.policy"), quick=True),
    value_file("empty_model.yaml", "model"),
    Case("blank_model_override", "values", validate(LLM, "provider.name=litellm", "provider.model='  '"), line=(LLM, "model")),
    Case("tab_in_label_override", "values", validate(POLICIES, "game.labels=['co\top',defect]"), line=(POLICIES, "game.labels")),
    Case("labels_differing_in_case", "values", validate(POLICIES, "game.labels=[Split,split]"), line=(POLICIES, "game.labels")),
    # issue 27: YAML booleans are not numbers (were taken as 1)
    value_file("replicates_yes.yaml", "run.replicates", "boolean"),
    value_file("rounds_on.yaml", "horizon.rounds", "boolean"),
    Case("replicates_true_override", "values", run(POLICIES, "run.replicates=true"), line=(POLICIES, "run.replicates", "boolean")),
    Case("rounds_true_hydra", "values", hydra("horizon.rounds=true"), line=(PRIMARY, "horizon.rounds", "boolean"), entry="module"),
    Case("max_tokens_true", "values", validate(PRIMARY, "agent_a=llm_default", "agent_a.max_tokens=true"), line=(PRIMARY, "agent_a.max_tokens", "boolean")),
    Case("payoff_true", "values", validate(POLICIES, "+game.payoffs={CC: [true, 3], CD: [0, 5], DC: [5, 0], DD: [1, 1]}"),
         line=(POLICIES, "game.payoffs", "boolean")),
    Case("policy_param_true", "values", validate(PRIMARY, "agent_b=gtft", "agent_b.params.generous_prob=true"),
         line=(PRIMARY, "generous_prob", "boolean")),
    Case("limit_true", "values", validate(POLICIES, "run.limits.matches=true"), line=(POLICIES, "run.limits.matches", "boolean")),
]

PATHS = [
    Case("run_id_parent_option", "paths", run(POLICIES, "--run-id", "../escaped"), line=("--run-id",), process=True),
    Case("run_id_slash_option", "paths", run(POLICIES, "--dry-run", "--run-id", "nested/run"), line=("--run-id",)),
    Case("run_id_absolute_option", "paths", run(POLICIES, "--run-id", "{case}/elsewhere"), line=("--run-id",)),
    Case("run_id_newline_option", "paths", run(POLICIES, "--dry-run", "--run-id", "two\nlines"), line=("--run-id",)),
    Case("run_id_empty_option", "paths", run(POLICIES, "--dry-run", "--run-id", ""), line=("--run-id",)),
    Case("run_id_dot_option", "paths", run(POLICIES, "--run-id", "."), line=("--run-id",)),
    Case("run_id_backslash_option", "paths", run(POLICIES, "--dry-run", "--run-id", "a\\b"), line=("--run-id",)),
    Case("run_id_dotdot_option", "paths", run(POLICIES, "--dry-run", "--run-id", ".."), line=("--run-id",)),
    Case("run_id_tab_override", "paths", run(POLICIES, "--dry-run", "run.run_id='a\tb'"), line=(POLICIES, "run.run_id")),
    Case("run_id_parent_in_file", "paths", validate(f"{N}/run_id_parent.yaml"), line=(f"{N}/run_id_parent.yaml", "run.run_id")),
    Case("run_id_nul", "paths", run(f"{N}/run_id_nul.yaml"), line=(f"{N}/run_id_nul.yaml", "run.run_id")),
    Case("run_id_too_long", "paths", run(f"{N}/run_id_too_long.yaml"), line=(f"{N}/run_id_too_long.yaml", "run.run_id")),
    Case("run_id_parent_hydra", "paths", hydra("run.run_id=../escaped"), line=(PRIMARY, "run.run_id"), entry="module"),
    Case("output_dir_is_a_file", "paths", run(POLICIES, "run.output_dir={case}/a_file"), line=("run.output_dir", "a_file"), setup=(make_file("a_file"),)),
    Case("output_dir_read_only", "paths", run(POLICIES, "run.output_dir={case}/locked"), line=("run.output_dir", "locked"), setup=(read_only("locked"),)),
    Case("output_dir_under_proc", "paths", run(POLICIES, "run.output_dir=/proc/pdbench/runs"), line=("run.output_dir", "/proc/pdbench/runs")),
    Case("output_dir_empty", "paths", run(POLICIES, "run.output_dir=''"), line=("run.output_dir", "empty")),
    Case("run_folder_is_a_file", "paths", run(POLICIES, "--run-id", EXISTING_RUN), line=(EXISTING_RUN, "--run-id"), setup=(make_file(TAKEN),)),
    Case("cache_dir_is_a_file", "paths", run(LLM, "run.cache.dir={case}/a_file"), line=("run.cache.dir", "a_file"), setup=(make_file("a_file"),), env=(("PDBENCH_CACHE_DIR", None),)),
    Case("cache_dir_read_only", "paths", run(LLM, "run.cache.dir={case}/locked"), line=("run.cache.dir", "locked"), setup=(read_only("locked"),), env=(("PDBENCH_CACHE_DIR", None),)),
    Case("cache_dir_under_proc", "paths", run(LLM, "run.cache.dir=/proc/pdbench/cache"), line=("run.cache.dir", "/proc/pdbench/cache"), env=(("PDBENCH_CACHE_DIR", None),)),
    Case("cache_env_is_a_file", "paths", run(LLM), line=("PDBENCH_CACHE_DIR", "a_file"), setup=(make_file("a_file"),), env=(("PDBENCH_CACHE_DIR", "{case}/a_file"),)),
    Case("persona_parent", "paths", validate(f"{N}/persona_parent.yaml"), line=(f"{N}/persona_parent.yaml", "persona")),
    Case("persona_parent_primary", "paths", llm_prompts("agent_a.persona=../../tests/fixtures/bad_input/prompts/outside_persona"), line=(PRIMARY, "persona")),
    Case("persona_dotdot", "paths", llm_prompts("agent_a.persona=.."), line=(PRIMARY, "persona")),
    Case("persona_absolute", "paths", llm_prompts("agent_a.persona={case}/evil"), line=(PRIMARY, "persona"), files=(("evil.md", b"Always defect.\n"),)),
    Case("condition_name_newline", "paths", validate(f"{N}/condition_name_newline.yaml"), line=(f"{N}/condition_name_newline.yaml", "name")),
    Case("arena_path_is_a_folder", "paths", validate(f"{N}/arena_path_dir.yaml"), line=(f"{N}/arena_path_dir.yaml", "path")),
    # An existing run: a broken file in it is refused in one line and nothing in it is lost.
    Case("existing_manifest_not_an_object", "paths", run(POLICIES, "--run-id", EXISTING_RUN), line=("run_manifest.json",),
         setup=(existing_run, make_file(f"{TAKEN}/run_manifest.json", b"[]\n"))),
    Case("existing_manifest_truncated", "paths", run(POLICIES, "--run-id", EXISTING_RUN), line=("run_manifest.json",),
         setup=(existing_run, edit_file(f"{TAKEN}/run_manifest.json", lambda b: b[: len(b) // 2]))),
    # A damaged ledger is recovered from, not refused (issue 22): the longest valid prefix stays,
    # the rest is moved aside into quarantine/ (never deleted) in one warning line, and played again.
    Case("existing_ledger_garbage_line", "paths", run(POLICIES, "--run-id", EXISTING_RUN), codes=(0,), warning=("matches.jsonl", "line 1", "quarantine"),
         process=True, setup=(existing_run, edit_file(f"{TAKEN}/matches.jsonl", lambda b: b"garbage\n" + b))),
    Case("existing_ledger_missing_offset", "paths", run(POLICIES, "--run-id", EXISTING_RUN), codes=(0,), warning=("matches.jsonl", "line 1", "rounds_end_offset", "quarantine"),
         setup=(existing_run, edit_file(f"{TAKEN}/matches.jsonl", lambda b: b.replace(b'"rounds_end_offset"', b'"offset"', 1)))),
    Case("existing_rounds_garbage_aggregate", "paths", ("aggregate", "{out}/" + EXISTING_RUN), line=("rounds.jsonl", "line 1"),
         setup=(existing_run, edit_file(f"{TAKEN}/rounds.jsonl", lambda b: b"garbage\n" + b))),
]

TEMPLATES = [
    Case("no_answer_instruction_anywhere", "templates", llm_prompts(f"agent_a.system_prompt={P}/system_no_answer.md", f"agent_a.round_prompt={P}/round_no_answer.md"),
         line=(PRIMARY, "answer_instruction")),
    Case("system_without_payoffs", "templates", llm_prompts(f"agent_a.system_prompt={P}/system_no_payoffs.md"), line=(PRIMARY, "system_prompt", "payoff_table")),
    Case("empty_round_prompt", "templates", llm_prompts(f"agent_a.round_prompt={P}/empty.md"), line=(PRIMARY, "round_prompt")),
    # The default system prompt asks for the answer ({answer_instruction}, first in the prompt since
    # issue 33's prefix-friendly layout), so a round prompt without its question is accepted; with
    # neither asking, it is refused (no_answer_instruction_anywhere above).
    Case("round_prompt_without_its_question", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_no_answer.md"), codes=(0,)),
    # A published design asks by naming both options in its question (Akata et al.): accepted.
    Case("question_naming_both_options", "templates", validate(PRIMARY, "agent_a=akata2025"), codes=(0,)),
    Case("bad_conversion", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_bad_conversion.md"), line=(PRIMARY, "round_prompt")),
    Case("bad_conversion_experiment", "templates", validate(f"{P}/experiment_bad_conversion.yaml"), line=(f"{P}/experiment_bad_conversion.yaml", "round_prompt")),
    Case("bad_conversion_run", "templates", run(f"{P}/experiment_bad_conversion.yaml"), line=(f"{P}/experiment_bad_conversion.yaml", "round_prompt")),
    Case("bad_conversion_hydra", "templates", hydra("agent_a=llm_default", f"agent_a.round_prompt={P}/round_bad_conversion.md"), line=(PRIMARY, "round_prompt"),
         entry="module", process=True),
    Case("huge_width", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_huge_width.md"), line=(PRIMARY, "round_prompt"), quick=True, process=True),
    Case("overflow_width", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_overflow_width.md"), line=(PRIMARY, "round_prompt")),
    Case("bad_format_spec", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_bad_spec.md"), line=(PRIMARY, "round_prompt")),
    Case("nested_format_spec", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_nested_spec.md"), line=(PRIMARY, "round_prompt")),
    Case("attribute_access", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_attribute.md"), line=(PRIMARY, "round_prompt")),
    Case("unbalanced_brace", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_unbalanced.md"), line=(PRIMARY, "round_prompt")),
    Case("unknown_placeholder", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_unknown_placeholder.md"), line=(PRIMARY, "round_prompt", "round_index")),
    Case("non_utf8_round_prompt", "templates", llm_prompts("agent_a.round_prompt=latin1.md"), line=(PRIMARY, "round_prompt"),
         files=(("proj/latin1.md", b"Round {round_index} " + UTF8_BAD + b"\n{answer_instruction}\n"),)),
    Case("non_utf8_persona", "templates", llm_prompts("agent_a.persona=latin1"), line=(PRIMARY, "persona"),
         files=(("proj/prompts/personas/latin1.md", b"You like " + UTF8_BAD + b".\n"),)),
    Case("persona_bad_conversion", "templates", llm_prompts("agent_a.persona=odd"), line=(PRIMARY, "persona"),
         files=(("proj/prompts/personas/odd.md", b"You prefer {cooperate_label!x}.\n"),)),
    Case("persona_huge_width", "templates", llm_prompts("agent_a.persona=wide"), line=(PRIMARY, "persona"), quick=True,
         files=(("proj/prompts/personas/wide.md", b"You prefer {cooperate_label:>99999999}.\n"),)),
    # Issue 40: a template is text and {name} placeholders; a valid conversion, a format spec or a
    # part of a value would change what the model is sent, silently (Python's repr of the history).
    # Every form of it: tests/unit/test_template_syntax.py; here, each kind of template file.
    Case("repr_conversion", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_repr.md"), line=(PRIMARY, "round_prompt", f"{P}/round_repr.md", "{history!r}")),
    Case("small_format_width", "templates", llm_prompts(f"agent_a.round_prompt={P}/round_small_width.md"), line=(PRIMARY, "round_prompt", "{round_index:>3}")),
    Case("persona_str_conversion", "templates", llm_prompts("agent_a.persona=plain"), line=(PRIMARY, "persona", "{cooperate_label!s}"),
         files=(("proj/prompts/personas/plain.md", b"You prefer {cooperate_label!s}.\n"),)),
    Case("turn_prompt_repr_conversion", "templates", validate(PRIMARY, "game=liars_dice", "agent_a=llm_default", "agent_b=liars_random"),
         line=(PRIMARY, "prompts/liars_dice/turn.md", "{bids!r}"), setup=(edit_file("proj/prompts/liars_dice/turn.md", lambda b: b.replace(b"{bids}", b"{bids!r}")),)),
    # A prompt of a later phase (the guess), not rendered from the opening observation.
    Case("later_phase_prompt_conversion_experiment", "templates", run(f"{P}/experiment_passcode_llm.yaml", "--dry-run"),
         line=(f"{P}/experiment_passcode_llm.yaml", "prompts/passcode/guess.md", "{qa_history!a}"),
         setup=(edit_file("proj/prompts/passcode/guess.md", lambda b: b.replace(b"{qa_history}", b"{qa_history!a}")),)),
]

CLI = [
    Case("run_without_config", "cli", ("run",), line=("config",)),
    Case("aggregate_without_run_dir", "cli", ("aggregate",), line=("run_dir",)),
    Case("misspelt_run", "cli", ("rn", POLICIES), line=("rn",)),
    Case("unknown_option", "cli", run(POLICIES, "--replicate", "2"), line=("--replicate",), process=True),
    Case("replicates_not_a_number", "cli", run(POLICIES, "--replicates", "two"), line=("--replicates",)),
    Case("replicates_empty", "cli", run(POLICIES, "--replicates", ""), line=("--replicates",)),
    Case("run_dash_m", "cli", ("run", "-m", "agent_a=tft,grim"), line=("-m",)),
    Case("run_config_dash_m", "cli", run(PRIMARY, "-m", "agent_a=tft,grim"), line=("-m",)),
    Case("run_id_without_value", "cli", ("run", POLICIES, "--run-id"), line=("--run-id",)),
    Case("flag_with_value", "cli", run(POLICIES, "--dry-run=yes"), line=("--dry-run",)),
    Case("port_not_a_number", "cli", ("ui", "{out}", "--port", "abc"), line=("--port",)),
    Case("list_extra_argument", "cli", ("list", "agents", "personas"), line=("personas",)),
    Case("unknown_top_level_option", "cli", ("--versoin",), line=("--versoin",)),
    Case("validate_has_no_run_id", "cli", ("validate", POLICIES, "--run-id", "x"), line=("--run-id",)),
    Case("no_cache_and_offline", "cli", run(POLICIES, "--no-cache", "--offline"), line=("--no-cache", "--offline")),
    Case("plus_unknown_key_primary", "cli", validate(PRIMARY, "+unknown.key=1"), line=(PRIMARY, "unknown.key")),
    Case("plus_unknown_key_experiment", "cli", validate(POLICIES, "+unknown.key=1"), line=(POLICIES, "unknown.key")),
    Case("plus_typo_run_key_primary", "cli", validate(PRIMARY, "+runn.seed=1"), line=(PRIMARY, "runn")),
    Case("sweep_syntax_without_m", "cli", run(PRIMARY, "agent_a=tft,grim"), line=(PRIMARY, "agent_a")),
    Case("replace_section_with_scalar", "cli", validate(POLICIES, "run=5"), line=(POLICIES, "run")),
    Case("hydra_unknown_launcher", "cli", hydra("hydra/launcher=nope"), line=("hydra/launcher", "nope"), entry="module"),
    Case("hydra_plus_unknown_key", "cli", hydra("+unknown.key=1"), line=(PRIMARY, "unknown.key"), entry="module"),
    Case("hydra_unknown_flag", "cli", hydra(flags=("--badflag",)), line=("--badflag",), entry="module", process=True),
    Case("hydra_launcher_field_without_launcher", "cli", hydra("hydra.launcher.n_jobs=2"), line=("hydra.launcher.n_jobs",), entry="module"),
    Case("hydra_unknown_config_name", "cli", hydra(flags=("--config-name", "nope")), line=("--config-name", "nope"), entry="module"),
    Case("hydra_sweep_of_run_seed", "cli", hydra("agent_a=tft,grim", "run.seed=1,2", flags=("-m",)), line=("run.seed",), entry="module", process=True),
]

# From the first milestone's config errors (issue 5): a typo, a value out of range or a missing file
# is refused in one line naming the file and the field, with "did you mean" for a near miss.
B, R = "tests/fixtures/configs/bad", "tests/fixtures/configs/refs"


def config(id: str, args: tuple[str, ...], field: str, file: str | None, suggest: str | None = None, **kw) -> Case:
    line = (field, *((file,) if file else ()), *((f'did you mean "{suggest}"?',) if suggest else ()))
    return Case(id, "config", args, line=line, **kw)


def bad_file(name: str, field: str, suggest: str | None = None, **kw) -> Case:
    return config(name, validate(f"{B}/{name}.yaml"), field, f"{B}/{name}.yaml", suggest, **kw)


def first(name: str, field: str) -> str:
    """The field of the first condition of tests/fixtures/configs/bad/<name>.yaml."""
    return f"conditions[0]({name}).{field}"


CONFIG = [
    config("malformed_yaml", validate(f"{B}/malformed.yaml"), "line 4", f"{B}/malformed.yaml"),
    config("unknown_agent_option_primary", validate(PRIMARY, "agent_a=tftt"), "agent_a", PRIMARY, "tft"),
    config("unknown_persona_option_primary", validate(PRIMARY, "persona=exploitatve"), "persona", PRIMARY, "exploitative"),
    config("unknown_agent_name_experiment", validate(f"{B}/unknown_agent.yaml"), first("unknown_agent", "agent_a"), f"{B}/unknown_agent.yaml", "grim"),
    config("unknown_top_level_key", validate(f"{B}/top_level_typo.yaml"), "runn", f"{B}/top_level_typo.yaml", "run"),
    config("unknown_condition_key", validate(f"{B}/unknown_condition_key.yaml"), "conditions[0](typo).agnet_b", f"{B}/unknown_condition_key.yaml", "agent_b"),
    bad_file("ref_field_typo", first("ref_field_typo", "agent_a.overrides.histroy_window"), "history_window"),
    bad_file("condition_field_typo", first("condition_field_typo", "agent_a.histroy_window"), "history_window"),
    config("run_field_typo_experiment", validate(EXPERIMENT, "run.seedd=1"), "run.seedd", EXPERIMENT, "seed"),
    config("run_field_typo_primary", validate(PRIMARY, "run.seedd=1"), "run.seedd", PRIMARY, "seed"),
    config("agent_field_typo_primary", validate(PRIMARY, "agent_a=llm_default", "agent_a.histroy_window=3"), "agent_a.histroy_window", PRIMARY, "history_window"),
    bad_file("policy_param_typo", "generouss_prob", "generous_prob"),
    config("generous_prob_out_of_range", validate(PRIMARY, "agent_a=gtft", "agent_a.params.generous_prob=1.5"), "agent_a.params.generous_prob", PRIMARY),
    *[bad_file(f"stop_prob_{name}", first(f"stop_prob_{name}", "horizon.stop_prob")) for name in ("zero", "one", "high")],
    config("stop_prob_primary", validate(PRIMARY, "horizon=geometric", "horizon.stop_prob=1.5"), "horizon.stop_prob", PRIMARY),
    bad_file("history_window_negative", first("history_window_negative", "agent_a.history_window")),
    bad_file("rounds_zero", first("rounds_zero", "horizon.rounds")),
    config("rounds_negative_override", validate(EXPERIMENT, "horizon.rounds=-1"), "horizon.rounds", EXPERIMENT),
    bad_file("max_retries_negative", first("max_retries_negative", "agent_a.max_retries")),
    config("max_retries_negative_primary", validate(PRIMARY, "agent_a=llm_default", "agent_a.max_retries=-1"), "agent_a.max_retries", PRIMARY),
    bad_file("missing_ref", first("missing_ref", "agent_a.ref"), "agent/llm_default.yaml"),
    bad_file("missing_prompt", "agent_a.system_prompt"),
    bad_file("missing_persona", "agent_a.persona", "cooperative"),
    # The cycle lives in the ref files: the message names them and the condition's field.
    config("ref_cycle", validate(f"{B}/ref_cycle.yaml"), first("ref_cycle", "agent_a.ref"), f"{R}/cycle_a.yaml"),
    # A command-line option, not a file; nothing is written (the sandbox's fingerprint).
    config("replicates_option_zero", run(EXPERIMENT, "--replicates", "0"), "--replicates", None, process=True),
    config("replicates_override_zero", validate(EXPERIMENT, "run.replicates=0"), "run.replicates", EXPERIMENT),
    config("hydra_unknown_agent_option", hydra("agent_a=tftt"), "agent_a", PRIMARY, "tft", entry="module"),
    config("hydra_unknown_field", hydra("run.seedd=1"), "run.seedd", PRIMARY, "seed", entry="module"),
    # No run is written by a composition that fails (the sandbox's fingerprint).
    config("hydra_stop_prob_out_of_range", hydra("horizon=geometric", "horizon.stop_prob=1.5"), "horizon.stop_prob", PRIMARY,
           entry="module", process=True),
]

# Issue 40: an override of a field the agent's kind has names that field, suggests only that kind's
# fields, and is accepted where it can be; `+` on a field that holds a value says what to write.
# Every kind and every field of it: tests/unit/test_agent_field_overrides.py.
AGENT_FIELDS = [
    Case("hydra_plus_existing_arena_field", "config", hydra("agent_b=arena", f"agent_b.path={TFT_FILE}", "+agent_b.memory_mb=256"),
         line=(PRIMARY, "agent_b.memory_mb", "write agent_b.memory_mb=256"), absent=('"path"', "agent_b.path"), entry="module"),
    Case("plus_existing_llm_field_primary", "config", validate(PRIMARY, "agent_b=llm_default", "+agent_b.temperature=0.5"),
         line=(PRIMARY, "agent_b.temperature", "write agent_b.temperature=0.5")),
    Case("arena_field_typo_primary", "config", validate(PRIMARY, "agent_b=arena", f"agent_b.path={TFT_FILE}", "agent_b.memry_mb=256"),
         line=(PRIMARY, "agent_b.memry_mb", 'did you mean "memory_mb"'), absent=('"path"', "+agent_b")),
    Case("arena_fields_experiment", "config", validate(ARENA, "conditions.0.agent_b.memory_mb=256"), codes=(0,)),
    Case("arena_fields_experiment_run", "config", run(ARENA, "--dry-run", "conditions.0.agent_b.max_processes=8", "+conditions.1.agent_b.overrides.memory_mb=256"),
         codes=(0,)),
    Case("arena_field_typo_experiment", "config", validate(ARENA, "conditions.0.agent_b.memry_mb=256"),
         line=(ARENA, "conditions.0.agent_b.memry_mb", 'did you mean "memory_mb"'), absent=("+conditions",)),
    Case("plus_agent_field_at_the_top_experiment", "config", validate(ARENA, "+agent_b.memory_mb=256"), line=(ARENA, "conditions.0.agent_b.memory_mb=")),
]

# Errors a newcomer is likely to hit end in one sentence that says what to do (API keys are never
# passed to a case: see bad_input_corpus.case_env).
NEWCOMER = [
    Case("missing_api_key_for_a_hosted_model", "newcomer", run(PRIMARY, "agent_a=llm_default", "provider=openai", "run.replicates=1", "horizon.rounds=2"),
         line=("OPENAI_API_KEY", ".env")),
    Case("ui_of_a_folder_that_is_not_a_run_dir", "newcomer", ("ui", "{out}"), line=("not a pdbench run dir",)),
    Case("aggregate_of_a_folder_that_is_not_a_run_dir", "newcomer", ("aggregate", "{out}"), line=("not a pdbench run dir",)),
    Case("resume_of_a_run_that_does_not_exist", "newcomer", run(EXPERIMENT, "--resume", "--run-id", "nope"), line=("nothing to resume",)),
]

# Issues 40 and 41: a persona a game does not have names the persona, the folder looked in and the
# personas there; the default composition gives each game its own default persona (none for the
# judged games), while one named on the command line that the game lacks stays an error.
LIARS_LLM = ("game=liars_dice", "agent_a=llm_default", "agent_b=liars_random")
PERSONAS = [
    Case("persona_sweep_unknown_hydra", "config", hydra("agent_a=llm_default", "persona=cooperative,nonexistent", flags=("-m",)),
         line=(PRIMARY, "persona", "nonexistent", "conf/persona/", "cooperative"), entry="module"),
    Case("persona_group_folder_missing_sweep_hydra", "config", hydra("agent_a=llm_default", "persona=cooperative,exploitative", flags=("-m",)),
         line=(PRIMARY, "persona", "cooperative", "conf/persona/"), entry="module", setup=(remove("proj/conf/persona"),)),
    Case("persona_group_folder_missing_default_hydra", "config", hydra("agent_a=llm_default"),
         line=(PRIMARY, "persona", "cooperative", "conf/persona/"), absent=("launcher",), entry="module", setup=(remove("proj/conf/persona"),)),
    Case("game_personas_folder_missing_sweep_hydra", "config", hydra(*LIARS_LLM, "persona=cooperative,exploitative", flags=("-m",)),
         line=(PRIMARY, "persona", "cooperative", "prompts/liars_dice/personas/"), absent=("(none)",), entry="module",
         setup=(remove("proj/prompts/liars_dice/personas"),)),
    Case("game_persona_misspelt", "config", validate(PRIMARY, *LIARS_LLM, "agent_a.persona=exploitatve"),
         line=(PRIMARY, "agent_a.persona", "exploitatve", "prompts/liars_dice/personas/", 'did you mean "exploitative"', "cooperative")),
    Case("judged_game_persona_named", "config", validate(PRIMARY, "game=passcode", "agent_a=passcode_halving", "agent_b=llm_default", "persona=cooperative"),
         line=(PRIMARY, "agent_b.persona", "cooperative", "prompts/passcode/personas/", "persona=none"), absent=("(none)",)),
    Case("judged_game_default_persona_hydra", "config", hydra("game=passcode", "agent_a=passcode_halving", "agent_b=llm_default", "run.replicates=1"),
         codes=(0,), entry="module"),
]

# Issue 41: one game, two spellings (pdbench's id, the platform's GAME): either is accepted.
GAME_SPELLINGS = [
    Case("game_platform_spelling_hydra", "config", hydra("game=liars-dice", "agent_a=liars_random", "agent_b=liars_random", "run.replicates=1"),
         codes=(0,), entry="module"),
    Case("game_platform_spelling_experiment", "config", validate(POLICIES, "game=stag-hunt"), codes=(0,)),
    Case("game_misspelt_suggests_the_id", "config", validate(PRIMARY, "game=liars-dcie"), line=(PRIMARY, "game", 'did you mean "liars_dice"')),
]
# fmt: on

CASES = [
    *YAML,
    *SIZES,
    *VALUES,
    *PATHS,
    *TEMPLATES,
    *CLI,
    *CONFIG,
    *AGENT_FIELDS,
    *PERSONAS,
    *GAME_SPELLINGS,
    *NEWCOMER,
]
