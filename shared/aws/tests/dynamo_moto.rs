//! The moto launcher itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

use std::{net::TcpStream, path::Path, time::Duration};

use paygate_aws::moto::MotoServer;

fn answers(endpoint: &str) -> bool {
    let addr = endpoint.trim_start_matches("http://");
    addr.parse()
        .ok()
        .and_then(|a| TcpStream::connect_timeout(&a, Duration::from_millis(300)).ok())
        .is_some()
}

#[tokio::test]
async fn a_started_server_answers_dynamodb_and_stops_when_dropped() {
    // GIVEN a moto server of our own
    let moto = MotoServer::start().expect("moto starts");
    assert!(moto.serialized, "moto runs with serialized requests");
    let endpoint = moto.endpoint.clone();

    // WHEN we call DynamoDB on it THEN it answers
    let tables = moto
        .client()
        .list_tables()
        .send()
        .await
        .expect("ListTables");
    assert!(tables.table_names().is_empty());

    // WHEN it is dropped THEN it no longer listens
    drop(moto);
    let mut stopped = false;
    for _ in 0..50 {
        if !answers(&endpoint) {
            stopped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(stopped, "moto still answers at {endpoint} after drop");
}

#[test]
fn a_missing_binary_is_reported() {
    // GIVEN a binary that does not exist WHEN started THEN the error says so promptly
    let err = MotoServer::start_binary(Path::new("/nonexistent/moto_server")).unwrap_err();
    assert!(
        err.to_string().contains("/nonexistent/moto_server"),
        "{err}"
    );
}
