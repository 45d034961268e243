"""A metric: the share of rounds in which both agents defected (docs/extending.md)."""

from pdbench.analysis.metrics.catalog import metric_row


@metric_row(
    stem="mutual_defection_rate",
    label="Mutual defection rate",
    short="mutual D",
    help="Share of the n rounds in which both agents played D.",
    kind="rate",
    per_agent=False,
)
def mutual_defection_rate(played, side):
    both_defected = ~played.cooperated("a") & ~played.cooperated("b")
    return played.per_match(both_defected) / played.lengths
