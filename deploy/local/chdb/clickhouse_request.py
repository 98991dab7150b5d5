"""Turns one HTTP request into the query ClickHouse's HTTP handler would run.

Mirrors src/Server/HTTPHandler.cpp closely enough for @clickhouse/client 1.x:
- the SQL is the `query` URL parameter, then a newline, then the body (that is how
  `INSERT INTO t FORMAT JSONEachRow` travels with its rows in the body);
- a multipart/form-data body carries `query` and `param_*` as form fields (the client
  switches to it when bound parameters would make the URL too long);
- `param_<name>` values stay text in ClickHouse's escaped format and are bound by the
  engine itself, never spliced into the SQL;
- every other parameter that is not a handler parameter is a setting.
"""

import gzip
import lzma
import re
import uuid
import zlib
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from clickhouse_errors import bad_request, not_implemented

# Parameters the HTTP handler consumes itself (HTTPHandler::isExternalData/reserved names);
# they must not be replayed as `SET name = value`.
HANDLER_PARAMS = frozenset({
    "query", "database", "default_format", "query_id", "session_id", "session_timeout",
    "session_check", "close_session", "user", "password", "quota_key", "role", "compress",
    "decompress", "buffer_size", "wait_end_of_query", "stacktrace", "client_protocol_version",
})

_SETTING_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PARAM_NAME = re.compile(r"^[A-Za-z0-9_]+$")
_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.IGNORECASE)
_FIELD_NAME = re.compile(rb'name="([^"]*)"', re.IGNORECASE)


@dataclass
class QueryRequest:
    sql: bytes
    database: str = "default"
    default_format: str = "TabSeparated"
    query_id: str = ""
    query_params: dict[str, str] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    response_encoding: str | None = None


def decode_body(raw: bytes, content_encoding: str | None) -> bytes:
    encoding = (content_encoding or "").strip().lower()
    if encoding in ("", "identity"):
        return raw
    try:
        if encoding in ("gzip", "x-gzip"):
            return gzip.decompress(raw)
        if encoding == "deflate":
            return zlib.decompress(raw)
        if encoding == "xz":
            return lzma.decompress(raw)
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as error:
        raise bad_request(354, "CANNOT_DECOMPRESS", f"Cannot decompress {encoding} body: {error}")
    raise not_implemented(f"Content-Encoding: {encoding}")


def parse_multipart(body: bytes, content_type: str) -> dict[str, str]:
    match = _BOUNDARY.search(content_type)
    if match is None:
        raise bad_request(27, "CANNOT_PARSE_INPUT_ASSERTION_FAILED", "multipart body without boundary")
    delimiter = b"--" + match.group(1).encode("latin-1")
    fields: dict[str, str] = {}
    for part in body.split(delimiter)[1:]:
        if part.startswith(b"--"):
            break
        head, _, content = part.partition(b"\r\n\r\n")
        name = _FIELD_NAME.search(head)
        if name is not None:
            value = content[:-2] if content.endswith(b"\r\n") else content
            fields[name.group(1).decode("utf-8")] = value.decode("utf-8")
    return fields


def _response_encoding(params: dict[str, str], accept_encoding: str | None) -> str | None:
    # ClickHouse compresses only when asked twice: the setting and the header.
    if params.get("enable_http_compression", "0").lower() not in ("1", "true"):
        return None
    offered = [token.split(";")[0].strip().lower() for token in (accept_encoding or "").split(",")]
    for candidate in ("gzip", "deflate"):
        if candidate in offered:
            return candidate
    return None


def build_request(query_string: str, headers, body: bytes) -> QueryRequest:
    params = dict(parse_qsl(query_string, keep_blank_values=True))
    content_type = headers.get("Content-Type") or ""
    if content_type.lower().startswith("multipart/form-data"):
        params.update(parse_multipart(body, content_type))
        body = b""
    if params.get("compress", "0") == "1" or params.get("decompress", "0") == "1":
        raise not_implemented("ClickHouse native (LZ4 block) compression, compress=1/decompress=1")

    url_query = params.get("query", "").encode("utf-8")
    sql = url_query + b"\n" + body if url_query and body else (url_query or body)
    if not sql.strip():
        raise bad_request(62, "SYNTAX_ERROR", "Empty query")

    request = QueryRequest(
        sql=sql,
        database=params.get("database") or headers.get("X-ClickHouse-Database") or "default",
        default_format=params.get("default_format") or headers.get("X-ClickHouse-Format") or "TabSeparated",
        query_id=params.get("query_id") or str(uuid.uuid4()),
        response_encoding=_response_encoding(params, headers.get("Accept-Encoding")),
    )
    for name, value in params.items():
        if name.startswith("param_"):
            param_name = name[len("param_"):]
            if not _PARAM_NAME.match(param_name):
                raise bad_request(457, "BAD_QUERY_PARAMETER", f"Bad query parameter name: {name!r}")
            request.query_params[param_name] = value
        elif name not in HANDLER_PARAMS:
            if not _SETTING_NAME.match(name):
                raise bad_request(115, "UNKNOWN_SETTING", f"Unknown setting {name!r}")
            request.settings[name] = value
    return request
