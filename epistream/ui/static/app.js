/* The memory inspector: one page, plain JavaScript, every read through the REST API with the user's key.
   Pages (location.hash): #/world, #/claim/<node_id>, #/query, #/analytics. Nothing is cached beyond the
   tab: the key lives in sessionStorage and is sent as a bearer token; all text is inserted as text. */
"use strict";

const KEY = "epistream.key";
const OWNER = "epistream.owner";
const state = { key: sessionStorage.getItem(KEY), owner: sessionStorage.getItem(OWNER), owners: [], tenant: null };

/* ----------------------------------------------------------------------------------------- helpers */

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || "http_" + status;
  }
}

async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${state.key}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

const fmtTime = (iso) => (iso ? iso.replace("T", " ").replace(/(\.\d+)?Z$/, "Z").replace(/:\d\dZ$/, "Z") : "");
const pct = (v) => (v === null || v === undefined ? "–" : Number(v).toFixed(2));

function badge(text, kind) {
  return h("span", { class: `badge ${kind || ""} b-${String(text).toLowerCase()}` }, text);
}

function claimLine(item) {
  const sign = item.polarity === "negative" ? "NOT " : "";
  return `${item.subject} · ${item.predicate} · ${sign}${item.object === null || item.object === undefined ? "" : item.object}`;
}

function view(...children) {
  const root = document.getElementById("view");
  root.replaceChildren(...children);
  root.hidden = false;
  return root;
}

function failure(err) {
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
    return h("div", { class: "card error", role: "alert" },
      h("strong", {}, err.status === 401 ? "This key is not accepted." : "This key may not read this."),
      ` (${err.code}) ${err.message}`);
  }
  return h("div", { class: "card error", role: "alert" }, `Could not load: ${err.code || ""} ${err.message}`);
}

function ownerQuery() {
  return state.owner ? `owner_id=${encodeURIComponent(state.owner)}` : "";
}

/* ------------------------------------------------------------------------------------------ sign in */

async function signIn(key) {
  state.key = key;
  const error = document.getElementById("login-error");
  try {
    const data = await api("GET", "/v1/owners");
    state.owners = data.owners.map((o) => o.owner_id);
  } catch (err) {
    state.key = null;
    sessionStorage.removeItem(KEY);
    error.textContent = err instanceof ApiError && (err.status === 401 || err.status === 403)
      ? `This key is not authorised (${err.code}).` : `Could not reach the API: ${err.message}`;
    error.hidden = false;
    document.getElementById("view").replaceChildren();
    document.getElementById("view").hidden = true;
    return false;
  }
  error.hidden = true;
  sessionStorage.setItem(KEY, key);
  if (!state.owner || !state.owners.includes(state.owner)) state.owner = state.owners[0] || null;
  if (state.owner) sessionStorage.setItem(OWNER, state.owner);
  const select = document.getElementById("owner");
  select.replaceChildren(...state.owners.map((o) => h("option", { value: o, selected: o === state.owner }, o)));
  document.getElementById("login").hidden = true;
  document.getElementById("nav").hidden = false;
  document.getElementById("who").hidden = false;
  return true;
}

function signOut() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(OWNER);
  location.hash = "";
  location.reload();
}

/* --------------------------------------------------------------------------------------------- world */

function claimCard(item, extra) {
  const label = item.label || {};
  return h("a", { class: "claim card", href: `#/claim/${item.node_id}`, "data-node": item.node_id },
    h("div", { class: "claim-head" },
      h("span", { class: "triple" }, claimLine(item)),
      badge(label.epistemic_type), badge(label.lifecycle, "life")),
    h("div", { class: "content" }, item.content),
    h("div", { class: "meta" },
      `confidence ${pct(label.confidence)} · effective ${pct(label.effective_confidence)} · ${label.source_type || ""}`,
      label.condition ? ` · if “${label.condition}” (${label.condition_state})` : "",
      item.reason ? ` · ${item.reason}` : "",
      item.expires_at ? ` · expires ${fmtTime(item.expires_at)}` : "",
      extra || ""));
}

