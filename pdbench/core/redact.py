"""Secrets out of everything pdbench writes or prints (issue 21).

One step, used at every exit: the JSON files of a run (manifest, sweep plan), its JSON-lines files
(rounds, ledger, spend journal), log records, error lines and the summary. It replaces with
`SECRET_MARK`

- the credentials of a URL (`https://user:key@host` -> `https://***@host`), also in the forms an
  override can take: Hydra's escaped one (`https\\://user\\:key@host`), quoted, percent-encoded,
- the value of any `name=value` pair, query parameter or mapping field whose name says key, token,
  secret or password (`?api_key=...`, `provider.api_key=...`, `{"token": ...}`),
- the credential after `Bearer` or `Basic` (an Authorization header's value; one with a digit),
- strings shaped like the keys of well-known services (`sk-...`, `AKIA...`, `ghp_...`, `hf_...`:
  `KEY_SHAPED`), wherever they appear,
- and, wherever they appear, the values of environment variables whose name says so
  (OPENAI_API_KEY, read from the environment or from the project's .env).

What it cannot see: a secret of no known shape, in no secret-named field and in no environment
variable (a password typed into a persona file is written as it is; see `key_shaped_in`).

A name "says key" when one of its words (split at `_`, `-`, `.` and case changes) is one of
`SECRET_WORDS`: `api_key`, `OPENAI_API_KEY`, `accessToken`, `db-password` do, `max_tokens` and
`input_tokens` (plural: counts) do not.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any

SECRET_MARK = "***"
SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "credential",
        "credentials",
        "authorization",
    }
)
# Environment values shorter than this are not searched for: "1" or "true" is no secret, and
# replacing it everywhere would garble the text.
_MIN_ENV_SECRET_LENGTH = 8
# The shell's working directories: "pwd" is a password's abbreviation only in other names. Taken
# for a secret, every path under the working directory was written as ***.
_NOT_SECRET_ENV = frozenset({"PWD", "OLDPWD"})

# scheme://user:password@ or scheme://token@ (userinfo ends at the last @ before the host), also
# as Hydra escapes it in a sweep's overrides (`https\://user\:key@host`).
_URL_CREDENTIALS = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*\\*://)(?P<userinfo>[^/\s@'\"?#]+)@"
)
# The same URL percent-encoded (`https%3A%2F%2Fuser%3Akey%40host`).
_URL_CREDENTIALS_ENCODED = re.compile(
    r"(?i)(?P<scheme>[a-z][a-z0-9+.\-]*%3A%2F%2F)(?P<userinfo>(?:(?!%40|%2F)[^/\s@'\"?#])+)%40"
)
# A credential after an HTTP authentication scheme (`Authorization: Bearer sk-...`).
# The credential holds a digit: "basic understanding" in a prompt is no header.
_AUTH_SCHEME = re.compile(
    r"(?i)\b(?P<scheme>Bearer|Basic)(?P<sep>\s+)(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{8,}=*"
)
# Strings shaped like the keys of well-known services, wherever they appear, even with no
# environment variable holding them (a key pasted into a prompt file, echoed by a server).
KEY_SHAPED = re.compile(
    r"\b(?:sk-[A-Za-z0-9_\-]{8,}"  # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), DeepSeek...
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google
    r"|hf_[A-Za-z0-9]{20,}"  # Hugging Face
    r"|gsk_[A-Za-z0-9]{20,})"  # Groq
)
# Cheap first looks for the patterns above (substring tests on bytes).
_KEY_PREFIXES = (b"sk-", b"AKIA", b"gh", b"github_pat_", b"xox", b"AIza", b"hf_", b"gsk_")
_AUTH_WORDS = (b"bearer", b"basic")
# name=value (command lines, overrides, query strings), the value optionally quoted.
_NAME_EQUALS = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)(?P<sep>\s*=\s*)(?P<quote>['\"]?)(?P<value>[^\s&'\"#,;?]+)"
)
# "name": "value" in JSON text (a JSON line, a printed mapping).
_JSON_FIELD = re.compile(
    r"\"(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)\"(?P<sep>\s*:\s*)\"(?P<value>(?:[^\"\\]|\\.)*)\""
)
# name: value inside a flow mapping, as an override writes one (`{Authorization: "..."}`).
_FLOW_FIELD = re.compile(
    r"(?P<lead>[{,]\s*)(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)(?P<sep>\s*:\s*)(?P<quote>['\"]?)"
    r"(?P<value>(?:(?!(?P=quote))[^,}\n])+|[^\s,}'\"]+)"
)
_WORD_SPLIT = re.compile(r"[_\-.\s/]+|(?<=[a-z0-9])(?=[A-Z])")


# Names with a secret word in them that hold no credential: a game's hidden information, which
# the rules reveal and the records must keep (a Passcode round's `secret_word` was stored as ***
# whenever a model took part in the match, and its transcript lost the word).
NOT_CREDENTIALS = frozenset({"secret_word", "secret_words"})


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a field or variable named `name` holds a secret (see the module's docstring)."""
    if name.casefold() in NOT_CREDENTIALS:
        return False
    words = {word.casefold() for word in _WORD_SPLIT.split(name) if word}
    return not words.isdisjoint(SECRET_WORDS)


