// The other side's redline: a contract ingested from a Word file with tracked changes, its two
// texts side by side (as sent, as proposed) with every change highlighted where its words are
// (GET /v1/contracts/{id}/changes and /text?reading=), the clause-by-clause changes in a table,
// and, held against a playbook (POST /v1/contracts/{id}/changes/assessments, a job), each change
// with the risk of the positions whose clause it touches; filtered by author and by risk, and
// answered in their file (GET /v1/round-assessments/{job}/reply). Plain JavaScript over the API.

import { api, download, el, explain, followJob, notify, postJSON } from "./app.js";

const $ = (selector, root = document) => root.querySelector(selector);
const KINDS = {
  value_changed: "value changed", words_replaced: "words replaced", words_inserted: "words inserted",
  words_deleted: "words deleted", clause_inserted: "clause inserted", clause_struck: "clause struck", clause_moved: "clause moved",
};
const RISKS = ["high", "medium", "low"];
const round = { contract: null, data: null, texts: {}, risk: new Map(), job: null };

async function fillContracts() {
  const contracts = await api("/v1/contracts").then((r) => r.json()).catch(() => []);
  const pick = $("#round-contract");
  const chosen = pick.value;
  pick.replaceChildren(...contracts.map((c) => el("option", { value: c.contract_id }, c.title ? `${c.title} (${c.contract_id})` : c.contract_id)));
  if (contracts.some((c) => c.contract_id === chosen)) pick.value = chosen;
  const playbooks = await api("/v1/playbooks").then((r) => r.json()).catch(() => ({ playbooks: [] }));
  $("#round-playbook").replaceChildren(...playbooks.playbooks.map((p) => el("option", { value: p.name }, `${p.name} ${p.version}`)));
}

async function readRound(event) {
  event.preventDefault();
  const contract = $("#round-contract").value;
  if (!contract) return notify("Choose a contract.");
  Object.assign(round, { contract, data: null, texts: {}, risk: new Map(), job: null });
  $("#round-assess").disabled = true;
  $("#round-reply").hidden = true;
  try {
    const found = await api(`/v1/contracts/${encodeURIComponent(contract)}/changes`).then((r) => r.json());
    const read = async (reading) => (await api(`/v1/contracts/${encodeURIComponent(contract)}/text?version=${found.version}&reading=${reading}`).then((r) => r.json())).text;
    round.data = found;
    round.texts = { before: await read("before"), proposed: await read("proposed") };
    $("#round-summary").hidden = false;
    $("#round-summary").textContent = `${found.revisions.length} tracked change(s) by ${Object.entries(found.authors).map(([a, n]) => `${a} (${n})`).join(", ") || "no named author"}; ${found.comments.length} comment(s); ${found.comparison.changes.length} change(s) clause by clause.`;
    fillAuthors();
    render();
    $("#round-assess").disabled = false;
    notify("");
  } catch (error) {
    notify(explain(error));
  }
}

function fillAuthors() {
  const authors = Object.keys(round.data.authors);
  $("#round-authors").replaceChildren(...authors.map((a) => el("label", { class: "check" },
    el("input", { type: "checkbox", value: a, checked: true, onchange: render }), ` ${a}`)));
}

const shownAuthors = () => new Set([...$("#round-authors").querySelectorAll("input:checked")].map((i) => i.value));
const shownRisks = () => new Set([...$("#round-risks").querySelectorAll("input:checked")].map((i) => i.value));

// A text with the changes whose words are in it marked (insertions as proposed, deletions as sent).
function marked(side) {
  const text = round.texts[side];
  const authors = shownAuthors();
  const spans = round.data.revisions
    .filter((r) => r.part === "body" && r[side] && r[side][1] > r[side][0] && authors.has(r.author || "unknown author"))
    .map((r) => ({ start: r[side][0], end: r[side][1], r }))
    .sort((a, b) => a.start - b.start);
  const pieces = [];
  let at = 0;
  for (const { start, end, r } of spans) {
    if (start < at) continue;  // nested or overlapping: the first holds it
    pieces.push(text.slice(at, start));
    const tag = r.kind === "insert" ? "ins" : r.kind === "delete" ? "del" : "mark";
    pieces.push(el(tag, { class: `change k-${r.kind}`, "data-change": String(r.id), "data-author": r.author, title: `${r.kind} by ${r.author || "unknown author"}` }, text.slice(start, end)));
    at = end;
  }
  pieces.push(text.slice(at));
  return pieces;
}