async function pageWorld() {
  if (!state.owner) return view(h("div", { class: "card" }, "This key sees no owner with memory yet."));
  view(h("p", { class: "loading" }, "loading…"));
  let world;
  try { world = await api("GET", `/v1/world-context?${ownerQuery()}`); } catch (err) { return view(failure(err)); }
  const section = (title, note, items) => h("section", { class: "block", id: `world-${title.toLowerCase()}` },
    h("h2", {}, title, h("span", { class: "count" }, items.length)), h("p", { class: "note" }, note),
    items.length ? items : h("p", { class: "empty" }, "none"));
  return view(
    h("h1", {}, `World of ${world.owner_id}`, h("span", { class: "sub" }, ` as of ${fmtTime(world.reference_time)}`)),
    section("Facts", "Claims that may be stated.", world.facts.map((f) => claimCard(f))),
    section("Conflicts", "Claims that contradict each other, side by side; neither is chosen.",
      world.conflicts.map((c) => h("div", { class: "conflict" },
        h("div", { class: "conflict-title" }, `${c.subject} · ${c.predicate}`),
        h("div", { class: "sides" }, c.sides.map((s) => claimCard(s)))))),
    section("Proposals", "Hypotheses, conditional and proposed claims: not facts.", world.proposals.map((p) => claimCard(p))),
    section("Stale", "Expired (until revalidated with new evidence), or not confirmed for a long time.", world.stale.map((s) => claimCard(s))));
}

/* --------------------------------------------------------------------------------------------- claim */

function highlighted(content, quote, span) {
  let start = -1, end = -1;
  if (quote) { start = content.indexOf(quote); end = start + quote.length; }
  if (start < 0 && span && span.end <= content.length) { start = span.start; end = span.end; }
  if (start < 0) return h("span", {}, content);
  return h("span", {}, content.slice(0, start), h("mark", {}, content.slice(start, end)), content.slice(end));
}

function confidenceOf(op) {
  const p = op.payload || {};
  for (const k of ["confidence_after", "new_confidence", "confidence"]) if (typeof p[k] === "number") return p[k];
  return null;
}

const short = (v) => (typeof v === "number" ? String(Math.round(v * 1000) / 1000) : String(v));

function opSummary(op, nodeId) {
  const p = op.payload || {};
  const parts = [];
  const pairs = [["from_type", "to_type", "type"], ["from_lifecycle", "to_lifecycle", "lifecycle"], ["from", "to", "lifecycle"],
    ["from_state", "to_state", "condition"], ["confidence_before", "confidence_after", "confidence"]];
  for (const [a, b, name] of pairs) {
    if (p[a] !== undefined && p[b] !== undefined && p[a] !== p[b]) parts.push(`${name} ${short(p[a])} → ${short(p[b])}`);
  }
  if (op.op_type === "ASSERT") parts.push(`asserted ${p.epistemic_type} at ${pct(p.confidence)}`);
  if (p.signal_type) parts.push(`signal ${p.signal_type}`);
  if (p.conflict_description) parts.push(p.conflict_description);
  if (p.old_object_id) {
    parts.push(p.new_object_id === nodeId ? `supersedes ${String(p.old_object_id).slice(0, 8)}…`
      : `superseded by ${String(p.new_object_id).slice(0, 8)}…`);
  }
  if (p.reason) parts.push(`reason: ${p.reason}`);
  return parts.join(" · ");
}

async function nodeLink(id) {
  try {
    const node = await api("GET", `/v1/nodes/${encodeURIComponent(id)}`);
    return h("a", { href: `#/claim/${id}`, class: "chain-link" }, `“${node.content}”`, " ",
      badge(node.epistemic_type), badge(node.lifecycle, "life"));
  } catch (_) {
    return h("span", { class: "chain-link" }, id);
  }
}

