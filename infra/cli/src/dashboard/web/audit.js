"use strict";
// The audit trail: every admin write of the merchant, newest first (who, what, when, how it
// ended), 20 a page with "Older" following the API's cursor. Read-only: records are
// append-only on the server.

(() => {
  const { el, admin, when, badge, failure } = PG;

  PG.views.audit = async (view) => {
    const list = el("div", { id: "audit-list" });
    view.replaceChildren(el("h2", {}, "Audit trail"),
      el("p", { class: "muted" }, "Every change made through the admin API (this page included), with the IAM principal that signed it."),
      list);
    await page(list, null, false);
  };

  // Loads one page into `slot` (appended after `cursor` when given).
  async function page(slot, cursor, append) {
    let answer;
    try {
      answer = await admin("GET", "/audit", undefined, { limit: 20, cursor });
    } catch (err) {
      slot.replaceChildren(failure(err, "Reading the audit trail"));
      return;
    }
    if (!append && !answer.data.length) {
      slot.replaceChildren(el("p", { class: "muted" }, "No admin writes recorded yet."));
      return;
    }
    let body = slot.querySelector("#audit tbody");
    if (!append || !body) {
      body = el("tbody", {});
      slot.replaceChildren(el("table", { id: "audit" },
        el("thead", {}, el("tr", {},
          ["When", "Action", "Outcome", "Mode", "Targets", "Principal", "Request"].map((h) => el("th", {}, h)))),
        body));
    }
    for (const r of answer.data) body.append(row(r));
    const old = slot.querySelector("#audit-older");
    if (old) old.remove();
    if (answer.nextCursor) {
      const more = el("button", { type: "button", id: "audit-older" }, "Older");
      more.addEventListener("click", () => { more.disabled = true; page(slot, answer.nextCursor, true); });
      slot.append(more);
    }
  }

  function row(r) {
    const outcome = [badge(r.outcome, r.outcome === "succeeded" ? "succeeded" : r.outcome === "unknown" ? "pending" : "failed")];
    if (r.status) outcome.push(" ", String(r.status));
    if (r.errorCode) outcome.push(" ", el("code", {}, r.errorCode));
    const targets = Object.entries(r.targets || {}).map(([k, v]) => el("div", {}, `${k} `, el("code", {}, v)));
    return el("tr", { "data-audit-id": r.id, "data-action": r.action, "data-outcome": r.outcome },
      el("td", {}, when(r.at)),
      el("td", { "data-field": "action" }, el("code", {}, r.action)),
      el("td", { "data-field": "outcome" }, outcome),
      el("td", {}, r.mode || "—"),
      el("td", {}, targets.length ? targets : "—"),
      el("td", { "data-field": "principal" }, el("code", {}, r.principal)),
      el("td", {}, el("code", {}, r.requestId)));
  }
})();
