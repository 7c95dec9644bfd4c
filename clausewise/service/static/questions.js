// The data room's grid: a question per column, a contract per row, each cell the verified quick
// answer with its clauses (or "not addressed" / "unclear"), filled in as the job's rows arrive.
// Adding a question runs one job (POST /v1/rooms) over the chosen contracts; the downloads put
// every column's job back into one grid (GET /v1/rooms/export). Plain JavaScript over the API,
// built on app.js's helpers; nothing fetched from elsewhere.

import {
  download, el, explain, fillContractPicks, followJob, notify, openContract, picked, postJSON, showSpan,
} from "./app.js";

const $ = (selector, root = document) => root.querySelector(selector);
const ANSWERS = ["yes", "no", "partly", "value", "not addressed", "unclear"];

const room = {
  questions: [], // [{key, question, job, contracts}] in column order
  contracts: [], // row order
  cells: new Map(), // `${contract}|${key}` -> the cell (a RoomCell)
  errors: new Map(), // contract -> why it could not be answered
  rollups: new Map(), // key -> the question's roll-up, once its job is done
  jobs: [], // finished jobs, for the downloads
  running: 0,
};

const cellKey = (contract, key) => `${contract}|${key}`;

// --- asking -----------------------------------------------------------------------------------

async function addQuestions(event) {
  event.preventDefault();
  const questions = $("#room-question").value.split("\n").map((line) => line.trim()).filter(Boolean);
  const contracts = picked("questions");
  if (!questions.length) return notify("Type a question.");
  if (!contracts.length) return notify("Choose at least one contract.");
  room.running += 1;
  progress();
  try {
    const job = await postJSON("/v1/rooms", { contracts, questions });
    notify("");
    $("#room-question").value = "";
    for (const contract of job.request.contracts) if (!room.contracts.includes(contract)) room.contracts.push(contract);
    for (const [key, question] of job.request.questions) { // a question asked again replaces its column
      const column = { key, question, job: job.id, contracts: job.request.contracts };
      const at = room.questions.findIndex((q) => q.key === key);
      if (at >= 0) room.questions[at] = column;
      else room.questions.push(column);
    }
    renderGrid();
    const finished = await followJob(job.id, (name, data) => {
      if (name !== "row") return;
      if (data.result) room.cells.set(cellKey(data.contract_id, data.result.key), data.result);
      else room.errors.set(data.contract_id, data.error);
      scheduleGrid();
    });
    renderGrid();
    if (finished.status === "done") {
      room.jobs.push(finished.id);
      for (const part of finished.result.rollup.questions) room.rollups.set(part.key, part);
      renderRollup();
    } else {
      notify(finished.error ? `${finished.error.message}. ${finished.error.hint}` : finished.status);
    }
  } catch (error) {
    notify(explain(error));
  } finally {
    room.running -= 1;
    progress();
  }
}

function progress() {
  const done = room.cells.size;
  $("#room-progress").textContent = room.running ? `answering... ${done} cell(s) so far` : `${done} cell(s)`;
  $("#room-exports").hidden = !room.jobs.length || room.running > 0;
  $("#room-grid").dataset.running = String(room.running);
}

function clearRoom() {
  Object.assign(room, { questions: [], contracts: [], jobs: [] });
  for (const map of [room.cells, room.errors, room.rollups]) map.clear();
  $("#room-detail").hidden = true;
  renderGrid();
  renderRollup();
  progress();
}

// --- the grid ---------------------------------------------------------------------------------

function shown(cell) {
  return cell.answer === "value" ? cell.value : cell.answer;
}

function clausesOf(cell) {
  const numbers = cell.cited.length ? cell.cited : cell.closest;
  const seen = new Set();
  return cell.sources.filter((s) => numbers.includes(s.number) && !seen.has(s.node_id) && seen.add(s.node_id));
}

function visible(contract) {
  const key = $("#room-filter-question").value;
  const answer = $("#room-filter-answer").value;
  const text = $("#room-filter-text").value.trim().toLowerCase();
  const cells = room.questions.filter((q) => !key || q.key === key).map((q) => room.cells.get(cellKey(contract, q.key)));
  if (answer && !cells.some((c) => c && c.answer === answer)) return false;
  if (!text) return true;
  const words = [contract, ...room.questions.map((q) => room.cells.get(cellKey(contract, q.key))).filter(Boolean).map(shown)];
  return words.join(" ").toLowerCase().includes(text);
}

function renderCell(contract, question) {
  if (!question.contracts.includes(contract)) return el("td", { class: "not-asked" }, "not asked");
  const cell = room.cells.get(cellKey(contract, question.key));
  if (!cell) return el("td", { class: "pending", "aria-busy": "true" }, "…");
  const label = shown(cell);
  return el("td", { "data-cell": `${contract}|${question.key}`, "data-answer": cell.answer },
    el("button", { type: "button", class: `answer a-${cell.answer.replace(" ", "-")}`,
      "aria-label": `${contract}: ${question.question} ${label}`, title: cell.line,
      onclick: () => showDetail(contract, question, cell) }, label.length > 80 ? `${label.slice(0, 78)}…` : label),
    ...clausesOf(cell).map((s) => el("button", { type: "button", class: "source-link clause", "data-span": `${s.span[0]}-${s.span[1]}`,
      "aria-label": `Open ${contract} at ${s.node_id}`, onclick: () => openAt(contract, s) }, s.node_id)));
}

