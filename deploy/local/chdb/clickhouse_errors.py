"""ClickHouse-shaped errors for the chDB HTTP shim.

@clickhouse/client decides that a response failed when the status is not 2xx or when the
X-ClickHouse-Exception-Code header is present, then parses the body with
/(Code|Error): (?<code>\\d+).*Exception: (?<message>.+?)\\((?<type>[A-Z0-9_]+)\\)/ into a
ClickHouseError (client-common src/error/error.ts). So every failure, ours or chDB's, must
come out as `Code: N. DB::Exception: <text>. (NAME) (version V)`.
"""

import re

_CODE_RE = re.compile(r"Code: (\d+)\.")
_NAME_RE = re.compile(r"\(([A-Z][A-Z0-9_]{2,})\)")

# The status ClickHouse's HTTP handler gives each exception (exceptionCodeToHTTPStatus in
# src/Server/HTTPHandler.cpp); anything unlisted is a 500.
_STATUS_BY_NAME = {
    **{name: 400 for name in (
        "SYNTAX_ERROR", "CANNOT_PARSE_TEXT", "CANNOT_PARSE_ESCAPE_SEQUENCE",
        "CANNOT_PARSE_QUOTED_STRING", "CANNOT_PARSE_DATE", "CANNOT_PARSE_DATETIME",
        "CANNOT_PARSE_NUMBER", "CANNOT_PARSE_INPUT_ASSERTION_FAILED", "CANNOT_PARSE_BOOL",
        "INCORRECT_DATA", "TYPE_MISMATCH", "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE",
        "UNKNOWN_ELEMENT_IN_AST", "UNKNOWN_TYPE_OF_AST_NODE", "TOO_DEEP_AST", "TOO_BIG_AST",
        "UNEXPECTED_AST_STRUCTURE", "BAD_QUERY_PARAMETER", "UNKNOWN_QUERY_PARAMETER",
        "BAD_ARGUMENTS", "NUMBER_OF_ARGUMENTS_DOESNT_MATCH", "ILLEGAL_TYPE_OF_ARGUMENT",
    )},
    **{name: 404 for name in (
        "UNKNOWN_TABLE", "UNKNOWN_FUNCTION", "UNKNOWN_IDENTIFIER", "UNKNOWN_TYPE",
        "UNKNOWN_STORAGE", "UNKNOWN_DATABASE", "UNKNOWN_SETTING", "UNKNOWN_FORMAT",
        "UNKNOWN_AGGREGATE_FUNCTION", "UNKNOWN_DATABASE_ENGINE", "UNKNOWN_TYPE_OF_QUERY",
    )},
    "QUERY_IS_TOO_LARGE": 413,
    "NOT_IMPLEMENTED": 501,
    "TIMEOUT_EXCEEDED": 504,
}


class ClickHouseHttpError(Exception):
    """A failure to report to the client: status, numeric code and the exception text."""

    def __init__(self, code: int, name: str, text: str, status: int | None = None):
        super().__init__(text)
        self.code = code
        self.name = name
        self.text = text
        self.status = status if status is not None else _STATUS_BY_NAME.get(name, 500)

    def body(self, engine_version: str) -> bytes:
        text = self.text if self.text.startswith("Code: ") else (
            f"Code: {self.code}. DB::Exception: {self.text}. ({self.name})")
        if "(version " not in text:
            text = f"{text} (version {engine_version})"
        return (text + "\n").encode("utf-8", "replace")


def from_engine_error(error: BaseException) -> ClickHouseHttpError:
    """chDB raises RuntimeError carrying the server's own exception text; keep it verbatim."""
    text = str(error).strip()
    code_match = _CODE_RE.search(text)
    names = _NAME_RE.findall(text)
    if code_match is None or not names:
        return ClickHouseHttpError(1001, "STD_EXCEPTION", f"{type(error).__name__}: {text}")
    return ClickHouseHttpError(int(code_match.group(1)), names[-1], text)


def not_implemented(what: str) -> ClickHouseHttpError:
    return ClickHouseHttpError(48, "NOT_IMPLEMENTED", f"{what} is not supported by the chDB test shim")


def bad_request(code: int, name: str, text: str) -> ClickHouseHttpError:
    return ClickHouseHttpError(code, name, text, status=400)
