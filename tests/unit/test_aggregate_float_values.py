"""The metric columns read as floats at once (aggregate_columns.float_values): a turn game's
measures may be missing or text (NaN, as pd.to_numeric(errors="coerce") reads them), while the
2x2 rows' metrics are numbers by construction, so there anything else raises instead of becoming
a NaN nobody asked for."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pdbench.analysis.metrics.aggregate_columns import float_values


def test_numbers_of_every_numpy_type_and_objects_read_as_to_numeric_reads_them():
    table = pd.DataFrame(
        {
            "ints": np.array([1, 2], dtype="int64"),
            "floats": [0.5, np.nan],
            "objects": pd.Series([3, None], dtype=object),
            "texts": ["7", "seven"],
        }
    )
    values = float_values(table, ["ints", "floats", "objects", "texts", "absent"])
    np.testing.assert_array_equal(values["ints"], [1.0, 2.0])
    np.testing.assert_array_equal(values["floats"], [0.5, np.nan])
    np.testing.assert_array_equal(values["objects"], [3.0, np.nan])
    np.testing.assert_array_equal(values["texts"], [7.0, np.nan])
    assert values["absent"].size == 0


def test_without_coercion_a_column_that_is_not_numbers_raises():
    table = pd.DataFrame({"rate": [0.5, 1.0], "texts": ["7", "seven"]})
    assert float_values(table, ["rate"], coerce=False)["rate"].tolist() == [0.5, 1.0]
    with pytest.raises(ValueError):
        float_values(table, ["rate", "texts"], coerce=False)
    with pytest.raises(KeyError):
        float_values(table, ["rate", "absent"], coerce=False)
