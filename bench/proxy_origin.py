"""A local origin for the proxy bench (bench/proxy.bench.sh): GET /big answers 100 MB (1 MiB
blocks from memory, so the disk is not measured), anything else a 2-byte body. One request per
connection, threaded. Port 0: the port it got is written to PORT_FILE."""
import http.server
import sys

PORT_FILE = sys.argv[1]
BLOCK = bytes(range(256)) * 4096
BIG_BLOCKS = 100


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        big = self.path == "/big"
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(BLOCK) * BIG_BLOCKS if big else 2))
        self.end_headers()
        if big:
            for _ in range(BIG_BLOCKS):
                self.wfile.write(BLOCK)
        else:
            self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as port_file:
    port_file.write(str(server.server_address[1]))
server.serve_forever()
