"""The dashboard in real headless Chromium (Debian's /usr/bin/chromium, driven by the
Python `playwright` package through its executable path; Playwright's own browser download
is never used).

Started by tests/tests/dashboard/main.rs against a local stack and `paygate dashboard` on
free ports, with a local HTTPS receiver whose /ok path answers 200, whose /fail path
answers 500 twice, then 200, and whose /down path does the same (for recover). Scenarios:

0. launch: a browser without the launch link gets 401 for the page; opening the
   one-time link (--launch-url) lands on the page without the secret in the address,
   holding an HttpOnly, SameSite=Strict session cookie; a second browser opening the same
   link is refused (403) and still gets 401 for the page;

1. create an endpoint: its signing secret shows once; after a reload it is gone;
2. a refused create shows the API's error code and message;
3. send a test event: the delivery shows with its attempt (time, 200, latency);
4. a failing endpoint: its test delivery fails (two attempts, 500 each, with the
   response excerpt), is resent from the page, and succeeds on attempt 3;
5. that endpoint's health panel: 3 attempts in 24 h, success rate 33.3 %, its last
   failure and last success;
6. rotate the secret (a new one shown once), disable and enable, delete;
7. recover: a third endpoint's test delivery fails twice; the list shows it failing
   since then; recover while it is disabled shows 409 endpoint_disabled; enabled again,
   recover since a time before the test requests 1 resend (0 skipped) and the delivery
   succeeds on attempt 3; over answers faked in the browser, the page calls again with
   since = lastCreatedAt while more, and stops after 20 calls;
8. API keys: issue a test key (the secret shown once, gone after a reload; listed with
   its prefix, last four and status active), roll it with a 2-hour expiry (a new secret
   shown once; the old key expiring, with its expiry), revoke the new key (two clicks;
   status revoked, its card gone). With --keys-out FILE the two secrets are written
   there as JSON ({"expiring", "revoked"}) so that the Rust side can try them on the
   merchant API.
9. the audit trail: the revoke is the newest record (action, outcome, the key's id, the
   signing principal's ARN), the roll is listed, and neither key appears on the page.
10. the daily reconciliation: the day picker defaults to yesterday (Istanbul), which has no
   report yet; the day the stack reconciled (--reconciled-day) shows each account's report
   (status badge, counts) and its CSV downloads as the API wrote it; a report with
   mismatches (faked in the browser) lists them with amounts in TL and the merchant's order
   ids as text.
11. the payment page: the faked mismatch's payment link opens the payment the stack made
   (--declined-payment: captured, then a refund the bank declined with code 51) with its
   transactions, the declined refund showing its declineCode and what it means; the
   lookup box finds no unknown payment (404 not_found).

With --shots DIR it writes the screenshots of docs/operations.md there. Prints one line per passed
step; exits non-zero with the reason on the first failure.
"""

import argparse
import json
import re
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

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
    # A secret still shown (an earlier create or rotate) is dismissed first, so that the
    # one read below is this endpoint's.
    if page.locator("#secret-once").count():
        page.click('#secret-once button:has-text("I have stored it")')
        expect(page.locator("#secret-once")).to_have_count(0)
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

    try:
        wait_until(f"{delivery_id} {status} in the history", shown)
    except AssertionError as e:
        seen = row.get_attribute("data-status") if row.count() == 1 else "not listed"
        raise AssertionError(f"{e} (it is {seen}; page: {page.locator('main').inner_text()!r}; "
                             f"error: {page.locator('#error').inner_text()!r})") from None
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


