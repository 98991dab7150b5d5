#!/usr/bin/env python3
"""ClickHouse's HTTP interface on loopback, answered by chDB: a stand-in for tests.

    chdb_http_server.py --data-dir DIR [--host 127.0.0.1] [--port 0] [--port-file FILE] [--sessions 4]

Binds (port 0 picks a free one), writes the bound port to --port-file, serves until SIGTERM,
SIGINT or end of stdin (so a parent that dies without cleaning up still takes it down), then
closes the chDB session so the data directory is left consistent. What it does and does not
support is listed in deploy/local/README.md.
"""

import argparse
import gzip
import os
import signal
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote_plus, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from chdb_engine import ChdbEnginePool, summary_header  # noqa: E402
from clickhouse_errors import ClickHouseHttpError  # noqa: E402
from clickhouse_request import build_request, decode_body  # noqa: E402

_HEALTH_PATHS = ("/ping", "/replicas_status")
_KEEP_ALIVE_SECONDS = 10  # the server's keep_alive_timeout; the client reads it from Keep-Alive


def content_type_for(output_format: str) -> str:
    name = output_format.lower()
    if name.startswith("json"):
        return "application/json; charset=UTF-8"
    if name.startswith(("tabseparated", "tsv")):
        return "text/tab-separated-values; charset=UTF-8"
    if name.startswith("csv"):
        return "text/csv; charset=UTF-8; header=absent"
    return "text/plain; charset=UTF-8"


class ClickHouseHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the client's socket pool expects
    timeout = 60  # idle keep-alive sockets are dropped after this
    server_version = "chdb-http-shim"
    # TCP_NODELAY: a reply goes out as two writes (headers, then body). With Nagle's algorithm on,
    # the body waited for the client's delayed ACK of the headers: ~44 ms added to every query
    # on a keep-alive socket, `SELECT 1` included (issue 15, target 4).
    disable_nagle_algorithm = True
    engine: ChdbEnginePool  # set on the class before serving

    def do_GET(self) -> None:
        self._dispatch(allow_body=False)

    def do_POST(self) -> None:
        self._dispatch(allow_body=True)

    def do_HEAD(self) -> None:
        self._send(200, b"", {"Content-Type": "text/html; charset=UTF-8"}, head_only=True)

    def _dispatch(self, allow_body: bool) -> None:
        url = urlsplit(self.path)
        body = self._read_body() if allow_body else b""
        if url.path in _HEALTH_PATHS or (url.path == "/" and not url.query and not allow_body):
            self._send(200, b"Ok.\n", {"Content-Type": "text/html; charset=UTF-8"})
            return
        if url.path != "/":
            self._send(404, f"There is no handle {url.path}\n\nUse / or /ping for health checks.\n".encode(),
                       {"Content-Type": "text/plain; charset=UTF-8"})
            return
        query_id = ""
        started = time.monotonic()
        try:
            body = decode_body(body, self.headers.get("Content-Encoding"))
            request = build_request(url.query, self.headers, body)
            query_id = request.query_id
            outcome = self.engine.run(request)
        except ClickHouseHttpError as error:
            self._send_error(error, query_id)
            self._log_query(query_id, error.status, started, body)
            return
        except Exception as error:  # a bug in the shim must still answer in ClickHouse's shape
            self._send_error(ClickHouseHttpError(1001, "STD_EXCEPTION", f"{type(error).__name__}: {error}"), query_id)
            self._log_query(query_id, 500, started, body)
            return
        payload, encoding = outcome.body, request.response_encoding
        if encoding == "gzip":
            payload = gzip.compress(payload, compresslevel=1)
        elif encoding == "deflate":
            payload = zlib.compress(payload, 1)
        headers = {
            "Content-Type": content_type_for(outcome.output_format),
            "X-ClickHouse-Query-Id": query_id,
            "X-ClickHouse-Format": outcome.output_format,
            "X-ClickHouse-Timezone": "UTC",
            "X-ClickHouse-Summary": summary_header(outcome.summary),
        }
        if encoding:
            headers["Content-Encoding"] = encoding
        self._send(200, payload, headers)
        self._log_query(query_id, 200, started, body)

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked(self) -> bytes:
        # http.server leaves Transfer-Encoding to us; Node streams request bodies chunked.
        chunks = []
        while True:
            size_line = self.rfile.readline(65537)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline(3)

    def _send_error(self, error: ClickHouseHttpError, query_id: str) -> None:
        headers = {
            "Content-Type": "text/plain; charset=UTF-8",
            "X-ClickHouse-Exception-Code": str(error.code),
        }
        if query_id:
            headers["X-ClickHouse-Query-Id"] = query_id
        self._send(error.status, error.body(self.engine.version), headers)

    def _send(self, status: int, payload: bytes, headers: dict[str, str], head_only: bool = False) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Keep-Alive", f"timeout={_KEEP_ALIVE_SECONDS}")
        self.end_headers()
        if not head_only:
            self.wfile.write(payload)

    def _log_query(self, query_id: str, status: int, started: float, body: bytes) -> None:
        text = (unquote_plus(urlsplit(self.path).query) or body[:200].decode("utf-8", "replace")).replace("\n", " ")
        print(f"{status} {1000 * (time.monotonic() - started):.1f}ms {query_id} {text[:200]}",
              file=sys.stderr, flush=True)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - signature from the base class
        pass  # _log_query writes one line per query instead of one per HTTP exchange


def _stop_on_stdin_eof(stop: threading.Event) -> None:
    # os.read on the raw descriptor: a thread parked in sys.stdin.buffer.read holds the
    # buffer's lock, and interpreter shutdown then aborts with "could not acquire lock".
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    stop.set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--sessions", type=int, default=int(os.environ.get("CHDB_SESSIONS", "4")),
                        help="chDB sessions answering queries at once (default 4, or CHDB_SESSIONS)")
    parser.add_argument("--no-stdin-watch", action="store_true", help="do not stop when stdin closes")
    args = parser.parse_args()

    ClickHouseHandler.engine = ChdbEnginePool(args.data_dir, args.sessions)
    server = ThreadingHTTPServer((args.host, args.port), ClickHouseHandler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        partial = args.port_file + ".partial"
        with open(partial, "w") as out:
            out.write(f"{port}\n")
        os.replace(partial, args.port_file)  # readers never see a half-written number
    print(f"chDB {ClickHouseHandler.engine.version} serving ClickHouse HTTP on {args.host}:{port}"
          f" with {args.sessions} sessions",
          file=sys.stderr, flush=True)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    if not args.no_stdin_watch:
        threading.Thread(target=_stop_on_stdin_eof, args=(stop,), daemon=True).start()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    while not stop.wait(0.1):
        pass
    server.shutdown()
    server.server_close()
    ClickHouseHandler.engine.close()
    print("stopped", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    # os._exit skips interpreter finalisation: the data is already flushed by close(), and
    # tearing down chDB's thread pools from Python's atexit stage can stall for seconds.
    os._exit(main())
