"""Cells that a spreadsheet will not run: text from contracts and users (a question, a hypothesis,
a quote) that starts like a formula stays text in every CSV and XLSX export.

A CSV cell starting with ``=``, ``+``, ``-``, ``@`` (or a tab or carriage return, which some
programs skip before reading the rest as a formula) gets a leading apostrophe, which
spreadsheets show as "this is text" (the OWASP advice on CSV injection). In XLSX the cell's type
decides, not its first character: openpyxl stores a string starting with ``=`` as a formula, so
such a cell is written as a string.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.xml_text import xml_safe

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_inert(value: Any) -> Any:
    """``value`` as a CSV cell no spreadsheet reads as a formula."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_row(values: Iterable[Any]) -> list[Any]:
    return [csv_inert(v) for v in values]


def append_inert(sheet: Any, values: Sequence[Any]) -> None:
    """Append a row to an openpyxl worksheet with every text cell stored as text (characters
    XML cannot hold replaced: openpyxl refuses them)."""
    sheet.append([xml_safe(v) if isinstance(v, str) else v for v in values])
    for cell in sheet[sheet.max_row]:
        if isinstance(cell.value, str) and cell.data_type == "f":
            cell.data_type = "s"
