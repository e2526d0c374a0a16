"""A local stand-in for an OpenAI-compatible chat server: ``ThreadingHTTPServer`` on 127.0.0.1, in a thread.

It speaks ``POST /v1/chat/completions`` (and ``GET /v1/models``) as vLLM, Ollama and llama.cpp do, and lets a
test script what it answers: a required key (401 otherwise), the models it serves (404 otherwise), statuses to
answer first (429 with Retry-After, 503), a latency per call. It counts requests and the most requests ever in
flight at once. Its score is a pure function of the output text, so a test knows what to expect: a text holding
``UNPARSABLE`` (or another word of ``unparsable``) gets a reply with no score, any other ``1 + len(output) % 5``.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def expected_score(output: str) -> float:
    """The score the stub gives an output (NaN for the unparsable ones)."""
    return float("nan") if "UNPARSABLE" in output else float(1 + len(output) % 5)


def top_logprobs(reply: str) -> list[dict]:
    """The stub's first-token alternatives: its score at 0.6, the next score up at 0.3 (" 5" after a 5: another
    spelling of the same score), a word at 0.1."""
    if not reply.strip().isdigit():
        return [{"token": "I", "logprob": math.log(0.9)}, {"token": "3", "logprob": math.log(0.01)}]
    score = int(reply)
    return [{"token": str(score), "logprob": math.log(0.6)}, {"token": f" {min(score + 1, 5)}", "logprob": math.log(0.3)},
            {"token": "The", "logprob": math.log(0.1)}]


def expected_from_logprobs(output: str) -> float:
    """The expected score stviz should read from the stub's alternatives for an output."""
    score = expected_score(output)
    return (0.6 * score + 0.3 * min(score + 1, 5)) / 0.9


class StubLLM:
    """The server's script and counters; ``url`` is its base (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, models=("stub-judge",), key: str | None = None, latency: float = 0.0,
                 unparsable: tuple[str, ...] = ("UNPARSABLE",), logprobs: str = "ignored"):
        self.models, self.key, self.latency, self.unparsable = set(models), key, latency, unparsable
        #: Asked for log probabilities: "ignored" (as a server without them), "given" (OpenAI's layout) or "refused"
        #: (HTTP 400).
        self.logprobs = logprobs
        self.statuses: list[tuple[int, dict] | None] = []  # answered first, one per request (None: answer normally)
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.prompts: list[str] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "StubLLM":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reply_for(self, prompt: str) -> str:
        """The assistant's text for a prompt: a score from the output's length, or prose with no score."""
        match = re.search(r"(?:Rewrite|Sentence): (.*)", prompt)
        output = match.group(1) if match else ""
        if any(word in output for word in self.unparsable):
            return "I would rather not rate this rewrite, sorry."
        return str(1 + len(output) % 5)


def _handler(stub: StubLLM):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def _send(self, status: int, body: dict, headers: dict | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._send(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in sorted(stub.models)]})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            request = json.loads(self.rfile.read(length) or b"{}")
            with stub.lock:
                stub.requests += 1
                stub.in_flight += 1
                stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                scripted = stub.statuses.pop(0) if stub.statuses else None
            try:
                time.sleep(stub.latency)
                answer = self._answer(request, scripted)
            finally:
                # The call ends before its answer is sent: a client sends its next call as soon as it has the answer,
                # and counting the old one until after the write saw one call too many in flight under load.
                with stub.lock:
                    stub.in_flight -= 1
            self._send(*answer)

        def _answer(self, request: dict, scripted) -> tuple:
            if not self.path.rstrip("/").endswith("/v1/chat/completions"):
                return 404, {"error": {"message": f"no route {self.path}"}}
            if stub.key and self.headers.get("Authorization") != f"Bearer {stub.key}":
                return 401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}
            if scripted:
                return scripted[0], {"error": {"message": "scripted"}}, scripted[1]
            if request.get("model") not in stub.models:
                return 404, {"error": {"message": f"The model `{request.get('model')}` does not exist."}}
            prompt = request["messages"][-1]["content"]
            with stub.lock:
                stub.prompts.append(prompt)
            assert request.get("temperature") == 0
            asked = request.get("logprobs") and request.get("top_logprobs")
            if asked and stub.logprobs == "refused":
                return 400, {"error": {"message": "logprobs are not supported by this server"}}
            reply = stub.reply_for(prompt)
            choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}
            if asked and stub.logprobs == "given":
                choice["logprobs"] = {"content": [{"token": reply.split()[0], "logprob": 0.0,
                                                   "top_logprobs": top_logprobs(reply)}]}
            return 200, {"id": "stub", "object": "chat.completion", "model": request["model"], "choices": [choice]}

    return Handler
