"""A stub Gemini HTTP server on 127.0.0.1 for offline tests of the real SDK.

``StubGemini`` runs a stdlib ``ThreadingHTTPServer`` on port 0 in a thread,
answers each request with the next scripted ``Reply`` (the last reply repeats
once the script is used up) and records every request it saw (method, path
with query, headers, JSON body). Point ``genai.Client`` at ``stub.base_url``::

    with StubGemini([Reply(json=body)]) as stub:
        client = genai.Client(api_key="test",
                              http_options=types.HttpOptions(base_url=stub.base_url))

A ``Reply`` is a JSON body (``json=``), a server-sent-event stream (``sse=`` a
list of dicts, each sent as ``data: {...}\\n\\n``), an error status, a delay
before answering (to provoke client timeouts) or ``close=True`` (drop the
connection without answering). ``responder`` (optional) builds the reply from
the request instead (``Seen`` -> ``Reply``), for answers that cite what was sent.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


def _wire(body: Any) -> bytes:
    """UTF-8 JSON; text with a lone surrogate goes out as a ``\\uD83D`` escape, as a server would send it."""
    try:
        return json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, ensure_ascii=True).encode("ascii")


@dataclass
class Reply:
    status: int = 200
    json: Any = None
    sse: list[Any] | None = None
    delay: float = 0.0
    close: bool = False
    pace: float = 0.0  # seconds between SSE events (to watch a stream arrive)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class StubGemini:
    def __init__(self, replies: list[Reply], responder: Callable[[Seen], Reply] | None = None):
        if not replies and responder is None:
            raise ValueError("replies must not be empty")
        self.replies = list(replies)
        self.responder = responder
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _next(self) -> Reply:
        with self._lock:
            if self.responder is not None:
                return self.responder(self.requests[-1])
            i = len(self.requests) - 1
            return self.replies[min(i, len(self.replies) - 1)]

    def __enter__(self) -> "StubGemini":
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with stub._lock:
                    stub.requests.append(
                        Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                reply = stub._next()
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.close:
                    self.close_connection = True
                    try:
                        self.connection.shutdown(2)
                    except OSError:
                        pass
                    return
                if reply.sse is not None:
                    payload = b"".join(b"data: " + _wire(ev) + b"\n\n" for ev in reply.sse)
                    ctype = "text/event-stream"
                else:
                    payload = _wire(reply.json if reply.json is not None else {})
                    ctype = "application/json; charset=utf-8"
                self.send_response(reply.status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    if reply.sse is not None and reply.pace:
                        for ev in reply.sse:
                            self.wfile.write(b"data: " + _wire(ev) + b"\n\n")
                            self.wfile.flush()
                            time.sleep(reply.pace)
                        return
                    self.wfile.write(payload)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                    self.close_connection = True

            do_POST = _handle
            do_GET = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
