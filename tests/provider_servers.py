"""A fake model server on 127.0.0.1 that speaks the wire protocols of the
OpenAI, Anthropic, Gemini and Ollama APIs, so provider tests go through the
real SDKs and real HTTP, never the network.

Each test scripts the answers in order (``server.push(...)``); the server
records every request and the most requests it had in flight at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Answer",
    "FakeServer",
    "Recorded",
    "anthropic_text",
    "anthropic_tool",
    "error",
    "fake_server",
    "gemini_text",
    "openai_chat",
    "openai_embeddings",
]


@dataclass(frozen=True)
class Answer:
    """One scripted HTTP answer: sent after ``delay`` seconds."""

    status: int = 200
    body: Any = None  # JSON-able, or str/bytes sent as is
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any

    def text(self) -> str:
        """The request body as one string, for 'does it mention...' checks."""
        return json.dumps(self.body, ensure_ascii=False)


def openai_chat(text: str | None, *, model: str = "gpt-fake", prompt_tokens: int = 11,
                completion_tokens: int = 7, **headers: str) -> Answer:
    body = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1_700_000_000, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return Answer(body=body, headers=headers)


def openai_embeddings(vectors: list[list[float]], *, model: str = "embed-fake") -> Answer:
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
    return Answer(body={"object": "list", "data": data, "model": model,
                        "usage": {"prompt_tokens": 3, "total_tokens": 3}})


def anthropic_tool(payload: dict[str, Any], *, name: str, model: str = "claude-fake") -> Answer:
    return _anthropic([{"type": "tool_use", "id": "toolu_1", "name": name, "input": payload}], model, "tool_use")


def anthropic_text(text: str, *, model: str = "claude-fake") -> Answer:
    return _anthropic([{"type": "text", "text": text}], model, "end_turn")


def _anthropic(content: list[dict[str, Any]], model: str, stop: str) -> Answer:
    return Answer(body={"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": content,
                        "stop_reason": stop, "stop_sequence": None,
                        "usage": {"input_tokens": 13, "output_tokens": 5}})


def gemini_text(text: str, *, model: str = "gemini-fake") -> Answer:
    return Answer(body={
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 17, "candidatesTokenCount": 9, "totalTokenCount": 26},
        "modelVersion": model,
    })


def error(status: int, message: str = "scripted error", *, delay: float = 0.0, body: Any = None,
          **headers: str) -> Answer:
    """An error in the shape all three APIs roughly share."""
    if body is None:
        body = {"error": {"message": message, "type": "scripted", "code": status, "status": "SCRIPTED"}}
    return Answer(status=status, body=body, headers={k.replace("_", "-"): v for k, v in headers.items()}, delay=delay)


class FakeServer:
    """The server's script, record and counters (the handler threads share them)."""

    def __init__(self) -> None:
        self.answers: deque[Answer] = deque()
        self.requests: list[Recorded] = []
        self.ollama_models: list[str] | None = None  # None: /api/tags is 404
        self.in_flight = 0
        self.max_in_flight = 0
        self.hold = 0.0  # extra seconds every request is held (to overlap them)
        self.tags_gate: threading.Event | None = None  # when set up, /api/tags answers once it is set
        self.lock = threading.Lock()
        self.port = 0
        # Answers computed from the request, once the scripted ones run out (a
        # scripted model behind the real protocol); None: only scripted answers.
        self.respond: Callable[[Recorded], Answer] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def push(self, *answers: Answer) -> None:
        with self.lock:
            self.answers.extend(answers)

    def model_requests(self) -> list[Recorded]:
        """Requests other than Ollama's model listing."""
        return [r for r in self.requests if r.path != "/api/tags"]

    def _next(self, request: Recorded) -> Answer:
        with self.lock:
            self.requests.append(request)
            if request.path == "/api/tags":
                if self.ollama_models is None:
                    return error(404, "not ollama")
                return Answer(body={"models": [{"name": n, "model": n} for n in self.ollama_models]})
            if not self.answers and self.respond is not None:
                return self.respond(request)
            if not self.answers:
                return error(418, f"the test scripted no answer for {request.method} {request.path}")
            return self.answers.popleft()


def _handler(state: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            request = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            with state.lock:
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
            try:
                answer = state._next(request)
                if request.path == "/api/tags" and state.tags_gate is not None:
                    state.tags_gate.wait(30)
                time.sleep(answer.delay + state.hold)
                payload = answer.body if isinstance(answer.body, (str, bytes)) else json.dumps(answer.body)
                data = payload.encode() if isinstance(payload, str) else payload
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in answer.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)
            finally:
                with state.lock:
                    state.in_flight -= 1

        do_GET = _serve
        do_POST = _serve

    return Handler


@contextmanager
def fake_server() -> Iterator[FakeServer]:
    """A running server on an ephemeral 127.0.0.1 port, stopped on exit."""
    state = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
