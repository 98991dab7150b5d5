"""chDB sessions, each used by one query at a time, and a pool of them for concurrent queries.

chDB is an embedded ClickHouse: one engine per data directory and per process. Each connection
to it is a session, with state (current database, SET values) that survives between queries;
several connections to one directory share the engine (its tables, parts, caches) and run
their queries at once, each with its own state (issue 15: one session made the stand-in answer
one query at a time, so Kafka-mode figures measured the shim's queue, not Spoor). The
ClickHouse HTTP interface is stateless, so each request's database and settings are put in
place on the session it gets before its query and put back afterwards.
"""

import json
import queue
import re
import sys
import threading
import time

from chdb import _chdb  # the engine's own binding; `chdb.query` would open a new session per call

from clickhouse_errors import ClickHouseHttpError, from_engine_error
from clickhouse_request import QueryRequest

# Settings the server refuses to change back once set (readonly) or that only the HTTP
# layer acts on; applying them to the shared session would outlive the request.
_IGNORED_SETTINGS = frozenset({
    "readonly", "enable_http_compression", "http_zlib_compression_level", "implicit_select",
})
_USE_STATEMENT = re.compile(rb"^\s*USE\b", re.IGNORECASE)
_FORMAT_CLAUSE = re.compile(rb"\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$", re.IGNORECASE)
_INSERT_STATEMENT = re.compile(rb"^\s*INSERT\b", re.IGNORECASE)


def _quote_identifier(name: str) -> str:
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def _quote_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class QueryOutcome:
    def __init__(self, body: bytes, output_format: str, summary: dict[str, str]):
        self.body = body
        self.output_format = output_format
        self.summary = summary


class ChdbEngine:
    def __init__(self, data_dir: str):
        self._lock = threading.Lock()
        self._connection = _chdb.connect(data_dir)
        self._database: str | None = None
        self._closed = False
        # chDB lets `1+1` run as `SELECT 1+1`; a real server rejects it, and so should tests.
        self._connection.query("SET implicit_select = 0", "TabSeparated")
        self.version = self._connection.query("SELECT version()", "TabSeparated").bytes().decode().strip()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._connection.close()

    def run(self, request: QueryRequest) -> QueryOutcome:
        with self._lock:
            if self._closed:  # a keep-alive socket outlived shutdown; never touch a closed session
                raise ClickHouseHttpError(210, "NETWORK_ERROR", "Server is shutting down", status=503)
            self._use_database(request.database)
            applied = self._apply_settings(request.settings)
            try:
                started = time.monotonic()
                result = self._connection.query(request.sql, request.default_format, params=request.query_params)
                elapsed = time.monotonic() - started
            except RuntimeError as error:
                raise from_engine_error(error) from None
            finally:
                self._reset_settings(applied)
                if _USE_STATEMENT.match(request.sql):
                    self._database = None  # the query moved the session elsewhere
            body = result.bytes()
            return QueryOutcome(body, self._output_format(request), {
                "read_rows": str(result.rows_read()),
                "read_bytes": str(result.bytes_read()),
                "written_rows": str(result.rows_written()),
                "written_bytes": str(result.bytes_written()),
                "total_rows_to_read": str(result.rows_read()),
                "result_rows": "0",
                "result_bytes": str(len(body)),
                "elapsed_ns": str(int(elapsed * 1e9)),
            })

    def _use_database(self, database: str) -> None:
        if database == self._database:
            return
        try:
            self._connection.query(f"USE {_quote_identifier(database)}", "TabSeparated")
        except RuntimeError as error:
            raise from_engine_error(error) from None
        self._database = database

    def _apply_settings(self, settings: dict[str, str]) -> list[str]:
        applied: list[str] = []
        for name, value in settings.items():
            if name in _IGNORED_SETTINGS:
                continue
            try:
                self._connection.query(f"SET {name} = {_quote_string(value)}", "TabSeparated")
                applied.append(name)
            except RuntimeError as error:
                failure = from_engine_error(error)
                if failure.name == "UNKNOWN_SETTING":
                    # Server-only or newer settings; a real server would refuse them, but the
                    # shim is a test double, so note it in the log and carry on.
                    print(f"ignored unknown setting {name}", file=sys.stderr, flush=True)
                    continue
                self._reset_settings(applied)
                raise failure from None
        return applied

    def _reset_settings(self, names: list[str]) -> None:
        for name in names:
            try:
                self._connection.query(f"SET {name} = DEFAULT", "TabSeparated")
            except RuntimeError as error:
                print(f"could not reset setting {name}: {error}", file=sys.stderr, flush=True)

    @staticmethod
    def _output_format(request: QueryRequest) -> str:
        if not _INSERT_STATEMENT.match(request.sql):
            match = _FORMAT_CLAUSE.search(request.sql[-256:])
            if match is not None:
                return match.group(1).decode()
        return request.default_format


class ChdbEnginePool:
    """`size` sessions on one data directory; each request waits for a free one."""

    def __init__(self, data_dir: str, size: int):
        if size < 1:
            raise ValueError("a pool needs at least one session")
        self._sessions = [ChdbEngine(data_dir) for _ in range(size)]
        self._free: queue.SimpleQueue[ChdbEngine] = queue.SimpleQueue()
        for session in self._sessions:
            self._free.put(session)
        self.version = self._sessions[0].version
        self.size = size

    def run(self, request: QueryRequest) -> QueryOutcome:
        session = self._free.get()
        try:
            return session.run(request)
        finally:
            self._free.put(session)

    def close(self) -> None:
        # Each session refuses new queries once closed; one under way finishes first (its lock).
        for session in self._sessions:
            session.close()


def summary_header(summary: dict[str, str]) -> str:
    return json.dumps(summary, separators=(",", ":"))
