"use strict";
// paygate dashboard: what every page shares. No framework and no HTML parsing: every value
// reaches the page through text nodes or attributes set one by one (PG.el), so nothing the
// API returns is ever parsed as HTML.

const PG = (() => {
  const token = document.querySelector('meta[name="paygate-dashboard-token"]').content;
  const state = { merchant: "", config: null };
  const views = {};

  class ApiError extends Error {
    constructor(method, path, status, code, message) {
      super(message);
      this.method = method;
      this.path = path;
      this.status = status;
      this.code = code;
    }
    describe() {
      const status = this.status ? `HTTP ${this.status} ` : "";
      return `${this.method} ${this.path} → ${status}${this.code}: ${this.message}`;
    }
  }

  // One call of the local server (which signs and forwards /admin/v1/… calls). The answer's
  // JSON, or an ApiError carrying the envelope's code and message.
  async function call(method, path, body) {
    const text = await exchange(method, path, body);
    try { return text ? JSON.parse(text) : null; } catch (_) { return null; }
  }

  // The same call; the 2xx answer's text as it came (the reconciliation CSV).
  async function exchange(method, path, body) {
    const headers = { "X-Paygate-Dashboard": token };
    // same-origin: the session cookie (HttpOnly, set by the launch link) goes along.
    const init = { method, headers, cache: "no-store", credentials: "same-origin", redirect: "error" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(path, init);
    } catch (_) {
      throw new ApiError(method, path, 0, "dashboard_unreachable",
        "The dashboard server does not answer: is `paygate dashboard` still running?");
    }
    const text = await resp.text();
    if (resp.ok) return text;
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
    const e = json && json.error ? json.error : {};
    throw new ApiError(method, path, resp.status, e.code || "error",
      e.message || text.slice(0, 200) || resp.statusText);
  }

  // `/admin/v1/merchants/<merchant><rest>?<query>`; each path part is encoded by the caller
  // with seg().
  function admin(method, rest, body, query) {
    if (!state.merchant) {
      return Promise.reject(new ApiError(method, rest, 0, "no_merchant", "Choose a merchant first."));
    }
    return call(method, adminPath(rest, query), body);
  }

  // A GET of admin(), its answer's text (a CSV).
  function adminText(rest, query) {
    if (!state.merchant) {
      return Promise.reject(new ApiError("GET", rest, 0, "no_merchant", "Choose a merchant first."));
    }
    return exchange("GET", adminPath(rest, query));
  }

  function adminPath(rest, query) {
    let path = `/admin/v1/merchants/${seg(state.merchant)}${rest}`;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query || {})) {
      if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
    }
    if ([...q.keys()].length) path += `?${q}`;
    return path;
  }

  function seg(s) {
    return encodeURIComponent(String(s));
  }

  // createElement with attributes (`on…` handlers, `class`, booleans) and children (strings
  // become text nodes; null and false are skipped; arrays are flattened).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
      else if (k === "class") e.className = v;
      else if (k === "value") e.value = v;
      else if (k === "checked") e.checked = Boolean(v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    append(e, children);
    return e;
  }

  function append(parent, children) {
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }

  function $(sel) {
    return document.querySelector(sel);
  }

  function showError(err, context) {
    const box = $("#error");
    const text = err instanceof ApiError ? err.describe() : String(err && err.message || err);
    box.replaceChildren(
      el("span", { id: "error-text" }, context ? `${context} failed: ` : "", text),
      el("button", { type: "button", onclick: clearMessages }, "Dismiss"));
    box.hidden = false;
    $("#notice").hidden = true;
  }

  function notice(text) {
    const box = $("#notice");
    box.replaceChildren(text);
    box.hidden = false;
    $("#error").hidden = true;
  }

  function clearMessages() {
    $("#error").hidden = true;
    $("#notice").hidden = true;
  }

  // Runs an action; its failure goes to the error banner. Returns the action's result, or
  // undefined when it failed.
  async function attempt(context, fn) {
    try {
      return await fn();
    } catch (e) {
      showError(e, context);
      return undefined;
    }
  }

  // `2026-11-21T09:45:00.120Z` → `2026-11-21 09:45:00Z` (UTC, as the API gives it).
  function when(s) {
    if (!s) return "—";
    return String(s).replace("T", " ").replace(/\.\d+Z$/, "Z");
  }

  // Kuruş (integer) as TL: 123456 → "1234.56 TL"; absent → "—".
  function tl(kurus) {
    if (typeof kurus !== "number" || !Number.isInteger(kurus)) return "—";
    const abs = Math.abs(kurus);
    const sign = kurus < 0 ? "-" : "";
    return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")} TL`;
  }

  function badge(text, kind) {
    return el("span", { class: `badge ${kind || text}` }, text);
  }

  // A card showing a secret this once, with a copy button. Nothing keeps the secret once
  // the card is dismissed or the page is left.
  function secretCard(title, secret, lines) {
    const copy = el("button", { type: "button", id: "secret-copy" }, "Copy");
    const value = el("code", { id: "secret-value" }, secret);
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(secret);
        copy.textContent = "Copied";
      } catch (_) {
        const range = document.createRange();
        range.selectNodeContents(value);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        copy.textContent = "Selected: press Ctrl+C";
      }
    });
    const card = el("div", { class: "card secret", id: "secret-once" },
      el("h3", {}, title),
      el("p", {}, "Shown this once: store it now. Neither the API nor this page can show it again."),
      el("div", { class: "row" }, value, copy,
        el("button", { type: "button", onclick: () => card.remove() }, "I have stored it")),
      (lines || []).map((l) => el("p", { class: "muted" }, l)));
    return card;
  }

  // A failed call shown twice: in the banner, and as the element returned, for the panel
  // where the action was started (method, path, HTTP status, the envelope's code and
  // message; `data-error-code` carries the code).
  function failure(err, context) {
    showError(err, context);
    const text = err instanceof ApiError ? err.describe() : String(err && err.message || err);
    return el("p", { class: "failure", "data-error-code": err && err.code ? err.code : "error" },
      `${context} failed: ${text}`);
  }

  // An ISO time from a datetime-local input (local time), or "".
  function isoFromLocal(value) {
    if (!value) return "";
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? "" : d.toISOString();
  }

  // A Date as a datetime-local input's value (local time, to the minute).
  function localInput(d) {
    const p = (n) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
  }

  const EVENT_TYPES = [
    "payment.requires_action", "payment.authorized", "payment.captured", "payment.failed",
    "payment.cancelled", "payment.refunded", "webhook.test",
  ];

  return {
    state, views, ApiError, call, admin, adminText, seg, el, append, $, showError, notice, clearMessages,
    attempt, when, tl, badge, secretCard, failure, isoFromLocal, localInput, EVENT_TYPES,
  };
})();
