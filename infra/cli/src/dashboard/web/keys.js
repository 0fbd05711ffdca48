"use strict";
// API keys: issue (the secret shown once), list, roll with an expiry for the old key
// (1 to 168 hours), revoke (two clicks). Keys are stored hashed: the list shows the prefix
// and the last four characters, never a key.

(() => {
  const { el, admin, seg, attempt, notice, when, badge, secretCard, failure } = PG;

  // The API's bounds for the old key's expiry on a roll.
  const ROLL_HOURS_MIN = 1;
  const ROLL_HOURS_MAX = 168;

  let secretSlot;
  let listSlot;

  PG.views.keys = async (view) => {
    secretSlot = el("div", { id: "secret-slot" });
    listSlot = el("div", { id: "keys-list" });
    view.replaceChildren(issueForm(), secretSlot, el("h2", {}, "API keys"), listSlot);
    await refresh();
  };

  // Reloads the list; the keys listed, or null when the call failed.
  async function refresh() {
    let list;
    try {
      list = await admin("GET", "/api-keys");
    } catch (err) {
      listSlot.replaceChildren(failure(err, "Listing the API keys"));
      return null;
    }
    if (!list.data.length) {
      listSlot.replaceChildren(el("p", { class: "muted" }, "No API keys."));
      return list.data;
    }
    listSlot.replaceChildren(el("table", { id: "keys" },
      el("thead", {}, el("tr", {},
        ["Key", "Mode", "Name", "Created", "Last used", "Expires", "Status", "Actions"].map((h) => el("th", {}, h)))),
      el("tbody", {}, list.data.map(row))));
    return list.data;
  }

  function row(k) {
    const hours = el("input", {
      type: "number", min: ROLL_HOURS_MIN, max: ROLL_HOURS_MAX, step: 1, value: 24,
      class: "roll-hours", title: `hours the old key keeps working (${ROLL_HOURS_MIN} to ${ROLL_HOURS_MAX})`,
    });
    const roll = el("button", { type: "button", "data-action": "roll" }, "Roll");
    const revoke = el("button", { type: "button", class: "danger", "data-action": "revoke" }, "Revoke");
    roll.addEventListener("click", async () => {
      const h = Number(hours.value);
      if (!Number.isInteger(h) || h < ROLL_HOURS_MIN || h > ROLL_HOURS_MAX) {
        PG.showError(new Error(`The old key's expiry must be ${ROLL_HOURS_MIN} to ${ROLL_HOURS_MAX} hours.`), "Rolling the key");
        return;
      }
      roll.disabled = true;
      const r = await attempt("Rolling the key", () =>
        admin("POST", `/api-keys/${seg(k.id)}/roll`, { expiresInHours: h }));
      roll.disabled = false;
      if (!r) return;
      const keys = await refresh();
      const old = (keys || []).find((x) => x.id === k.id);
      secretSlot.replaceChildren(keyCard(r, [
        old && old.expiresAt
          ? `The old key ${k.id} (…${k.last4}) keeps working until ${when(old.expiresAt)}.`
          : `The old key ${k.id} (…${k.last4}) keeps working until its expiry (see the list).`]));
    });
    revoke.addEventListener("click", async () => {
      // Two clicks: the first arms the button.
      if (revoke.dataset.armed !== "1") {
        revoke.dataset.armed = "1";
        revoke.textContent = "Really revoke now?";
        return;
      }
      revoke.disabled = true;
      const r = await attempt("Revoking the key", () => admin("DELETE", `/api-keys/${seg(k.id)}`));
      revoke.disabled = false;
      if (r) {
        // A key shown above and now revoked is of no use: its card goes.
        const card = secretSlot.querySelector("#secret-once");
        if (card && card.dataset.keyId === r.id) card.remove();
        notice(`Key ${r.id} (…${r.last4}) revoked: it is refused from now on.`);
        await refresh();
      }
    });
    const live = k.status === "active" || k.status === "expiring";
    return el("tr", { "data-key-id": k.id, "data-status": k.status },
      el("td", {}, el("code", { "data-field": "key" }, `${k.prefix}…${k.last4}`), el("div", { class: "muted" }, el("code", {}, k.id))),
      el("td", {}, k.mode),
      el("td", {}, k.name || "—"),
      el("td", {}, when(k.createdAt)),
      el("td", {}, when(k.lastUsedAt)),
      el("td", { "data-field": "expires" }, when(k.expiresAt)),
      el("td", { "data-field": "status" }, badge(k.status)),
      // Only an active key rolls (a rolled one is expiring: the API answers 409); a live key revokes.
      el("td", {}, live ? el("div", { class: "actions" }, k.status === "active" && [el("label", { class: "inline" }, "old key for", hours, "h"), roll], revoke) : null));
  }

  // The secret card of a new key, marked with the key's id.
  function keyCard(k, lines) {
    const card = secretCard(`New ${k.mode} key ${k.id}`, k.secret, lines);
    card.dataset.keyId = k.id;
    return card;
  }

  function issueForm() {
    const mode = el("select", { id: "key-mode" }, el("option", { value: "test" }, "test"), el("option", { value: "live" }, "live"));
    const name = el("input", { id: "key-name", placeholder: "optional", maxlength: 100 });
    const submit = el("button", { type: "submit", class: "primary", id: "key-issue" }, "Issue a key");
    const form = el("form", { id: "issue-key" },
      el("label", {}, "Mode", mode), el("label", {}, "Name", name), submit);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = { mode: mode.value };
      if (name.value.trim()) body.name = name.value.trim();
      submit.disabled = true;
      const k = await attempt("Issuing a key", () => admin("POST", "/api-keys", body));
      submit.disabled = false;
      if (!k) return;
      secretSlot.replaceChildren(keyCard(k,
        [`Send it as Authorization: Bearer <key> on the merchant API (${k.mode} mode).`]));
      name.value = "";
      await refresh();
    });
    return el("div", { class: "card" }, el("h2", {}, "Issue an API key"), form);
  }
})();
