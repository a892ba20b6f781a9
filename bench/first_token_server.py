"""A fake Anthropic endpoint for the first-token bench (bench/repl.bench.sh): each request gets a
stream whose first text delta is sent 300 ms after the headers, with the time it was written
(ns since the epoch) appended to STAMPS; the stream then ends 300 ms later. Port 0: the port it
got is written to PORT_FILE."""
import http.server
import json
import sys
import time

STAMPS, PORT_FILE = sys.argv[1], sys.argv[2]


def event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader (a pane being killed) went away

    def answer(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        usage = {"input_tokens": 10, "output_tokens": 1}
        start = {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                  "model": "m", "content": [], "stop_reason": None, "usage": usage}}
        self.wfile.write(event("message_start", start))
        self.wfile.write(event("content_block_start",
                               {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
        self.wfile.flush()
        time.sleep(0.3)
        delta = event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": "FIRSTTOKEN"}})
        stamp = time.time_ns()
        self.wfile.write(delta)
        self.wfile.flush()
        with open(STAMPS, "a") as stamps:
            stamps.write(f"{stamp}\n")
        time.sleep(0.3)
        self.wfile.write(event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        self.wfile.write(event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                                 "usage": {"output_tokens": 2}}))
        self.wfile.write(event("message_stop", {"type": "message_stop"}))
        self.wfile.flush()
        self.close_connection = True


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as port_file:
    port_file.write(str(server.server_address[1]))
server.serve_forever()
