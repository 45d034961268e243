"""The child-process side of an arena agent: load the user's file, then answer hook calls.

Run as a script (`python child.py AGENT_FILE LIMITS`), never imported by the user's code. It uses
the standard library only, so a worker starts in a few tens of milliseconds.

LIMITS is a JSON object applied before any user code runs: `memory_bytes` (RLIMIT_AS),
`max_processes` (RLIMIT_NPROC) and `run_as` (a uid: when started as root inside the sandbox, the
agent runs as that unprivileged user, since the kernel does not count root's processes). Soft and
hard limits are set alike, and without privileges they cannot be raised again.

Channels: the parent writes one JSON request per line to our stdin and reads one JSON reply per
line from our stdout. Before any user code runs, both are moved to private descriptors: fd 0 is
replaced by /dev/null (so `input()` cannot eat a request) and fd 1 is pointed at fd 2 (so `print()`
lands in the parent's per-agent log, never in the protocol).

Requests and replies:

    {"seq": n, "hook": "on_turn", "arg": {...}, "history_add": [...]}
        ->  {"seq": n, "ok": true, "result": ...}  or  {"seq": n, "ok": false, "error": "<traceback>"}
    {"seq": n, "hook": "exit"}                   ->  (no reply; the worker exits)

The first line the worker writes is its start-up reply (seq 0): the hooks class `Agent` defines and
its `GAME`, or the traceback of a failed import or `__init__`. `history_add` carries the rounds
this process has not been sent yet; the worker keeps the list and hands `on_turn` a fresh copy, as
"history" and as "rounds_history" (the same entries without "round", AgentDuel's other spelling).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import resource
import sys
import traceback

HOOKS = ("on_match_start", "on_round_start", "on_turn", "on_round_end", "on_match_end")
MAX_REPLY_CHARS = 100_000  # a reply larger than this is not a plausible action
MESSAGE_KEPT = 10_000  # characters of an oversized negotiation message that travel (cut later)


def _private_channels() -> tuple[io.BufferedReader, int]:
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return requests, replies


def _send(fd: int, message: dict) -> None:
    try:
        line = json.dumps(message)
    except (TypeError, ValueError, RecursionError):
        # The hook returned something JSON cannot carry (or nested too deeply): hand back its
        # repr as the raw output.
        message = {**message, "result": {"__unserializable__": repr(message.get("result"))[:500]}}
        line = json.dumps(message)
    if len(line) > MAX_REPLY_CHARS:
        result = message.get("result")
        if "error" in message:
            message = {**message, "error": message["error"][-MAX_REPLY_CHARS // 2 :]}
        elif isinstance(result, dict) and isinstance(result.get("text"), str):
            # A long negotiation message is still a message: pdbench cuts it to the game's
            # limit and marks it cut (its start is all that is ever delivered).
            message = {**message, "result": {**result, "text": result["text"][:MESSAGE_KEPT]}}
        line = json.dumps(message)
        if len(line) > MAX_REPLY_CHARS and "error" not in message:
            message = {**message, "result": {"__oversized__": line[:500]}}
            line = json.dumps(message)
    data = (line + "\n").encode()
    while data:
        data = data[os.write(fd, data) :]


def _apply_limits(limits: dict) -> None:
    for name, key in (("RLIMIT_AS", "memory_bytes"), ("RLIMIT_NPROC", "max_processes")):
        if limits.get(key) is not None:
            resource.setrlimit(getattr(resource, name), (limits[key], limits[key]))
    if limits.get("run_as") is not None and os.getuid() == 0:
        os.setgroups([])
        os.setgid(limits["run_as"])
        os.setuid(limits["run_as"])  # drops every capability with it


def _load_agent(path: str) -> object:
    directory = os.path.dirname(os.path.abspath(path))
    # Running this file as a script put pdbench/agents on sys.path; the user's folder belongs there.
    sys.path[0] = directory
    spec = importlib.util.spec_from_file_location("arena_agent", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["arena_agent"] = module
    spec.loader.exec_module(module)
    cls = getattr(module, "Agent", None)
    if not isinstance(cls, type):
        raise TypeError(f'{path} defines no class named "Agent"')
    return cls()


def main() -> None:
    requests, replies = _private_channels()
    try:
        _apply_limits(json.loads(sys.argv[2]) if len(sys.argv) > 2 else {})
        agent = _load_agent(sys.argv[1])
    except BaseException:
        _send(replies, {"seq": 0, "ok": False, "error": traceback.format_exc()})
        return
    hooks = [name for name in HOOKS if callable(getattr(agent, name, None))]
    game = getattr(agent, "GAME", None)
    _send(
        replies,
        {"seq": 0, "ok": True, "hooks": hooks, "game": game if isinstance(game, str) else None},
    )

    history: list[dict] = []  # round_state["history"]: the parent sends only the new rounds
    for line in requests:
        request = json.loads(line)
        if request["hook"] == "exit":
            break
        if "history_add" in request:
            history.extend(request["history_add"])
            request["arg"]["history"] = [dict(past) for past in history]  # theirs to mutate
            # The Split or Steal page's spelling: the same entries without their "round".
            request["arg"]["rounds_history"] = [
                {key: value for key, value in past.items() if key != "round"} for past in history
            ]
        reply: dict = {"seq": request["seq"]}
        try:
            reply["result"] = getattr(agent, request["hook"])(request["arg"])
            reply["ok"] = True
        except BaseException:  # SystemExit and KeyboardInterrupt in user code are errors too
            reply = {"seq": request["seq"], "ok": False, "error": traceback.format_exc()}
        sys.stdout.flush()
        sys.stderr.flush()
        _send(replies, reply)


if __name__ == "__main__":
    main()
