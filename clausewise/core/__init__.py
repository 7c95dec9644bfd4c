"""The ground floor of Clausewise: what every layer above may use and nothing here imports upward.

Configuration (``config``), domain types and results (``domain``, ``results``), typed errors
(``errors``), prompt templates (``prompting``), the report model and its renderers (``report``),
logging (``logs``), the model backends (``backends``) and the package data (``resources``).

The layers above, bottom to top: ``indexes`` <- ``tools`` <- ``agents`` <- ``graphs`` <- the entry
points in ``clausewise`` (CLI, Python API, composition root, evals, training, service). The
import-linter contract in ``pyproject.toml`` keeps it so.
"""
