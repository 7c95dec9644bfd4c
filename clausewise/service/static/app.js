// Clausewise's page: plain JavaScript over the /v1 API, no framework, nothing fetched from
// elsewhere. Every request goes through api(), which adds the API key kept in this browser.

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
const KEY_STORE = "clausewise.key";
const PAGE_SCALE = 1.5; // pixels per PDF point of the page images

const state = {
  contracts: [],
  contract: null, // {id, pages, tree, text}
  askJob: null, // the job answering the question asked (stop)
  reportJob: null, // the job whose report is shown: exports exist only for it
  askAbort: null,
  checkJob: null,
  reviewJob: null,
  reviewRows: [],
  reviewSort: { key: "provision", descending: false },
};

// --- the API ------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `request failed (${status})`);
    this.status = status;
    this.code = error.code || `http_${status}`;
    this.hint = error.hint || "";
  }
}

function headers(extra = {}) {
  const key = localStorage.getItem(KEY_STORE);
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: headers(options.headers || {}) });
  if (!response.ok) {
    let body = null;
    try { body = await response.json(); } catch { /* not JSON: the status says enough */ }
    throw new ApiError(response.status, body);
  }
  return response;
}

const getJSON = async (path) => (await api(path)).json();
const postJSON = async (path, body) =>
  (await api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).json();

// Server-Sent Events over fetch (EventSource cannot send the key): calls onEvent(name, data)
// for each event until the stream ends or `signal` aborts it.
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
      let name = "message";
      const data = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}

async function download(path, fallbackName) {
  const response = await api(path);
  const blob = await response.blob();
  const disposition = response.headers.get("Content-Disposition") || "";
  const match = disposition.match(/filename="([^"]+)"/);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = match ? match[1] : fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

function notify(message, ok = false) {
  const notice = $("#notice");
  notice.textContent = message;
  notice.classList.toggle("ok", ok);
  notice.hidden = !message;
}

function explain(error) {
  return error instanceof ApiError ? `${error.message}${error.hint ? `. ${error.hint}` : ""}` : String(error);
}

const el = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

// --- views --------------------------------------------------------------------------------

