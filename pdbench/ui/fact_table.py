"""A two-column table of facts (run id, config hash, seeds, ...) as HTML whose values wrap
anywhere: a 64-character hash or a 19-digit seed stays whole and readable in a narrow column,
where a data grid would cut it at the cell's edge. Pure: the HTML is returned, st.markdown draws
it."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

STYLE = {
    "table": "width:100%;border-collapse:collapse;font-size:0.875rem",
    "th": (
        "text-align:left;font-weight:400;color:#555;padding:0.3rem 0.8rem 0.3rem 0;"
        "vertical-align:top;width:1%;white-space:nowrap;border-bottom:1px solid #eee"
    ),
    "td": "padding:0.3rem 0;overflow-wrap:anywhere;vertical-align:top;border-bottom:1px solid #eee",
}


def facts_html(facts: Mapping[str, Any]) -> str:
    """<table> of fact | value; None is shown as "" and every value as text (seeds keep every
    digit)."""
    rows = "".join(
        f"<tr><th style='{STYLE['th']}'>{html.escape(str(name))}</th>"
        f"<td style='{STYLE['td']}'>{'' if value is None else html.escape(str(value))}</td></tr>"
        for name, value in facts.items()
    )
    return f"<table style='{STYLE['table']}'>{rows}</table>"
