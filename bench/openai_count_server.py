"""A recording OpenAI-compatible endpoint for the one-shot bench (bench/oneshot.bench.sh): it
answers as a real server without a context window does — 404 for llama.cpp's and Ollama's probe
endpoints, a /v1/models list without a window — and streams a short chat answer. Every request
("METHOD /path") is appended to LOG. Port 0: the port it got is written to PORT_FILE."""
import http.server
import json
import sys

LOG, PORT_FILE = sys.argv[1], sys.argv[2]


def chunk(data):
    return f"data: {json.dumps(data)}\n\n".encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with open(LOG, "a") as log:
            log.write(f"{self.command} {self.path}\n")

    def reply(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.record()
        if self.path.rstrip("/") == "/v1/models":
            self.reply(200, json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode())
        else:
            self.reply(404, b'{"error": "not found"}')

    def do_POST(self):
        self.record()
        if self.path != "/v1/chat/completions":
            self.reply(404, b'{"error": "not found"}')
            return
        base = {"id": "c", "object": "chat.completion.chunk", "model": "m"}
        body = b"".join([
            chunk({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hello."}}]}),
            chunk({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}),
            b"data: [DONE]\n\n",
        ])
        self.reply(200, body, "text/event-stream")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as port_file:
    port_file.write(str(server.server_address[1]))
server.serve_forever()
