def test_call_counts_add_every_field():
    """__add__ spells its fields out (for speed): a field added later must be added there too."""
    from dataclasses import fields

    from pdbench.storage.schema import CallCounts

    names = [f.name for f in fields(CallCounts)]
    one = CallCounts(*range(1, len(names) + 1))
    two = CallCounts(*(10 * n for n in range(1, len(names) + 1)))
    total = one + two
    assert [getattr(total, name) for name in names] == [11 * n for n in range(1, len(names) + 1)]
