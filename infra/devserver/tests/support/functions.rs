//! Every function of `template.yaml` with its Lambda's builder: the wiring and rehearsal
//! tests build each one from the environment the template gives it.
#![allow(dead_code)] // each test binary uses a different part of it

use paygate_aws::Clients;
use paygate_compose::{
    system::{RandomIds, SystemClock},
    Build, ConfigError, Names, Overrides, Wiring,
};
use std::sync::Arc;

pub type Builder = fn(&Wiring) -> Result<(), ConfigError>;

pub fn build<T: Build>(w: &Wiring) -> Result<(), ConfigError> {
    T::build(w).map(|_| ())
}

/// Every function of the template, with its Lambda's `Deps`.
pub const FUNCTIONS: [(&str, Builder); 15] = [
    ("AuthorizerFunction", build::<fn_authorizer::Deps>),
    ("CapturePaymentFunction", build::<fn_capture_payment::Deps>),
    ("CancelPaymentFunction", build::<fn_cancel_payment::Deps>),
    ("RefundPaymentFunction", build::<fn_refund_payment::Deps>),
    ("QueryPaymentFunction", build::<fn_query_payment::Deps>),
    ("GetPaymentFunction", build::<fn_get_payment::Deps>),
    ("PointsInquiryFunction", build::<fn_points_inquiry::Deps>),
    (
        "TestCreatePaymentFunction",
        build::<fn_test_create_payment::Deps>,
    ),
    ("ReconcilerFunction", build::<fn_reconciler::Deps>),
    ("WebhookFanoutFunction", build::<fn_webhook_fanout::Deps>),
    ("WebhookDeliverFunction", build::<fn_webhook_deliver::Deps>),
    ("OutboxSweeperFunction", build::<fn_outbox_sweeper::Deps>),
    ("AdminEndpointsFunction", build::<fn_admin_endpoints::Deps>),
    (
        "AdminDeliveriesFunction",
        build::<fn_admin_deliveries::Deps>,
    ),
    // CodeDeploy's pre-traffic hook: deployed only, nothing of it runs locally.
    ("PreTrafficHookFunction", build::<fn_deploy_hook::Deps>),
];

/// Functions with no local counterpart: the dev server neither builds nor serves them.
pub const DEPLOY_ONLY: [&str; 1] = ["PreTrafficHookFunction"];

pub fn wiring(names: Names) -> Wiring {
    Wiring {
        // Building clients makes no call: no endpoint needs to answer.
        aws: Clients::local("http://127.0.0.1:9", "eu-central-1"),
        names,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
        overrides: Overrides::default(),
    }
}