async function pageClaim(id) {
  view(h("p", { class: "loading" }, "loading…"));
  let prov;
  try { prov = await api("GET", `/v1/nodes/${encodeURIComponent(id)}/provenance?limit=500`); } catch (err) {
    return view(failure(err));
  }
  const node = prov.node;
  const events = prov.evidence_events.map((e) => h("figure", { class: "evidence" },
    h("blockquote", { class: "source" }, highlighted(String(e.content), node.evidence_quote, node.evidence_span)),
    h("figcaption", {}, `${e.speaker || e.role} (${e.role}) · ${fmtTime(e.occurred_at)} · session ${e.session_id || "–"} · event ${e.event_id}`)));
  const ops = prov.operations;
  const history = ops.map((op) => [fmtTime(op.created_at).slice(0, 16), confidenceOf(op)]).filter((p) => p[1] !== null);
  const lifecycle = [];
  for (const op of ops) {
    const p = op.payload || {};
    if (p.to_lifecycle && p.to_lifecycle !== p.from_lifecycle) lifecycle.push([op.created_at, p.to_lifecycle, op.op_type]);
    else if (op.op_type === "CONTRADICTION_NOTED") lifecycle.push([op.created_at, "CONTESTED", "contradiction noted"]);
    else if (op.op_type === "CONTRADICTION_RESOLVED") lifecycle.push([op.created_at, "resolved", "contradiction resolved"]);
    else if (op.op_type === "SUPERSEDENCE_APPLIED" && p.old_object_id === node.node_id) lifecycle.push([op.created_at, "SUPERSEDED", "replaced by a newer claim"]);
    else if (op.op_type === "LIFECYCLE_CHANGED" && (p.to || p.lifecycle)) lifecycle.push([op.created_at, p.to || p.lifecycle, "lifecycle changed"]);
  }
  const contradictions = [...new Set([...node.contradicts, ...prov.contradiction_edges.flatMap((e) => [e.source_id, e.target_id])])]
    .filter((n) => n !== node.node_id);
  const supersedes = node.supersedes || [];
  const chain = h("div", { class: "chain" });
  const conflictList = h("div", { class: "chain" });
  const root = view(
    h("p", {}, h("a", { href: "#/world" }, "← world")),
    h("h1", { class: "claim-title" }, claimLine(node)),
    h("div", { class: "claim-head" }, badge(node.epistemic_type), badge(node.lifecycle, "life"), badge(node.source_type, "src"),
      h("span", { class: "meta" }, ` confidence ${pct(node.confidence)} · ${node.node_type} · version ${node.version} · asserted by ${prov.asserted_by.actor_id} (${prov.asserted_by.actor_type})`)),
    h("section", { class: "block", id: "evidence" }, h("h2", {}, "Evidence"),
      h("p", { class: "note" }, "What was said; the highlighted part is the quote the claim was taken from. A quote is not proof."),
      node.evidence_quote ? h("p", { class: "quote-line" }, "quote: ", h("q", {}, node.evidence_quote)) : null,
      events.length ? events : h("p", { class: "empty" }, "no source message stored"),
      prov.missing_evidence_refs.length ? h("p", { class: "error" }, `missing evidence: ${prov.missing_evidence_refs.join(", ")}`) : null),
    h("section", { class: "block", id: "confidence" }, h("h2", {}, "Confidence over time"),
      history.length ? Charts.lines(history.map((p) => p[0]), { confidence: history.map((p) => p[1]) }, { yMax: 1, height: 200 })
        : h("p", { class: "empty" }, "no change recorded")),
    h("section", { class: "block", id: "lifecycle" }, h("h2", {}, "Lifecycle"),
      h("ol", { class: "timeline" }, h("li", {}, `${fmtTime(node.created_at)} created`),
        lifecycle.map(([t, to, why]) => h("li", {}, `${fmtTime(t)} → ${to} (${why})`)),
        h("li", {}, `now ${node.lifecycle}${node.superseded_by ? " · superseded" : ""}`))),
    h("section", { class: "block", id: "contradictions" }, h("h2", {}, "Contradictions", h("span", { class: "count" }, contradictions.length)),
      contradictions.length ? conflictList : h("p", { class: "empty" }, "none")),
    h("section", { class: "block", id: "supersedence" }, h("h2", {}, "Supersedence"),
      (supersedes.length || node.superseded_by) ? chain : h("p", { class: "empty" }, "neither replaces nor is replaced")),
    h("section", { class: "block", id: "operations" }, h("h2", {}, "Operations", h("span", { class: "count" }, ops.length)),
      h("table", { class: "ops" }, h("thead", {}, h("tr", {}, h("th", {}, "when"), h("th", {}, "operation"), h("th", {}, "by"), h("th", {}, "what changed"))),
        h("tbody", {}, ops.map((op) => h("tr", {}, h("td", {}, fmtTime(op.created_at)), h("td", {}, op.op_type),
          h("td", {}, `${op.actor_id} (${op.actor_type})`), h("td", {}, opSummary(op, node.node_id))))))));
  for (const other of contradictions) conflictList.appendChild(h("div", {}, "contradicts ", await nodeLink(other)));
  for (const old of supersedes) chain.appendChild(h("div", {}, "replaces ", await nodeLink(old)));
  if (node.superseded_by) chain.appendChild(h("div", {}, "replaced by ", await nodeLink(node.superseded_by)));
  return root;
}

