"""Paths and small helpers shared by the engine tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ENGINE_DATA = Path(__file__).parent / "data"
TINY_CLIP_CONFIG = ENGINE_DATA / "memscope-tiny-clip.json"
UPSTREAM = Path(__file__).parents[1] / "data" / "memeye_runner"
KITCHEN = UPSTREAM / "data" / "dialog" / "Kitchen_Renovation.json"
KITCHEN_OPEN = UPSTREAM / "data" / "dialog" / "Kitchen_Renovation_Open.json"
UPSTREAM_RUNS = UPSTREAM / "runs" / "kitchen_renovation"


def upstream_rag_runs() -> list[Path]:
    """The two real semantic_rag_text_only runs (MCQ and open) with real MiniLM scores."""
    return sorted(
        path for path in UPSTREAM_RUNS.iterdir() if path.name.endswith("semantic_rag_text_only")
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every line of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class StubChat:
    """What the stub answer endpoint does: a reply function, and the requests it received."""

    def __init__(self, reply: Callable[[dict[str, Any], int], tuple[int, Any]]) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()


@contextmanager
def stub_endpoint(
    reply: Callable[[dict[str, Any], int], tuple[int, Any]],
) -> Iterator[tuple[str, StubChat]]:
    """A local OpenAI-compatible ``/v1/chat/completions`` on 127.0.0.1 (a thread).

    ``reply(payload, call_number)`` returns ``(status, body)``; a dict body is sent as
    JSON, and a reply function may sleep to make the client time out.
    """
    chat = StubChat(reply)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length))
            with chat.lock:
                chat.requests.append(payload)
                chat.headers.append(dict(self.headers))
                number = len(chat.requests)
            if self.path != "/v1/chat/completions":
                status, body = 404, {"error": f"no route {self.path}"}
            else:
                status, body = chat.reply(payload, number)
            data = json.dumps(body) if not isinstance(body, (bytes, str)) else body
            data = data.encode() if isinstance(data, str) else data
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                pass

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", chat
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def completion(text: str) -> dict[str, Any]:
    """A minimal chat-completion body."""
    return {
        "choices": [{"message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
    }
