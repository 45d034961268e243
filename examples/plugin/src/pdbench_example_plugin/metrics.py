"""A metric: the share of rounds in which agent a cooperated and agent b defected."""

from pdbench.analysis.metrics.catalog import metric_row


@metric_row(
    stem="sucker_rounds_rate",
    label="Sucker rounds rate",
    short="CD rounds",
    help="Share of the n rounds in which agent a played C and agent b played D.",
    kind="rate",
    per_agent=False,
)
def sucker_rounds_rate(played, side):
    return played.per_match(played.cooperated("a") & ~played.cooperated("b")) / played.lengths
