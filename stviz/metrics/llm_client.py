"""A small client for OpenAI-compatible chat servers (vLLM, Ollama, llama.cpp, hosted APIs): one request per call.

Standard library only (``urllib``), so the LLM judge needs no new package. What it promises:

* the API key is read from the environment at each call (``STVIZ_LLM_KEY``, else ``OPENAI_API_KEY``) and
  goes into the ``Authorization`` header only: never into an object that is pickled, cached or logged, and
  never into an exception message (any text quoted from the server has it blanked out);
* 429 and 5xx answers (and dropped connections) are retried with exponential backoff, honouring the
  server's ``Retry-After``; a refused key (401/403), a wrong URL or model (404) and an unreachable server
  (connection refused) end at once in one line naming the fix.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from stviz.data.schema import DataError

KEY_ENV = ("STVIZ_LLM_KEY", "OPENAI_API_KEY")
URL_ENV = "STVIZ_LLM_URL"
#: Answers worth another try: rate limits and server-side trouble.
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: Tries per call, first included; waits double from BACKOFF_SECONDS up to MAX_WAIT_SECONDS.
MAX_TRIES = 6
BACKOFF_SECONDS = 1.0
MAX_WAIT_SECONDS = 60.0
TIMEOUT_SECONDS = float(os.environ.get("STVIZ_LLM_TIMEOUT", "120"))


class LLMError(DataError):
    """The LLM server cannot be used (no URL, key refused, unknown model, unreachable): one line, no secret."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status  # the HTTP status that ended the call, when one did


@dataclass(frozen=True)
class Completion:
    """A chat completion's text, and the first generated token's most probable tokens with their log probabilities
    (None when they were not asked for or the server gave none)."""

    text: str
    top_logprobs: tuple[tuple[str, float], ...] | None = None


def api_key() -> str | None:
    """The API key from the environment (``STVIZ_LLM_KEY``, else ``OPENAI_API_KEY``), or None."""
    for name in KEY_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


def chat_url(base: str | None) -> str:
    """The chat-completions endpoint for a server URL (``http://host:8000``, ``.../v1`` or the full endpoint).

    >>> chat_url("http://localhost:11434/v1/")
    'http://localhost:11434/v1/chat/completions'
    >>> chat_url("http://localhost:8000")
    'http://localhost:8000/v1/chat/completions'
    """
    if not base:
        raise LLMError("an llm: metric needs an OpenAI-compatible server: give --llm-url URL or set STVIZ_LLM_URL "
                       "(e.g. http://localhost:8000/v1 for vLLM, http://localhost:11434/v1 for Ollama)")
    url = base.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise LLMError(f"the LLM server URL must start with http:// or https://, got '{shown_url(url)}'")
    if url.endswith("/chat/completions"):
        return url
    return url + ("/chat/completions" if url.endswith("/v1") else "/v1/chat/completions")


