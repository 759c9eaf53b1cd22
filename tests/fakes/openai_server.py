"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1.

Tests of the LLM extractor must exercise the real openai/httpx client and the
real instructor retry loop, so this is a genuine HTTP server (stdlib
``ThreadingHTTPServer`` in a daemon thread), not a transport mock. Each POST to
``/v1/chat/completions`` pops the next scripted reply; every request is
recorded so tests can assert on what the client actually sent.

Structured replies are rendered in whatever shape the request asks for: a
``tool_calls`` message when the request carries ``tools`` (instructor's
``Mode.TOOLS``), otherwise JSON text in ``message.content`` (``Mode.JSON``;
fenced in a markdown block when ``fence_json`` is set, as ``Mode.MD_JSON``
models often answer). An empty queue answers 500 with a body that says so, so
a test that under-scripts fails loudly instead of hanging.

``POST /v1/embeddings`` answers every input with a deterministic vector of
``embedding_dimension`` numbers (the hashing embedder's, unnormalised by a
factor of 3 so a client that forgets to normalise is caught), in reverse
``index`` order so a client that ignores ``index`` is caught too. Scripted
:func:`http_error` replies queued with :meth:`FakeOpenAIServer.enqueue_embeddings`
are answered first, one per request.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build with :func:`structured`, :func:`raw`, :func:`http_error`."""

    kind: Literal["structured", "raw", "error"]
    payload: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    fence_json: bool = False


def structured(payload: Any, *, delay_s: float = 0.0, fence_json: bool = False) -> Reply:
    """The model's structured output (a JSON value) in the request's expected shape."""
    return Reply(kind="structured", payload=payload, delay_s=delay_s, fence_json=fence_json)


def raw(text: str, *, delay_s: float = 0.0) -> Reply:
    """Verbatim text where the JSON should be (tool arguments or message content)."""
    return Reply(kind="raw", payload=text, delay_s=delay_s)


def http_error(status: int, body: Any, *, headers: dict[str, str] | None = None, delay_s: float = 0.0) -> Reply:
    return Reply(kind="error", payload=body, status=status, headers=dict(headers or {}), delay_s=delay_s)


def non_json_body(body: bytes = b"<html>502 Bad Gateway</html>") -> Reply:
    """A 200 whose HTTP body is not a chat completion at all (a proxy's error page)."""
    return Reply(kind="error", payload=body, status=200)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    raw_body: bytes
    body: Any

    @property
    def text(self) -> str:
        return self.raw_body.decode("utf-8", "replace")


class FakeOpenAIServer:
    """Start with ``with FakeOpenAIServer() as server:``; point clients at ``server.base_url``."""

    def __init__(self, *, model: str = "fake-model", embedding_dimension: int = 32) -> None:
        self.model = model
        self.embedding_dimension = embedding_dimension
        self._queue: deque[Reply] = deque()
        self._embedding_queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._requests: list[RecordedRequest] = []
        self._counter = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        handler = _make_handler(self)
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()  # wakes handlers sleeping on a scripted delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- test API --------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def enqueue_embeddings(self, *replies: Reply) -> None:
        """Answers for the next embeddings requests (errors, delays); then the computed vectors again."""
        with self._lock:
            self._embedding_queue.extend(replies)

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == EMBEDDINGS_PATH]

    def reset(self) -> None:
        with self._lock:
            self._embedding_queue.clear()
            self._queue.clear()
            self._requests.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == CHAT_PATH]

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    # --- internals -------------------------------------------------------
    def _record_and_pop(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            self._requests.append(request)
            self._counter += 1
            return self._queue.popleft() if self._queue else None

    def _record_only(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _pop_embedding_reply(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            self._requests.append(request)
            return self._embedding_queue.popleft() if self._embedding_queue else None

    def _embeddings(self, request_body: Any) -> dict[str, Any]:
        from sinks.embedding import HashEmbedder

        body = request_body if isinstance(request_body, dict) else {}
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        vectors = HashEmbedder(self.embedding_dimension).embed([str(t) for t in texts]) * 3.0
        data = [{"object": "embedding", "index": i, "embedding": [float(x) for x in vectors[i]]}
                for i in range(len(texts))]
        return {"object": "list", "data": list(reversed(data)), "model": str(body.get("model", self.model)),
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}}

    def _sleep(self, seconds: float) -> bool:
        """False when the server is shutting down (the reply is abandoned)."""
        return not self._closing.wait(seconds) if seconds > 0 else True

    def _completion(self, request_body: Any, reply: Reply) -> dict[str, Any]:
        text = reply.payload if reply.kind == "raw" else json.dumps(reply.payload)
        body = request_body if isinstance(request_body, dict) else {}
        n = self._counter
        message: dict[str, Any] = {"role": "assistant", "content": None}
        tools = body.get("tools")
        if tools:
            name = _forced_tool_name(body) or tools[0]["function"]["name"]
            message["tool_calls"] = [
                {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": text}}
            ]
        else:
            message["content"] = f"```json\n{text}\n```" if reply.fence_json else text
        return {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": 1_700_000_000 + n,
            "model": str(body.get("model", self.model)),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }


def _forced_tool_name(body: dict[str, Any]) -> str | None:
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        fn = choice.get("function")
        name = fn.get("name") if isinstance(fn, dict) else None
        if isinstance(name, str):
            return name
    return None


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 10  # idle keep-alive connections must not pin a thread forever

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test); nothing to deliver

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw_body) if raw_body else None
            except json.JSONDecodeError:
                body = None
            recorded = RecordedRequest(
                method="POST",
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                raw_body=raw_body,
                body=body,
            )
            if self.path == EMBEDDINGS_PATH:
                scripted = server._pop_embedding_reply(recorded)
                if scripted is not None:
                    if not server._sleep(scripted.delay_s):
                        self.close_connection = True
                        return
                    self._send(scripted.status, scripted.payload, scripted.headers)
                    return
                self._send(200, server._embeddings(body))
                return
            if self.path != CHAT_PATH:
                server._record_only(recorded)
                self._send(404, {"error": {"message": "unknown path", "type": "not_found"}})
                return
            reply = server._record_and_pop(recorded)
            if reply is None:
                self._send(500, {"error": {"message": "fake server: script exhausted", "type": "server_error"}})
                return
            if not server._sleep(reply.delay_s):
                self.close_connection = True
                return
            if reply.kind == "error":
                self._send(reply.status, reply.payload, reply.headers)
                return
            self._send(200, server._completion(body, reply))

        def do_GET(self) -> None:
            self._send(404, {"error": {"message": "unknown path", "type": "not_found"}})

    return Handler
