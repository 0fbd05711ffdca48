//! [`Session::void_checking_cut`] over a one-route bank whose answer each test chooses.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use async_trait::async_trait;
use axum::routing::post;
use paygate_domain::{AccountId, Currency, MerchantId, OperationSet, PosAccount, TransactionId};

use super::*;
use crate::{AccountCredentials, Adapter, BankTransport, MemoryCredentials, Refusal, Wire};

/// A bank whose every answer is its body: `approved`, `declined:<code>` or
/// `declined-cut:<code>` (a decline the bank itself marks as the cut's).
struct Plain;

#[async_trait]
impl Protocol for Plain {
    const CODE: &'static str = "plain";
    type Config = String;
    type Request<'a> = &'static str;
    type Reply = String;

    fn config(&self, creds: &AccountCredentials) -> Result<String, String> {
        Ok(creds.endpoint_url.clone())
    }

    fn request<'a>(&'a self, _: &'a String, op: Op<'a>) -> Result<&'static str, Refusal> {
        Ok(op.name())
    }

    fn kind(req: &&'static str) -> &'static str {
        req
    }

    fn encode(&self, url: &String, req: &&'static str) -> Wire {
        Wire::post(url.as_str(), "text/plain", req.as_bytes().to_vec())
    }

    fn decode(&self, body: &[u8]) -> Result<String, String> {
        String::from_utf8(body.to_vec()).map_err(|e| e.to_string())
    }

    fn outcome(&self, reply: &String) -> BankOutcome {
        let declined = |code: &str, after_cutoff| BankOutcome::Declined {
            code: code.to_owned(),
            message: "refused".to_owned(),
            after_cutoff,
        };
        match reply.split_once(':') {
            Some(("declined", code)) => declined(code, false),
            Some(("declined-cut", code)) => declined(code, true),
            _ => BankOutcome::Approved {
                code: "00".to_owned(),
                auth_code: None,
                rrn: None,
            },
        }
    }

    fn status(&self, _: &String) -> BankStatus {
        BankStatus::unavailable("unused")
    }
}

/// Cancels one order at a bank answering `answer`, with `past` as the order's cut read; the
/// outcome and how many times the read ran.
async fn cancel(answer: &'static str, past: bool) -> (BankOutcome, usize) {
    let router = axum::Router::new().route("/", post(move || async move { answer }));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let creds = Arc::new(MemoryCredentials::default());
    let account = PosAccount {
        id: AccountId::parse("acc_a").unwrap(),
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        provider_code: "plain".into(),
        bank_code: "0001".into(),
        bank_name: "Plain".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: paygate_domain::Mode::Test,
    };
    creds.insert(
        account.id.clone(),
        AccountCredentials::new(url, Vec::<(String, String)>::new()),
    );
    let adapter = Adapter::new(
        Plain,
        BankTransport::new(Duration::from_secs(2)).unwrap(),
        creds,
    );
    let s = adapter.session(&account).await.unwrap();
    let op = BankOperation {
        order_id: "o1".into(),
        transaction_id: TransactionId::parse("txn_a").unwrap(),
        amount: 100,
        currency: Currency::Try,
        full: true,
    };
    let reads = AtomicUsize::new(0);
    let outcome = s
        .void_checking_cut(&op, |code| code == "NO_SALE", async {
            reads.fetch_add(1, Ordering::SeqCst);
            past
        })
        .await;
    (outcome, reads.into_inner())
}

fn after_cutoff(o: &BankOutcome) -> Option<bool> {
    match o {
        BankOutcome::Declined { after_cutoff, .. } => Some(*after_cutoff),
        _ => None,
    }
}

#[tokio::test]
async fn a_refused_void_of_a_sale_past_the_cut_is_the_cuts_refusal() {
    let (o, reads) = cancel("declined:NO_SALE", true).await;
    assert_eq!((after_cutoff(&o), reads), (Some(true), 1), "{o:?}");
    assert!(matches!(&o, BankOutcome::Declined { code, .. } if code == "NO_SALE"));
    let (o, reads) = cancel("declined:NO_SALE", false).await;
    assert_eq!((after_cutoff(&o), reads), (Some(false), 1), "{o:?}");
}

#[tokio::test]
async fn the_order_is_read_only_for_a_refusal_the_cut_can_explain() {
    // Another code: the refusal stands as it is.
    let (o, reads) = cancel("declined:LIMIT", true).await;
    assert_eq!((after_cutoff(&o), reads), (Some(false), 0), "{o:?}");
    // The bank already said it was the cut.
    let (o, reads) = cancel("declined-cut:NO_SALE", false).await;
    assert_eq!((after_cutoff(&o), reads), (Some(true), 0), "{o:?}");
    // An approved void.
    let (o, reads) = cancel("approved", true).await;
    assert!(
        matches!(o, BankOutcome::Approved { .. }) && reads == 0,
        "{o:?}"
    );
}

#[test]
fn a_live_sale_is_a_found_approved_order() {
    let mut st = BankStatus::unavailable("x");
    assert!(!holds_live_sale(&st));
    st.found = true;
    st.state = BankState::Approved;
    assert!(holds_live_sale(&st));
    st.state = BankState::Cancelled;
    assert!(!holds_live_sale(&st));
}
