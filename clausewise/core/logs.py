"""Logging: one logger per module (``logging.getLogger(__name__)``), structured records, and
handlers set up only by entry points.

Library code never prints and never configures logging; it logs with the facts a reader needs
as ``extra`` fields: ``contract``, ``tenant``, ``role``, ``model``, ``seconds``, ``file`` ...
Entry points (the CLI, the service) call :func:`configure_logging` once: warnings by default,
``-v`` for what the system does (ingests, model calls, rejected quotes, skipped files), ``-vv``
for detail, as plain lines or as JSON lines (``--log-json``) for a log collector.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

#: The packages whose loggers ``-v`` turns up (libraries below stay at warnings).
PACKAGES = ("clausewise", "agents", "tools", "graphs", "indexes")
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """The structured fields a record carries (what was passed as ``extra``)."""
    return {k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")}


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, then the structured fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **fields_of(record),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class FieldsFormatter(logging.Formatter):
    """``LEVEL logger: message (contract=..., seconds=...)`` for people reading a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        fields = fields_of(record)
        suffix = f" ({', '.join(f'{k}={v}' for k, v in fields.items())})" if fields else ""
        line = f"{record.levelname.lower()} {record.name}: {record.getMessage()}{suffix}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure_logging(verbosity: int = 0, *, json_lines: bool = False, stream: TextIO | None = None) -> None:
    """Send log records to ``stream`` (stderr): warnings by default, info at ``verbosity`` 1,
    debug at 2 and more, for Clausewise's own packages; other libraries stay at warnings."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonLinesFormatter() if json_lines else FieldsFormatter())
    root = logging.getLogger()
    for existing in [h for h in root.handlers if getattr(h, "clausewise", False)]:
        root.removeHandler(existing)
    handler.clausewise = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    for package in PACKAGES:
        logging.getLogger(package).setLevel(level)
