//! What each function calls: the one table its IAM role must allow, exactly
//! (`template_rehearsal.rs` checks every deploy mode's translated template against it).
#![allow(dead_code)]

/// What each function calls, as `<action> <resource>` (a table, queue or index by logical
/// id, a secret or other ARN with its `arn:<partition>:<service>:<region>:<account>:` prefix
/// shortened to `<service>:`). Each line is a call of the function's code path through an
/// adapter (shared/aws: dynamo, sqs, secrets; functions/deploy-hook); TransactWriteItems is
/// authorized per item (its Puts need PutItem). Changing a function's IAM in template.yaml
/// means changing it here, and the other way round.
pub const MONEY: &[&str] = &[
    // The payment and its transactions (GetItem, Query); the commit's Puts.
    "dynamodb:GetItem PaymentsTable",
    "dynamodb:Query PaymentsTable",
    "dynamodb:PutItem PaymentsTable",
    // The outbox event, inside the commit; then the fast path to the fan-out.
    "dynamodb:PutItem EventsTable",
    "sqs:SendMessage EventsQueue",
    // The merchant's POS account; the bank's credentials.
    "dynamodb:GetItem PosAccountsTable",
    "secretsmanager:GetSecretValue secretsmanager:secret:paygate/${Stage}/banks/*",
    // The simulator bank's state (test mode).
    "dynamodb:GetItem SimBankTable",
    "dynamodb:PutItem SimBankTable",
    // Idempotency-Key records: take, read, answer/bind, release.
    "dynamodb:PutItem IdempotencyTable",
    "dynamodb:GetItem IdempotencyTable",
    "dynamodb:UpdateItem IdempotencyTable",
    "dynamodb:DeleteItem IdempotencyTable",
    // The per-key throttle counter.
    "dynamodb:UpdateItem ThrottleTable",
];