def shown_url(url: str) -> str:
    """The URL as messages may show it: any user:password@ part and query string removed (they can hold secrets)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", "")) if parts.scheme else url.split("?")[0]


def _redact(text: str) -> str:
    """Server text with the key blanked out (some servers echo what they were sent)."""
    key = api_key()
    return text.replace(key, "***") if key else text


def chat(url: str, model: str, prompt: str, *, max_tokens: int = 16, timeout: float | None = None) -> str:
    """The reply text of one chat completion at temperature 0 (retried on 429/5xx; LLMError when hopeless)."""
    return chat_completion(url, model, prompt, max_tokens=max_tokens, timeout=timeout).text


def chat_completion(url: str, model: str, prompt: str, *, max_tokens: int = 16, timeout: float | None = None,
                    top_logprobs: int = 0) -> Completion:
    """One chat completion at temperature 0; with ``top_logprobs``, the first token's alternatives are asked for
    (OpenAI's ``logprobs`` / ``top_logprobs``, which vLLM and llama.cpp's server also answer)."""
    endpoint = chat_url(url)
    request = {"model": model, "messages": [{"role": "user", "content": prompt}], "temperature": 0,
               "max_tokens": max_tokens}
    if top_logprobs:
        request |= {"logprobs": True, "top_logprobs": top_logprobs}
    body = json.dumps(request).encode("utf-8")
    for attempt in range(1, MAX_TRIES + 1):
        wait = None
        try:
            return _completion(_post(endpoint, body, timeout or TIMEOUT_SECONDS))
        except urllib.error.HTTPError as exc:
            if exc.code not in RETRY_STATUS:
                raise _fatal(exc, endpoint, model) from None
            wait, why = _retry_after(exc.headers.get("Retry-After")), f"HTTP {exc.code}"
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, ConnectionRefusedError) or isinstance(reason, socket.gaierror):
                raise LLMError(f"cannot reach the LLM server at {shown_url(endpoint)} "
                               f"({'connection refused' if isinstance(reason, ConnectionRefusedError) else 'unknown host'}): "
                               "is it running? (--llm-url / STVIZ_LLM_URL)") from None
            why = f"{type(reason).__name__}"  # a dropped connection or a timeout: worth another try
        if attempt == MAX_TRIES:
            raise LLMError(f"the LLM server at {shown_url(endpoint)} kept failing ({why}) after {MAX_TRIES} tries: "
                           "try later, or lower --llm-concurrency") from None
        time.sleep(wait if wait is not None else min(BACKOFF_SECONDS * 2 ** (attempt - 1), MAX_WAIT_SECONDS))
    raise AssertionError("unreachable")  # pragma: no cover


def _post(endpoint: str, body: bytes, timeout: float) -> bytes:
    """POST the request with the key (if any) in its header; the body of a 2xx answer."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    key = api_key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(endpoint, data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the user's own server
        return response.read()


def _completion(raw: bytes) -> Completion:
    """The assistant's text (and first token's log probabilities) from a chat-completions body; a body that is not
    one comes back as its text (unparsed)."""
    text = raw.decode("utf-8", errors="replace")
    try:
        choice = json.loads(text)["choices"][0]
        content = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return Completion(_redact(text[:2000]))  # kept for inspection; it will not parse as a score
    return Completion("" if content is None else _redact(str(content)), _first_token_logprobs(choice))


def _first_token_logprobs(choice: dict) -> tuple[tuple[str, float], ...] | None:
    """The first generated token's alternatives, [(token, log probability)], from OpenAI's layout; None if absent."""
    try:
        first = choice["logprobs"]["content"][0]
        found = [(str(item["token"]), float(item["logprob"])) for item in first.get("top_logprobs") or []]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return tuple(found) or None


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date), capped; None when absent."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, min(seconds, MAX_WAIT_SECONDS))


def _fatal(exc: urllib.error.HTTPError, endpoint: str, model: str) -> LLMError:
    """One line for an answer that retrying cannot fix (401/403 key, 404 URL or model, 400 request)."""
    where = shown_url(endpoint)
    if exc.code in (401, 403):
        has_key = "a key that was refused" if api_key() else "no key"
        return LLMError(f"the LLM server at {where} answered HTTP {exc.code} (sent {has_key}): set STVIZ_LLM_KEY "
                        "or OPENAI_API_KEY to a key this server accepts", exc.code)
    said = _server_says(exc)
    if exc.code == 404:
        return LLMError(f"the LLM server at {where} answered HTTP 404 for model '{model}': the model is not served "
                        f"there, or the URL is not an OpenAI-compatible /v1 endpoint{said}", 404)
    return LLMError(f"the LLM server at {where} refused the request for model '{model}' (HTTP {exc.code}){said}",
                    exc.code)


def _server_says(exc: urllib.error.HTTPError) -> str:
    """'; the server said: ...' from an error body (first line, short, key blanked), or ''."""
    try:
        text = exc.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    try:
        error = json.loads(text).get("error", text)
        text = error.get("message", str(error)) if isinstance(error, dict) else str(error)
    except (ValueError, AttributeError):
        pass
    first = _redact(text.strip().splitlines()[0][:200]) if text.strip() else ""
    return f"; the server said: {first}" if first else ""


__all__ = ["Completion", "LLMError", "KEY_ENV", "URL_ENV", "api_key", "chat", "chat_completion", "chat_url", "shown_url"]