def recover_loop(page, since_local):
    """The page's recover loop over answers faked in the browser (Playwright routing; the
    API is not called): `since` = the last answer's `lastCreatedAt` while `more`, the totals
    added up; and it stops after 20 calls when `more` never ends."""
    calls = []
    later = ["2020-01-02T03:04:05.678Z", "2020-01-03T03:04:05.678Z"]

    def twice(route):
        calls.append(json.loads(route.request.post_data)["since"])
        last = len(calls) == 2
        route.fulfill(status=202, content_type="application/json", body=json.dumps(
            {"requested": 2 if last else 500, "skipped": 1 if last else 0,
             "more": not last, "lastCreatedAt": later[len(calls) - 1]}))

    summary = page.locator("#recover-summary")
    page.route("**/recover", twice)
    page.click("#recover-submit")
    expect(summary).to_have_attribute("data-requested", "502", timeout=SOON_MS)
    expect(summary).to_have_attribute("data-skipped", "1")
    expect(summary).to_have_attribute("data-more", "false")
    page.unroute("**/recover")
    assert calls == [since_local + ":00.000Z", later[0]], calls

    calls.clear()

    def endless(route):
        calls.append(json.loads(route.request.post_data)["since"])
        route.fulfill(status=202, content_type="application/json", body=json.dumps(
            {"requested": 1, "skipped": 0, "more": True, "lastCreatedAt": f"2020-02-01T00:00:{len(calls):02}.000Z"}))

    page.route("**/recover", endless)
    page.click("#recover-submit")
    expect(summary).to_have_attribute("data-more", "true", timeout=SOON_MS)
    expect(summary).to_have_attribute("data-requested", "20")
    expect(summary).to_contain_text("run it again")
    page.unroute("**/recover")
    assert len(calls) == 20 and calls[1] == "2020-02-01T00:00:01.000Z", calls


def reconciliation(page, args):
    """10. The daily reconciliation page."""
    page.click("#nav-reconciliation")
    yesterday = (datetime.now(timezone.utc) + timedelta(hours=3) - timedelta(days=1)).strftime("%Y-%m-%d")
    expect(page.locator("#rc-date")).to_have_value(yesterday)
    expect(page.locator("#rc-empty")).to_contain_text(f"No report yet for {yesterday}", timeout=SOON_MS)

    day = args.reconciled_day
    page.fill("#rc-date", day)
    page.click("#rc-show")
    reports = page.locator("#rc-result .report")
    expect(page.locator('.report[data-account-id="acc_anatoliaIsbank"]')).to_be_visible(timeout=SOON_MS)
    for r in reports.all():
        status = r.get_attribute("data-status")
        assert status in ("clean", "mismatches", "incomplete"), status
        expect(r.locator("h3 .badge")).to_have_text(status)
        expect(r.locator('[data-figure="matched"] b')).to_have_text(re.compile(r"^\d+$"))
    with page.expect_download() as download:
        page.click("#rc-csv")
    assert download.value.suggested_filename == f"reconciliation-mch_anatolia-{day}.csv"
    with open(download.value.path(), encoding="utf-8", newline="") as f:
        csv = f.read()
    assert csv.startswith("date,accountId,mode,source,reportStatus,kind,orderId,"), csv[:200]
    assert csv.count("\r\n") == 1 + reports.count(), csv
    step(f"reconciliation: yesterday {yesterday} has no report yet; {day} shows "
         f"{reports.count()} account(s) and its CSV downloads")

    hostile = '<img src=x onerror="window.pwned=1">'
    counts = {"matched": 4, "missingAtBank": 0, "missingHere": 0, "amountMismatch": 1,
              "stateMismatch": 0, "unsettledHere": 0}
    faked = {"date": "2026-01-14", "data": [{
        "merchantId": "mch_anatolia", "accountId": "acc_anatoliaIsbank", "mode": "test",
        "date": "2026-01-14", "source": "history", "status": "mismatches", "counts": counts,
        "findings": [{"kind": "amount_mismatch", "orderId": hostile, "operation": "capture",
                      "paymentId": args.declined_payment, "amount": 10050, "bankAmount": 10000,
                      "status": "approved", "origin": "api", "settledFromBankRecords": True}],
        "truncated": False, "generatedAt": "2026-01-14T21:15:00.000Z"}]}
    pattern = re.compile(r"/reconciliations\?date=2026-01-14$")
    page.route(pattern, lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(faked)))
    page.fill("#rc-date", "2026-01-14")
    page.click("#rc-show")
    line = page.locator('.report[data-status="mismatches"] tr[data-kind="amount_mismatch"]')
    expect(line).to_have_count(1, timeout=SOON_MS)
    expect(page.locator(".report h3 .badge")).to_have_text("mismatches")
    expect(page.locator('[data-figure="amountMismatch"] b')).to_have_text("1")
    expect(line.locator('[data-field="order"]')).to_have_text(hostile)
    expect(line.locator('[data-field="amount"]')).to_have_text("100.50 TL")
    expect(line.locator('[data-field="bankAmount"]')).to_have_text("100.00 TL")
    expect(line).to_contain_text("settled from the bank's records")
    assert page.locator("#rc-result img").count() == 0 and page.evaluate("window.pwned") is None
    page.unroute(pattern)
    step("reconciliation: a mismatch lists kind, order id (as text), operation, 100.50 TL against 100.00 TL")
    payment(page, line, args.declined_payment)


