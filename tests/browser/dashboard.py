"""The dashboard in real headless Chromium (Debian's /usr/bin/chromium, driven by the
Python `playwright` package through its executable path; Playwright's own browser download
is never used).

Started by tests/tests/dashboard/main.rs against a local stack and `paygate dashboard` on
free ports, with a local HTTPS receiver whose /ok path answers 200 and whose /fail path
answers 500 twice, then 200. Scenarios:

1. create an endpoint: its signing secret shows once; after a reload it is gone;
2. a refused create shows the API's error code and message;
3. send a test event: the delivery shows with its attempt (time, 200, latency);
4. a failing endpoint: its test delivery fails (two attempts, 500 each, with the
   response excerpt), is resent from the page, and succeeds on attempt 3;
5. rotate the secret (a new one shown once), disable and enable, delete;
6. health, recover and API keys render "not available" on a server without those routes.

With --shots DIR it writes the README's screenshots there. Prints one line per passed
step; exits non-zero with the reason on the first failure.
"""

import argparse
import re
import sys
import tempfile
import time

from playwright.sync_api import expect, sync_playwright

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SOON_MS = 20_000
BASE = ""


def step(name):
    print(f"ok: {name}", flush=True)


def wait_until(what, probe, within_s=20.0):
    deadline = time.monotonic() + within_s
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within_s}s: {what}")
        time.sleep(0.3)


def create_endpoint(page, url, description):
    page.goto(BASE + "#/endpoints")
    page.fill("#ep-url", url)
    page.select_option("#ep-mode", "test")
    page.fill("#ep-description", description)
    page.click("#ep-create")
    secret = page.locator("#secret-value")
    expect(secret).to_be_visible(timeout=SOON_MS)
    title = page.locator("#secret-once h3").inner_text()
    endpoint_id = re.search(r"whe_\w+", title).group(0)
    return endpoint_id, secret.inner_text()


def endpoint_row(page, endpoint_id):
    return page.locator(f'tr[data-endpoint-id="{endpoint_id}"]')


def send_test_event(page, endpoint_id):
    endpoint_row(page, endpoint_id).locator('button[data-action="test"]').click()
    notice = page.locator("#notice")
    expect(notice).to_contain_text("Test event sent", timeout=SOON_MS)
    return re.search(r"dlv_\w+", notice.inner_text()).group(0)


def delivery_with_status(page, endpoint_id, delivery_id, status):
    """Opens Deliveries for the endpoint and re-applies the filter until the delivery
    shows with `status` (the listing is eventually consistent)."""
    page.goto(BASE + "#/deliveries")
    page.locator("#f-endpoint").wait_for()
    page.select_option("#f-endpoint", endpoint_id)
    row = page.locator(f'#deliveries tr[data-delivery-id="{delivery_id}"]')

    def shown():
        page.click("#f-apply")
        page.wait_for_load_state("networkidle")
        return row.count() == 1 and row.get_attribute("data-status") == status

    wait_until(f"{delivery_id} {status} in the history", shown)
    return row


def attempts_of(page):
    rows = page.locator("#attempts tbody tr[data-attempt]")
    return [
        {
            "number": r.get_attribute("data-attempt"),
            "status": r.locator('td[data-field="status"]').inner_text(),
            "cells": [c.inner_text() for c in r.locator("td").all()],
        }
        for r in rows.all()
    ]