/* --------------------------------------------------------------------------------------------- query */

function itemView(item) {
  if (item.kind === "excerpt") {
    return h("figure", { class: "excerpt card", "data-node": item.node_id },
      h("blockquote", {}, item.content),
      h("figcaption", {}, `said by ${item.speaker || item.role || "someone"} · ${fmtTime(item.recorded_at)} · a quote, not a fact · score ${pct(item.score)}`));
  }
  return claimCard({ ...item, reason: null }, ` · score ${pct(item.score)}`);
}

async function runQuery(query, out) {
  delete out.dataset.done;
  out.replaceChildren(h("p", { class: "loading" }, "asking…"));
  const ask = (mode) => api("POST", "/v1/retrieve", { query, owner_id: state.owner, mode, limit: 12, debug: true });
  let both;
  try { both = await Promise.all([ask("default"), ask("explicit")]); } catch (err) { return out.replaceChildren(failure(err)); }
  const [dflt, expl] = both;
  const byId = new Map([...dflt.items, ...expl.items].map((i) => [i.node_id, i]));
  const shown = new Set(dflt.items.map((i) => i.node_id));
  const excluded = dflt.excluded.filter((e) => !e.included);
  const unresolved = [];
  const column = (title, resp, note) => h("div", { class: "column", id: `mode-${resp.mode}` },
    h("h2", {}, title, h("span", { class: "count" }, resp.items.length)), h("p", { class: "note" }, note),
    resp.embedding_mismatch ? h("p", { class: "error" }, "embedding_mismatch: vectors of another model; lexical only until rebuild-index") : null,
    resp.items.map(itemView));
  out.replaceChildren(
    h("div", { class: "columns" },
      column("DEFAULT", dflt, "What may be stated."),
      column("EXPLICIT", expl, "Everything that matched, hypotheses and contested claims included.")),
    h("section", { class: "block", id: "exclusions" }, h("h2", {}, "Left out of DEFAULT", h("span", { class: "count" }, excluded.length)),
      excluded.length ? h("table", { class: "ops" }, h("thead", {}, h("tr", {}, h("th", {}, "item"), h("th", {}, "stage"), h("th", {}, "reason"))),
        h("tbody", {}, excluded.map((e) => {
          const item = byId.get(e.node_id);
          const cell = h("td", { "data-node": e.node_id },
            item ? h("a", { href: item.kind === "claim" ? `#/claim/${e.node_id}` : null }, item.kind === "excerpt" ? `“${item.content}”` : claimLine(item)) : e.node_id);
          if (!item) unresolved.push(cell);
          return h("tr", { class: shown.has(e.node_id) ? "" : "excluded" }, cell, h("td", {}, e.stage), h("td", {}, e.reason));
        }))) : h("p", { class: "empty" }, "nothing")));
  for (const cell of unresolved) cell.replaceChildren(await nodeLink(cell.dataset.node));  // ranked in neither list
  out.dataset.done = "1";
  return out;
}

function pageQuery() {
  const out = h("div", { id: "results" });
  const input = h("input", { id: "query", type: "search", placeholder: "e.g. what does she drink?", required: true });
  return view(
    h("h1", {}, `Query the memory of ${state.owner || "–"}`),
    h("form", { class: "query-form", onsubmit: (ev) => { ev.preventDefault(); runQuery(input.value, out); } },
      input, h("button", { type: "submit" }, "Ask both modes")),
    out);
}

