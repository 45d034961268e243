"""What a prompt template may hold: text and `{name}` placeholders, filled with `str.format`.

Python's format mini-language can do more, and all of it changes what the model is sent where
nobody reading the file would see it: a conversion sends Python's repr of a value (`{history!r}`:
quotes and `\\n` escapes instead of the lines), a format spec pads or cuts it (`{x:>10}`), and
attribute or index access sends a part of it (`{a.b}`, `{a[0]}`, and `{}` / `{0}` fail at the
first render). So a template is checked for them before anything runs, and one is refused in one
line naming the file, the placeholder and why. Literal braces are written `{{` and `}}`.

Used by every template pdbench fills: the 2x2 system, round, negotiate and persona files
(`pdbench.agents.llm.templates`) and the turn games' prompts (`pdbench.agents.judged_prompts`).
"""

from __future__ import annotations

import functools
import string

from pdbench.core.errors import ConfigError

CONVERSION_SENDS = {"r": "Python's repr", "s": "str()", "a": "Python's ASCII repr"}


def placeholders(text: str, *, file: str, field: str | None = None) -> frozenset[str]:
    """The placeholder names of a template; a ConfigError naming `file` (and `field`) for
    anything but text and `{name}` placeholders."""
    problem = _problem(text)
    if problem is not None:
        raise ConfigError(problem, file=file, field=field)
    return _names(text)


@functools.cache
def _names(text: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


@functools.cache
def _problem(text: str) -> str | None:
    """Why `text` is not a template of text and `{name}` placeholders, or None. Cached: a turn
    game's prompt file is checked at every turn it is rendered."""
    try:
        parts = list(string.Formatter().parse(text))
    except ValueError as error:
        return f"not a valid template ({error}); write {{{{ and }}}} for literal braces"
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
        why = _why(name, spec, conversion)
        if why:
            return f"{shown}}}: {why}"
    return None


def _why(name: str, spec: str | None, conversion: str | None) -> str | None:
    """What is wrong with one replacement field, and what to write instead; None if nothing."""
    head = name.split(".", 1)[0].split("[", 1)[0]
    write = f": write {{{head}}}"
    if not name or name.isdigit():
        return "a placeholder needs a name (values are filled by name), e.g. {history}"
    if not head.isidentifier():
        return "not a placeholder name; braces meant as text are written {{ and }}"
    if head != name:
        return f"templates take no attribute or index access (it sends a part of the value){write}"
    if conversion:
        sends = CONVERSION_SENDS.get(conversion)
        effect = (
            f"!{conversion} would send {sends} of the value, not its text"
            if sends
            else (f"!{conversion} is no conversion")
        )
        return f"templates take no conversions ({effect}){write}"
    if spec:
        return f"templates take no format specs (they pad, cut or reformat the value){write}"
    return None
