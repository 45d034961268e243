"""How much a judged game's outcome depends on its third party (issue 30): the judge's position
swaps, a panel's agreement, length and order bias, and the Keeper's truthfulness.

Every measure takes a plain table (a pandas DataFrame, or a list of dicts) of verdicts or answers,
one row per decision, so it runs on stored rounds and on scripted tables alike:

- `swap.position_swap`: rows of swapped pairs; how often the verdict follows the player rather
  than the side.
- `panel.panel_agreement`: rows (item, judge, verdict); majority verdict, Fleiss' kappa, and
  Cohen's kappa for two judges.
- `bias.order_bias`, `bias.length_bias`: how often the first speaker, or the longer argument, wins.
- `keeper.keeper_truthfulness` (the mock Keeper: each answer checked against the word) and
  `keeper.audit_disagreement` (an LLM Keeper against an audit model's answers).

Proportions carry Wilson score intervals; kappas carry jackknife t intervals over items with
their measured coverage beside them (`kappa`). All at 95 % unless asked otherwise.
"""
