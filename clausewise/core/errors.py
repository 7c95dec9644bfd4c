"""Typed errors that carry what the user needs to fix the problem.

Every error the product raises on purpose derives from :class:`ClausewiseError`. The CLI prints
``str(error)`` as one line (what happened, to which file, and how to fix it) and exits with the
error's ``exit_code``; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from pathlib import Path


class ClausewiseError(Exception):
    """Base class: a problem the user can act on.

    ``hint`` says how to fix it; ``path`` names the file concerned, if any.
    """

    exit_code = 1

    def __init__(self, message: str, *, hint: str = "", path: Path | str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.path = Path(path) if path is not None else None

    def __str__(self) -> str:
        where = f"{self.path.name}: " if self.path is not None else ""
        fix = f" Fix: {self.hint}" if self.hint else ""
        return f"{where}{self.message}.{fix}"


class ConfigError(ClausewiseError):
    """Invalid settings, preset, TOML file or CLI override."""

    exit_code = 2


class YamlTooComplex(ConfigError):
    """A playbook's YAML that is too large once expanded (aliases repeat whole values) or nested
    too deep to be a playbook: refused before anything builds or serialises it."""


# --- input documents ---------------------------------------------------------------------------


class InputError(ClausewiseError):
    """A contract file that cannot be ingested as given."""

    exit_code = 3


class UnsupportedFileType(InputError):
    """The file's type is not one we parse."""


class FileTooLarge(InputError):
    """The file exceeds ``parsing.max_file_mb`` or ``parsing.max_pages``."""


class TooSlowToRead(InputError):
    """The file's body took longer to read than ``parsing.max_parse_seconds``."""


class EmptyDocument(InputError):
    """The file holds no text we could read."""


class CorruptDocument(InputError):
    """The file is damaged or is not what its extension claims."""


class HiddenText(InputError):
    """A Word file that shows text its body does not hold (an altChunk, a subdocument): what we
    would read is not what Word shows, so the file is refused rather than misread."""


class EncryptedDocument(InputError):
    """The file is password-protected."""


class UndecodableText(InputError):
    """A text file whose bytes are not text in any encoding we can detect."""


class NoTrackedChanges(InputError):
    """A text of a Word file's tracked changes (before or proposed) was asked of a contract whose
    file has none."""


class OcrUnavailable(InputError):
    """Pages need OCR but the tesseract binary is missing."""


class TooCostlyToDraw(InputError):
    """A page whose image took more CPU time or memory to draw than the service allows."""


# --- indexes -----------------------------------------------------------------------------------


class IndexStoreError(ClausewiseError):
    """Problems with the persistent per-contract indexes."""

    exit_code = 4


class ContractNotFound(IndexStoreError):
    """No contract with that id (or file) in the tenant."""


class IndexCorrupt(IndexStoreError):
    """An index directory exists but cannot be read."""


class IngestInProgress(IndexStoreError):
    """Another process is ingesting the same contract right now."""


class ThreadNotFound(IndexStoreError):
    """No chat thread with that id in the tenant (or it belongs to another contract)."""


class ContractChanged(IndexStoreError):
    """Different bytes under the id of an existing contract, without asking for a new version:
    replacing it silently would orphan the reports, threads and checks that cite it."""


class VersionNotFound(IndexStoreError):
    """The contract exists but has no version with that number (deleted, or never built)."""


class LiveVersion(IndexStoreError):
    """Deleting the live version alone was asked: it goes only with the whole contract."""


class PlaybookNotFound(ClausewiseError):
    """No built-in playbook and none of the tenant's with that name (or version)."""

    exit_code = 4


class PlaybookConflict(ClausewiseError):
    """A playbook's name and version already stored with other positions: a changed playbook
    takes a new version, so reviews made against the old one keep citing what they were held to."""

    exit_code = 4


class ProvisionNotFound(ClausewiseError):
    """A question asked about a provision key no known provision has (a choice among the
    options a question was offered back with names one that does)."""

    exit_code = 4


# --- models ------------------------------------------------------------------------------------


class ModelError(ClausewiseError):
    """A model could not be loaded or called."""

    exit_code = 5


class ModelUnavailable(ModelError):
    """A configured model is not installed or its files are missing."""


class ModelIntegrityError(ModelError):
    """A model file's checksum does not match the pinned one."""


class ContextOverflow(ModelError):
    """A prompt does not fit the model's context window."""


class ModelTimeout(ModelError):
    """A model server did not answer in time."""


class StructuredOutputError(ModelError):
    """The model's answer could not be parsed into the required structure, even after repair."""


# --- benchmarks --------------------------------------------------------------------------------


class BenchDataMissing(ClausewiseError):
    """The benchmark data folder (or a file in it) is absent."""

    exit_code = 6