pub const IAM: &[(&str, &[&str])] = &[
    (
        "AuthorizerFunction",
        &[
            // find_key; touch_key (lastUsedAt).
            "dynamodb:GetItem ApiKeysTable",
            "dynamodb:UpdateItem ApiKeysTable",
        ],
    ),
    ("CapturePaymentFunction", MONEY),
    ("CancelPaymentFunction", MONEY),
    ("RefundPaymentFunction", MONEY),
    ("QueryPaymentFunction", MONEY),
    (
        "GetPaymentFunction",
        &[
            "dynamodb:GetItem PaymentsTable",
            "dynamodb:Query PaymentsTable",
            "dynamodb:UpdateItem ThrottleTable",
        ],
    ),
    (
        "PointsInquiryFunction",
        &[
            // The account by BIN: the BIN, the merchant's accounts.
            "dynamodb:GetItem BinsTable",
            "dynamodb:GetItem PosAccountsTable",
            "dynamodb:Query PosAccountsTable",
            "dynamodb:GetItem SimBankTable",
            "secretsmanager:GetSecretValue secretsmanager:secret:paygate/${Stage}/banks/*",
            // The per-card limit's HMAC key.
            "secretsmanager:GetSecretValue CardKeySecret",
            "dynamodb:UpdateItem ThrottleTable",
        ],
    ),
    (
        "TestCreatePaymentFunction",
        &[
            "dynamodb:PutItem PaymentsTable",
            "dynamodb:GetItem PosAccountsTable",
            "dynamodb:Query PosAccountsTable",
            "dynamodb:GetItem SimBankTable",
            "dynamodb:PutItem SimBankTable",
            "secretsmanager:GetSecretValue secretsmanager:secret:paygate/${Stage}/banks/*",
            "dynamodb:PutItem IdempotencyTable",
            "dynamodb:GetItem IdempotencyTable",
            "dynamodb:UpdateItem IdempotencyTable",
            "dynamodb:DeleteItem IdempotencyTable",
            "dynamodb:UpdateItem ThrottleTable",
        ],
    ),
    (
        "AdminEndpointsFunction",
        &[
            "dynamodb:Query PosAccountsTable",
            "dynamodb:GetItem WebhookEndpointsTable",
            "dynamodb:Query WebhookEndpointsTable",
            "dynamodb:PutItem WebhookEndpointsTable",
            "dynamodb:UpdateItem WebhookEndpointsTable",
            "dynamodb:DeleteItem WebhookEndpointsTable",
            "dynamodb:PutItem ApiKeysTable",
            "dynamodb:UpdateItem ApiKeysTable",
            "dynamodb:GetItem ApiKeysTable",
            "dynamodb:Query ApiKeysTable/index/byMerchant",
            "dynamodb:PutItem EventsTable",
            "dynamodb:PutItem DeliveriesTable",
            "secretsmanager:CreateSecret secretsmanager:secret:paygate/${Stage}/webhooks/*",
            "secretsmanager:GetSecretValue secretsmanager:secret:paygate/${Stage}/webhooks/*",
            "secretsmanager:PutSecretValue secretsmanager:secret:paygate/${Stage}/webhooks/*",
            "secretsmanager:DeleteSecret secretsmanager:secret:paygate/${Stage}/webhooks/*",
            "sqs:SendMessage DeliveriesQueue",
            // The audit trail: append, read.
            "dynamodb:PutItem AuditTable",
            "dynamodb:Query AuditTable",
        ],
    ),
    (
        "AdminDeliveriesFunction",
        &[
            "dynamodb:Query PosAccountsTable",
            "dynamodb:GetItem WebhookEndpointsTable",
            "dynamodb:GetItem DeliveriesTable",
            "dynamodb:Query DeliveriesTable",
            "dynamodb:UpdateItem DeliveriesTable",
            "dynamodb:Query DeliveriesTable/index/byEndpoint",
            "dynamodb:Query DeliveriesTable/index/byEvent",
            "dynamodb:Query DeliveriesTable/index/pendingByEndpoint",
            "dynamodb:GetItem EventsTable",
            "dynamodb:GetItem PaymentsTable",
            "dynamodb:Query PaymentsTable",
            "sqs:SendMessage DeliveriesQueue",
            "dynamodb:PutItem AuditTable",
        ],
    ),
    (
        "WebhookFanoutFunction",
        &[
            "sqs:ReceiveMessage EventsQueue",
            "sqs:DeleteMessage EventsQueue",
            "sqs:GetQueueAttributes EventsQueue",
            "dynamodb:Query WebhookEndpointsTable",
            "dynamodb:PutItem DeliveriesTable",
            "sqs:SendMessage DeliveriesQueue",
            "dynamodb:UpdateItem EventsTable",
        ],
    ),
    (
        "WebhookDeliverFunction",
        &[
            "sqs:ReceiveMessage DeliveriesQueue",
            "sqs:DeleteMessage DeliveriesQueue",
            "sqs:GetQueueAttributes DeliveriesQueue",
            "dynamodb:GetItem DeliveriesTable",
            "dynamodb:UpdateItem DeliveriesTable",
            "dynamodb:PutItem DeliveriesTable",
            "dynamodb:GetItem EventsTable",
            "dynamodb:GetItem WebhookEndpointsTable",
            "dynamodb:UpdateItem WebhookEndpointsTable",
            "secretsmanager:GetSecretValue secretsmanager:secret:paygate/${Stage}/webhooks/*",
            "sqs:SendMessage DeliveriesQueue",
        ],
    ),
    (
        "OutboxSweeperFunction",
        &[
            "dynamodb:Query EventsTable/index/unsent",
            "dynamodb:Query DeliveriesTable/index/due",
            "sqs:SendMessage EventsQueue",
            "sqs:SendMessage DeliveriesQueue",
        ],
    ),
    (
        "ReconcilerFunction",
        &[
            "dynamodb:GetItem PaymentsTable",
            "dynamodb:Query PaymentsTable",
            "dynamodb:PutItem PaymentsTable",
            "dynamodb:UpdateItem PaymentsTable",
            "dynamodb:Query PaymentsTable/index/unsettled",
            "dynamodb:Query PaymentsTable/index/byAccountDay",
            "dynamodb:Scan PosAccountsTable",
            "dynamodb:PutItem EventsTable",
            "dynamodb:UpdateItem EventsTable",
            "sqs:SendMessage EventsQueue",
            "dynamodb:GetItem PosAccountsTable",
            "secretsmanager:GetSecretValue secretsmanager:secret:paygate/${Stage}/banks/*",
            "dynamodb:GetItem SimBankTable",
            "dynamodb:PutItem SimBankTable",
        ],
    ),
    (
        "PreTrafficHookFunction",
        &[
            // Invoke of each new version (fn_deploy_hook::aws).
            "lambda:InvokeFunction GetPaymentFunction:*",
            "lambda:InvokeFunction CapturePaymentFunction:*",
            "lambda:InvokeFunction CancelPaymentFunction:*",
            "lambda:InvokeFunction RefundPaymentFunction:*",
            "lambda:InvokeFunction QueryPaymentFunction:*",
            // The verdict, to this stack's deployment groups.
            "codedeploy:PutLifecycleEventHookExecutionStatus codedeploy:deploymentgroup:${ServerlessDeploymentApplication}/*",
        ],
    ),
];