function show(view) {
  for (const section of $$(".view")) section.hidden = section.id !== view;
  for (const tab of $$(".bar .tab")) {
    if (tab.dataset.view === view || (view === "contract" && tab.dataset.view === "library")) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  if (view === "library") refreshContracts();
  if (view === "checks" || view === "review") fillContractPicks();
}

// --- library ------------------------------------------------------------------------------

// The key dialog: opened by the button, and by the page itself when the server asks for a key
// (first visit) or refuses the one kept here.
function askForKey(reason = "") {
  const dialog = $("#key-dialog");
  $("#key-reason").textContent = reason;
  $("#key-reason").hidden = !reason;
  $("#key-input").value = localStorage.getItem(KEY_STORE) || "";
  if (!dialog.open) dialog.showModal();
}

function needsKey(error) {
  if (!(error instanceof ApiError) || error.status !== 401) return false;
  askForKey(error.code === "invalid_api_key"
    ? "The server did not accept the key kept in this browser: enter a valid one."
    : "This server needs an API key: enter the one your administrator gave you.");
  return true;
}

// A contract as people know it: its title and parties (from its preamble), its id beside.
function contractName(c) {
  return el("span", { class: "contract-name" },
    el("span", { class: "title" }, c.title || c.contract_id),
    c.parties && c.parties.length ? el("span", { class: "parties" }, c.parties.join(" · ")) : null,
    el("span", { class: "id" }, c.contract_id));
}

async function refreshContracts() {
  try {
    state.contracts = await getJSON("/v1/contracts");
  } catch (error) {
    if (!needsKey(error)) notify(explain(error));
    return;
  }
  notify("");
  const body = $("#contracts tbody");
  body.replaceChildren(
    ...state.contracts.map((c) =>
      el("tr", { "data-contract": c.contract_id },
        el("th", { scope: "row" }, contractName(c)),
        el("td", { class: "file" }, c.file_name),
        el("td", {}, c.versions > 1 ? `${c.version} (${c.versions} kept)` : String(c.version)),
        el("td", {}, String(c.pages)),
        el("td", {}, String(c.clauses)),
        el("td", {}, c.ocr_pages.length ? `ready (${c.ocr_pages.length} OCR page(s))` : "ready",
          ...(c.warnings || []).map((w) => el("p", { class: "hint warning" }, w))),
        el("td", {},
          el("button", { type: "button", onclick: () => openContract(c.contract_id) , "aria-label": `Open ${c.contract_id}` }, "Open"),
          " ",
          el("button", { type: "button", class: "quiet", onclick: () => removeContract(c.contract_id), "aria-label": `Delete ${c.contract_id}` }, "Delete"),
        ),
      ),
    ),
  );
  $("#no-contracts").hidden = state.contracts.length > 0;
}

async function removeContract(id) {
  if (!confirm(`Delete ${id} and all its indexes? This cannot be undone.`)) return;
  try {
    await api(`/v1/contracts/${encodeURIComponent(id)}`, { method: "DELETE" });
    notify(`${id} deleted.`, true);
  } catch (error) {
    notify(explain(error));
  }
  refreshContracts();
}

function uploadRow(file) {
  const stateCell = el("span", { class: "state" }, "uploading");
  const bar = el("progress", { max: "100", "aria-label": `Progress of ${file.name}` });
  const detail = el("span", { class: "detail-text" });
  const row = el("li", { "data-file": file.name }, el("span", { class: "name" }, file.name), stateCell, bar, detail);
  $("#uploads").append(row);
  return {
    set(stateText, value, text = "", isError = false) {
      stateCell.textContent = stateText;
      if (value === null) bar.removeAttribute("value");
      else bar.value = value;
      detail.textContent = text;
      detail.classList.toggle("error", isError);
      row.dataset.state = stateText;
    },
  };
}

async function uploadFile(file) {
  const row = uploadRow(file);
  const form = new FormData();
  form.append("file", file, file.name);
  let answer;
  try {
    answer = await (await api("/v1/contracts", { method: "POST", body: form })).json();
  } catch (error) {
    row.set("refused", 0, explain(error), true);
    return;
  }
  if (!answer.job) {
    row.set("ready", 100, `already ingested as ${answer.contract_id} (version ${answer.version})`);
    refreshContracts();
    return;
  }
  row.set("queued", null);
  try {
    const job = await followJob(answer.job.id, (name, data) => {
      if (name === "running" || name === "ingesting") row.set("ingesting", null, "parsing, structure, indexes");
      if (name === "requeued") row.set("queued", null, data.reason);
    });
    if (job.status === "done") {
      const m = job.result.manifest;
      const warned = m.warnings && m.warnings.length ? `; warning: ${m.warnings.join("; ")}` : "";
      row.set("ready", 100, `${job.result.contract_id}${m.version > 1 ? ` version ${m.version}` : ""}: ${m.pages} page(s)${warned}`);
    }
    else row.set(job.status, 0, job.error ? `${job.error.message}. ${job.error.hint}` : job.status, true);
  } catch (error) {
    row.set("failed", 0, explain(error), true);
  }
  refreshContracts();
}

// Export buttons exist for one finished job (its report or rows) and only then: shown and
// enabled when it is done, hidden and disabled otherwise. A result arriving clears the banner
// an earlier export's failure left.
function setExports(box, jobId) {
  const exports = $(box);
  exports.hidden = !jobId;
  if (jobId) exports.dataset.job = jobId;
  else delete exports.dataset.job;
  for (const button of $$("button", exports)) button.disabled = !jobId;
  if (jobId && !$("#notice").classList.contains("ok")) notify("");
}

// Follow a job's events to its end; returns the finished job.
async function followJob(jobId, onEvent = () => {}, signal = undefined) {
  const response = await api(`/v1/jobs/${jobId}/events`, { signal });
  await readEvents(response, onEvent);
  return getJSON(`/v1/jobs/${jobId}`);
}

function setUpLibrary() {
  const zone = $("#dropzone");
  const input = $("#file-input");
  zone.addEventListener("click", () => input.click());
  zone.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); input.click(); }
  });
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    for (const file of event.dataTransfer.files) uploadFile(file);
  });
  input.addEventListener("change", () => {
    for (const file of input.files) uploadFile(file);
    input.value = "";
  });
}

// --- the contract: outline and pages -------------------------------------------------------

