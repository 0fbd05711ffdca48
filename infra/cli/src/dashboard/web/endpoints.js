"use strict";
// Webhook endpoints: list, create (the secret shown once), test event, rotate with grace,
// enable/disable, delete, recover failed deliveries, health.

(() => {
  const { el, admin, seg, attempt, notice, when, badge, secretCard, failure } = PG;

  // Most recover calls one click makes, each resending at most 500 deliveries (the API's
  // bound); past them the page says more remain.
  const RECOVER_ROUNDS = 20;

  // Where a secret, a health panel or a recover form appears; kept across list refreshes.
  let secretSlot;
  let panelSlot;
  let listBody;

  PG.views.endpoints = async (view) => {
    secretSlot = el("div", { id: "secret-slot" });
    panelSlot = el("div", { id: "endpoint-panel" });
    listBody = el("tbody", {});
    view.replaceChildren(
      createForm(),
      secretSlot,
      el("h2", {}, "Endpoints"),
      el("table", { id: "endpoints" },
        el("thead", {}, el("tr", {},
          ["Endpoint", "URL", "Events", "Mode", "Status", "Actions"].map((h) => el("th", {}, h)))),
        listBody),
      panelSlot);
    await refresh();
  };

  async function refresh() {
    const list = await attempt("Listing endpoints", () => admin("GET", "/webhook-endpoints"));
    if (!list) {
      listBody.replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "Could not load the endpoints.")));
      return;
    }
    PG.state.endpoints = list.data;
    if (!list.data.length) {
      listBody.replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "No endpoints yet.")));
      return;
    }
    listBody.replaceChildren(...list.data.map(row));
  }

  function statusCell(e) {
    if (e.enabled) {
      return [badge("enabled"), e.failingSince ? el("div", { class: "muted" }, `failing since ${when(e.failingSince)}`) : null];
    }
    const why = e.disabledReason === "failing"
      ? "disabled: every delivery failed for days"
      : e.disabledReason === "manual" ? "disabled by an operator" : null;
    return [badge("disabled"), why ? el("div", { class: "muted", "data-disabled-reason": e.disabledReason }, why) : null];
  }

  function row(e) {
    const act = (label, fn, cls) =>
      el("button", { type: "button", class: cls || null, "data-action": label.toLowerCase() }, label);
    const buttons = el("div", { class: "actions" },
      act("Test"), act("Deliveries"), act("Health"), act("Rotate"),
      act(e.enabled ? "Disable" : "Enable"), act("Recover"), act("Delete", null, "danger"));
    buttons.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (b) onAction(e, b);
    });
    return el("tr", { "data-endpoint-id": e.id },
      el("td", {}, el("code", {}, e.id), e.description ? el("div", { class: "muted" }, e.description) : null),
      el("td", {}, el("code", {}, e.url)),
      el("td", {}, e.events.join(", ")),
      el("td", {}, e.mode),
      el("td", {}, statusCell(e)),
      el("td", {}, buttons));
  }

  async function onAction(e, button) {
    const id = seg(e.id);
    switch (button.dataset.action) {
      case "test": {
        const d = await attempt("Sending a test event", () => admin("POST", `/webhook-endpoints/${id}/test`, {}));
        if (d) notice(`Test event sent: delivery ${d.id} (${d.status}). Open Deliveries to follow its attempts.`);
        break;
      }
      case "deliveries":
        PG.state.deliveryFilter = { endpoint: e.id };
        location.hash = "#/deliveries";
        break;
      case "health":
        await showHealth(e);
        break;
      case "rotate":
        panelSlot.replaceChildren(rotateForm(e));
        break;
      case "disable":
      case "enable": {
        const enabled = button.dataset.action === "enable";
        const r = await attempt(enabled ? "Enabling" : "Disabling",
          () => admin("PATCH", `/webhook-endpoints/${id}`, { enabled }));
        if (r) { notice(`${e.id} ${enabled ? "enabled" : "disabled"}.`); await refresh(); }
        break;
      }
      case "recover":
        panelSlot.replaceChildren(recoverForm(e));
        break;
      case "delete":
        // Two clicks: the first arms the button.
        if (button.dataset.armed !== "1") {
          button.dataset.armed = "1";
          button.textContent = "Really delete?";
          return;
        }
        if (await attempt("Deleting", () => admin("DELETE", `/webhook-endpoints/${id}`))) {
          notice(`${e.id} deleted (its delivery history stays readable by delivery and event id).`);
          await refresh();
        }
        break;
      default:
    }
  }

  function createForm() {
    const url = el("input", { id: "ep-url", type: "url", required: true, size: 40, placeholder: "https://shop.example/webhooks" });
    const all = el("input", { type: "checkbox", id: "ep-all", value: "*", checked: true });
    const types = PG.EVENT_TYPES.filter((t) => t !== "webhook.test").map((t) =>
      el("label", { class: "inline" }, el("input", { type: "checkbox", class: "ep-event", value: t }), t));
    const mode = el("select", { id: "ep-mode" }, el("option", { value: "test" }, "test"), el("option", { value: "live" }, "live"));
    const description = el("input", { id: "ep-description", placeholder: "optional" });
    const form = el("form", { id: "create-endpoint" },
      el("label", {}, "URL", url),
      el("label", {}, "Mode", mode),
      el("label", {}, "Description", description),
      el("div", {},
        el("div", { class: "muted" }, "Events"),
        el("div", { class: "row" }, el("label", { class: "inline" }, all, "all (*)"), types)),
      el("button", { type: "submit", class: "primary", id: "ep-create" }, "Add endpoint"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const picked = [...form.querySelectorAll(".ep-event:checked")].map((c) => c.value);
      const events = all.checked || !picked.length ? ["*"] : picked;
      const body = { url: url.value.trim(), events, mode: mode.value };
      if (description.value.trim()) body.description = description.value.trim();
      const created = await attempt("Adding the endpoint", () => admin("POST", "/webhook-endpoints", body));
      if (!created) return;
      secretSlot.replaceChildren(secretCard(`Signing secret of ${created.id}`, created.secret,
        ["Verify each webhook's X-Svc-Signature with it (see docs/webhooks.md in the paygate repository)."]));
      url.value = "";
      description.value = "";
      notice(`Endpoint ${created.id} added.`);
      await refresh();
    });
    return el("div", { class: "card" }, el("h2", {}, "Add a webhook endpoint"), form);
  }

  function rotateForm(e) {
    const grace = el("select", { id: "rotate-grace" },
      el("option", { value: "0" }, "none (old secret stops now)"),
      el("option", { value: "3600" }, "1 hour"),
      el("option", { value: "86400", selected: true }, "24 hours (default)"),
      el("option", { value: "604800" }, "7 days"));
    const form = el("form", { id: "rotate-form" },
      el("label", {}, "The old secret keeps signing for", grace),
      el("button", { type: "submit", class: "primary" }, "Rotate the secret"),
      el("button", { type: "button", onclick: () => panelSlot.replaceChildren() }, "Cancel"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const r = await attempt("Rotating the secret", () =>
        admin("POST", `/webhook-endpoints/${seg(e.id)}/rotate-secret`, { graceSeconds: Number(grace.value) }));
      if (!r) return;
      panelSlot.replaceChildren();
      secretSlot.replaceChildren(secretCard(`New signing secret of ${r.id}`, r.secret, [
        r.previousSecretExpiresAt
          ? `The previous secret keeps signing until ${when(r.previousSecretExpiresAt)}.`
          : "The previous secret no longer signs."]));
    });
    return el("div", { class: "card" }, el("h3", {}, `Rotate the signing secret of ${e.id}`), form);
  }

  function recoverForm(e) {
    const since = el("input", { id: "recover-since", type: "datetime-local", required: true,
      value: PG.localInput(new Date(Date.now() - 24 * 3600 * 1000)) });
    const out = el("div", { id: "recover-result" });
    const submit = el("button", { type: "submit", class: "primary", id: "recover-submit" }, "Recover");
    const form = el("form", { id: "recover-form" },
      el("label", {}, "Resend every failed delivery created since (local time)", since),
      submit,
      el("button", { type: "button", onclick: () => panelSlot.replaceChildren() }, "Close"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const iso = PG.isoFromLocal(since.value);
      if (!iso) { PG.showError(new Error("Pick a valid time."), "Recover"); return; }
      submit.disabled = true;
      out.replaceChildren(el("p", { class: "muted" }, "Recovering…"));
      const total = { requested: 0, skipped: 0, calls: 0, more: false };
      try {
        await recoverAll(e, iso, total, () => out.replaceChildren(recoverSummary(total)));
        out.replaceChildren(recoverSummary(total));
        notice(`Recover of ${e.id}: ${total.requested} failed deliver${total.requested === 1 ? "y" : "ies"} resent.`);
      } catch (err) {
        out.replaceChildren(total.calls ? recoverSummary(total) : "", failure(err, "Recover"));
      } finally {
        submit.disabled = false;
      }
    });
    return el("div", { class: "card" }, el("h3", {}, `Recover failed deliveries of ${e.id}`), form, out);
  }

  // Calls recover from `since` while the API says more may follow (`since` = its
  // `lastCreatedAt`), at most RECOVER_ROUNDS times, adding up into `total`. A call that
  // looks at nothing ends it too (no progress to make).
  async function recoverAll(e, since, total, progress) {
    let from = since;
    for (;;) {
      const r = await admin("POST", `/webhook-endpoints/${seg(e.id)}/recover`, { since: from });
      total.calls += 1;
      total.requested += r.requested;
      total.skipped += r.skipped;
      total.more = Boolean(r.more);
      progress();
      if (!r.more || total.calls >= RECOVER_ROUNDS || r.requested + r.skipped === 0) return;
      from = r.lastCreatedAt || from;
    }
  }

  function recoverSummary(t) {
    return el("p", { id: "recover-summary", "data-requested": t.requested, "data-skipped": t.skipped, "data-more": String(t.more) },
      `Requested ${t.requested} resend(s); skipped ${t.skipped} (pending again already)`,
      ` · ${t.calls} call${t.calls === 1 ? "" : "s"}.`,
      t.more ? ` More may remain after ${RECOVER_ROUNDS} calls: run it again to continue.` : "");
  }

  async function showHealth(e) {
    const title = () => el("h3", {}, `Health of ${e.id}`,
      el("button", { type: "button", id: "health-refresh", onclick: () => showHealth(e) }, "Refresh"));
    const card = el("div", { class: "card", id: "health", "data-endpoint-id": e.id }, title(), el("p", { class: "muted" }, "Loading…"));
    panelSlot.replaceChildren(card);
    let h;
    try {
      h = await admin("GET", `/webhook-endpoints/${seg(e.id)}/health`);
    } catch (err) {
      card.replaceChildren(title(), failure(err, "Reading the endpoint's health"));
      return;
    }
    const rate = h.successRate === null || h.successRate === undefined
      ? "no attempts" : `${(h.successRate * 100).toFixed(1)} %`;
    const fig = (name, label, value) => el("div", { "data-figure": name },
      el("span", { class: "muted" }, label), el("b", {}, value));
    card.replaceChildren(title(), el("div", { class: "figures" },
      fig("successRate", "Success rate (24 h)", rate),
      fig("attempts24h", "Attempts (24 h)", String(h.attempts24h)),
      fig("lastSuccessAt", "Last success", when(h.lastSuccessAt)),
      fig("lastFailureAt", "Last failure", when(h.lastFailureAt)),
      fig("failingSince", "Failing since", when(h.failingSince)),
      fig("backlog", "Backlog (pending)", String(h.backlog)),
      fig("status", "Status", h.status + (h.disabledReason ? ` (${h.disabledReason})` : ""))));
  }
})();
