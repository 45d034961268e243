"""What a name may be (issue 20): run ids, condition names, action labels.

A run id becomes a folder under run.output_dir, so it is one safe path component: no `/`, no
`..`, nothing absolute, no control characters, not too long for a file system. Condition names
and labels are shown to people and to models and written into every record, so they are not
blank, carry no spaces at their ends (two names that differ only there look the same) and no line
breaks. Each check returns what is wrong, or None.
"""

from __future__ import annotations

import unicodedata

# Most file systems allow 255 bytes per name; pdbench adds suffixes (`.lock`, shard names) and a
# folder name this long is already unreadable.
MAX_RUN_ID_BYTES = 128


def _control_character(value: str) -> str | None:
    for char in value:
        if unicodedata.category(char).startswith("C"):
            return repr(char)
    return None


def run_id_problem(run_id: str) -> str | None:
    """Why `run_id` cannot name a run folder, or None."""
    if run_id.strip() == "":
        return "is empty: give a folder name, or leave it out to have one derived"
    if run_id in (".", ".."):
        return f'"{run_id}" is not a folder name: give a name of its own'
    if "/" in run_id or "\\" in run_id:
        return (
            f"{run_id!r} is a path, not a folder name: a run id is one name under "
            "run.output_dir (set run.output_dir to choose where runs go)"
        )
    control = _control_character(run_id)
    if control is not None:
        return f"{run_id!r} holds the control character {control}: use a plain name"
    if run_id != run_id.strip():
        return f"{run_id!r} begins or ends with spaces: write it without them"
    if len(run_id.encode()) > MAX_RUN_ID_BYTES:
        return f"is {len(run_id.encode())} bytes long: at most {MAX_RUN_ID_BYTES}"
    return None


def name_problem(value: str, what: str) -> str | None:
    """Why `value` cannot be a condition name or a label (`what` says which), or None."""
    if value.strip() == "":
        return f"{what} is blank"
    control = _control_character(value)
    if control is not None:
        return f"{what} {value!r} holds a line break or control character ({control})"
    if value != value.strip():
        return f"{what} {value!r} begins or ends with spaces: write it without them"
    return None
