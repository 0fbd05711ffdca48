//! The live requests (part 3) as a transcript, run by `live.rs`.

/// The requests, in order, as a transcript. One request per line:
///
/// `KEY METHOD PATH STATUS [CODE] [BODY] [=> CHECK…]`
///
/// - KEY: `t` Anatolia's test key, `l` its live key, `b` Bosphorus' test key, `x` a
///   well-formed key that does not exist, `-` none; `A`: no key, the request is signed
///   with SigV4 and the seed's local admin credentials (the admin routes).
/// - STATUS and, for errors, the error CODE the answer must have.
/// - BODY: sent as `application/json`, as written; none when absent.
/// - CHECK: `/json/pointer=<json>` must hold in the answer; `@name` keeps the answer's `id`
///   as `{name}` for later lines, `@name:/json/pointer` the string at that pointer.
///
/// Every answer must also be declared for its route and status in the document and
/// validate against the declared schema. Seeded ids come from `infra/local/seed.json`;
/// `{isbank}`-style card numbers are Luhn-valid numbers with the seed's BINs. Simulator
/// triggers: amount 5100 declined, 9100 technical error, 9900 time-out (applied at the bank).
pub const SCENARIO: &str = r#"
# The test helper (test keys only)
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "captured"} => @sale /status="captured" /refundableAmount=20000
t POST /v1/test_helpers/payments 201 {"amount": 30000, "currency": "TRY", "status": "authorized", "accountId": "acc_anatoliaIsbank"} => @preauth
t POST /v1/test_helpers/payments 201 {"amount": 12000, "currency": "TRY", "status": "pending", "bankState": "approved"} => /status="pending"
l POST /v1/test_helpers/payments 404 not_found {"amount": 20000, "currency": "TRY", "status": "captured"}
- POST /v1/test_helpers/payments 401 unauthorized {"amount": 20000, "currency": "TRY", "status": "captured"}
t POST /v1/test_helpers/payments 400 invalid_request {"amount": 20000, "currency": "TRY", "status": "refunded"} => /error/details/field="status"
t POST /v1/test_helpers/payments 400 invalid_request {"amount": 100, "currency": "TRY", "status": "captured", "bankState": "approved"}
t POST /v1/test_helpers/payments 400 invalid_amount {"amount": 0, "currency": "TRY", "status": "captured"}
t POST /v1/test_helpers/payments 404 not_found {"amount": 100, "currency": "TRY", "status": "captured", "accountId": "acc_bosphorusAkbank"}

