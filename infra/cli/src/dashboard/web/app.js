"use strict";
// The shell: merchant selector, navigation by the URL's fragment (#/endpoints,
// #/deliveries, #/keys, #/audit, #/reconciliation, #/payment[/<id>]), the config from the
// local server.

(() => {
  const { el, $, call, attempt, clearMessages } = PG;
  const STORE = "paygate.dashboard.merchant";

  function current() {
    const name = (location.hash.match(/^#\/(\w+)/) || [])[1];
    return PG.views[name] ? name : "endpoints";
  }

  async function render() {
    const name = current();
    for (const a of document.querySelectorAll("nav a")) {
      a.classList.toggle("active", a.id === `nav-${name}`);
    }
    const view = $("#view");
    if (!PG.state.merchant) {
      view.replaceChildren(el("p", { class: "muted" }, "Choose a merchant (its id, mch_…) above."));
      return;
    }
    view.replaceChildren(el("p", { class: "muted" }, "Loading…"));
    await PG.views[name](view);
  }

  function setMerchant(m) {
    PG.state.merchant = m.trim();
    try { localStorage.setItem(STORE, PG.state.merchant); } catch (_) { /* private mode */ }
  }

  async function start() {
    const config = await attempt("Reading the dashboard's configuration", () => call("GET", "/dashboard/config"));
    PG.state.config = config || { merchants: [] };
    $("#signing").textContent = config ? `signed with ${config.signing}` : "";
    $("#api-url").textContent = config ? config.apiUrl : "the API";
    $("#merchant-list").replaceChildren(...PG.state.config.merchants.map((m) => el("option", { value: m })));
    let stored = "";
    try { stored = localStorage.getItem(STORE) || ""; } catch (_) { stored = ""; }
    setMerchant(stored || PG.state.config.merchants[0] || "");
    const input = $("#merchant");
    input.value = PG.state.merchant;
    input.addEventListener("change", () => { setMerchant(input.value); clearMessages(); render(); });
    window.addEventListener("hashchange", () => { clearMessages(); render(); });
    await render();
  }

  start();
})();
