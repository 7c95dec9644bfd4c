// The playbook review: one contract held to a playbook's positions (POST /v1/playbook-reviews),
// a row per position as it is decided (verdict, risk colour, clause link, why), the clause beside
// the playbook's position, the proposed redline with its insertions and deletions, and the DOCX
// of tracked changes (GET /v1/playbook-reviews/{job}/redline). Playbooks are listed and uploaded
// per tenant (GET and POST /v1/playbooks). Plain JavaScript over the API, on app.js's helpers.

import { api, download, el, explain, followJob, notify, openContract, postJSON, showSpan } from "./app.js";

const $ = (selector, root = document) => root.querySelector(selector);
const VERDICTS = {
  meets_standard: "meets standard",
  meets_fallback: "meets fallback",
  deviation: "deviation",
  missing: "missing",
  refused_ambiguous: "refused: ambiguous",
  refused_not_covered: "refused: not covered",
};
const review = { job: null, contract: null, version: null, rows: [], playbook: null };

const verdictWords = (r) => `${VERDICTS[r.verdict]}${r.fallback ? ` ${r.fallback}` : ""}`;
const open = (r) => r.verdict === "deviation" || r.verdict === "missing";

async function fillChoices() {
  const [contracts, playbooks] = await Promise.all([
    api("/v1/contracts").then((r) => r.json()).catch(() => []),
    api("/v1/playbooks").then((r) => r.json()).catch(() => ({ playbooks: [] })),
  ]);
  const contract = $("#playbook-contract");
  const chosen = contract.value;
  contract.replaceChildren(...contracts.map((c) => el("option", { value: c.contract_id }, c.title ? `${c.title} (${c.contract_id})` : c.contract_id)));
  if (contracts.some((c) => c.contract_id === chosen)) contract.value = chosen;
  const choice = $("#playbook-choice");
  const wanted = choice.value;
  choice.replaceChildren(...playbooks.playbooks.map((p) => el("option", { value: `${p.name}@${p.version}`, "data-name": p.name, "data-version": p.version, "data-builtin": String(p.builtin) },
    `${p.name} ${p.version} (${p.positions} positions${p.builtin ? ", built in" : ""})`)));
  if ([...choice.options].some((o) => o.value === wanted)) choice.value = wanted;
}

async function uploadPlaybook() {
  const file = $("#playbook-upload").files[0];
  if (!file) return;
  try {
    const stored = await postJSON("/v1/playbooks", { yaml: await file.text() });
    await fillChoices();
    $("#playbook-choice").value = `${stored.name}@${stored.version}`;
    notify(`Playbook ${stored.name} ${stored.version} kept (${stored.positions} positions).`, true);
  } catch (error) {
    notify(explain(error));
  } finally {
    $("#playbook-upload").value = "";
  }
}

async function runReview(event) {
  event.preventDefault();
  const contract = $("#playbook-contract").value;
  const option = $("#playbook-choice").selectedOptions[0];
  if (!contract || !option) return notify("Choose a contract and a playbook.");
  const body = { contracts: [contract], playbook: option.dataset.name };
  if (option.dataset.builtin !== "true") body.version = option.dataset.version;
  Object.assign(review, { job: null, contract, version: null, rows: [] });
  $("#playbook-exports").hidden = true;
  $("#playbook-detail").hidden = true;
  $("#playbook-summary").hidden = true;
  $("#run-playbook").disabled = true;
  render();
  try {
    const job = await postJSON("/v1/playbook-reviews", body);
    review.job = job.id;
    review.playbook = job.request.playbook;
    notify("");
    const finished = await followJob(job.id, (name, data) => {
      if (name === "row" && data.result) { review.rows.push(data.result); review.version = data.contract_version; render(); }
      if (name === "row" && data.error) notify(data.error);
      if (name === "progress") $("#playbook-progress").textContent = `${data.done} of ${data.total} positions`;
    });
    if (finished.status !== "done") return notify(finished.error ? `${finished.error.message}. ${finished.error.hint}` : finished.status);
    summarise(finished.result.summaries[contract]);
    $("#playbook-exports").hidden = !review.rows.some((r) => r.redline && r.redline.edits.length);
  } catch (error) {
    notify(explain(error));
  } finally {
    $("#run-playbook").disabled = false;
  }
}

function summarise(summary) {
  if (!summary) return;
  const box = $("#playbook-summary");
  box.hidden = false;
  const parts = ["high", "medium", "low"].filter((t) => summary[t].length).map((t) => `${summary[t].length} ${t}`);
  box.textContent = `Overall risk: ${summary.overall_risk}${parts.length ? ` (${parts.join(", ")} open point(s))` : ""}` +
    `${summary.refused.length ? `; ${summary.refused.length} refused` : ""}.`;
  box.dataset.risk = summary.overall_risk;
}

