//! [`Session::void_checking_cut`] over a one-route bank whose answer each test chooses.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use axum::routing::post;
use paygate_domain::{AccountId, Currency, MerchantId, OperationSet, PosAccount, TransactionId};

use super::*;
use crate::{
    AccountCredentials, Adapter, BankConfig, BankReply, BankRequest, BankTransport,
    MemoryCredentials, Refusal, Wire,
};

/// A bank whose every answer is its body: `approved`, `declined:<code>` or
/// `declined-cut:<code>` (a decline the bank itself marks as the cut's).
struct Plain;

/// The account's endpoint is all a plain bank needs.
struct Url(String);

impl BankConfig for Url {
    fn from_account(creds: &AccountCredentials) -> Result<Self, paygate_domain::StoreError> {
        Ok(Self(creds.endpoint_url.clone()))
    }
}

/// A request is the operation's name.
struct Named(&'static str);

impl BankRequest for Named {
    type Reply = Answer;

    fn kind(&self) -> &'static str {
        self.0
    }
}

/// An answer is its body.
struct Answer(String);

impl BankReply for Answer {
    fn decode(body: &[u8]) -> Result<Self, String> {
        String::from_utf8(body.to_vec())
            .map(Self)
            .map_err(|e| e.to_string())
    }

    fn outcome(&self) -> BankOutcome {
        let declined = |code: &str, after_cutoff| BankOutcome::Declined {
            code: code.to_owned(),
            message: "refused".to_owned(),
            after_cutoff,
        };
        match self.0.split_once(':') {
            Some(("declined", code)) => declined(code, false),
            Some(("declined-cut", code)) => declined(code, true),
            _ => BankOutcome::Approved {
                code: "00".to_owned(),
                auth_code: None,
                rrn: None,
            },
        }
    }

    fn status(&self) -> BankStatus {
        BankStatus::unavailable("unused")
    }
}

impl Protocol for Plain {
    const CODE: &'static str = "plain";
    type Config = Url;
    type Request<'a> = Named;

    fn request<'a>(&'a self, _: &'a Url, op: Op<'a>) -> Result<Named, Refusal> {
        Ok(Named(op.name()))
    }

    fn encode(&self, url: &Url, req: &Named) -> Wire {
        Wire::post(url.0.as_str(), "text/plain", req.0.as_bytes().to_vec())
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
    let adapter = Adapter::new(Plain, BankTransport::new(Duration::from_secs(2)), creds);
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