async function openContract(id, then = null) {
  show("contract");
  const known = state.contracts.find((c) => c.contract_id === id);
  $("#contract-title").textContent = known && known.title ? known.title : id;
  if (!state.contract || state.contract.id !== id) {
    $("#viewer").replaceChildren(el("p", { class: "hint" }, "Loading the pages..."));
    $("#outline").replaceChildren();
    $("#steps").replaceChildren();
    $("#report").replaceChildren();
    setExports("#report-exports", null);
    const base = `/v1/contracts/${encodeURIComponent(id)}`;
    state.contract = { id, base, live: known ? known.version : null, shown: null };
    if (!(await showVersion(null))) return;
    loadThreads();
  }
  if (then) await then();
}

// Show the live version (null) or an older one: what a citation made against it points into.
async function showVersion(version) {
  const contract = state.contract;
  const query = version ? `?version=${version}` : "";
  try {
    const { base } = contract;
    const [pages, tree] = await Promise.all([getJSON(`${base}/pages${query}`), getJSON(`${base}/tree${query}`)]);
    const text = pages.images ? null : (await getJSON(`${base}/text${query}`)).text;
    Object.assign(contract, { pages, tree, text, shown: version });
  } catch (error) {
    notify(explain(error));
    return false;
  }
  const note = $("#version-note");
  note.hidden = !version;
  if (version) {
    note.replaceChildren(`Showing version ${version}, an older version of this contract: the citations being read were made against it. `,
      el("button", { type: "button", class: "quiet", onclick: () => showVersion(null) }, "Show the live version"));
  }
  renderOutline();
  renderPages();
  return true;
}

function renderOutline() {
  const { tree } = state.contract;
  const nodes = new Map(tree.nodes.map((n) => [n.id, n]));
  const build = (ids, depth) => {
    if (depth > 2 || !ids.length) return null;
    return el("ul", {}, ...ids.map((nodeId) => {
      const node = nodes.get(nodeId);
      if (["sentence", "paragraph", "list_item"].includes(node.kind)) return null;
      const term = node.kind === "definition" ? node.id.split("/").pop() : "";
      const named = node.title || term;
      const label = named ? [node.label, named].filter(Boolean).join(" ") : node.preview || node.label || node.id;
      return el("li", {},
        el("button", { type: "button", "data-node": node.id, onclick: () => showSpan(node.start, Math.min(node.end, node.start + 400)) },
          label.length > 60 ? `${label.slice(0, 58)}…` : label),
        build(node.children, depth + 1));
    }));
  };
  $("#outline").replaceChildren(build(nodes.get(tree.root_id).children, 0) || el("p", { class: "hint" }, "No structure found."));
}

const versionQuery = (joiner = "?") => (state.contract.shown ? `${joiner}version=${state.contract.shown}` : "");

function renderPages() {
  const { pages, text, base } = state.contract;
  const viewer = $("#viewer");
  viewer.replaceChildren();
  for (const page of pages.pages) {
    if (pages.images) {
      const figure = el("figure", { class: "page", "data-page": String(page.number), style: `aspect-ratio: ${page.width} / ${page.height}` },
        el("img", { alt: `Page ${page.number}`, "data-src": `${base}/pages/${page.number}/image?scale=${PAGE_SCALE}${versionQuery("&")}` }),
        el("div", { class: "hl-layer" }),
        el("span", { class: "number" }, `page ${page.number}`));
      viewer.append(figure);
    } else {
      viewer.append(el("section", { class: "page text-page", "data-page": String(page.number), "data-start": String(page.start), "data-end": String(page.end), "aria-label": `Page ${page.number}` },
        el("pre", {}, text.slice(page.start, page.end)),
        el("span", { class: "number" }, `page ${page.number}`)));
    }
  }
  if (pages.images) lazyImages();
}

// Page images carry the key, so they are fetched (not <img src>) when they come into view.
function lazyImages() {
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      observer.unobserve(entry.target);
      loadImage(entry.target);
    }
  }, { root: $("#viewer"), rootMargin: "600px" });
  for (const img of $$("#viewer img[data-src]")) observer.observe(img);
}

async function loadImage(img) {
  if (!img.dataset.src || img.src) return img.decode?.();
  try {
    const blob = await (await api(img.dataset.src)).blob();
    img.src = URL.createObjectURL(blob);
    await img.decode();
  } catch (error) {
    img.alt = `Page could not be shown: ${explain(error)}`;
  }
}

