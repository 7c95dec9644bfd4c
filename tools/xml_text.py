"""Text made safe to write into XML (Word and Excel files): XML 1.0 cannot hold most control
characters, and lxml and openpyxl refuse a string holding one, so a contract whose title line
carries ``\\x01`` or an author name sent as ``%01`` would make the whole export fail. Every string
we write into a document's text, attributes or properties passes through :func:`xml_safe`."""

from __future__ import annotations

import re

#: Characters XML 1.0 cannot hold (controls other than tab, newline, carriage return; the two
#: non-characters U+FFFE and U+FFFF; lone surrogates).
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
REPLACEMENT = "\ufffd"


def xml_safe(text: str) -> str:
    """``text`` with every character XML cannot hold replaced by U+FFFD (the same length, so a
    span into the text still points at the same characters)."""
    return _NOT_XML.sub(REPLACEMENT, text)