def secret_env_values() -> tuple[str, ...]:
    """Values of the environment variables whose names say they are secret, longest first (so a
    key that contains another is replaced whole)."""
    found = {
        value
        for name, value in os.environ.items()
        if len(value) >= _MIN_ENV_SECRET_LENGTH
        and is_secret_name(name)
        and name not in _NOT_SECRET_ENV
    }
    return tuple(sorted(found, key=len, reverse=True))


def _named_value(match: re.Match[str]) -> str:
    if not is_secret_name(match["name"]):
        return match[0]
    quote = match.groupdict().get("quote") or ""
    return f"{match['name']}{match['sep']}{quote}{SECRET_MARK}"


def _json_field(match: re.Match[str]) -> str:
    if not is_secret_name(match["name"]):
        return match[0]
    return f'"{match["name"]}"{match["sep"]}"{SECRET_MARK}"'


def redact_text(text: str, env_secrets: tuple[str, ...] | None = None) -> str:
    """`text` with URL credentials, secret-named values and secret environment values replaced.
    `env_secrets`: the values to look for (default: `secret_env_values()` now)."""
    for value in secret_env_values() if env_secrets is None else env_secrets:
        if value in text:
            text = text.replace(value, SECRET_MARK)
    if "@" in text:
        text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{SECRET_MARK}@", text)
    if "%40" in text:
        text = _URL_CREDENTIALS_ENCODED.sub(lambda m: f"{m['scheme']}{SECRET_MARK}%40", text)
    text = KEY_SHAPED.sub(SECRET_MARK, text)
    text = _AUTH_SCHEME.sub(lambda m: f"{m['scheme']}{m['sep']}{SECRET_MARK}", text)
    if "=" in text:
        text = _NAME_EQUALS.sub(_named_value, text)
    if '"' in text:
        text = _JSON_FIELD.sub(_json_field, text)
    if "{" in text and ":" in text:
        text = _FLOW_FIELD.sub(_flow_field, text)
    return text


def _flow_field(match: re.Match[str]) -> str:
    if not is_secret_name(match["name"]) or match["value"] == SECRET_MARK:
        return match[0]
    quote = match["quote"] or ""
    return f"{match['lead']}{match['name']}{match['sep']}{quote}{SECRET_MARK}"


def redact(value: Any, env_secrets: tuple[str, ...] | None = None) -> Any:
    """A copy of a JSON-like value (mappings, lists, strings, numbers) with every secret-named
    field's value replaced and every string passed through `redact_text`."""
    return _redact(value, secret_env_values() if env_secrets is None else env_secrets)


