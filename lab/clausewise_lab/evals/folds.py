"""The held-out rule: which benchmark documents no shipped model was trained on.

Every shipped model (reranker, NLI classifier, presence classifier) trains on the documents of the
development data outside this fold, and every benchmark's ``--fold heldout`` scores inside it, so
the two sides agree on one rule. A stable hash (not Python's salted ``hash``) keeps the fold the
same across runs and machines.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

HELDOUT_BUCKETS = 5


def document_key(name: str) -> str:
    """Lowercased file stem keeping only [a-z0-9].

    A CUAD title and the LegalBench-RAG file of the same contract get the same key, so one
    contract falls in the same fold in every source.
    """
    stem = PurePosixPath(name.replace("\\", "/")).name
    stem = re.sub(r"\.(txt|pdf|json|md|docx|html?)$", "", stem, flags=re.IGNORECASE)
    return re.sub(r"[^a-z0-9]", "", stem.lower())


def is_heldout(name: str) -> bool:
    """True for documents in the validation fold: int(sha1(document_key(name)), 16) % 5 == 0."""
    digest = hashlib.sha1(document_key(name).encode("utf-8")).hexdigest()
    return int(digest, 16) % HELDOUT_BUCKETS == 0


CALIBRATION_BUCKETS = 4


def is_calibration(name: str) -> bool:
    """True for the tune-half documents a fine-tuned encoder never trains on, so that thresholds
    and bands fitted on its vectors are fitted on contracts it has not seen: a quarter of the
    non-held-out documents, by a second stable hash independent of the held-out one."""
    if is_heldout(name):
        return False
    digest = hashlib.sha1(f"calibration:{document_key(name)}".encode()).hexdigest()
    return int(digest, 16) % CALIBRATION_BUCKETS == 0
