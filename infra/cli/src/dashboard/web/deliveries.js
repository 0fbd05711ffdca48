"use strict";
// Delivery history: filters (endpoint, status, event type, time), each delivery with its
// attempts (time, status code, latency, error, response excerpt, next retry), resend.
// The API lists one endpoint's deliveries newest first (status filter, cursor pages); the
// other filters are applied here, over the pages read.

(() => {
  const { el, admin, seg, attempt, notice, when, badge } = PG;

  const PAGE = 50;
  // Pages read per endpoint per "load" while the time filter still reaches back.
  const PAGES_PER_LOAD = 5;

  let filters;
  let tbody;
  let detail;
  let more;
  // Per endpoint: the next cursor (undefined: not read yet; null: nothing more).
  let cursors = new Map();
  let rows = [];
  // The newest load; an older one still awaiting pages is dropped (two Apply clicks must not
  // append the same deliveries twice).
  let loadGen = 0;

  PG.views.deliveries = async (view) => {
    const endpoints = await attempt("Listing endpoints", () => admin("GET", "/webhook-endpoints"));
    PG.state.endpoints = endpoints ? endpoints.data : [];
    const preset = PG.state.deliveryFilter || {};
    PG.state.deliveryFilter = null;
    filters = filterForm(PG.state.endpoints, preset);
    tbody = el("tbody", {});
    detail = el("div", { id: "delivery-detail" });
    more = el("button", { type: "button", id: "load-more", hidden: true, onclick: () => load(false) }, "Load more");
    view.replaceChildren(
      el("div", { class: "card" }, el("h2", {}, "Delivery history"), filters.form, lookupForm()),
      el("table", { id: "deliveries" },
        el("thead", {}, el("tr", {},
          ["Created", "Event", "Endpoint", "Status", "Attempts", "Next attempt", ""].map((h) => el("th", {}, h)))),
        tbody),
      more,
      detail);
    await load(true);
  };

  function filterForm(endpoints, preset) {
    const endpoint = el("select", { id: "f-endpoint" },
      el("option", { value: "" }, "all endpoints"),
      endpoints.map((e) => el("option", { value: e.id, selected: e.id === preset.endpoint }, `${e.id} (${e.mode})`)));
    const status = el("select", { id: "f-status" },
      ["", "pending", "succeeded", "failed"].map((s) => el("option", { value: s }, s || "any status")));
    const type = el("select", { id: "f-type" },
      el("option", { value: "" }, "any event type"),
      PG.EVENT_TYPES.map((t) => el("option", { value: t }, t)));
    const since = el("input", { id: "f-since", type: "datetime-local" });
    const until = el("input", { id: "f-until", type: "datetime-local" });
    const form = el("form", { id: "delivery-filters" },
      el("label", {}, "Endpoint", endpoint), el("label", {}, "Status", status),
      el("label", {}, "Event type", type), el("label", {}, "Created from", since),
      el("label", {}, "Created until", until),
      el("button", { type: "submit", class: "primary", id: "f-apply" }, "Apply"));
    form.addEventListener("submit", (ev) => { ev.preventDefault(); load(true); });
    const values = () => ({
      endpoint: endpoint.value, status: status.value, type: type.value,
      since: PG.isoFromLocal(since.value), until: PG.isoFromLocal(until.value),
    });
    return { form, values };
  }

  function lookupForm() {
    const id = el("input", { id: "lookup-id", size: 40, placeholder: "dlv_… or evt_…" });
    const form = el("form", { id: "delivery-lookup" },
      el("label", {}, "Find by delivery or event id", id),
      el("button", { type: "submit" }, "Find"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const v = id.value.trim();
      if (v.startsWith("evt_")) {
        const r = await attempt("Reading the event's deliveries", () => admin("GET", `/events/${seg(v)}/deliveries`));
        if (r) { loadGen += 1; rows = r.data; cursors = new Map(); render(); }
      } else if (v) {
        await openDetail(v);
      }
    });
    return form;
  }

  // Reads pages (all endpoints, or the one chosen) and renders what passes the filters.
  // Pages are gathered apart and kept only if no newer load started meanwhile.
  async function load(fresh) {
    const gen = ++loadGen;
    const f = filters.values();
    const got = fresh ? [] : [...rows];
    const next = fresh ? new Map() : new Map(cursors);
    if (fresh) {
      const ids = f.endpoint ? [f.endpoint] : (PG.state.endpoints || []).map((e) => e.id);
      for (const id of ids) next.set(id, undefined);
    }
    more.disabled = true;
    for (const [id, cursor] of next) {
      if (cursor === null) continue;
      let at = cursor;
      for (let i = 0; i < PAGES_PER_LOAD; i += 1) {
        const page = await attempt(`Listing the deliveries of ${id}`, () =>
          admin("GET", `/webhook-endpoints/${seg(id)}/deliveries`, undefined,
            { status: f.status, limit: PAGE, cursor: at }));
        if (gen !== loadGen) return;
        if (!page) { at = null; break; }
        got.push(...page.data);
        at = page.nextCursor || null;
        const oldest = page.data.length ? page.data[page.data.length - 1].createdAt : null;
        // Newest first: once a page reaches before "from", older pages cannot match.
        if (!at || !f.since || (oldest && oldest < f.since)) break;
      }
      next.set(id, at);
    }
    rows = got;
    cursors = next;
    more.disabled = false;
    more.hidden = ![...cursors.values()].some((c) => c);
    render();
  }

  function render() {
    const f = filters.values();
    const shown = rows
      .filter((d) => !f.type || d.eventType === f.type)
      .filter((d) => !f.status || d.status === f.status)
      .filter((d) => !f.since || d.createdAt >= f.since)
      .filter((d) => !f.until || d.createdAt <= f.until)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    if (!shown.length) {
      tbody.replaceChildren(el("tr", {}, el("td", { colspan: 7, class: "muted" }, "No deliveries match.")));
      return;
    }
    tbody.replaceChildren(...shown.map((d) => {
      const final = d.status !== "pending";
      return el("tr", { "data-delivery-id": d.id, "data-status": d.status },
        el("td", {}, when(d.createdAt)),
        el("td", {}, d.eventType, el("div", {}, el("code", {}, d.eventId))),
        el("td", {}, el("code", {}, d.endpointId)),
        el("td", {}, badge(d.status)),
        el("td", {}, String(d.attemptCount)),
        el("td", {}, when(d.nextAttemptAt)),
        el("td", {}, el("div", { class: "actions" },
          el("button", { type: "button", "data-action": "view", onclick: () => openDetail(d.id) }, "Attempts"),
          final ? el("button", { type: "button", "data-action": "resend", onclick: () => resend(d.id) }, "Resend") : null)));
    }));
  }

  async function resend(id) {
    const r = await attempt("Resending", () => admin("POST", `/deliveries/${seg(id)}/resend`, {}));
    if (!r) return;
    notice(`Delivery ${r.id} resent: pending again, its next attempt is on its way.`);
    rows = rows.map((d) => (d.id === r.id ? r : d));
    render();
    await openDetail(id);
  }

  async function openDetail(id) {
    const d = await attempt("Reading the delivery", () => admin("GET", `/deliveries/${seg(id)}`));
    if (!d) return;
    const attempts = el("tbody", {}, d.attempts.length
      ? d.attempts.map((a) => el("tr", { "data-attempt": a.number },
        el("td", {}, String(a.number)),
        el("td", {}, when(a.at)),
        el("td", { "data-field": "status" }, a.statusCode === null ? "—" : String(a.statusCode)),
        el("td", {}, `${a.durationMs} ms`),
        el("td", {}, a.error || "—"),
        el("td", {}, a.responseBody ? el("pre", {}, a.responseBody) : el("span", { class: "muted" }, "(empty)")),
        el("td", {}, a.succeeded ? badge("succeeded") : badge("failed"))))
      : el("tr", {}, el("td", { colspan: 7, class: "muted" }, "No attempt yet.")));
    const final = d.status !== "pending";
    detail.replaceChildren(el("div", { class: "card", "data-delivery-id": d.id },
      el("h3", {}, "Delivery ", el("code", {}, d.id), " ", badge(d.status)),
      el("p", {}, `${d.eventType} · event `, el("code", {}, d.eventId), " · endpoint ",
        el("code", {}, d.endpointId), ` · ${d.mode} · created ${when(d.createdAt)}`),
      el("p", { id: "next-retry" }, d.nextAttemptAt
        ? `Next attempt at ${when(d.nextAttemptAt)}.`
        : "No further attempt is scheduled (final)."),
      el("table", { id: "attempts" },
        el("thead", {}, el("tr", {},
          ["#", "Time", "Status code", "Latency", "Error", "Response (start)", "Outcome"].map((h) => el("th", {}, h)))),
        attempts),
      el("div", { class: "row" },
        final ? el("button", { type: "button", id: "detail-resend", class: "primary", onclick: () => resend(d.id) }, "Resend") : null,
        el("button", { type: "button", id: "detail-refresh", onclick: () => openDetail(d.id) }, "Refresh"))));
    detail.scrollIntoView({ block: "nearest" });
  }
})();