# Capture: partial, then refused; body and amount errors; simulator triggers; full capture
t POST /v1/payments/pay_anatoliaAuth1/capture 200 {"amount": 10000} => /payment/status="captured" /payment/capturedAmount=10000 /payment/refundableAmount=10000 /transaction/type="capture"
t POST /v1/payments/pay_anatoliaAuth1/capture 409 invalid_state => /error/details/status="captured"
t POST /v1/payments/{preauth}/capture 400 amount_exceeds_authorized {"amount": 30001} => /error/details/maxAmount=30000
t POST /v1/payments/{preauth}/capture 400 invalid_amount {"amount": -5}
t POST /v1/payments/{preauth}/capture 400 invalid_request {"amount": "100"}
t POST /v1/payments/{preauth}/capture 400 invalid_request {"amount": 1, "x": 1} => /error/details/field="x"
t POST /v1/payments/{preauth}/capture 400 invalid_request [1]
t POST /v1/payments/{preauth}/capture 400 invalid_request {not json
t POST /v1/payments/{preauth}/capture 422 provider_declined {"amount": 5100} => /error/details/transaction/status="declined" /error/details/payment/status="authorized"
t POST /v1/payments/{preauth}/capture 422 provider_error {"amount": 9100} => /error/details/transaction/status="failed" /error/details/payment/pendingOperation=null
t POST /v1/payments/{preauth}/capture 200 {} => /payment/capturedAmount=30000 /payment/status="captured"
b POST /v1/payments/pay_anatoliaAuth2/capture 404 not_found
l POST /v1/payments/pay_anatoliaAuth2/capture 404 not_found
x POST /v1/payments/pay_anatoliaAuth2/capture 401 unauthorized
t POST /v1/payments/not-a-payment-id/capture 404 not_found

# Refund: partial; triggers; limits; an unknown outcome locks the payment until a query
t POST /v1/payments/{sale}/refund 400 invalid_request {"amount": 4990, "reason": "chargeback"} => /error/details/field="reason"
t POST /v1/payments/{sale}/refund 200 {"amount": 4990, "reason": "duplicate", "description": "Çift çekim", "metadata": {"ticket": "CS-1"}} => /payment/status="partially_refunded" /payment/refundedAmount=4990 /transaction/type="refund" /transaction/status="approved" /transaction/reason="duplicate" /transaction/metadata={"ticket":"CS-1"} /transaction/origin="api"
t POST /v1/payments/{sale}/refund 422 provider_declined {"amount": 5100} => /error/details/payment/refundedAmount=4990 /error/details/payment/status="partially_refunded"
t POST /v1/payments/{sale}/refund 422 provider_error {"amount": 9100} => /error/details/transaction/bankCode="91" /error/details/declineCode="bank_unavailable" /error/details/retryable=true /error/details/bankCode="91"
t POST /v1/payments/{sale}/refund 400 amount_exceeds_refundable {"amount": 15011} => /error/details/refundableAmount=15010
t POST /v1/payments/{sale}/refund 400 invalid_amount {"amount": 10000000001}
t POST /v1/payments/{sale}/refund 422 provider_error {"amount": 9900} => /error/details/transaction/status="unknown" /error/details/payment/pendingOperation/state="unknown" /error/details/declineCode="outcome_unknown" /error/details/retryable=false
t POST /v1/payments/{sale}/refund 409 operation_outcome_unknown {"amount": 100}
t POST /v1/payments/{sale}/cancel 409 operation_outcome_unknown
t POST /v1/payments/{sale}/query 200 => /payment/refundedAmount=14890 /payment/pendingOperation=null /bank/state="partially_refunded"
t POST /v1/payments/{sale}/cancel 409 invalid_state
t POST /v1/payments/{sale}/refund 200 => /payment/status="refunded" /payment/refundableAmount=0 /transaction/amount=5110
t POST /v1/payments/{sale}/refund 409 invalid_state
- POST /v1/payments/pay_anatoliaCapt1/refund 401 unauthorized
t POST /v1/payments/pay_anatoliaAuth2/refund 409 invalid_state

# Get: every transaction, oldest first; tenancy and modes
t GET /v1/payments/{sale} 200 => /status="refunded" /transactions/0/status="approved" /transactions/1/status="declined" /transactions/2/status="failed" /transactions/3/status="approved" /transactions/4/status="approved"
t GET /v1/payments/pay_anatoliaCapt2 200 => /transactions=[]
b GET /v1/payments/pay_anatoliaCapt2 404 not_found
- GET /v1/payments/pay_anatoliaCapt2 401 unauthorized
t GET /v1/payments/pay_anatoliaLive1 404 not_found
l GET /v1/payments/pay_anatoliaLive1 200 => /mode="live"
t GET /v1/payments/{sale}/transactions 200 => /object="list" /data/0/reason="duplicate" /data/0/metadata={"ticket":"CS-1"} /data/1/status="declined" /data/1/reason=null /data/4/type="refund"
b GET /v1/payments/{sale}/transactions 404 not_found
l GET /v1/payments/{sale}/transactions 404 not_found
- GET /v1/payments/{sale}/transactions 401 unauthorized

# Cancel: no amount (a reason and metadata recorded); after the bank's cut; a reverse before and after it; an account without cancel; live mode
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "authorized"} => @voidable
t POST /v1/payments/{voidable}/cancel 400 invalid_request {"amount": 1}
t POST /v1/payments/{voidable}/cancel 200 {"reason": "requested_by_customer", "metadata": {"ticket": "CS-2"}} => /payment/status="cancelled" /transaction/amount=20000 /transaction/reason="requested_by_customer" /transaction/description=null
t POST /v1/payments/{voidable}/cancel 409 invalid_state {}
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "captured", "settled": true} => @late
t POST /v1/payments/{late}/cancel 422 provider_declined => /error/details/suggestedOperation="refund" /error/details/payment/status="captured" /error/details/declineCode="after_end_of_day" /error/details/transaction/declineCode="after_end_of_day"
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "captured"} => @rev
t POST /v1/payments/{rev}/reverse 200 {"reason": "duplicate"} => /reversal={"type":"cancel","afterSettlement":false} /payment/status="cancelled" /transaction/reason="duplicate"
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "captured", "settled": true} => @revlate
t POST /v1/payments/{revlate}/reverse 200 => /reversal={"type":"refund","afterSettlement":true} /payment/status="refunded" /transaction/type="refund"
b POST /v1/payments/pay_bosphorusCapt1/cancel 400 operation_not_supported => /error/details/operation="cancel" /error/details/accountId="acc_bosphorusYapikredi"
l POST /v1/payments/pay_anatoliaLive2/cancel 200 => /payment/status="cancelled"