// Highlight the characters start-end of ``version`` (the version a citation was made against;
// none: the version shown): rectangles from the word boxes on every page the span crosses (page
// images), or the characters themselves (documents without page geometry).
async function showSpan(start, end, version = undefined) {
  const wanted = version === undefined ? state.contract.shown : (version === state.contract.live ? null : version);
  if ((wanted || null) !== (state.contract.shown || null) && !(await showVersion(wanted || null))) return;
  const { pages, base } = state.contract;
  for (const layer of $$("#viewer .hl-layer")) layer.replaceChildren();
  for (const mark of $$("#viewer mark.hl-text")) mark.replaceWith(...mark.childNodes);
  if (!pages.images) return markText(start, end);
  let where;
  try {
    where = await getJSON(`${base}/highlight?start=${start}&end=${end}${versionQuery("&")}`);
  } catch (error) {
    notify(explain(error));
    return;
  }
  let first = null;
  for (const page of where.boxes) {
    const figure = $(`#viewer .page[data-page="${page.page}"]`);
    if (!figure) continue;
    await loadImage($("img", figure));
    const layer = $(".hl-layer", figure);
    for (const [x0, y0, x1, y1] of page.rects) {
      layer.append(el("div", { class: "hl", "data-page": String(page.page),
        style: `left:${(100 * x0) / page.width}%;top:${(100 * y0) / page.height}%;width:${(100 * (x1 - x0)) / page.width}%;height:${(100 * (y1 - y0)) / page.height}%` }));
    }
    first = first || layer.firstElementChild;
  }
  const target = first || $(`#viewer .page[data-page="${where.pages[0]}"]`);
  target?.scrollIntoView({ block: "center" });
}

function markText(start, end) {
  let first = null;
  for (const section of $$("#viewer .text-page")) {
    const pageStart = Number(section.dataset.start);
    const pageEnd = Number(section.dataset.end);
    if (end <= pageStart || start >= pageEnd) continue;
    const pre = $("pre", section);
    const text = state.contract.text.slice(pageStart, pageEnd);
    const a = Math.max(start, pageStart) - pageStart;
    const b = Math.min(end, pageEnd) - pageStart;
    const mark = el("mark", { class: "hl-text" }, text.slice(a, b));
    pre.replaceChildren(text.slice(0, a), mark, text.slice(b));
    first = first || mark;
  }
  first?.scrollIntoView({ block: "center" });
}

// --- asking -------------------------------------------------------------------------------

const describe = {
  queued: (d) => "Waiting for the model",
  running: () => "Started",
  start: (d) => `Question: ${d.question}${d.parts && d.parts.length ? ` (${d.parts.length} parts)` : ""}`,
  question: (d) => `Turn ${d.turn} of ${d.of}: asking “${d.question}”`,
  research: (d) => (d.error ? `Turn ${d.turn}: no usable answer (${d.error})`
    : `Turn ${d.turn}: found ${d.spans} passage(s) (${(d.nodes || []).slice(0, 4).join(", ")}), ${d.citations} verified quote(s)`),
  draft: (d) => `Draft ${d.complete ? "complete" : "incomplete"}, confidence ${Number(d.confidence).toFixed(2)}`,
  final: (d) => `Report ready: ${d.sources} verified source(s)${d.removed ? `, ${d.removed} removed` : ""}`,
  clarification: (d) => `The assistant asks: ${d.question}`,
  answer: (d) => `Answer decided by the ${d.decided_by}: ${d.short_answer ? d.short_answer.line : d.verdict || d.value}`,
  plan: (d) => `Researched in ${(d.parts || []).length} parts`,
};

function step(list, name, data) {
  if (!describe[name]) return;
  list.append(el("li", { "data-event": name }, describe[name](data || {})));
}

