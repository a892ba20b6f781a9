"""A scripted Anthropic endpoint for the checks bench (bench/checks.bench.sh): a request without a
tool result is answered with one tool call — write_file of app.py, or (when MODE_FILE says
`bash`) the check's command through the bash tool — and a request with one by a final "done".
Port 0: the port it got is written to PORT_FILE."""
import http.server
import json
import sys

PORT_FILE, MODE_FILE = sys.argv[1], sys.argv[2]
APP = "".join(f"def f{i}(xs):\n    return [x * {i} for x in xs if x % 7 != {i % 7}]\n\n" for i in range(200))


def stream(block):
    events = [
        ("message_start", {"type": "message_start", "message": {
            "id": "m", "type": "message", "role": "assistant", "model": "m", "content": [],
            "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    ]
    if block["type"] == "text":
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": block["text"]}}),
        ]
        stop = "end_turn"
    else:
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "t1", "name": block["name"], "input": {}}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}),
        ]
        stop = "tool_use"
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 2}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        answered = any(isinstance(message.get("content"), list) and
                       any(block.get("type") == "tool_result" for block in message["content"])
                       for message in body.get("messages", []))
        mode = open(MODE_FILE).read().strip()
        if answered:
            block = {"type": "text", "text": "done"}
        elif mode == "bash":
            block = {"type": "tool_use", "name": "bash", "input": {"command": "python3 -m py_compile app.py"}}
        else:
            block = {"type": "tool_use", "name": "write_file", "input": {"path": "app.py", "content": APP}}
        data = stream(block)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as port_file:
    port_file.write(str(server.server_address[1]))
server.serve_forever()
