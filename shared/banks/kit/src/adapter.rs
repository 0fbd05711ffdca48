//! [`Adapter`]: runs a [`Protocol`] as the gateway's [`PosProvider`], with uniform logging
//! (operation, account, order, outcome class: never a body), and registers test orders at a
//! simulator's admin route ([`TestOrders`]).

use std::sync::Arc;

use async_trait::async_trait;
use paygate_domain::{
    account::OperationSet,
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    ports::{BankOperation, PosProvider, TestOrder, TestOrders},
    Currency, PosAccount, StoreError,
};

use crate::{
    AccountCredentials, BankConfig, BankTransport, CallError, CredentialStore, Protocol, Session,
    TransportError,
};

/// Runs a [`Protocol`] as the gateway's [`PosProvider`].
pub struct Adapter<P: Protocol> {
    pub(crate) protocol: P,
    pub(crate) transport: BankTransport,
    creds: Arc<dyn CredentialStore>,
}

impl<P: Protocol> Adapter<P> {
    pub fn new(protocol: P, transport: BankTransport, creds: Arc<dyn CredentialStore>) -> Self {
        Self {
            protocol,
            transport,
            creds,
        }
    }

    pub fn protocol(&self) -> &P {
        &self.protocol
    }

    /// A session on the account, or why its settings cannot be used (nothing was sent).
    pub async fn session<'a>(
        &'a self,
        account: &'a PosAccount,
    ) -> Result<Session<'a, P>, CallError> {
        let parse = |c: &AccountCredentials| P::Config::from_account(c);
        let cfg = crate::account_config(self.creds.as_ref(), &account.id, parse).await?;
        Ok(Session {
            adapter: self,
            account,
            cfg,
        })
    }
}

fn outcome_class(o: &BankOutcome) -> &'static str {
    match o {
        BankOutcome::Approved { .. } => "approved",
        BankOutcome::Declined { .. } => "declined",
        BankOutcome::Error { .. } => "error",
        BankOutcome::Unknown { .. } => "unknown",
    }
}

fn log_outcome(code: &str, account: &PosAccount, order_id: &str, what: &str, o: &BankOutcome) {
    tracing::info!(provider = code, account_id = %account.id, order_id = %order_id,
        operation = what, outcome = outcome_class(o), "bank operation");
}

#[async_trait]
impl<P: Protocol> PosProvider for Adapter<P> {
    fn code(&self) -> &'static str {
        P::CODE
    }

    fn supported(&self) -> OperationSet {
        self.protocol.supported()
    }

    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let o = match self.session(account).await {
            Ok(s) => self.protocol.capture(&s, op).await,
            Err(e) => e.outcome(),
        };
        log_outcome(P::CODE, account, &op.order_id, "capture", &o);
        o
    }

    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let o = match self.session(account).await {
            Ok(s) => self.protocol.cancel(&s, op).await,
            Err(e) => e.outcome(),
        };
        log_outcome(P::CODE, account, &op.order_id, "cancel", &o);
        o
    }

    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let o = match self.session(account).await {
            Ok(s) => self.protocol.refund(&s, op).await,
            Err(e) => e.outcome(),
        };
        log_outcome(P::CODE, account, &op.order_id, "refund", &o);
        o
    }

    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        let st = match self.session(account).await {
            Ok(s) => self.protocol.query(&s, order_id).await,
            Err(e) => e.status(),
        };
        tracing::info!(provider = P::CODE, account_id = %account.id, order_id = %order_id,
            found = st.found, state = st.state.as_str(), code = %st.code, "bank query");
        st
    }

    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        let result = match self.session(account).await {
            Ok(s) => self.protocol.points_inquiry(&s, card, currency).await,
            Err(e) => {
                let (code, message) = e.code_and_message();
                PointsResult::Error { code, message }
            }
        };
        tracing::info!(provider = P::CODE, account_id = %account.id, card = %card.masked(),
            ok = matches!(result, PointsResult::Ok { .. }), "bank points inquiry");
        result
    }

    async fn day_history(
        &self,
        account: &PosAccount,
        day: paygate_domain::daily::BusinessDay,
    ) -> paygate_domain::daily::DayHistory {
        use paygate_domain::daily::DayHistory;
        let h = match self.session(account).await {
            Ok(s) => self.protocol.day_history(&s, day).await,
            Err(e) => DayHistory::Unavailable {
                reason: e.code().to_owned(),
            },
        };
        let (outcome, lines) = match &h {
            DayHistory::Lines(l) => ("lines", l.len()),
            DayHistory::Unsupported => ("unsupported", 0),
            DayHistory::Unavailable { .. } => ("unavailable", 0),
        };
        tracing::info!(provider = P::CODE, account_id = %account.id, day = %day,
            outcome, lines, "bank day history");
        h
    }

    fn test_orders(&self) -> Option<&dyn TestOrders> {
        Some(self)
    }

    fn decline_code(&self, outcome: &BankOutcome) -> Option<paygate_domain::DeclineCode> {
        crate::decline::classify(outcome, P::DECLINE_CODES)
    }

    fn decline_codes(&self) -> &'static [(&'static str, paygate_domain::DeclineCode)] {
        P::DECLINE_CODES
    }
}

/// Registers a test order at the account's simulator through the protocol's admin route.
/// A real bank has no such route: the failure is reported, nothing else happens.
#[async_trait]
impl<P: Protocol> TestOrders for Adapter<P> {
    async fn register(&self, account: &PosAccount, order: &TestOrder) -> Result<(), StoreError> {
        let s = self
            .session(account)
            .await
            .map_err(|_| StoreError::Corrupt(format!("{} credentials unavailable", P::CODE)))?;
        let Some(route) = s.config().test_order_route() else {
            return Err(StoreError::Unavailable(format!(
                "{} accounts have no simulator route for test orders",
                P::CODE
            )));
        };
        let mut body = serde_json::to_value(order)
            .map_err(|e| StoreError::Corrupt(format!("test order: {e}")))?;
        if let Some(map) = body.as_object_mut() {
            for (k, v) in route.extra {
                map.insert(k.to_owned(), v.into());
            }
        }
        let bytes = serde_json::to_vec(&body).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        match self
            .transport
            .post(&route.url, "application/json", bytes)
            .await
        {
            Ok(_) => Ok(()),
            Err(TransportError::Http(409)) => Err(StoreError::AlreadyExists),
            Err(e) => Err(StoreError::Unavailable(format!(
                "the bank did not accept the test order (no simulator admin route?): {e}"
            ))),
        }
    }
}