function withReferences(text, sources, version = undefined) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(/\[(\d{1,3})\]/g)) {
    parts.push(text.slice(last, match.index));
    const number = Number(match[1]);
    const source = sources.find((s) => s.number === number);
    parts.push(source
      ? el("button", { type: "button", class: "ref", "data-ref": String(number), "aria-label": `Show source ${number}`, onclick: () => showSpan(source.span[0], source.span[1], version) }, `[${number}]`)
      : `[${number}]`);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

function renderShortAnswer(short, sources, version, choose = askChosen) {
  // the line and its notes come from the server (ShortAnswer.line / note_lines): one wording everywhere
  if (!short) return null;
  return el("div", { class: "short-answer", "data-form": short.form },
    el("strong", {}, ...withReferences(short.line, sources, version)),
    ...(short.note_lines || []).map((note) => el("p", { class: "hint" }, note)),
    renderOptions(short, choose));
}

// A choice on the question form: the same question asked again with the provision chosen.
function askChosen(key) {
  return askQuestion($("#question").value.trim(), key);
}

// A question the router could not place is offered back: one button per provision it may mean;
// a choice (``choose(key)``) asks the same question again, answered by that provision's decider.
function renderOptions(short, choose) {
  if (!short.options || !short.options.length) return null;
  return el("div", { class: "options", role: "group", "aria-label": "Did you mean" },
    el("span", {}, "Did you mean: "),
    ...short.options.map((option) => el("button", {
      type: "button", class: "option", "data-provision": option.key,
      onclick: () => choose(option.key),
    }, option.name)));
}

function renderSources(sources, version) {
  return sources.length
    ? el("ol", { class: "sources" }, ...sources.map((s) => el("li", { "data-source": String(s.number) },
      el("button", { type: "button", class: "source-link", onclick: () => showSpan(s.span[0], s.span[1], version) },
        `[${s.number}] ${s.node_id} ${s.title || ""}, p. ${s.pages.join(", ")}`),
      s.exact === false ? el("span", { class: "badge", title: "The model's quote was not word for word; this is the contract sentence it was matched to." }, "nearest sentence") : null,
      el("blockquote", {}, s.quote))))
    : el("p", { class: "hint" }, "No verified quotations.");
}

// The decided short answer, shown as soon as it is streamed (the `answer` event), while the
// report that explains it is written; the report replaces it and says whether it confirms it.
function renderQuickAnswer(answer, container) {
  container.replaceChildren(
    el("h2", {}, "Answer"),
    el("div", { class: "quick-answer", "data-stage": "quick" },
      renderShortAnswer(answer.short_answer, answer.sources || []),
      renderSources(answer.sources || [], undefined),
      el("p", { class: "hint writing" }, "Decided from the verified sources above; the report that explains it is being written.")));
}

function quickAnswerNote(quickLine, report) {
  if (!quickLine || !report.short_answer) return null;
  return report.short_answer.line === quickLine
    ? el("p", { class: "hint confirmed", "data-quick": "confirmed" }, "The report confirms the answer shown first.")
    : el("p", { class: "hint corrected", "data-quick": "corrected" }, `The report corrects the answer shown first (${quickLine}).`);
}

function renderReport(report, container, quickLine = undefined, choose = askChosen) {
  const sources = report.sources || [];
  const version = report.metadata.contract_version ?? undefined;
  const refs = (text) => withReferences(text, sources, version);
  const list = (items) => el("ul", {}, ...(items.length ? items : ["(none)"]).map((item) => el("li", {}, ...refs(item))));
  const older = version !== undefined && state.contract && state.contract.live && version !== state.contract.live;
  container.replaceChildren(...[
    el("h2", {}, report.title),
    older ? el("p", { class: "hint version-badge" }, `Read from version ${version}, an older version of this contract: its citations open that version.`) : null,
    ...[quickAnswerNote(quickLine, report), renderShortAnswer(report.short_answer, sources, version, choose)].filter(Boolean),
    el("p", { class: "answer" }, ...refs(report.preliminary_answer)),
    el("h2", {}, "Summary"), el("p", {}, ...refs(report.summary)),
    el("h2", {}, "Legal reasoning and key findings"), list(report.reasoning),
    el("h2", {}, "Gaps and next questions"), list(report.gaps),
    el("h2", {}, "Sources"),
    renderSources(sources, version),
    el("p", { class: "hint" }, `${report.metadata.turns_used} of ${report.metadata.max_turns} turn(s), stopped: ${report.metadata.stopped_because}; ${report.metadata.seconds} s.`),
  ].filter(Boolean));
}

async function ask(event) {
  event.preventDefault();
  await askQuestion($("#question").value.trim());
}

async function askQuestion(question, provision = undefined) {
  if (!question || !state.contract) return;
  const steps = $("#steps");
  steps.replaceChildren();
  $("#report").replaceChildren();
  setExports("#report-exports", null);
  $("#ask-button").disabled = true;
  $("#stop-button").hidden = false;
  state.askAbort = new AbortController();
  state.askJob = null;
  try {
    const response = await api(`${state.contract.base}/ask`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question, provision, turns: Number($("#turns").value), stream: true, cancel_on_disconnect: true }),
      signal: state.askAbort.signal,
    });
    state.askJob = response.headers.get("X-Job-Id");
    let quickLine;
    await readEvents(response, (name, data) => {
      if (name === "answer" && data.short_answer) {
        quickLine = data.short_answer.line;
        renderQuickAnswer(data, $("#report"));
        step(steps, name, data);
      } else if (name === "result") {
        renderReport(data, $("#report"), quickLine);
        setExports("#report-exports", state.askJob);
      } else if (name === "failed") {
        notify(`${data.message}. ${data.hint || ""}`);
      } else if (name === "cancelled") {
        step(steps, "final", { sources: 0 });
        steps.lastElementChild.textContent = "Stopped.";
      } else {
        step(steps, name, data);
      }
    });
  } catch (error) {
    if (error.name !== "AbortError") notify(explain(error));
  } finally {
    $("#ask-button").disabled = false;
    $("#stop-button").hidden = true;
  }
}

