"""Clausewise as a service: the HTTP API (FastAPI), its jobs, the OpenAI-compatible chat endpoint
and the MCP tools, all scoped to the tenant of the caller's API key.

``create_app`` (``app.py``) wires the routes (``routes/``), the error envelope (``errors.py``),
authentication (``auth.py``, keys in ``keys.py``), the persistent job queue (``jobs.py``, run by
``runner.py`` on the task functions of ``tasks.py``) and the process's models, loaded once and
lazily (the composition root, :mod:`clausewise.runtime`).
"""