// Rows arrive faster than a screen refreshes: the grid is drawn at most once a frame.
let drawing = false;
function scheduleGrid() {
  if (drawing) return;
  drawing = true;
  requestAnimationFrame(() => {
    drawing = false;
    renderGrid();
  });
}

function renderGrid() {
  const select = $("#room-filter-question");
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "" }, "any question"),
    ...room.questions.map((q, n) => el("option", { value: q.key }, `Q${n + 1}. ${q.question}`)));
  select.value = room.questions.some((q) => q.key === chosen) ? chosen : "";
  $("#room-grid thead").replaceChildren(room.questions.length ? el("tr", {}, el("th", { scope: "col" }, "Contract"),
    ...room.questions.map((q, n) => el("th", { scope: "col", title: q.question, "data-key": q.key },
      `Q${n + 1}. ${q.question.length > 60 ? `${q.question.slice(0, 58)}…` : q.question}`))) : "");
  $("#room-grid tbody").replaceChildren(...room.contracts.filter(visible).map((contract) => {
    const error = room.errors.get(contract);
    if (error) return el("tr", { "data-contract": contract }, el("th", { scope: "row" }, contract),
      el("td", { colspan: String(room.questions.length), class: "error" }, error));
    return el("tr", { "data-contract": contract }, el("th", { scope: "row" }, contract),
      ...room.questions.map((q) => renderCell(contract, q)));
  }));
  progress();
}

function openAt(contract, source) {
  openContract(contract, () => showSpan(source.span[0], source.span[1]));
}

function showDetail(contract, question, cell) {
  const detail = $("#room-detail");
  detail.hidden = false;
  const numbers = new Set([...cell.cited, ...cell.closest]);
  detail.replaceChildren(
    el("h2", {}, `${contract}`),
    el("p", {}, question.question),
    el("p", { class: "short-answer" }, el("strong", {}, cell.line)),
    cell.note ? el("p", { class: "hint" }, `Said less: ${cell.note}`) : null,
    cell.rationale ? el("p", { class: "hint" }, `Decided by the ${cell.decided_by}: ${cell.rationale}`) : null,
    cell.sources.length
      ? el("ol", { class: "sources" }, ...cell.sources.filter((s) => numbers.has(s.number)).map((s) => el("li", {},
        el("button", { type: "button", class: "source-link", onclick: () => openAt(contract, s) },
          `[${s.number}] ${s.node_id}${s.title ? ` ${s.title}` : ""}, p. ${s.pages.join(", ")}`),
        el("blockquote", {}, s.quote))))
      : el("p", { class: "hint" }, "No clause to show."),
    el("button", { type: "button", class: "quiet", onclick: () => fullReport(contract, question.question) }, "Full report on this cell"),
  );
}

function fullReport(contract, question) {
  openContract(contract, () => {
    $("#question").value = question;
    $("#question").focus();
  });
}

// --- the roll-up ------------------------------------------------------------------------------

function renderRollup() {
  const blocks = room.questions.filter((q) => room.rollups.has(q.key)).map((q) => {
    const part = room.rollups.get(q.key);
    const counts = ANSWERS.filter((a) => part.counts[a]).map((a) => `${part.counts[a]} ${a === "value" ? "state a value" : a}`);
    return el("article", { class: "rollup-question", "data-key": q.key },
      el("h2", {}, `Q${room.questions.indexOf(q) + 1}. ${q.question}`),
      el("p", {}, `${part.contracts} contract(s): ${counts.join(", ") || "none"}.`),
      part.values.length ? el("ul", { class: "values" }, ...part.values.map((g) => el("li", {},
        el("strong", {}, g.label), ` (${g.contracts.length}): ${g.contracts.join(", ")}`))) : null,
      part.outliers.length ? el("ul", { class: "outliers" }, ...part.outliers.map((o) => el("li", {},
        el("span", { class: "badge" }, "outlier"), ` ${o.contract_id}: ${o.shown} (${o.why})`))) : null);
  });
  $("#room-rollup").replaceChildren(...(blocks.length ? [el("h2", {}, "Roll-up"), ...blocks] : []));
}

// --- set up -----------------------------------------------------------------------------------

function setUpRoom() {
  $("#room-form").addEventListener("submit", addQuestions);
  $("#clear-room").addEventListener("click", clearRoom);
  for (const id of ["#room-filter-question", "#room-filter-answer"]) $(id).addEventListener("change", renderGrid);
  $("#room-filter-text").addEventListener("input", renderGrid);
  $('.bar .tab[data-view="questions"]').addEventListener("click", () => fillContractPicks());
  for (const button of document.querySelectorAll("#room-exports button")) {
    button.addEventListener("click", () => {
      const jobs = room.jobs.map((id) => `jobs=${encodeURIComponent(id)}`).join("&");
      download(`/v1/rooms/export?${jobs}&format=${button.dataset.format}`, `room.${button.dataset.format}`).catch((e) => notify(explain(e)));
    });
  }
  document.documentElement.dataset.roomReady = "true";
}

setUpRoom();
