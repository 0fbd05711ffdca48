"""Schemathesis hooks for paygate's conformance run (tests/tests/conformance.rs).

Loaded through SCHEMATHESIS_HOOKS=hooks with this folder on PYTHONPATH. Reads:
  PAYGATE_ST_API_KEY      the merchant API key (Bearer) for /v1/... routes
  PAYGATE_ST_ADMIN_KEY    the admin access key id (infra/local/seed.json "admin")
  PAYGATE_ST_ADMIN_SECRET the admin secret access key
  PAYGATE_ST_ADMIN_REGION the admin credentials' region

- /v1/... requests carry `Authorization: Bearer <key>`.
- /admin/... requests are signed with AWS Signature Version 4 (service `execute-api`), as
  the dashboard signs them (botocore's SigV4Auth over the final prepared request, so the
  signature covers exactly the bytes sent).
- Every request carries a fresh `Idempotency-Key`, as a real client sends one per new
  request: reusing one key for different generated bodies is `422 idempotency_key_reused`
  by design.
"""

import os
import uuid

import requests
import schemathesis
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


class Bearer(requests.auth.AuthBase):
    def __init__(self, key):
        self.key = key

    def __call__(self, r):
        r.headers["Authorization"] = f"Bearer {self.key}"
        return r


class SigV4(requests.auth.AuthBase):
    def __init__(self, access_key, secret_key, region):
        self.creds = Credentials(access_key, secret_key)
        self.region = region

    def __call__(self, r):
        body = r.body or b""
        if isinstance(body, str):
            body = body.encode()
        headers = {}
        if body and r.headers.get("Content-Type"):
            headers["Content-Type"] = r.headers["Content-Type"]
        aws = AWSRequest(method=r.method, url=r.url, data=body, headers=headers)
        SigV4Auth(self.creds, "execute-api", self.region).add_auth(aws)
        for name in ("Authorization", "X-Amz-Date", "X-Amz-Security-Token"):
            if name in aws.headers:
                r.headers[name] = aws.headers[name]
        return r


schemathesis.auth.set_from_requests(Bearer(os.environ["PAYGATE_ST_API_KEY"])).skip_for(
    path_regex="^/admin/"
)
schemathesis.auth.set_from_requests(
    SigV4(
        os.environ["PAYGATE_ST_ADMIN_KEY"],
        os.environ["PAYGATE_ST_ADMIN_SECRET"],
        os.environ["PAYGATE_ST_ADMIN_REGION"],
    )
).apply_to(path_regex="^/admin/")


def valid_key(value):
    return isinstance(value, str) and 1 <= len(value) <= 255 and all(" " <= c <= "~" for c in value)


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    # A schema-valid generated key is replaced by a fresh one; an invalid one (negative
    # tests) is kept, so its rejection is still checked; an absent one stays absent.
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and valid_key(headers[name]):
            headers[name] = uuid.uuid4().hex


def luhn_fixed(number):
    """`number` with its last digit replaced by the Luhn check digit of the rest."""
    total = 0
    for i, c in enumerate(reversed(number[:-1])):
        d = int(c)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return number[:-1] + str((10 - total % 10) % 10)


@schemathesis.hook("map_body").apply_to(path="/v1/payments/points/inquiry")
def card_numbers_with_check_digits(ctx, body):
    # The Luhn check digit is a documented constraint a JSON Schema pattern cannot express:
    # generated 12-19 digit numbers get a valid check digit, other values stay as generated.
    card = body.get("card") if isinstance(body, dict) else None
    number = card.get("number") if isinstance(card, dict) else None
    if isinstance(number, str) and number.isascii() and number.isdigit() and 12 <= len(number) <= 19:
        card["number"] = luhn_fixed(number)
    return body


# Schema-valid requests the API refuses because of the state they meet or a documented rule
# a schema cannot express. Only these (code, field) pairs are forgiven; any other 400 on a
# schema-valid request stays a failure.
#   amount_exceeds_authorized / amount_exceeds_refundable: more than the payment has left;
#   no_account_for_card: the merchant has no account at the card's issuing bank;
#   operation_not_supported: the named POS account's bank does not offer the operation;
#   invalid_request on `cursor`: an opaque token only a previous page hands out;
#   invalid_request on `bankState`: the test helper takes it only with status `pending`;
#   invalid_request on `url`: a webhook URL must parse as a URL with a host and no
#     credentials, and an IP-literal host must be public (documented on WebhookUrl; the
#     schema's pattern only says `^https://`);
#   invalid_request on `since` / `until` (recover): the range depends on the clock: `since`
#     must not be in the future nor older than the 90-day delivery retention, `until` must
#     be after `since` (documented on RecoverRequest; a schema cannot say "now").
STATE_DEPENDENT_400 = {
    ("amount_exceeds_authorized", None),
    ("amount_exceeds_refundable", None),
    ("no_account_for_card", None),
    ("operation_not_supported", None),
    ("invalid_request", "cursor"),
    ("invalid_request", "bankState"),
    ("invalid_request", "url"),
    ("invalid_request", "since"),
    ("invalid_request", "until"),
}


def error_of(response):
    try:
        error = response.json()["error"]
    except Exception:
        return None, None
    details = error.get("details") or {}
    return error.get("code"), details.get("field") if isinstance(details, dict) else None


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    checks = getattr(failure, "checks", ())
    if "positive_data_acceptance" in checks and response.status_code == 400:
        code, field = error_of(response)
        return (code, None) not in STATE_DEPENDENT_400 and (code, field) not in STATE_DEPENDENT_400
    # The admin API is IAM-authorized: API Gateway answers an unsigned request 403, and so
    # does the local stack (documented under `sigv4`); schemathesis expects 401 for any
    # missing Authorization header.
    if "missing_required_header" in checks and case.path.startswith("/admin/"):
        return response.status_code != 403
    return True