/* ----------------------------------------------------------------------------------------- analytics */

async function pageAnalytics() {
  view(h("p", { class: "loading" }, "loading…"));
  let data;
  try { data = await api("GET", `/v1/analytics?${ownerQuery()}`); } catch (err) { return view(failure(err)); }
  const s = data.stats;
  const days = [...new Set(s.operations_by_type_day.map((r) => r.day))].sort();
  const types = [...new Set(s.operations_by_type_day.map((r) => r.op_type))].sort();
  const series = Object.fromEntries(types.map((t) => [t, days.map((d) => {
    const row = s.operations_by_type_day.find((r) => r.day === d && r.op_type === t);
    return row ? row.count : 0;
  })]));
  const per = (type) => days.map((_, i) => {
    const asserts = (series.ASSERT || [])[i] || 0;
    return asserts ? ((series[type] || [])[i] || 0) / asserts : null;
  });
  const lag = data.ingestion_lag_by_day;
  const reasons = Object.entries(s.extraction.rejection_reasons).sort((a, b) => b[1] - a[1]);
  const card = (id, title, note, body) => h("section", { class: "block chart-card", id }, h("h2", {}, title),
    h("p", { class: "note" }, note), body);
  return view(
    h("h1", {}, `Analytics · ${data.owner_id || "tenant " + data.tenant_id}`),
    h("div", { class: "totals" },
      h("div", {}, h("b", {}, s.operations_total), " operations"),
      h("div", {}, h("b", {}, s.contradictions_noted), " contradictions noted"),
      h("div", {}, h("b", {}, s.contradictions_resolved), " resolved"),
      h("div", {}, h("b", {}, s.supersedences), " supersedences"),
      h("div", {}, h("b", {}, s.extraction.claims_accepted), " claims accepted · ", h("b", {}, s.extraction.claims_rejected), " rejected")),
    h("div", { class: "grid" },
      card("ops-by-type", "Operations by type over time", "Per day, from the operation log.", Charts.stackedBars(days, series)),
      card("rates", "Contradiction and supersedence rates", "Per assertion, per day.",
        Charts.lines(days.map((d) => d.slice(5)), { "contradictions / assert": per("CONTRADICTION_NOTED"), "supersedences / assert": per("SUPERSEDENCE_APPLIED") }, { yMax: 1 })),
      card("confidence", "Confidence by epistemic type", "Current claims: p10–p90 band, median line, mean dot.",
        Charts.ranges(s.confidence_by_epistemic_type.map((r) => ({ name: r.epistemic_type, count: r.nodes, low: r.p10, mid: r.p50, high: r.p90, mean: r.mean })))),
      card("rejections", "Extraction rejections by reason", "Claims the validation layer refused, and why.", Charts.hbars(reasons)),
      card("lag", "Ingestion lag", "Seconds from when a message was said to when it was stored (p50, p95).",
        Charts.lines(lag.map((r) => r.day.slice(5)), { p50: lag.map((r) => r.p50_s), p95: lag.map((r) => r.p95_s) }, { format: (v) => v.toFixed(1) }))));
}

/* -------------------------------------------------------------------------------------------- router */

async function route() {
  if (!state.key) return;
  const hash = location.hash || "#/world";
  const [, page, arg] = hash.split("/");
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.dataset.page === page);
  document.body.dataset.page = page || "world";
  if (page === "claim" && arg) await pageClaim(decodeURIComponent(arg));
  else if (page === "query") pageQuery();
  else if (page === "analytics") await pageAnalytics();
  else await pageWorld();
  document.body.dataset.ready = page || "world";
}

document.getElementById("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (await signIn(document.getElementById("key").value.trim())) route();
});
document.getElementById("owner").addEventListener("change", (ev) => {
  state.owner = ev.target.value;
  sessionStorage.setItem(OWNER, state.owner);
  route();
});
document.getElementById("signout").addEventListener("click", signOut);
window.addEventListener("hashchange", () => { document.body.dataset.ready = ""; route(); });

(async () => {
  if (state.key && (await signIn(state.key))) route();
})();
