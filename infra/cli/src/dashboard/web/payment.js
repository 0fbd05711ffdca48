"use strict";
// One payment (#/payment/<id>, or looked up by id): its status and amounts, and every
// transaction with, for a declined or failed one, its stable decline code and what it
// means. Read-only.

(() => {
  const { el, admin, seg, badge, failure, when, tl } = PG;

  // What each stable decline code means (paygate_domain::DeclineCode::message in English;
  // a dashboard test holds the two equal).
  const DECLINE_MEANINGS = {
    insufficient_funds: "Insufficient funds on the card. Nothing was charged; the operation may pass later.",
    limit_exceeded: "The card's limit is reached. Nothing was charged; the operation may pass later.",
    do_not_honor: "The card's bank declined the operation. The cardholder should contact their bank.",
    card_expired: "The card has expired.",
    invalid_card: "The card number, expiry date or security code is not valid.",
    card_restricted: "The card may not be used for this operation.",
    lost_or_stolen: "The card is reported lost or stolen. Do not retry.",
    invalid_amount: "The amount is not valid for this operation.",
    already_reversed: "The order was already cancelled or refunded at the bank. Query the payment to see its state.",
    amount_exceeds_original: "The amount exceeds what is left of the original transaction.",
    after_end_of_day: "The bank's end-of-day cut has passed, so the payment can no longer be cancelled. Refund it instead.",
    refund_before_end_of_day: "The bank refunds only after its end-of-day cut. Cancel the payment today, or refund it after the cut.",
    not_found: "The bank has no record of the order or its original transaction.",
    duplicate_order: "The order id was already used at the bank.",
    operation_not_permitted: "The POS account may not do this operation. Ask the bank to enable it.",
    ip_not_allowed: "The bank refused the gateway's IP address for this POS account.",
    invalid_credentials: "The bank refused the POS account's credentials. Check the account's settings.",
    invalid_request: "The bank refused the request's content.",
    bank_unavailable: "A technical error at the bank; nothing was changed. Retry later.",
    outcome_unknown: "The bank's answer did not settle the outcome. Do not repeat the operation: query the payment to settle it.",
    unclassified: "The bank declined the operation.",
  };

  const TX_BADGE = { approved: "succeeded", declined: "failed", failed: "failed" };

  // The id of the fragment (#/payment/<id>), or "".
  function fragmentId() {
    const m = location.hash.match(/^#\/payment\/(.+)$/);
    if (!m) return "";
    try { return decodeURIComponent(m[1]); } catch (_) { return ""; }
  }

  PG.views.payment = async (view) => {
    const id = fragmentId();
    const input = el("input", { id: "pm-id", value: id, placeholder: "pay_…", required: true,
      autocomplete: "off", spellcheck: "false" });
    const form = el("form", { id: "pm-form" }, el("label", {}, "Payment id", input),
      el("button", { type: "submit", class: "primary", id: "pm-show" }, "Show"));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const next = `#/payment/${seg(input.value.trim())}`;
      // The same fragment fires no hashchange: read again in place.
      if (location.hash === next) PG.views.payment(view);
      else location.hash = next;
    });
    const result = el("div", { id: "pm-result" });
    view.replaceChildren(el("h2", {}, "Payment"), el("div", { class: "card" }, form), result);
    if (!id) return;
    result.replaceChildren(el("p", { class: "muted" }, "Loading…"));
    let p;
    try {
      p = await admin("GET", `/payments/${seg(id)}`);
    } catch (err) {
      result.replaceChildren(failure(err, "Reading the payment"));
      return;
    }
    result.replaceChildren(summary(p), transactions(p.transactions || []));
  };

  function summary(p) {
    const figures = [
      ["amount", "Amount", tl(p.amount)],
      ["capturedAmount", "Captured", tl(p.capturedAmount)],
      ["refundedAmount", "Refunded", tl(p.refundedAmount)],
      ["refundableAmount", "Refundable", tl(p.refundableAmount)],
    ];
    return el("div", { class: "card", id: "pm-payment", "data-payment-id": p.id, "data-status": p.status },
      el("h3", {}, el("code", {}, p.id), " ", badge(p.status, p.status === "failed" ? "failed" : "pending"),
        el("span", { class: "muted" }, ` ${p.mode} · ${p.currency} · order ${p.orderId} · account ${p.accountId}`)),
      el("div", { class: "figures" }, figures.map(([k, label, v]) =>
        el("div", { "data-figure": k }, label, el("b", {}, v)))),
      p.pendingOperation
        ? el("p", { class: "muted", "data-field": "pending" },
          `A ${p.pendingOperation.type} of ${tl(p.pendingOperation.amount)} is at the bank (${p.pendingOperation.state}) since ${when(p.pendingOperation.startedAt)}.`)
        : null,
      el("p", { class: "muted" }, `Created ${when(p.createdAt)} · updated ${when(p.updatedAt)}`));
  }

  function transactions(list) {
    if (!list.length) return el("p", { class: "muted", id: "pm-no-transactions" }, "No transactions.");
    return el("table", { id: "pm-transactions" },
      el("thead", {}, el("tr", {},
        ["Type", "Amount", "Status", "Reason", "Decline code", "Bank code", "RRN", "Created", "Settled", "Origin"]
          .map((h) => el("th", {}, h)))),
      el("tbody", {}, list.map((t) => el("tr", { "data-transaction-id": t.id, "data-type": t.type, "data-status": t.status },
        el("td", {}, t.type),
        el("td", { "data-field": "amount" }, tl(t.amount)),
        el("td", {}, badge(t.status, TX_BADGE[t.status] || "pending")),
        el("td", {}, t.reason || "—"),
        el("td", { "data-field": "declineCode" }, decline(t.declineCode)),
        el("td", {}, t.bankCode ? el("code", {}, t.bankCode) : "—", t.bankMessage ? el("div", { class: "muted" }, t.bankMessage) : null),
        el("td", {}, t.rrn ? el("code", {}, t.rrn) : "—"),
        el("td", {}, when(t.createdAt)),
        el("td", {}, when(t.settledAt)),
        el("td", {}, t.origin || "api")))));
  }

  function decline(code) {
    if (!code) return "—";
    const meaning = Object.prototype.hasOwnProperty.call(DECLINE_MEANINGS, code) ? DECLINE_MEANINGS[code] : "";
    return [el("code", {}, code), meaning ? el("div", { class: "muted", "data-field": "meaning" }, meaning) : null];
  }
})();
