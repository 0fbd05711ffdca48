"use strict";
// API keys: issue (the secret shown once), list, roll with an expiry for the old key,
// revoke. A server without these routes answers 404: the page says they are not available.

(() => {
  const { el, admin, seg, attempt, notice, when, badge, secretCard, unavailable } = PG;

  let secretSlot;
  let listSlot;

  PG.views.keys = async (view) => {
    secretSlot = el("div", { id: "secret-slot" });
    listSlot = el("div", { id: "keys-list" });
    view.replaceChildren(issueForm(), secretSlot, el("h2", {}, "API keys"), listSlot);
    await refresh();
  };

  async function refresh() {
    let list;
    try {
      list = await admin("GET", "/api-keys");
    } catch (err) {
      const u = unavailable(err, "API key management");
      listSlot.replaceChildren(...(u ? [u] : []));
      return;
    }
    if (!list.data.length) {
      listSlot.replaceChildren(el("p", { class: "muted" }, "No API keys."));
      return;
    }
    listSlot.replaceChildren(el("table", { id: "keys" },
      el("thead", {}, el("tr", {},
        ["Key", "Mode", "Name", "Created", "Last used", "Expires", "Status", "Actions"].map((h) => el("th", {}, h)))),
      el("tbody", {}, list.data.map(row))));
  }

  function row(k) {
    const hours = el("input", { type: "number", min: 0, max: 168, value: 24, class: "roll-hours", title: "hours the old key keeps working" });
    const roll = el("button", { type: "button", "data-action": "roll" }, "Roll");
    const revoke = el("button", { type: "button", class: "danger", "data-action": "revoke" }, "Revoke");
    roll.addEventListener("click", async () => {
      const r = await attempt("Rolling the key", () =>
        admin("POST", `/api-keys/${seg(k.id)}/roll`, { expiresInHours: Number(hours.value) }));
      if (!r) return;
      secretSlot.replaceChildren(secretCard(`New ${r.mode} key ${r.id}`, r.secret,
        [`The old key ${k.id} keeps working for ${Number(hours.value)} hour(s).`]));
      await refresh();
    });
    revoke.addEventListener("click", async () => {
      if (revoke.dataset.armed !== "1") {
        revoke.dataset.armed = "1";
        revoke.textContent = "Really revoke now?";
        return;
      }
      if (await attempt("Revoking the key", () => admin("DELETE", `/api-keys/${seg(k.id)}`))) {
        notice(`Key ${k.id} revoked.`);
        await refresh();
      }
    });
    const live = k.status !== "revoked" && k.status !== "expired";
    return el("tr", { "data-key-id": k.id },
      el("td", {}, el("code", {}, `${k.prefix}…${k.last4}`), el("div", { class: "muted" }, el("code", {}, k.id))),
      el("td", {}, k.mode),
      el("td", {}, k.name || "—"),
      el("td", {}, when(k.createdAt)),
      el("td", {}, when(k.lastUsedAt)),
      el("td", {}, when(k.expiresAt)),
      el("td", {}, badge(k.status || "active")),
      el("td", {}, live ? el("div", { class: "actions" }, el("label", { class: "inline" }, "old key for", hours, "h"), roll, revoke) : null));
  }

  function issueForm() {
    const mode = el("select", { id: "key-mode" }, el("option", { value: "test" }, "test"), el("option", { value: "live" }, "live"));
    const name = el("input", { id: "key-name", placeholder: "optional" });
    const form = el("form", { id: "issue-key" },
      el("label", {}, "Mode", mode), el("label", {}, "Name", name),
      el("button", { type: "submit", class: "primary", id: "key-issue" }, "Issue a key"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = { mode: mode.value };
      if (name.value.trim()) body.name = name.value.trim();
      let k;
      try {
        k = await admin("POST", "/api-keys", body);
      } catch (err) {
        const u = unavailable(err, "API key management");
        if (u) listSlot.replaceChildren(u);
        return;
      }
      secretSlot.replaceChildren(secretCard(`New ${k.mode} key ${k.id}`, k.secret, []));
      name.value = "";
      await refresh();
    });
    return el("div", { class: "card" }, el("h2", {}, "Issue an API key"), form);
  }
})();
