use std::sync::{Arc, Mutex};

use super::*;

/// Answers each target as configured and records the report.
#[derive(Default)]
struct Fake {
    answers: Vec<(&'static str, Result<Invoked, &'static str>)>,
    report_fails: bool,
    invoked: Mutex<Vec<(String, Value)>>,
    reported: Mutex<Vec<(HookEvent, Status)>>,
}

#[async_trait::async_trait]
impl Aws for Fake {
    async fn invoke(&self, function: &str, payload: &[u8]) -> Result<Invoked, AwsError> {
        self.invoked.lock().unwrap().push((
            function.to_owned(),
            serde_json::from_slice(payload).unwrap(),
        ));
        match self.answers.iter().find(|(f, _)| *f == function) {
            Some((_, Ok(invoked))) => Ok(invoked.clone()),
            Some((_, Err(_))) | None => Err(AwsError::Transport("unreachable".into())),
        }
    }
    async fn report(&self, event: &HookEvent, status: Status) -> Result<(), AwsError> {
        if self.report_fails {
            return Err(AwsError::Status {
                service: "codedeploy",
                status: 400,
                error_type: "LifecycleEventAlreadyCompletedException".into(),
            });
        }
        self.reported.lock().unwrap().push((event.clone(), status));
        Ok(())
    }
}

fn answer(status: u16, code: &str) -> Invoked {
    let body = json!({"error": {"code": code, "message": "…"}}).to_string();
    Invoked {
        function_error: None,
        payload: json!({"statusCode": status, "headers": {}, "body": body})
            .to_string()
            .into_bytes(),
    }
}

fn event() -> HookEvent {
    serde_json::from_value(json!({
        "DeploymentId": "d-ABC123",
        "LifecycleEventHookExecutionId": "exec-1",
    }))
    .unwrap()
}

const GET: &str = "arn:aws:lambda:eu-central-1:123456789012:function:paygate-GetPayment:7";
const CAPTURE: &str = "arn:aws:lambda:eu-central-1:123456789012:function:paygate-Capture:3";

async fn run_with(fake: Fake) -> (Result<Outcome, ReportFailed>, Arc<Fake>) {
    let fake = Arc::new(fake);
    let deps = Deps {
        targets: vec![GET.to_owned(), CAPTURE.to_owned()],
        aws: fake.clone(),
    };
    (run(&deps, &event()).await, fake)
}

#[tokio::test]
async fn healthy_versions_are_reported_succeeded_after_each_was_invoked_with_the_smoke_event() {
    let (outcome, fake) = run_with(Fake {
        answers: vec![
            (GET, Ok(answer(404, "not_found"))),
            (CAPTURE, Ok(answer(404, "not_found"))),
        ],
        ..Fake::default()
    })
    .await;
    assert_eq!(outcome.unwrap().status, Status::Succeeded);
    let invoked = fake.invoked.lock().unwrap().clone();
    assert_eq!(
        invoked.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>(),
        [GET, CAPTURE]
    );
    assert!(invoked.iter().all(|(_, e)| *e == smoke_event()));
    assert_eq!(
        fake.reported.lock().unwrap().as_slice(),
        [(event(), Status::Succeeded)]
    );
}

#[tokio::test]
async fn any_unhealthy_version_fails_the_deployment() {
    let crashed = Invoked {
        function_error: Some("Unhandled".into()),
        payload: b"{\"errorType\":\"Runtime.ExitError\"}".to_vec(),
    };
    for (bad, why) in [
        (
            Ok(answer(500, "internal_error")),
            "answered 500 internal_error",
        ),
        (Ok(answer(401, "unauthorized")), "answered 401 unauthorized"),
        (
            Ok(answer(404, "route_not_found")),
            "answered 404 route_not_found",
        ),
        (Ok(crashed.clone()), "function error Unhandled"),
        (Err("no answer"), "not invoked"),
    ] {
        let (outcome, fake) = run_with(Fake {
            answers: vec![(GET, Ok(answer(404, "not_found"))), (CAPTURE, bad)],
            ..Fake::default()
        })
        .await;
        let outcome = outcome.unwrap();
        assert_eq!(outcome.status, Status::Failed, "{why}");
        assert_eq!(outcome.failures.len(), 1, "{why}");
        assert_eq!(outcome.failures[0].0, CAPTURE);
        assert!(
            outcome.failures[0].1.starts_with(why),
            "{:?}",
            outcome.failures
        );
        assert_eq!(
            fake.reported.lock().unwrap().as_slice(),
            [(event(), Status::Failed)],
            "{why}"
        );
    }
}

#[tokio::test]
async fn a_verdict_that_cannot_be_reported_is_an_error() {
    let (outcome, _) = run_with(Fake {
        answers: vec![
            (GET, Ok(answer(404, "not_found"))),
            (CAPTURE, Ok(answer(404, "not_found"))),
        ],
        report_fails: true,
        ..Fake::default()
    })
    .await;
    assert!(outcome.is_err());
}

#[test]
fn the_smoke_event_reaches_a_function_authenticated_as_a_merchant_that_does_not_exist() {
    let req = lambda_http::request::from_str(&smoke_event().to_string()).unwrap();
    let principal = paygate_http::principal(&req).unwrap();
    assert_eq!(principal.merchant_id.as_str(), SMOKE_MERCHANT);
    assert_eq!(principal.mode.as_str(), "test");
    assert_eq!(req.method(), "POST");
    use lambda_http::RequestExt;
    assert_eq!(
        req.path_parameters_ref().and_then(|p| p.first("id")),
        Some(SMOKE_PAYMENT)
    );
    // Valid ids in form: the functions look the payment up (and find nothing) rather than
    // refusing the request's shape.
    assert!(paygate_domain::ids::PaymentId::parse(SMOKE_PAYMENT).is_ok());
    assert!(paygate_domain::MerchantId::parse(SMOKE_MERCHANT).is_ok());
}

#[test]
fn the_targets_come_from_the_environment_and_may_not_be_empty() {
    let wiring = |targets: Option<&str>| Wiring {
        aws: paygate_aws::Clients::local("http://127.0.0.1:9", "eu-central-1"),
        names: paygate_compose::Names::from_map(targets.map(|t| (TARGETS_ENV, t))),
        clock: Arc::new(paygate_domain::testkit::ManualClock::at(
            paygate_domain::testkit::T0,
        )),
        ids: Arc::new(paygate_compose::system::RandomIds),
        overrides: paygate_compose::Overrides::default(),
    };
    let deps = Deps::build(&wiring(Some(&format!("{GET}, {CAPTURE}")))).unwrap();
    assert_eq!(deps.targets, [GET, CAPTURE]);
    assert!(Deps::build(&wiring(Some(" , "))).is_err());
    assert!(Deps::build(&wiring(None)).is_err());
}