function riskOf(number) {
  return round.risk.get(number) || "none";
}

function render() {
  $("#round-texts").hidden = false;
  $("#round-before").replaceChildren(...marked("before"));
  $("#round-proposed").replaceChildren(...marked("proposed"));
  const authors = shownAuthors();
  const risks = shownRisks();
  const rows = round.data.comparison.changes.map((c, i) => ({ c, number: i + 1 }))
    .filter(({ c, number }) => (!c.authors.length || c.authors.some((a) => authors.has(a))) && risks.has(riskOf(number)));
  $("#round-grid tbody").replaceChildren(...rows.map(({ c, number }) => el("tr", { "data-change": String(number), "data-kind": c.kind, "data-risk": riskOf(number) },
    el("td", {}, String(number)), el("td", {}, KINDS[c.kind]),
    el("td", {}, c.before_clause && c.after_clause && c.before_clause !== c.after_clause ? `${c.before_clause} → ${c.after_clause}` : c.after_clause || c.before_clause || ""),
    el("td", {}, c.kind === "value_changed" && c.value_before ? `${c.value_before} → ${c.value_after}` : [c.before_words && `− ${c.before_words}`, c.after_words && `+ ${c.after_words}`].filter(Boolean).join("  ")),
    el("td", {}, c.authors.join(", ")),
    el("td", {}, el("span", { class: `risk r-${riskOf(number)}` }, riskOf(number))))));
}

async function assess() {
  const playbook = $("#round-playbook").value;
  $("#round-assess").disabled = true;
  try {
    const job = await postJSON(`/v1/contracts/${encodeURIComponent(round.contract)}/changes/assessments`, { playbook });
    $("#round-progress").textContent = "Deciding each position on both texts...";
    const finished = await followJob(job.id, () => {});
    $("#round-progress").textContent = "";
    if (finished.status !== "done") return notify(finished.error ? `${finished.error.message}. ${finished.error.hint}` : finished.status);
    const assessed = await api(`/v1/jobs/${encodeURIComponent(job.id)}/result`).then((r) => r.json());
    round.job = job.id;
    round.risk = new Map();
    for (const position of assessed.positions.filter((p) => p.movement === "worse" || p.movement === "unclear")) {
      for (const number of position.changes) {
        const current = round.risk.get(number);
        if (!current || RISKS.indexOf(position.risk) < RISKS.indexOf(current)) round.risk.set(number, position.risk);
      }
    }
    $("#round-positions").replaceChildren(...assessed.positions.filter((p) => p.changes.length).map((p) => el("li", { "data-position": p.position_id, "data-movement": p.movement }, p.rationale)));
    $("#round-reply").hidden = false;
    render();
  } catch (error) {
    notify(explain(error));
  } finally {
    $("#round-assess").disabled = false;
  }
}

function setUpRounds() {
  $("#round-form").addEventListener("submit", readRound);
  $("#round-assess").addEventListener("click", assess);
  for (const box of $("#round-risks").querySelectorAll("input")) box.addEventListener("change", () => round.data && render());
  $('.bar .tab[data-view="rounds"]').addEventListener("click", () => fillContracts());
  $("#round-reply").addEventListener("click", () => {
    const author = encodeURIComponent($("#round-author").value || "Clausewise");
    download(`/v1/round-assessments/${encodeURIComponent(round.job)}/reply?author=${author}`, `${round.contract}-reply.docx`).catch((e) => notify(explain(e)));
  });
  document.documentElement.dataset.roundsReady = "true";
}

setUpRounds();