def payment(page, line, payment_id):
    """11. The payment page, from the mismatch line's payment link; then its lookup box."""
    line.locator('[data-field="payment"] a').click()
    expect(page).to_have_url(re.compile(f"#/payment/{payment_id}$"))
    expect(page.locator("#pm-payment")).to_have_attribute("data-payment-id", payment_id, timeout=SOON_MS)
    expect(page.locator("#pm-payment")).to_have_attribute("data-status", "captured")
    expect(page.locator('#pm-payment [data-figure="refundableAmount"] b')).to_have_text("200.00 TL")
    refund = page.locator('#pm-transactions tr[data-type="refund"][data-status="declined"]')
    expect(refund).to_have_count(1)
    expect(refund.locator('[data-field="amount"]')).to_have_text("51.00 TL")
    expect(refund.locator('[data-field="declineCode"] code')).to_have_text("insufficient_funds")
    expect(refund.locator('[data-field="meaning"]')).to_have_text(re.compile(r"^Insufficient funds on the card\."))
    expect(refund).to_contain_text("51")
    step("payment: the mismatch's link opens it; its declined refund shows 51.00 TL, insufficient_funds and its meaning")
    page.fill("#pm-id", "pay_nobody")
    page.click("#pm-show")
    expect(page.locator('#pm-result .failure[data-error-code="not_found"]')).to_contain_text("No such payment.")
    step("payment: the lookup box finds no pay_nobody (404 not_found)")


def launch(page, args, stranger):
    """0. Only the browser that opens the one-time launch link gets in."""
    assert stranger.request.get(BASE).status == 401, "the page is served without the launch link"
    page.goto(args.launch_url)
    assert page.url == BASE, f"the launch secret stays in the address: {page.url}"
    secret = args.launch_url.rsplit("/", 1)[1]
    cookies = page.context.cookies(BASE)
    assert len(cookies) == 1, cookies
    c = cookies[0]
    assert c["httpOnly"] and c["sameSite"] == "Strict" and c["path"] == "/", c
    assert secret not in c["value"], "the cookie is the launch secret"
    assert stranger.request.get(args.launch_url).status == 403, "the launch link worked twice"
    assert stranger.request.get(BASE).status == 401
    assert stranger.cookies() == [], stranger.cookies()
    step("launch: the one-time link sets an HttpOnly SameSite=Strict cookie and is spent")