async function stopAsking() {
  const job = state.askJob;
  state.askAbort?.abort();
  if (job) {
    try { await api(`/v1/jobs/${job}/cancel`, { method: "POST" }); } catch { /* finished meanwhile */ }
  }
  $("#steps").append(el("li", { "data-event": "stopped" }, "Stopped."));
}

// --- chat threads -------------------------------------------------------------------------

async function loadThreads(select = null) {
  const threads = await getJSON(`/v1/threads?contract=${encodeURIComponent(state.contract.id)}`).catch(() => []);
  const box = $("#threads");
  box.replaceChildren(...threads.map((t) => el("option", { value: t.id }, t.title || "(new conversation)")));
  if (select) box.value = select;
  if (box.value) showThread(box.value);
  else $("#messages").replaceChildren(el("li", { class: "hint" }, "No conversation yet: write a message to start one."));
}

async function showThread(id) {
  const detail = await getJSON(`/v1/threads/${id}`);
  const items = detail.messages.map((m) => {
    if (m.role === "user") return el("li", { class: "user" }, m.content);
    if (!m.report) return el("li", { class: "assistant-msg clarify" }, el("strong", {}, "Question for you: "), m.content);
    const article = el("article", { class: "report" });
    // a choice among the provisions a question was offered back with is the thread's next message
    renderReport(m.report, article, undefined, (key) => sendThreadMessage(m.report.question, key));
    return el("li", { class: "assistant-msg" }, article);
  });
  $("#messages").replaceChildren(...items);
  $("#messages").lastElementChild?.scrollIntoView({ block: "nearest" });
}

async function newThread() {
  const thread = await postJSON("/v1/threads", { contract: state.contract.id });
  await loadThreads(thread.id);
  return thread.id;
}

async function sendMessage(event) {
  event.preventDefault();
  const content = $("#chat-input").value.trim();
  $("#chat-input").value = "";
  await sendThreadMessage(content);
}

