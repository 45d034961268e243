"""The one redaction step (pdbench.core.redact): what counts as a secret and how it is replaced."""

from __future__ import annotations

import logging
import sys

import pytest

from pdbench.core.redact import (
    SECRET_MARK,
    install_redaction,
    is_secret_name,
    redact,
    redact_bytes,
    redact_chunks,
    redact_text,
    strip_url_credentials,
)
from pdbench.providers.base import CompletionRequest


@pytest.mark.parametrize(
    "name",
    ["api_key", "OPENAI_API_KEY", "apiKey", "accessToken", "token", "db-password", "client_secret",
     "provider.api_key", "AWS_SECRET_ACCESS_KEY", "credentials"],
)  # fmt: skip
def test_names_that_say_key_token_secret_or_password(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["max_tokens", "input_tokens", "output_tokens", "monkey", "keys", "api_base", "model"]
)
def test_names_that_do_not(name):
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://user:sk-1@host/v1", "https://***@host/v1"),
        ("http://tok@127.0.0.1:8/v1", "http://***@127.0.0.1:8/v1"),
        ("https://h/v1?api_key=sk-2&region=eu", "https://h/v1?api_key=***&region=eu"),
        ("pdbench run x 'provider.api_key=sk-3' -q", "pdbench run x 'provider.api_key=***' -q"),
        ('{"api_key": "sk-4", "max_tokens": 16}', '{"api_key": "***", "max_tokens": 16}'),
        ("agent_a=tft,horizon.rounds=5", "agent_a=tft,horizon.rounds=5"),
        ("mail me at someone@example.org", "mail me at someone@example.org"),
        # issue 27: the forms an override can take, headers, keys with no variable holding them
        (
            r"provider.api_base=https\://user\:sk-u1@example.com/v1",
            r"provider.api_base=https\://***@example.com/v1",
        ),
        ("'https://user:pw-9@example.com/v1'", "'https://***@example.com/v1'"),
        ("https%3A%2F%2Fuser%3Apw-9%40example.com%2Fv1", "https%3A%2F%2F***%40example.com%2Fv1"),
        ('{Authorization: "Bearer tok3nSECRET99"}', '{Authorization: "***"}'),
        (
            "+provider.extra_headers={Authorization: hunter2, X-Trace: 1}",
            "+provider.extra_headers={Authorization: ***, X-Trace: 1}",
        ),
        ("{x_api_key: 'two words'}", "{x_api_key: '***'}"),
        ('{"Authorization": "Basic dXNlcjpwYXNz1"}', '{"Authorization": "***"}'),
        ("my key is sk-proj-abc123DEF456ghi please", "my key is *** please"),
        ("AKIAABCDEFGHIJKLMNOP and hf_abcdefghijklmnopqrstuvwx", "*** and ***"),
        ("a basic understanding; the bearer of news", "a basic understanding; the bearer of news"),
        ("risk-averse task-sk-learn desk", "risk-averse task-sk-learn desk"),
    ],
)
def test_text(text, expected):
    assert redact_text(text, env_secrets=()) == expected


def test_secret_environment_values_are_replaced_wherever_they_appear(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("SHORT_TOKEN", "1")  # too short to be looked for
    assert redact_text("rejected: sk-from-the-environment (1 try)") == "rejected: *** (1 try)"


def test_structures_are_redacted_by_field_name_and_by_text():
    data = {
        "provider": {"api_key": "sk-5", "api_base": "http://u:p@h/v1", "input_tokens": 3},
        "token": None,  # nothing to hide
        "overrides": ["a.token=sk-6", "agent_a=tft"],
    }
    assert redact(data, env_secrets=()) == {
        "provider": {"api_key": SECRET_MARK, "api_base": "http://***@h/v1", "input_tokens": 3},
        "token": None,
        "overrides": ["a.token=***", "agent_a=tft"],
    }


def test_bytes_without_a_secret_are_returned_as_they_are():
    line = b'{"condition": "agent_a=tft", "input_tokens": 3, "text": "caf\\u00e9"}\n'
    assert redact_bytes(line, ()) is line
    chunks = [line] * 3000  # more than one block
    assert b"".join(redact_chunks(chunks, ())) == line * 3000


def test_a_secret_in_a_stream_of_lines_is_redacted_in_its_line_only():
    lines = [b'{"round": 1}\n', b'{"error": "http://u:sk-7@h failed"}\n', b'{"round": 2}\n']
    assert b"".join(redact_chunks(lines, ())) == (
        b'{"round": 1}\n{"error": "http://***@h failed"}\n{"round": 2}\n'
    )


def test_bytes_with_a_key_shaped_string_are_redacted():
    line = b'{"raw": "echo: Bearer sk-echoedKEY12345", "n": 1}\n'
    assert redact_bytes(line, ()) == b'{"raw": "echo: Bearer ***", "n": 1}\n'
    assert b"".join(redact_chunks([line, b'{"n": 2}\n'], ())) == (
        b'{"raw": "echo: Bearer ***", "n": 1}\n{"n": 2}\n'
    )


def test_the_cache_key_names_the_server_without_its_credentials():
    def request(api_base):
        return CompletionRequest(
            provider="litellm", model="m", api_base=api_base, system="s",
            messages=(("user", "u"),), temperature=0.0, max_tokens=4,
        )  # fmt: skip

    plain = request("http://h/v1")
    assert plain.key_fields()["api_base"] == "http://h/v1"  # keys cached before are unchanged
    keyed, rotated = request("http://u:sk-8@h/v1"), request("http://u:sk-9@h/v1")
    assert keyed.cache_key() == rotated.cache_key() != plain.cache_key()
    assert "sk-8" not in str(keyed.key_fields())
    assert strip_url_credentials("http://h/v1?api_key=sk-10") == "http://h/v1?api_key=***"


def test_log_records_are_redacted_when_made(caplog, monkeypatch):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    previous = logging.getLogRecordFactory()
    install_redaction()
    try:
        with caplog.at_level(logging.WARNING):
            logging.getLogger("pdbench.test").warning("calling %s", "http://u:sk-11@h/v1")
    finally:
        logging.setLogRecordFactory(previous)
    assert caplog.records[-1].getMessage() == "calling http://***@h/v1"
    assert "sk-11" not in caplog.text


def test_the_working_directory_is_not_a_secret(monkeypatch):
    from pdbench.core.redact import redact_text, secret_env_values

    monkeypatch.setenv("PWD", "/home/researcher/pdbench")
    monkeypatch.setenv("OLDPWD", "/home/researcher")
    monkeypatch.setenv("DB_PWD", "hunter2-hunter2")
    assert secret_env_values() == ("hunter2-hunter2",)
    text = "run dir: /home/researcher/pdbench/data/runs/x; password hunter2-hunter2"
    assert redact_text(text) == "run dir: /home/researcher/pdbench/data/runs/x; password ***"


def test_a_games_secret_word_is_no_credential_and_is_kept():
    """A Passcode round reveals its `secret_word`: game data the record must keep (it was
    stored as *** in every match a model took part in); a credential-named field still goes."""
    line = '{"revealed": {"word": {"secret_word": "anchor"}}, "client_secret": "abcdefgh"}'
    assert redact_text(line) == (
        '{"revealed": {"word": {"secret_word": "anchor"}}, "client_secret": "***"}'
    )