function clauseLinks(r) {
  return r.citations.map((c) => el("button", { type: "button", class: "source-link clause", "data-span": `${c.span[0]}-${c.span[1]}`,
    "aria-label": `Open ${review.contract} at ${c.node_id}`, onclick: () => openAt(c) }, c.node_id));
}

function render() {
  $("#playbook-grid tbody").replaceChildren(...review.rows.map((r) => el("tr", { "data-position": r.position_id, "data-verdict": r.verdict },
    el("th", { scope: "row" }, el("button", { type: "button", class: "quiet", onclick: () => showDetail(r) }, r.position_id)),
    el("td", {}, el("span", { class: `verdict v-${r.verdict}` }, verdictWords(r))),
    el("td", {}, el("span", { class: `risk r-${r.risk}${open(r) ? "" : " closed"}` }, r.risk)),
    el("td", {}, ...clauseLinks(r)),
    el("td", {}, r.rationale))));
}

function openAt(citation) {
  openContract(review.contract, () => showSpan(citation.span[0], citation.span[1], review.version ?? undefined));
}

function position(id) {
  return review.playbook ? review.playbook.positions.find((p) => p.id === id) : null;
}

function redlineView(r) {
  if (!r.redline || !r.redline.edits.length) return null;
  const quote = r.citations[0];
  const pieces = [];
  for (const edit of r.redline.edits) {
    // the words around the change, from the clause quoted when it holds them
    if (quote && edit.span[0] >= quote.span[0] && edit.span[1] <= quote.span[1]) {
      pieces.push(quote.quote.slice(0, edit.span[0] - quote.span[0]));
      if (edit.deleted) pieces.push(el("del", {}, edit.deleted));
      if (edit.inserted) pieces.push(el("ins", {}, edit.inserted));
      pieces.push(quote.quote.slice(edit.span[1] - quote.span[0]));
    } else {
      if (edit.deleted) pieces.push(el("del", {}, edit.deleted));
      if (edit.inserted) pieces.push(el("ins", {}, edit.inserted.trim()));
    }
    pieces.push("\n");
  }
  return el("section", {}, el("h3", {}, `Proposed redline (${r.redline.kind})`),
    el("p", { class: "redline", "data-redline": r.position_id }, ...pieces),
    r.redline.satisfies === true ? el("p", { class: "hint" }, "Read again after the edit, the clause meets the position.") : null);
}

function showDetail(r) {
  const detail = $("#playbook-detail");
  const wanted = position(r.position_id);
  detail.hidden = false;
  detail.replaceChildren(...[  // (a view with nothing to show is left out, not written "null")
    el("h2", {}, `${r.position_id}: ${r.clause}`),
    el("p", {}, el("span", { class: `verdict v-${r.verdict}` }, verdictWords(r)), " ", el("span", { class: `risk r-${r.risk}` }, `${r.risk} risk`)),
    el("p", {}, r.rationale),
    el("div", { class: "side-by-side" },
      el("div", { "data-side": "contract" }, el("h3", {}, "The contract"),
        ...(r.citations.length ? r.citations.map((c) => el("blockquote", {}, el("button", { type: "button", class: "source-link", onclick: () => openAt(c) }, `${c.node_id}, p. ${c.pages.join(", ")}`), " ", c.quote))
          : [el("p", { class: "hint" }, "No clause holds it.")])),
      el("div", { "data-side": "playbook" }, el("h3", {}, `The playbook (${r.playbook.playbook} ${r.playbook.version})`),
        el("p", {}, r.playbook.fallback ? `Fallback ${r.playbook.fallback}: ${r.playbook.requirement}` : `Standard: ${r.playbook.requirement}`),
        r.guidance ? el("p", { class: "hint" }, r.guidance) : null,
        wanted && wanted.preferred_text ? el("blockquote", {}, wanted.preferred_text) : null)),
    redlineView(r),
    r.drafting ? el("p", { class: "hint", "data-drafting": r.position_id }, `Drafted redline: ${r.drafting}`) : null,
  ].filter((child) => child !== null));
}

function setUpPlaybook() {
  $("#playbook-form").addEventListener("submit", runReview);
  $("#playbook-upload").addEventListener("change", uploadPlaybook);
  $('.bar .tab[data-view="playbook"]').addEventListener("click", () => fillChoices());
  $("#playbook-redline").addEventListener("click", () => {
    const query = `contract=${encodeURIComponent(review.contract)}`;
    download(`/v1/playbook-reviews/${encodeURIComponent(review.job)}/redline?${query}`, "redline.docx").catch((e) => notify(explain(e)));
  });
  document.documentElement.dataset.playbookReady = "true";
}

setUpPlaybook();