async function sendThreadMessage(content, provision = undefined) {
  if (!content) return;
  const threadId = $("#threads").value || (await newThread());
  const steps = $("#chat-steps");
  steps.replaceChildren();
  $("#messages").append(el("li", { class: "user" }, content));
  $("#send-button").disabled = true;
  try {
    const response = await api(`/v1/threads/${threadId}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ content, provision, stream: true }),
    });
    await readEvents(response, (name, data) => {
      if (name === "failed") notify(`${data.message}. ${data.hint || ""}`);
      else if (name !== "result") step(steps, name, data);
    });
    await loadThreads(threadId);
  } catch (error) {
    notify(explain(error));
  } finally {
    $("#send-button").disabled = false;
  }
}

// --- checks and reviews -------------------------------------------------------------------

async function fillContractPicks() {
  if (!state.contracts.length) state.contracts = await getJSON("/v1/contracts").catch(() => []);
  for (const box of $$(".contract-picks")) {
    box.replaceChildren(...state.contracts.map((c) =>
      el("label", { title: c.file_name }, el("input", { type: "checkbox", value: c.contract_id, checked: true }), ` ${c.title ? `${c.title} (${c.contract_id})` : c.contract_id}`)));
    if (!state.contracts.length) box.append(el("span", { class: "hint" }, "Upload contracts first."));
  }
}

const picked = (which) => $$(`.contract-picks[data-for="${which}"] input:checked`).map((i) => i.value);

async function runChecks(event) {
  event.preventDefault();
  const contracts = picked("check");
  if (!contracts.length) return notify("Choose at least one contract.");
  const source = $('input[name="source"]:checked').value;
  const body = { contracts };
  if (source === "suite") body.suite = "nda";
  if (source === "typed") body.hypotheses = $("#typed-hypotheses").value.split("\n").map((l) => l.trim()).filter(Boolean);
  if (source === "playbook") {
    const file = $("#playbook-file").files[0];
    if (!file) return notify("Choose a playbook file.");
    body.playbook = await file.text();
  }
  $("#run-check").disabled = true;
  setExports("#check-exports", null);
  $("#cell-detail").hidden = true;
  const rows = [];
  try {
    const job = await postJSON("/v1/checks", body);
    state.checkJob = job.id;
    notify("");
    const finished = await followJob(job.id, (name, data) => {
      if (name === "row") { rows.push(data); renderMatrix(rows); }
      if (name === "progress") $("#check-progress").textContent = `${data.done} of ${data.total} decided`;
    });
    if (finished.status !== "done") notify(finished.error ? `${finished.error.message}. ${finished.error.hint}` : finished.status);
    else setExports("#check-exports", job.id);
  } catch (error) {
    notify(explain(error));
  } finally {
    $("#run-check").disabled = false;
  }
}

function renderMatrix(rows) {
  const contracts = [...new Set(rows.map((r) => r.contract_id))];
  const hypotheses = [];
  for (const row of rows) if (row.result && !hypotheses.some((h) => h.key === row.result.key)) hypotheses.push(row.result);
  $("#matrix thead").replaceChildren(el("tr", {}, el("th", { scope: "col" }, "Contract"),
    ...hypotheses.map((h) => el("th", { scope: "col", title: h.hypothesis },
      h.topic || (h.hypothesis.length > 48 ? `${h.hypothesis.slice(0, 46)}…` : h.hypothesis)))));
  $("#matrix tbody").replaceChildren(...contracts.map((contract) => {
    const failed = rows.find((r) => r.contract_id === contract && r.error);
    if (failed) return el("tr", {}, el("th", { scope: "row" }, contract), el("td", { colspan: String(hypotheses.length || 1), class: "error" }, failed.error));
    return el("tr", {}, el("th", { scope: "row" }, contract), ...hypotheses.map((h) => {
      const row = rows.find((r) => r.contract_id === contract && r.result && r.result.key === h.key);
      if (!row) return el("td", {}, "…");
      const label = row.result.label;
      const short = { Entailment: "E", Contradiction: "C", NotMentioned: "NM" }[label];
      return el("td", {}, el("button", { type: "button", class: `label ${label}`, "data-cell": `${contract}|${h.key}`,
        "aria-label": `${contract}, ${h.topic || h.key}: ${label}`, onclick: () => showCell(contract, row.result, row.contract_version) }, short));
    }));
  }));
}

function evidenceButton(contract, evidence, version) {
  return el("li", {}, el("button", { type: "button", class: "source-link", "data-evidence": `${evidence.span[0]}-${evidence.span[1]}`,
    onclick: () => openContract(contract, () => showSpan(evidence.span[0], evidence.span[1], version ?? undefined)) },
  `${evidence.node_id}, p. ${evidence.pages.join(", ")}`), el("blockquote", {}, evidence.quote));
}

function showCell(contract, result, version) {
  const detail = $("#cell-detail");
  detail.hidden = false;
  detail.replaceChildren(
    el("h2", {}, `${contract}: ${result.topic || result.key}`),
    el("p", {}, result.hypothesis),
    el("p", {}, el("span", { class: `label ${result.label}` }, result.label), ` confidence ${result.confidence.toFixed(2)}`),
    el("p", {}, result.rationale),
    result.evidence.length ? el("ol", { class: "sources" }, ...result.evidence.map((e) => evidenceButton(contract, e, version))) : el("p", { class: "hint" }, "No evidence."),
  );
  detail.focus?.();
}

async function runReview(event) {
  event.preventDefault();
  const contracts = picked("review");
  if (!contracts.length) return notify("Choose at least one contract.");
  $("#run-review").disabled = true;
  setExports("#review-exports", null);
  state.reviewRows = [];
  try {
    const job = await postJSON("/v1/reviews", { contracts, provisions: "cuad" });
    state.reviewJob = job.id;
    const finished = await followJob(job.id, (name, data) => {
      if (name === "row") { state.reviewRows.push(data); renderReview(); }
      if (name === "progress") $("#review-progress").textContent = `${data.done} of ${data.total} reviewed`;
    });
    if (finished.status !== "done") notify(finished.error ? `${finished.error.message}. ${finished.error.hint}` : finished.status);
    else setExports("#review-exports", job.id);
  } catch (error) {
    notify(explain(error));
  } finally {
    $("#run-review").disabled = false;
  }
}

function renderReview() {
  const filter = $("#review-filter").value.trim().toLowerCase();
  const presentOnly = $("#present-only").checked;
  const { key, descending } = state.reviewSort;
  const value = (row) => ({ contract: row.contract_id, provision: row.result?.name || "", present: row.result?.present ? 1 : 0,
    value: row.result?.answer || "", confidence: row.result?.confidence || 0 })[key];
  const rows = state.reviewRows
    .filter((r) => r.result && (!presentOnly || r.result.present))
    .filter((r) => !filter || [r.contract_id, r.result.name, r.result.answer || ""].join(" ").toLowerCase().includes(filter))
    .sort((a, b) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0) * (descending ? -1 : 1));
  $("#review-grid tbody").replaceChildren(...rows.map((r) => el("tr", { "data-provision": r.result.key },
    el("td", {}, r.contract_id), el("th", { scope: "row" }, r.result.name),
    el("td", { class: r.result.present ? "present-yes" : "present-no" }, r.result.present ? "present" : "absent"),
    el("td", {}, r.result.answer || ""), el("td", {}, r.result.confidence.toFixed(2)),
    el("td", {}, ...r.result.spans.slice(0, 3).map((s) => el("button", { type: "button", class: "source-link",
      onclick: () => openContract(r.contract_id, () => showSpan(s.span[0], s.span[1], r.contract_version ?? undefined)) }, `${s.node_id} `))))));
}

// --- set up -------------------------------------------------------------------------------

function setUp() {
  for (const button of $$("[data-view]")) button.addEventListener("click", () => show(button.dataset.view));
  setUpLibrary();
  $("#ask-form").addEventListener("submit", ask);
  $("#stop-button").addEventListener("click", stopAsking);
  $("#chat-form").addEventListener("submit", sendMessage);
  $("#new-thread").addEventListener("click", newThread);
  $("#threads").addEventListener("change", (event) => showThread(event.target.value));
  for (const [tab, panel, other, otherPanel] of [["#tab-ask", "#ask-panel", "#tab-chat", "#chat-panel"], ["#tab-chat", "#chat-panel", "#tab-ask", "#ask-panel"]]) {
    $(tab).addEventListener("click", () => {
      $(tab).setAttribute("aria-selected", "true"); $(panel).hidden = false;
      $(other).setAttribute("aria-selected", "false"); $(otherPanel).hidden = true;
    });
  }
  for (const [box, name] of [["#report-exports", "report"], ["#check-exports", "results"], ["#review-exports", "results"]]) {
    for (const button of $$(`${box} button`)) {
      button.addEventListener("click", () => {
        const job = $(box).dataset.job;
        if (!job) return; // nothing to export yet: the buttons are disabled
        download(`/v1/jobs/${job}/result?format=${button.dataset.format}`, `${name}.${button.dataset.format}`).catch((e) => notify(explain(e)));
      });
    }
  }
  $("#check-form").addEventListener("submit", runChecks);
  $("#review-form").addEventListener("submit", runReview);
  $("#review-filter").addEventListener("input", renderReview);
  $("#present-only").addEventListener("change", renderReview);
  for (const button of $$("#review-grid [data-sort]")) {
    button.addEventListener("click", () => {
      const sort = state.reviewSort;
      state.reviewSort = { key: button.dataset.sort, descending: sort.key === button.dataset.sort ? !sort.descending : false };
      renderReview();
    });
  }
  const dialog = $("#key-dialog");
  $("#key-button").addEventListener("click", () => askForKey());
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "save") localStorage.setItem(KEY_STORE, $("#key-input").value.trim());
    if (dialog.returnValue === "clear") localStorage.removeItem(KEY_STORE);
    if (dialog.returnValue === "save" || dialog.returnValue === "clear") { state.contract = null; state.contracts = []; show("library"); }
  });
  show("library");
  document.documentElement.dataset.ready = "true"; // every control answers from now on
}

setUp();

// What other page modules (questions.js: the data room's grid) build on.
export { api, download, el, explain, fillContractPicks, followJob, notify, openContract, picked, postJSON, showSpan };