def run(page, args, stranger):
    global BASE
    BASE = args.url.rstrip("/") + "/"
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    launch(page, args, stranger)

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

    # 5. the health of the endpoint that had failures
    page.goto(BASE + "#/endpoints")
    endpoint_row(page, fail_id).locator('button[data-action="health"]').click()
    health = page.locator(f'#health[data-endpoint-id="{fail_id}"]')

    def figure(name):
        return health.locator(f'[data-figure="{name}"] b').inner_text()

    def counted():
        page.click("#health-refresh")
        health.locator('[data-figure="attempts24h"], .failure').first.wait_for()
        return health.locator("[data-figure]").count() > 0 and figure("attempts24h") == "3"

    try:
        wait_until("the health panel counts 3 attempts", counted)
    except AssertionError as e:
        raise AssertionError(f"{e}; it shows: {health.inner_text()!r}") from None
    assert figure("successRate") == "33.3 %", figure("successRate")
    assert figure("lastFailureAt") != "—" and figure("lastSuccessAt") != "—"
    assert figure("failingSince") == "—", "healthy again after the success"
    assert figure("status") == "enabled"
    step("health: 3 attempts, 33.3 % success, last failure " + figure("lastFailureAt"))

    # 6. rotate, disable/enable, delete
    endpoint_row(page, ok_id).locator('button[data-action="rotate"]').click()
    page.select_option("#rotate-grace", "3600")
    page.click("#rotate-form button[type=submit]")
    expect(page.locator("#secret-value")).to_be_visible(timeout=SOON_MS)
    rotated = page.locator("#secret-value").inner_text()
    assert rotated.startswith("whsec_") and rotated != secret
    expect(page.locator("#secret-once")).to_contain_text("keeps signing until")
    endpoint_row(page, ok_id).locator('button[data-action="disable"]').click()
    expect(endpoint_row(page, ok_id).locator(".badge")).to_have_text("disabled", timeout=SOON_MS)
    expect(endpoint_row(page, ok_id)).to_contain_text("disabled by an operator")
    endpoint_row(page, ok_id).locator('button[data-action="enable"]').click()
    expect(endpoint_row(page, ok_id).locator(".badge")).to_have_text("enabled", timeout=SOON_MS)
    delete = endpoint_row(page, fail_id).locator('button[data-action="delete"]')
    delete.click()
    expect(delete).to_have_text("Really delete?")
    delete.click()
    expect(endpoint_row(page, fail_id)).to_have_count(0, timeout=SOON_MS)
    step("rotate with grace, disable, enable, delete")

    # 7. recover the failed deliveries of a failing endpoint
    down_id, _ = create_endpoint(page, args.down_url, "down, then back")
    down_delivery = send_test_event(page, down_id)
    delivery_with_status(page, down_id, down_delivery, "failed")
    page.goto(BASE + "#/endpoints")
    expect(endpoint_row(page, down_id)).to_contain_text("failing since", timeout=SOON_MS)
    endpoint_row(page, down_id).locator('button[data-action="recover"]').click()
    page.fill("#recover-since", args.since)
    endpoint_row(page, down_id).locator('button[data-action="disable"]').click()
    expect(endpoint_row(page, down_id).locator(".badge")).to_have_text("disabled", timeout=SOON_MS)
    page.click("#recover-submit")
    refused = page.locator('#recover-result [data-error-code="endpoint_disabled"]')
    expect(refused).to_contain_text("HTTP 409", timeout=SOON_MS)
    expect(page.locator("#error-text")).to_contain_text("endpoint_disabled")
    endpoint_row(page, down_id).locator('button[data-action="enable"]').click()
    expect(endpoint_row(page, down_id).locator(".badge")).to_have_text("enabled", timeout=SOON_MS)
    page.click("#recover-submit")
    summary = page.locator("#recover-summary")
    expect(summary).to_have_attribute("data-requested", "1", timeout=SOON_MS)
    expect(summary).to_have_attribute("data-skipped", "0")
    expect(summary).to_have_attribute("data-more", "false")
    expect(summary).to_contain_text("Requested 1 resend(s); skipped 0")
    if args.shots:
        page.screenshot(path=f"{args.shots}/dashboard-recover.png", full_page=True)
    recover_loop(page, args.since)
    row = delivery_with_status(page, down_id, down_delivery, "succeeded")
    row.locator('button[data-action="view"]').click()
    expect(page.locator("#attempts tbody tr[data-attempt]")).to_have_count(3, timeout=SOON_MS)
    assert [a["status"] for a in attempts_of(page)] == ["500", "500", "200"], attempts_of(page)
    step("recover: 409 endpoint_disabled while disabled; then 1 requested, 0 skipped, attempt 3 succeeds; "
         "the page's loop follows lastCreatedAt while more, at most 20 calls")

    # 8. API keys: issue, roll, revoke
    page.click("#nav-keys")
    page.select_option("#key-mode", "test")
    page.fill("#key-name", "browser test")
    page.click("#key-issue")
    expect(page.locator("#secret-value")).to_be_visible(timeout=SOON_MS)
    first = page.locator("#secret-value").inner_text()
    assert re.fullmatch(r"sk_test_[0-9a-f]{64}", first), "not a test key"
    first_id = re.search(r"key_\w+", page.locator("#secret-once h3").inner_text()).group(0)
    first_row = page.locator(f'#keys tr[data-key-id="{first_id}"]')
    expect(first_row).to_have_attribute("data-status", "active", timeout=SOON_MS)
    expect(first_row.locator('[data-field="key"]')).to_have_text(f"sk_test_…{first[-4:]}")
    expect(first_row).to_contain_text("browser test")
    page.reload()
    expect(first_row).to_be_visible(timeout=SOON_MS)
    assert page.locator("#secret-value").count() == 0
    assert first not in page.content(), "the key is shown again after a reload"
    step("issue a key: shown once (not after a reload), listed as sk_test_…" + first[-4:] + " active")

    first_row.locator(".roll-hours").fill("2")
    first_row.locator('button[data-action="roll"]').click()
    expect(page.locator("#secret-value")).to_be_visible(timeout=SOON_MS)
    second = page.locator("#secret-value").inner_text()
    assert re.fullmatch(r"sk_test_[0-9a-f]{64}", second) and second != first, "not a new key"
    second_id = re.search(r"key_\w+", page.locator("#secret-once h3").inner_text()).group(0)
    assert second_id != first_id
    expect(page.locator("#secret-once")).to_contain_text("keeps working until")
    expect(first_row).to_have_attribute("data-status", "expiring", timeout=SOON_MS)
    expires = first_row.locator('[data-field="expires"]').inner_text()
    assert expires != "—", "the old key shows no expiry"
    # a rolled (expiring) key cannot be rolled again (the API answers 409); it can be revoked
    expect(first_row.locator('button[data-action="roll"]')).to_have_count(0)
    expect(first_row.locator('button[data-action="revoke"]')).to_have_count(1)
    second_row = page.locator(f'#keys tr[data-key-id="{second_id}"]')
    expect(second_row).to_have_attribute("data-status", "active")
    expect(second_row.locator('[data-field="key"]')).to_have_text(f"sk_test_…{second[-4:]}")
    if args.shots:
        page.screenshot(path=f"{args.shots}/dashboard-keys.png", full_page=True)
    step("roll with 2 h: a new key shown once; the old one expiring at " + expires)

    revoke = second_row.locator('button[data-action="revoke"]')
    revoke.click()
    expect(revoke).to_have_text("Really revoke now?")
    expect(second_row).to_have_attribute("data-status", "active")
    revoke.click()
    expect(second_row).to_have_attribute("data-status", "revoked", timeout=SOON_MS)
    expect(page.locator("#notice")).to_contain_text("revoked")
    expect(second_row.locator('button[data-action="roll"]')).to_have_count(0)
    assert page.locator("#secret-once").count() == 0, "the revoked key's card stays"
    if args.keys_out:
        with open(args.keys_out, "w", encoding="utf-8") as f:
            json.dump({"expiring": first, "revoked": second}, f)
    step("revoke (two clicks): status revoked, the key's card gone")

    # 9. the audit trail: the revoke just made is its newest record, with the principal
    # that signed it (the dashboard's credentials), and no key anywhere on the page
    page.click("#nav-audit")
    latest = page.locator("#audit tbody tr").first
    expect(latest).to_have_attribute("data-action", "api_key.revoke", timeout=SOON_MS)
    expect(latest).to_have_attribute("data-outcome", "succeeded")
    expect(latest).to_contain_text(second_id)
    principal = latest.locator('[data-field="principal"]').inner_text()
    assert re.fullmatch(r"arn:aws:iam::\d{12}:user/\S+", principal), principal
    roll = page.locator('#audit tbody tr[data-action="api_key.roll"]').first
    expect(roll).to_contain_text(first_id)
    content = page.content()
    assert first not in content and second not in content, "a key in the audit trail"
    step("audit trail: the revoke is the newest record, signed by " + principal + "; no key shown")

    reconciliation(page, args)

    assert not errors, f"JavaScript errors: {errors}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--launch-url", required=True)
    ap.add_argument("--ok-url", required=True)
    ap.add_argument("--fail-url", required=True)
    ap.add_argument("--down-url", required=True)
    ap.add_argument("--keys-out")
    ap.add_argument("--reconciled-day", required=True)
    ap.add_argument("--declined-payment", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--shots")
    args = ap.parse_args()
    # Recover from a minute before the test started (the page runs in UTC, see below).
    args.since = (datetime.now(timezone.utc) - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M")
    with tempfile.TemporaryDirectory(prefix="paygate-chromium-") as profile, sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile,
            executable_path=args.chromium,
            headless=True,
            args=FLAGS,
            viewport={"width": 1200, "height": 560},
            timezone_id="UTC",
        )
        browser = p.chromium.launch(executable_path=args.chromium, headless=True, args=FLAGS)
        stranger = browser.new_context()
        try:
            page = ctx.new_page()
            page.set_default_timeout(SOON_MS)
            run(page, args, stranger)
        finally:
            stranger.close()
            browser.close()
            ctx.close()
    print("dashboard browser test: passed", flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - the reason is the test's output
        print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
