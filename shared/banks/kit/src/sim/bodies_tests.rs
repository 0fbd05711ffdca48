//! The pure readers answer what axum's `Json` extractor answered before them (same status,
//! same text), and read the orders and faults the routes book.

use axum::{body::Body, http::Request as HttpRequest};
use paygate_domain::{ports::TestOrderState, Currency};

use super::*;

fn request(content_type: Option<&str>, body: &str) -> Request {
    let mut b = HttpRequest::builder().method("POST").uri("/");
    if let Some(ct) = content_type {
        b = b.header(header::CONTENT_TYPE, ct);
    }
    b.body(Body::from(body.to_owned())).unwrap()
}

async fn answer(r: Response) -> (u16, String) {
    let status = r.status().as_u16();
    let bytes = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// What axum's `Json<T>` makes of the request, and what `JsonBytes` + [`json`] make of it.
async fn both<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
    content_type: Option<&str>,
    body: &str,
) -> (Result<T, (u16, String)>, Result<T, (u16, String)>) {
    let axum_json = match Json::<T>::from_request(request(content_type, body), &()).await {
        Ok(Json(v)) => Ok(v),
        Err(r) => Err(answer(r.into_response()).await),
    };
    let ours = match JsonBytes::from_request(request(content_type, body), &()).await {
        Ok(JsonBytes(bytes)) => match json::<T>(&bytes) {
            Ok(v) => Ok(v),
            Err(refused) => Err(answer(refused.into_response()).await),
        },
        Err(r) => Err(answer(r).await),
    };
    (axum_json, ours)
}

#[tokio::test]
async fn refusals_are_the_json_extractors_own() {
    let content_types = [
        None,
        Some("application/json"),
        Some("application/json; charset=utf-8"),
        Some("application/json;charset=utf-8"),
        Some("application/cloudevents+json"),
        Some("Application/JSON"),
        Some("text/json"),
        Some("application/jsonx"),
        Some("application/json;"),
        Some("application/x-www-form-urlencoded"),
        Some(""),
    ];
    let bodies = [
        "{}",
        r#"{"latencyMs": 5, "technicalErrors": 1}"#,
        r#"{"latencyMs": -5}"#,
        r#"{"latencyMs": "5"}"#,
        r#"{"latencyMs": 5} trailing"#,
        "{",
        "",
        "null",
        "[1, 2]",
        "\u{feff}{}",
        r#"{"dropAfterProcessing": 4294967296}"#,
    ];
    for ct in content_types {
        for body in bodies {
            let (theirs, ours) = both::<FaultsBody>(ct, body).await;
            assert_eq!(ours, theirs, "{ct:?} {body:?}");
            let (theirs, ours) = both::<Map<String, Value>>(ct, body).await;
            assert_eq!(ours, theirs, "{ct:?} {body:?}");
        }
    }
    // The table reaches every kind of refusal.
    let (_, ours) = both::<FaultsBody>(None, "{}").await;
    assert_eq!(ours.unwrap_err().0, 415);
    let (_, ours) = both::<FaultsBody>(Some("application/json"), "{").await;
    assert_eq!(ours.unwrap_err().0, 400);
    let (_, ours) = both::<FaultsBody>(Some("application/json"), r#"{"latencyMs": -5}"#).await;
    assert_eq!(ours.unwrap_err().0, 422);
}

#[test]
fn orders_are_read_with_their_client() {
    let (client, order) = order_body(
        "clientId",
        br#"{"clientId": "700", "orderId": "o1", "amount": 1250, "currency": "TRY", "state": "preauth", "settled": true}"#,
    )
    .unwrap();
    assert_eq!(client, "700");
    assert_eq!(
        order,
        TestOrder {
            order_id: "o1".into(),
            amount: 1250,
            currency: Currency::Try,
            state: TestOrderState::Preauth,
            settled: true,
        }
    );
    let refused = |body: &[u8]| order_body("clientId", body).unwrap_err();
    let r = refused(br#"{"orderId": "o1"}"#);
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        r.text,
        "Failed to deserialize the JSON body into the target type: missing field `clientId`"
    );
    let r = refused(br#"{"clientId": 7}"#);
    assert_eq!(
        (r.status, r.text.ends_with("`clientId` must be a string")),
        (StatusCode::UNPROCESSABLE_ENTITY, true)
    );
    let r = refused(br#"{"clientId": "7", "orderId": "o1", "amount": 1, "currency": "XYZ", "state": "none", "settled": false}"#);
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused(b"[]").status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused(b"{").status, StatusCode::BAD_REQUEST);
}

#[test]
fn faults_default_to_none() {
    assert_eq!(faults_body(b"{}").unwrap(), FaultsBody::default());
    let f = faults_body(br#"{"latencyMs": 30, "dropBeforeProcessing": 2, "other": 1}"#).unwrap();
    assert_eq!((f.latency_ms, f.drop_before_processing), (30, 2));
    assert_eq!(
        faults_body(br#"{"technicalErrors": -1}"#)
            .unwrap_err()
            .status,
        StatusCode::UNPROCESSABLE_ENTITY
    );
}
