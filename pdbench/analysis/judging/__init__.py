"""How much a judged game's outcome depends on its third party (issue 30): the statistics of
verdicts, whoever gives them: position swaps, a panel's agreement, length and order bias, and
shares with their intervals. A game's own measures of its third role, read from its stored runs,
are in its package (`ThirdRole.measures`: the debates' in `pdbench.games.debate.measures`, the
Keeper's truthfulness and audit in `pdbench.games.passcode.measures`) and use these.

Every measure takes a plain table (a pandas DataFrame, or a list of dicts) of verdicts, one row
per decision, so it runs on stored rounds and on scripted tables alike:

- `swap.position_swap`: rows of swapped pairs; how often the verdict follows the player rather
  than the side.
- `panel.panel_agreement`: rows (item, rater, verdict); majority verdict, Fleiss' kappa, and
  Cohen's kappa for two raters.
- `bias.order_bias`, `bias.length_bias`: how often the first speaker, or the longer argument, wins.
- `proportions.share`: a share with its Wilson score interval.

Proportions carry Wilson score intervals; kappas carry jackknife t intervals over items with
their measured coverage beside them (`kappa`). All at 95 % unless asked otherwise.
"""