# Query: pending payments are finalized; a query the bank cannot perform changes nothing
t POST /v1/payments/pay_anatoliaPend1/query 200 => /payment/status="authorized" /bank/state="preauth"
t POST /v1/payments/pay_anatoliaPend2/query 200 => /payment/status="declined" /bank/state="declined"
b POST /v1/payments/pay_bosphorusPend1/query 200 => /payment/status="captured" /payment/capturedAmount=12000
b POST /v1/payments/pay_bosphorusPend2/query 200 => /payment/status="pending" /bank/found=false
t POST /v1/test_helpers/payments 201 {"amount": 9100, "currency": "TRY", "status": "captured"} => @unqueryable
t POST /v1/payments/{unqueryable}/query 200 {} => /payment/status="captured" /bank={"found":true,"state":"unknown","amount":0,"code":"91","authCode":"","rrn":""}
t POST /v1/payments/pay_anatoliaCapt2/query 400 invalid_request {"x": 1}
t POST /v1/payments/pay_missing1/query 404 not_found
- POST /v1/payments/pay_anatoliaCapt2/query 401 unauthorized

# Points inquiry: BIN routing; bank decline and error are 200 with ok=false
t POST /v1/payments/points/inquiry 200 {"card": {"number": "{isbank}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /ok=true /accountId="acc_anatoliaIsbank" /providerCode="simulator"
t POST /v1/payments/points/inquiry 200 {"card": {"number": "{isbank5100}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /ok=false /failure/kind="declined" /balances=[]
t POST /v1/payments/points/inquiry 200 {"card": {"number": "{isbank9100}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /ok=false /failure/kind="provider_error"
b POST /v1/payments/points/inquiry 200 {"card": {"number": "{yapikredi}", "expMonth": "7", "expYear": "29", "cvv": "321", "holder": "Mehmet Demir"}, "currency": "TRY", "accountId": "acc_bosphorusYapikredi"} => /ok=true
t POST /v1/payments/points/inquiry 400 operation_not_supported {"card": {"number": "{garanti}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /error/details/operation="points_inquiry"
t POST /v1/payments/points/inquiry 400 no_account_for_card {"card": {"number": "{unknownbin}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"}
t POST /v1/payments/points/inquiry 404 not_found {"card": {"number": "{isbank}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY", "accountId": "acc_bosphorusAkbank"}
t POST /v1/payments/points/inquiry 400 invalid_request {"card": {"number": "4543600000000004", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /error/details/field="card.number"
t POST /v1/payments/points/inquiry 400 invalid_request {"card": {"number": "{isbank}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "XYZ"} => /error/details/field="currency"
t POST /v1/payments/points/inquiry 400 invalid_request {"currency": "TRY"} => /error/details/field="card"
- POST /v1/payments/points/inquiry 401 unauthorized {"currency": "TRY"}

# Dashboard admin API (SigV4-signed; the stack retries on "1s", so a delivery to a refused
# address fails within seconds). Endpoint URLs at localhost are accepted (a host name) and
# refused at every delivery (it resolves to a loopback address): attempts end `blocked`.
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 201 {"url": "https://localhost/paygate/hooks", "events": ["payment.captured", "payment.refunded"], "mode": "test", "description": "Orders"} => @endpoint /enabled=true /mode="test"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 201 {"url": "https://hooks.example.com/spare", "events": ["*"], "mode": "live"} => @spare
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 400 invalid_request {"url": "https://10.0.0.5/hook", "events": ["*"], "mode": "test"} => /error/details/field="url"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 400 invalid_request {"url": "https://hooks.example.com/x", "events": ["payment.exploded"], "mode": "test"} => /error/details/field="events"
A POST /admin/v1/merchants/mch_nobody/webhook-endpoints 404 not_found {"url": "https://hooks.example.com/x", "events": ["*"], "mode": "test"}
- POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 403 forbidden {"url": "https://hooks.example.com/x", "events": ["*"], "mode": "test"}
t GET /admin/v1/merchants/mch_anatolia/webhook-endpoints 403 forbidden
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints 200
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint} 200 => /url="https://localhost/paygate/hooks"
A GET /admin/v1/merchants/mch_bosphorus/webhook-endpoints/{endpoint} 404 not_found
A PATCH /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint} 200 {"description": "Refunds"} => /description="Refunds"
A PATCH /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint} 400 invalid_request {"url": "https://192.168.1.1/"} => /error/details/field="url"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/rotate-secret 200 {"graceSeconds": 3600}
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/rotate-secret 400 invalid_request {"graceSeconds": -1} => /error/details/field="graceSeconds"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/test 202 => @delivery @event:/eventId /eventType="webhook.test" /status="pending"
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/deliveries?limit=5 200
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/deliveries?status=lost 400 invalid_request => /error/details/field="status"
A GET /admin/v1/merchants/mch_anatolia/deliveries/{delivery} 200
A GET /admin/v1/merchants/mch_anatolia/deliveries/dlv_nothing 404 not_found
A GET /admin/v1/merchants/mch_anatolia/events/{event}/deliveries 200
A GET /admin/v1/merchants/mch_bosphorus/events/{event}/deliveries 404 not_found
A PATCH /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare} 200 {"enabled": false} => /enabled=false
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare}/test 409 endpoint_disabled
A DELETE /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare} 200 => /deleted=true
A DELETE /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare} 404 not_found
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/health 200 => /status="enabled" /disabledReason=null
A GET /admin/v1/merchants/mch_bosphorus/webhook-endpoints/{endpoint}/health 404 not_found
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/recover 400 invalid_request {"since": "2999-01-01T00:00:00Z"} => /error/details/field="since"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/recover 400 invalid_request {} => /error/details/field="since"
A POST /admin/v1/merchants/mch_anatolia/api-keys 201 {"mode": "test", "name": "conformance"} => @key /status="active" /mode="test" /prefix="sk_test_" /expiresAt=null
A POST /admin/v1/merchants/mch_anatolia/api-keys 400 invalid_request {"mode": "prod"} => /error/details/field="mode"
A POST /admin/v1/merchants/mch_nobody/api-keys 404 not_found {"mode": "test"}
A GET /admin/v1/merchants/mch_anatolia/api-keys 200
A POST /admin/v1/merchants/mch_anatolia/api-keys/{key}/roll 400 invalid_request {"expiresInHours": 200} => /error/details/field="expiresInHours"
A POST /admin/v1/merchants/mch_anatolia/api-keys/{key}/roll 201 {"expiresInHours": 2} => @rolled /status="active"
A POST /admin/v1/merchants/mch_anatolia/api-keys/{key}/roll 409 api_key_already_rolled
A DELETE /admin/v1/merchants/mch_anatolia/api-keys/{rolled} 200 => /status="revoked"
A POST /admin/v1/merchants/mch_anatolia/api-keys/{rolled}/roll 409 api_key_inactive
A DELETE /admin/v1/merchants/mch_bosphorus/api-keys/{key} 404 not_found
A GET /admin/v1/merchants/mch_anatolia/audit?limit=2 200 => /data/0/action="api_key.roll" /data/0/outcome="rejected" /data/0/errorCode="api_key_inactive" /data/0/principal="arn:aws:iam::000000000000:user/AKIAPAYGATELOCALADMIN" /data/1/action="api_key.revoke" /data/1/outcome="succeeded"
A GET /admin/v1/merchants/mch_anatolia/audit?cursor=zz 400 invalid_request => /error/details/field="cursor"
A GET /admin/v1/merchants/mch_nobody/audit 404 not_found
A GET /admin/v1/merchants/mch_anatolia/payments/{sale} 200 => /status="refunded" /mode="test"
A GET /admin/v1/merchants/mch_bosphorus/payments/{sale} 404 not_found
A GET /admin/v1/merchants/mch_anatolia/reconciliations?date=2026-11-26 200 => /date="2026-11-26" /data=[]
A GET /admin/v1/merchants/mch_anatolia/reconciliations 400 invalid_request => /error/details/field="date"
A GET /admin/v1/merchants/mch_nobody/reconciliations?date=2026-11-26 404 not_found
"#;