def _redact(value: Any, secrets: tuple[str, ...]) -> Any:
    # Numbers, flags and null are returned before any call: a manifest holds tens of thousands
    # of seeds, and it is rewritten as a run goes.
    if value is None or isinstance(value, int | float):
        return value
    if isinstance(value, dict):
        return {
            key: (
                SECRET_MARK
                if isinstance(key, str) and is_secret_name(key) and _is_secret_value(item)
                else item
                if item is None or isinstance(item, int | float)
                else _redact(item, secrets)
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(
            item if item is None or isinstance(item, int | float) else _redact(item, secrets)
            for item in value
        )
    if isinstance(value, str):
        return redact_text(value, secrets)
    return value


def _is_secret_value(value: Any) -> bool:
    """A value that can hold a secret: text or a number, not null, a flag or a structure (a
    mapping under a secret-named field is redacted field by field instead)."""
    return isinstance(value, str | int | float) and not isinstance(value, bool) and value != ""


def redact_bytes(data: bytes, env_secrets: tuple[str, ...] | None = None) -> bytes:
    """`redact_text` for UTF-8 bytes (a JSON line); bytes with nothing to redact come back as
    they are, without decoding."""
    secrets = secret_env_values() if env_secrets is None else env_secrets
    if not might_hold_secret(data, secrets):
        return data
    return redact_text(data.decode("utf-8", "surrogateescape"), secrets).encode(
        "utf-8", "surrogateescape"
    )


# What a secret-named value looks like in bytes: a JSON field name ending in a secret word
# ("api_key": but not "input_tokens":), or a name=value pair (`api_key=`, `?token=`).
_SECRET_NAME_ENDS = tuple(
    f"{word}{after}".encode() for word in sorted(SECRET_WORDS) for after in ('"', "=", "'=")
)


# Stems of the secret words: a block of lines without any of them (nor an @) needs no closer look.
_SECRET_STEMS = (b"key", b"token", b"secret", b"passw", b"pwd", b"credential")


def might_hold_secret(data: bytes, env_secrets: tuple[str, ...]) -> bool:
    """A cheap first look (substring tests: a regex is ten times slower on every line of a
    large run): a URL's user info, a secret-named value, a secret environment value."""
    if b"@" in data or any(value.encode() in data for value in env_secrets):
        return True
    if any(prefix in data for prefix in _KEY_PREFIXES) and KEY_SHAPED.search(
        data.decode("utf-8", "surrogateescape")
    ):
        return True
    # "tokens" is never a secret word (input_tokens, max_tokens: see is_secret_name), and
    # pdbench's own counters put it on most lines of an LLM run and in every manifest.
    lowered = data.lower().replace(b"tokens", b"")
    if b"%40" in lowered or any(word in lowered for word in _AUTH_WORDS):
        return True
    if not any(stem in lowered for stem in _SECRET_STEMS):
        return False
    return any(end in lowered for end in _SECRET_NAME_ENDS)


_BLOCK_BYTES = 1 << 18


def redact_chunks(chunks: Iterable[bytes], env_secrets: tuple[str, ...]) -> Iterator[bytes]:
    """`redact_bytes` over a stream of lines, looked at in blocks of about 256 KiB (one cheap
    look per block; lines are redacted one by one only in a block that might hold a secret)."""
    block: list[bytes] = []
    size = 0
    for chunk in chunks:
        block.append(chunk)
        size += len(chunk)
        if size >= _BLOCK_BYTES:
            yield from _redacted_block(block, env_secrets)
            block, size = [], 0
    yield from _redacted_block(block, env_secrets)


def _redacted_block(block: list[bytes], env_secrets: tuple[str, ...]) -> Iterator[bytes]:
    joined = b"".join(block)
    if not might_hold_secret(joined, env_secrets):
        yield joined
        return
    for chunk in block:
        yield redact_bytes(chunk, env_secrets)


def key_shaped_in(text: str) -> list[str]:
    """The key-shaped strings in `text` (for a warning), each cut to its first characters."""
    return [found[:6] + "..." for found in KEY_SHAPED.findall(text)]


def strip_url_credentials(url: str) -> str:
    """A URL without its credentials (user info, secret-named query parameters), the same
    whatever the environment holds: what identifies a server, for a cache key."""
    url = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{SECRET_MARK}@", url)
    return _NAME_EQUALS.sub(_named_value, url) if "=" in url else url


def install_redaction() -> None:
    """Redact every log record when it is made (whatever handler prints or files it: the
    console, Hydra's job log) and every traceback a bug prints. For the command-line front
    doors, which own the process; installing twice changes nothing."""
    import logging
    import sys
    import traceback

    factory = logging.getLogRecordFactory()
    if not getattr(factory, "redacts", False):

        def redacted_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = factory(*args, **kwargs)
            try:
                message = record.getMessage()
            except Exception:  # a malformed record: logging reports it where it always did
                return record
            cleaned = redact_text(message)
            if cleaned != message or record.args:
                record.msg, record.args = cleaned, ()
            return record

        redacted_record.redacts = True  # type: ignore[attr-defined]
        logging.setLogRecordFactory(redacted_record)

    def redacted_excepthook(kind: Any, error: Any, trace: Any) -> None:
        text = "".join(traceback.format_exception(kind, error, trace))
        sys.stderr.write(redact_text(text))

    sys.excepthook = redacted_excepthook
