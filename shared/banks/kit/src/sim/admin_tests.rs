//! The shared admin routes and the counted-fault wrapper, over a minimal simulator.

use std::time::Instant;

use axum::routing::post;

use super::*;
use crate::sim::{serve_counted, FaultKind, OrderState};

struct Tiny {
    state: Arc<SimState>,
}

impl Host for Tiny {
    fn sim_state(&self) -> &SimState {
        &self.state
    }
}

impl Clients for Tiny {
    const CLIENT_FIELD: &'static str = "shopCode";
    const DUPLICATE: &'static str = "E-DUP order exists";

    fn knows(&self, client: &str) -> bool {
        client == "shop1"
    }
}

/// A simulator with the admin routes at the root and under `/api`.
async fn tiny() -> (SimServer, Arc<SimState>) {
    host(true, |state| {
        let router = Router::new().route("/api", post(|| async { "api" }));
        admin_routes(router, &["", "/api"]).with_state(Arc::new(Tiny { state }))
    })
    .await
    .unwrap()
}

async fn post_json(url: &str, body: serde_json::Value) -> (u16, String) {
    let r = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

fn order(shop: &str, id: &str) -> serde_json::Value {
    serde_json::json!({
        "shopCode": shop, "orderId": id, "amount": 1250, "currency": "TRY",
        "state": "approved", "settled": false
    })
}

#[tokio::test]
async fn test_orders_are_booked_under_the_named_client() {
    let (server, state) = tiny().await;
    let url = format!("{}/_sim/orders", server.url);
    assert_eq!(post_json(&url, order("shop1", "o1")).await.0, 201);
    let booked = state.ledger_of("shop1", "o1").unwrap();
    assert_eq!((booked.amount, booked.state), (1250, OrderState::Sale));
    // Under the API prefix too; a duplicate is 409 with the simulator's text.
    let prefixed = format!("{}/api/_sim/orders", server.url);
    assert_eq!(
        post_json(&prefixed, order("shop1", "o1")).await,
        (409, "E-DUP order exists".to_owned())
    );
    assert_eq!(
        post_json(&url, order("shop9", "o2")).await,
        (404, "unknown shopCode".to_owned())
    );
    assert!(state.ledger_of("shop9", "o2").is_none());
    // Without the client field or the order's: 422, nothing booked.
    let mut no_client = order("shop1", "o3");
    no_client.as_object_mut().unwrap().remove("shopCode");
    let (status, text) = post_json(&url, no_client).await;
    assert!(
        status == 422 && text.contains("shopCode"),
        "{status} {text}"
    );
    let mut no_amount = order("shop1", "o3");
    no_amount.as_object_mut().unwrap().remove("amount");
    assert_eq!(post_json(&url, no_amount).await.0, 422);
    assert!(state.ledger_of("shop1", "o3").is_none());
}

#[tokio::test]
async fn end_of_day_and_faults_reach_the_state() {
    let (server, state) = tiny().await;
    assert_eq!(state.book().today(), 0);
    let eod = format!("{}/_sim/end-of-day", server.url);
    assert_eq!(post_json(&eod, serde_json::json!({})).await.0, 200);
    assert_eq!(state.book().today(), 1);
    let faults = format!("{}/api/_sim/faults", server.url);
    let body =
        serde_json::json!({"latencyMs": 30, "technicalErrors": 2, "dropBeforeProcessing": 1});
    assert_eq!(post_json(&faults, body).await.0, 200);
    let f = state.faults().clone();
    assert_eq!(
        (
            f.latency,
            f.technical_errors,
            f.drop_after_processing,
            f.drop_before_processing
        ),
        (Duration::from_millis(30), 2, 0, 1)
    );
}

#[tokio::test]
async fn counted_faults_decide_whether_a_request_is_processed_and_answered() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let processed = AtomicUsize::new(0);
    let serve = |fault| {
        let processed = &processed;
        serve_counted(
            (Duration::from_millis(40), fault),
            || "technical".into_response(),
            async move {
                processed.fetch_add(1, Ordering::SeqCst);
                "answer".into_response()
            },
        )
    };
    let body = |r: Response| async {
        axum::body::to_bytes(r.into_body(), 1024)
            .await
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|_| "dropped")
    };
    // Passed: processed, answered after the latency.
    let started = Instant::now();
    assert_eq!(body(serve(None).await).await, Ok("answer".to_owned()));
    assert!(started.elapsed() >= Duration::from_millis(40));
    assert_eq!(processed.load(Ordering::SeqCst), 1);
    // A technical error: answered, not processed.
    assert_eq!(
        body(serve(Some(FaultKind::TechnicalError)).await).await,
        Ok("technical".to_owned())
    );
    assert_eq!(processed.load(Ordering::SeqCst), 1);
    // Dropped before: not processed, no answer.
    assert_eq!(
        body(serve(Some(FaultKind::DropBefore)).await).await,
        Err("dropped")
    );
    assert_eq!(processed.load(Ordering::SeqCst), 1);
    // Dropped after: processed, no answer.
    assert_eq!(
        body(serve(Some(FaultKind::DropAfter)).await).await,
        Err("dropped")
    );
    assert_eq!(processed.load(Ordering::SeqCst), 2);
}