def run(page, args):
    global BASE
    BASE = args.url.rstrip("/") + "/"
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    # 1. the secret, once
    page.goto(BASE)
    expect(page.locator("#merchant")).to_have_value("mch_anatolia", timeout=SOON_MS)
    ok_id, secret = create_endpoint(page, args.ok_url, "dashboard browser test")
    assert re.fullmatch(r"whsec_[0-9a-f]{64}", secret), secret
    expect(endpoint_row(page, ok_id)).to_be_visible()
    if args.shots:
        page.screenshot(path=f"{args.shots}/dashboard-endpoints.png", full_page=True)
    page.reload()
    expect(endpoint_row(page, ok_id)).to_be_visible(timeout=SOON_MS)
    assert page.locator("#secret-value").count() == 0
    assert secret not in page.content(), "the secret is shown again after a reload"
    step("create an endpoint: the secret shows once, not after a reload")

    # 2. a refused call shows the envelope's code and message
    page.fill("#ep-url", "http://insecure.example/hooks")
    page.click("#ep-create")
    err = page.locator("#error-text")
    expect(err).to_contain_text("HTTP 400", timeout=SOON_MS)
    expect(err).to_contain_text("https")
    step("a refused create shows the API's code and message: " + err.inner_text())

    # 3. test event → delivery with its attempt
    delivery = send_test_event(page, ok_id)
    row = delivery_with_status(page, ok_id, delivery, "succeeded")
    row.locator('button[data-action="view"]').click()
    expect(page.locator("#attempts tbody tr[data-attempt]")).to_have_count(1, timeout=SOON_MS)
    attempts = attempts_of(page)
    assert attempts[0]["status"] == "200", attempts
    assert any(c.endswith(" ms") for c in attempts[0]["cells"]), attempts
    expect(page.locator("#next-retry")).to_contain_text("No further attempt")
    step("test event: the delivery shows with its attempt (200)")

    # 4. a failing endpoint, resent
    fail_id, _ = create_endpoint(page, args.fail_url, "answers 500")
    delivery = send_test_event(page, fail_id)
    row = delivery_with_status(page, fail_id, delivery, "failed")
    row.locator('button[data-action="view"]').click()
    expect(page.locator("#attempts tbody tr[data-attempt]")).to_have_count(2, timeout=SOON_MS)
    attempts = attempts_of(page)
    assert [a["status"] for a in attempts] == ["500", "500"], attempts
    if args.shots:
        page.screenshot(path=f"{args.shots}/dashboard-deliveries.png", full_page=True)
    page.click("#detail-resend")
    expect(page.locator("#notice")).to_contain_text("resent", timeout=SOON_MS)

    def succeeded():
        page.click("#detail-refresh")
        page.wait_for_load_state("networkidle")
        return [a["status"] for a in attempts_of(page)] == ["500", "500", "200"]

    wait_until("attempt 3 succeeds after the resend", succeeded)
    step("a failed delivery (500, 500) is resent and succeeds on attempt 3")

    # 5. rotate, disable/enable, delete
    page.goto(BASE + "#/endpoints")
    endpoint_row(page, ok_id).locator('button[data-action="rotate"]').click()
    page.select_option("#rotate-grace", "3600")
    page.click("#rotate-form button[type=submit]")
    expect(page.locator("#secret-value")).to_be_visible(timeout=SOON_MS)
    rotated = page.locator("#secret-value").inner_text()
    assert rotated.startswith("whsec_") and rotated != secret
    expect(page.locator("#secret-once")).to_contain_text("keeps signing until")
    endpoint_row(page, ok_id).locator('button[data-action="disable"]').click()
    expect(endpoint_row(page, ok_id).locator(".badge")).to_have_text("disabled", timeout=SOON_MS)
    endpoint_row(page, ok_id).locator('button[data-action="enable"]').click()
    expect(endpoint_row(page, ok_id).locator(".badge")).to_have_text("enabled", timeout=SOON_MS)
    delete = endpoint_row(page, fail_id).locator('button[data-action="delete"]')
    delete.click()
    expect(delete).to_have_text("Really delete?")
    delete.click()
    expect(endpoint_row(page, fail_id)).to_have_count(0, timeout=SOON_MS)
    step("rotate with grace, disable, enable, delete")

    # 6. routes this server lacks render as not available
    endpoint_row(page, ok_id).locator('button[data-action="health"]').click()
    expect(page.locator('[data-unavailable="Endpoint health"]')).to_contain_text("HTTP 404", timeout=SOON_MS)
    endpoint_row(page, ok_id).locator('button[data-action="recover"]').click()
    page.fill("#recover-since", "2026-01-01T00:00")
    page.click("#recover-form button[type=submit]")
    expect(page.locator('[data-unavailable="Recover"]')).to_contain_text("not available", timeout=SOON_MS)
    page.click("#nav-keys")
    expect(page.locator('[data-unavailable="API key management"]')).to_contain_text("not available", timeout=SOON_MS)
    step("health, recover and API keys: not available on this server")

    assert not errors, f"JavaScript errors: {errors}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--ok-url", required=True)
    ap.add_argument("--fail-url", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--shots")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="paygate-chromium-") as profile, sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile,
            executable_path=args.chromium,
            headless=True,
            args=FLAGS,
            viewport={"width": 1200, "height": 560},
        )
        try:
            page = ctx.new_page()
            page.set_default_timeout(SOON_MS)
            run(page, args)
        finally:
            ctx.close()
    print("dashboard browser test: passed", flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - the reason is the test's output
        print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
