def test_call_counts_add_every_field():
    """__add__ spells its fields out (for speed): a field added later must be added there too."""
    from dataclasses import fields

    from pdbench.storage.schema import CallCounts

    names = [f.name for f in fields(CallCounts)]
    one = CallCounts(*range(1, len(names) + 1))
    two = CallCounts(*(10 * n for n in range(1, len(names) + 1)))
    total = one + two
    assert [getattr(total, name) for name in names] == [11 * n for n in range(1, len(names) + 1)]


def test_adding_to_a_call_counter_in_place_keeps_the_counter_others_watch():
    """The progress display holds the gateway's counter; adding a paid call must change that
    object, not replace it (a replaced counter showed 0 live calls for the whole run)."""
    from pdbench.storage.schema import CallCounts

    counter = CallCounts(live=1, cost_usd=0.5)
    watched = counter
    counter += CallCounts(live=2, input_tokens=10, cost_usd=0.25, other_model=1)
    assert watched is counter
    assert watched == CallCounts(live=3, input_tokens=10, cost_usd=0.75, other_model=1)
