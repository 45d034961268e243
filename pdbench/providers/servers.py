"""One model on several servers (`provider.api_bases: [url, url, ...]`): round robin with failover.

Each server gets a client of its own (LiteLLMProvider, with one attempt per call): calls go to the
servers in turn; a server whose call fails as a transport failure (refused connection, timeout,
5xx, rate limit, after that one attempt) is left out for `COOLDOWN_S` seconds and the same call
goes to the next server at once. Only when every server failed the call does it wait (the backoff
of one provider) and go round again, `max_attempts` rounds in all; then it fails as one server
would (ProviderUnavailable: the match waits, the run exits 3, the same command resumes). An error
that is not the server's (a refused key, an unknown model, a bad request) ends the call at once.

Which server answered is recorded with each attempt (`Completion.server`, stored in the attempt's
audit fields); it is not part of the cache key: the request's `api_base` is None for a pool, so
the key names the model and never a server (the servers must serve the same weights).

Why not litellm's Router (`Router(model_list=..., routing_strategy=..., allowed_fails=...,
cooldown_time=...)`): it brings its own retries, fallbacks and cooldown bookkeeping around
`acompletion`, on top of the provider's own retry loop and its classification of errors into
results and transport failures (design.md); two retry loops would multiply attempts and blur which
failure ends a match. This is the part of the Router pdbench needs, in one loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pdbench.config.schema import ProviderSpec
from pdbench.core.redact import strip_url_credentials
from pdbench.providers.base import (
    Completion,
    CompletionRequest,
    ProviderClient,
    ProviderUnavailable,
)

log = logging.getLogger("pdbench.providers.servers")

COOLDOWN_S = 30.0  # how long a failed server is left out before it is tried again


def litellm_client(spec: ProviderSpec, *, project_root: Path | None = None) -> ProviderClient:
    """The litellm provider kind's client: a pool when the spec names several servers."""
    from pdbench.providers.litellm import LiteLLMProvider

    if spec.api_bases:
        return ServerPool(spec, project_root=project_root)
    return LiteLLMProvider(spec, project_root=project_root)


class ServerPool:
    """A `ProviderClient` over one client per server of the same model."""

    def __init__(
        self,
        spec: ProviderSpec,
        *,
        project_root: Path | None = None,
        make: Callable[..., Any] | None = None,
        cooldown_s: float = COOLDOWN_S,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
    ) -> None:
        if make is None:
            from pdbench.providers.litellm import LiteLLMProvider

            make = LiteLLMProvider
        self.spec = spec
        self.servers = list(spec.api_bases)
        self.cooldown_s = cooldown_s
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.clients = [
            make(
                spec.model_copy(update={"api_base": server, "api_bases": (), "max_attempts": 1}),
                project_root=project_root,
            )
            for server in self.servers
        ]
        self._turn = 0
        self._left_out_until = [0.0] * len(self.servers)

    def _order(self) -> list[int]:
        """This call's servers: those not left out, from the next in turn; all when none is."""
        count = len(self.servers)
        start, self._turn = self._turn, (self._turn + 1) % count
        ring = [(start + i) % count for i in range(count)]
        now = time.monotonic()
        up = [i for i in ring if self._left_out_until[i] <= now]
        return up or ring

    async def acomplete(self, request: CompletionRequest) -> Completion:
        failure: ProviderUnavailable | None = None
        for attempt in range(1, self.spec.max_attempts + 1):
            for index in self._order():
                server = self.servers[index]
                try:
                    answer = await self.clients[index].acomplete(
                        dataclasses.replace(request, api_base=server)
                    )
                except ProviderUnavailable as error:
                    failure = error
                    self._left_out_until[index] = time.monotonic() + self.cooldown_s
                    log.warning(
                        "%s: server %s failed (%s); left out for %.0f s, trying the next one",
                        self.spec.model,
                        strip_url_credentials(server),
                        error,
                        self.cooldown_s,
                    )
                    continue
                return dataclasses.replace(answer, server=strip_url_credentials(server))
            if attempt < self.spec.max_attempts:
                await asyncio.sleep(
                    min(self.backoff_base_s * 2 ** (attempt - 1), self.backoff_max_s)
                )
        raise ProviderUnavailable(
            f"{self.spec.model}: every one of its {len(self.servers)} servers failed, "
            f"{self.spec.max_attempts} times round (last: {failure})"
        ) from failure

    def take_billed_without_answer(self) -> list[Any]:
        taken: list[Any] = []
        for client in self.clients:
            take = getattr(client, "take_billed_without_answer", None)
            if take is not None:
                taken += take()
        return taken
