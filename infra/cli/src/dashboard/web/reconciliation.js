"use strict";
// The daily reconciliation against the bank: for one business day (yesterday in Istanbul
// by default), each POS account's report (status, counts) and its mismatch lines, and the
// day as CSV (the API's own, saved as it came). Read-only.

(() => {
  const { el, admin, adminText, badge, failure, showError, notice, state, tl, seg } = PG;

  // Istanbul keeps UTC+3 all year (as the API's business days do).
  const ISTANBUL_OFFSET_MS = 3 * 3600 * 1000;
  const DAY_MS = 24 * 3600 * 1000;

  const COUNTS = [
    ["matched", "Matched"],
    ["missingAtBank", "Missing at the bank"],
    ["missingHere", "Missing here"],
    ["amountMismatch", "Amount mismatches"],
    ["stateMismatch", "State mismatches"],
    ["unsettledHere", "Unsettled here"],
  ];

  const STATUS_BADGE = { clean: "succeeded", mismatches: "failed", incomplete: "pending" };

  // The day chosen last (kept while the page is open).
  let chosen = "";

  // Yesterday's business day in Istanbul, YYYY-MM-DD.
  function yesterday() {
    return new Date(Date.now() + ISTANBUL_OFFSET_MS - DAY_MS).toISOString().slice(0, 10);
  }

  PG.views.reconciliation = async (view) => {
    chosen = chosen || yesterday();
    const date = el("input", { type: "date", id: "rc-date", value: chosen, required: true });
    const result = el("div", { id: "rc-result" });
    const show = el("button", { type: "submit", class: "primary", id: "rc-show" }, "Show");
    const csv = el("button", { type: "button", id: "rc-csv" }, "Download CSV");
    const form = el("form", { id: "rc-form" }, el("label", {}, "Business day (Istanbul)", date), show, csv);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      chosen = date.value;
      load(result, chosen);
    });
    csv.addEventListener("click", () => download(date.value || chosen, csv));
    view.replaceChildren(el("h2", {}, "Daily reconciliation"),
      el("p", { class: "muted" },
        "Each POS account's transactions of the day compared with the bank's record of them. "
        + "The nightly run reconciles yesterday between 00:15 and 02:15 Istanbul."),
      el("div", { class: "card" }, form), result);
    await load(result, chosen);
  };

  async function load(slot, date) {
    if (!date) return;
    slot.replaceChildren(el("p", { class: "muted" }, "Loading…"));
    let answer;
    try {
      answer = await admin("GET", "/reconciliations", undefined, { date });
    } catch (err) {
      slot.replaceChildren(failure(err, "Reading the reconciliation"));
      return;
    }
    const reports = answer && Array.isArray(answer.data) ? answer.data : [];
    if (!reports.length) {
      slot.replaceChildren(el("p", { class: "muted", id: "rc-empty", "data-date": date },
        `No report yet for ${date}: the day has not been reconciled (or the merchant has no POS account).`));
      return;
    }
    slot.replaceChildren(...reports.map(report));
  }

  function report(r) {
    const counts = r.counts || {};
    const mismatches = (r.findings || []).filter((f) => f.kind !== "matched");
    return el("div", { class: "card report", "data-account-id": r.accountId, "data-status": r.status },
      el("h3", {}, el("code", {}, r.accountId), " ", badge(r.status, STATUS_BADGE[r.status] || "pending"),
        el("span", { class: "muted" }, ` ${r.mode} · ${r.source === "history" ? "bank's day history" : "per-payment query"} · generated ${PG.when(r.generatedAt)}`)),
      r.incompleteReason ? el("p", { class: "failure", "data-field": "incomplete" }, `Incomplete: ${r.incompleteReason}`) : null,
      el("div", { class: "figures" }, COUNTS.map(([k, label]) =>
        el("div", { "data-figure": k }, label, el("b", {}, String(counts[k] ?? "—"))))),
      mismatches.length ? findings(mismatches) : el("p", { class: "muted" }, "No mismatches."),
      r.truncated ? el("p", { class: "muted" }, "More findings than the report keeps (1000); the counts are whole.") : null);
  }

  function findings(list) {
    return el("table", { class: "rc-findings" },
      el("thead", {}, el("tr", {},
        ["Kind", "Order id", "Operation", "Our amount", "Bank amount", "Payment", "Notes"].map((h) => el("th", {}, h)))),
      el("tbody", {}, list.map((f) => el("tr", { "data-kind": f.kind, "data-order-id": f.orderId },
        el("td", {}, el("code", {}, f.kind)),
        el("td", { "data-field": "order" }, el("code", {}, f.orderId)),
        el("td", {}, f.operation),
        el("td", { "data-field": "amount" }, tl(f.amount)),
        el("td", { "data-field": "bankAmount" }, tl(f.bankAmount)),
        el("td", { "data-field": "payment" }, f.paymentId
          ? el("a", { href: `#/payment/${seg(f.paymentId)}` }, el("code", {}, f.paymentId)) : "—"),
        el("td", {}, notes(f))))));
  }

  function notes(f) {
    const n = [];
    if (f.status) n.push(`ours ${f.status}`);
    if (f.origin === "external") n.push("external (done at the bank)");
    if (f.settledFromBankRecords) n.push("settled from the bank's records");
    if (f.bankRrn) n.push(`rrn ${f.bankRrn}`);
    return n.length ? n.join(", ") : "—";
  }

  // Fetches the day as CSV (signed by the local server) and saves it.
  async function download(date, button) {
    if (!date) return;
    button.disabled = true;
    try {
      const text = await adminText("/reconciliations", { date, format: "csv" });
      const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
      const a = el("a", { href: url, download: `reconciliation-${state.merchant}-${date}.csv`, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      notice(`Saved reconciliation-${state.merchant}-${date}.csv`);
    } catch (err) {
      showError(err, "Downloading the CSV");
    } finally {
      button.disabled = false;
    }
  }
})();
