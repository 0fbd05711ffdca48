//! The Garanti GVPS adapter: a [`PosProvider`] speaking `GVPSRequest`/`GVPSResponse` XML to
//! `<endpoint>/VPServlet`.

use std::sync::Arc;

use async_trait::async_trait;
use paygate_bankkit::{
    AccountCredentials, BankTransport, CallError, CredentialStore, StepRetry, TransportError,
};
use paygate_domain::{
    ports::{BankOperation, PosProvider, TestOrder, TestOrders},
    BankOutcome, BankStatus, CardDetails, Currency, PointsResult, PosAccount, StoreError,
};

use crate::{
    points,
    request::{Request, Signer, TxnType, CONTENT_TYPE, FIXED_AMOUNT, REWARD_INQUIRY_AMOUNT},
    response::{parse_response, GvpsResponse, Verdict},
    status::{combine, is_not_found, parse_history, parse_order_inq},
};

/// Provider code accounts refer to.
pub const PROVIDER_CODE: &str = "garanti";

/// Keys of the account secret (besides `endpointUrl`).
pub mod keys {
    /// Terminal number (`Terminal/ID`), e.g. `30691298`.
    pub const TERMINAL_ID: &str = "terminalId";
    /// Merchant number (`Terminal/MerchantID`), e.g. `7000679`.
    pub const MERCHANT_ID: &str = "merchantId";
    /// Provisioning user for postauth and queries; optional, default `PROVAUT`.
    pub const PROV_USER_ID: &str = "provUserId";
    /// Its password.
    pub const PROV_PASSWORD: &str = "provPassword";
    /// Refund user for void and refund; optional, default `PROVRFN`.
    pub const REFUND_USER_ID: &str = "refundUserId";
    /// Its password.
    pub const REFUND_PASSWORD: &str = "refundPassword";
    /// `PROD` (default) or `TEST`.
    pub const MODE: &str = "mode";
    /// `Customer/IPAddress` sent on back-office operations; optional, default `127.0.0.1`.
    pub const IP_ADDRESS: &str = "ipAddress";
}

/// An account's GVPS settings, read from its secret.
#[derive(Clone)]
pub struct GarantiConfig {
    pub endpoint_url: String,
    pub mode: String,
    pub terminal_id: String,
    pub merchant_id: String,
    pub prov_user_id: String,
    pub prov_password: String,
    pub refund_user_id: String,
    pub refund_password: String,
    pub ip_address: String,
}

impl std::fmt::Debug for GarantiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GarantiConfig")
            .field("endpoint_url", &self.endpoint_url)
            .field("terminal_id", &self.terminal_id)
            .field("merchant_id", &self.merchant_id)
            .field("passwords", &"[redacted]")
            .finish()
    }
}

impl GarantiConfig {
    pub fn from_credentials(c: &AccountCredentials) -> Result<Self, StoreError> {
        let or = |key: &str, default: &str| {
            c.get(key)
                .filter(|v| !v.is_empty())
                .unwrap_or(default)
                .to_owned()
        };
        Ok(Self {
            endpoint_url: c.endpoint_url.clone(),
            mode: or(keys::MODE, "PROD").to_ascii_uppercase(),
            terminal_id: c.require(keys::TERMINAL_ID)?.to_owned(),
            merchant_id: c.require(keys::MERCHANT_ID)?.to_owned(),
            prov_user_id: or(keys::PROV_USER_ID, "PROVAUT"),
            prov_password: c.require(keys::PROV_PASSWORD)?.to_owned(),
            refund_user_id: or(keys::REFUND_USER_ID, "PROVRFN"),
            refund_password: c.require(keys::REFUND_PASSWORD)?.to_owned(),
            ip_address: or(keys::IP_ADDRESS, "127.0.0.1"),
        })
    }

    fn signer(&self, txn: TxnType) -> Signer<'_> {
        let (user_id, password) = if txn.needs_refund_user() {
            (&self.refund_user_id, &self.refund_password)
        } else {
            (&self.prov_user_id, &self.prov_password)
        };
        Signer {
            mode: &self.mode,
            terminal_id: &self.terminal_id,
            merchant_id: &self.merchant_id,
            user_id,
            password,
        }
    }

    pub(crate) fn request<'a>(
        &'a self,
        txn: TxnType,
        order_id: &'a str,
        amount: String,
        currency: Currency,
    ) -> Request<'a> {
        Request {
            signer: self.signer(txn),
            txn,
            ip_address: &self.ip_address,
            order_id,
            amount,
            currency_code: currency.numeric(),
            original_rrn: None,
            card: None,
        }
    }
}

/// `<endpoint>/VPServlet` (an endpoint that already ends in `/VPServlet` is kept).
pub fn servlet_url(endpoint: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    if base.ends_with("/VPServlet") {
        base.to_owned()
    } else {
        format!("{base}/VPServlet")
    }
}

/// A route next to the servlet, e.g. the simulator's `/_sim/orders`.
pub fn admin_url(endpoint: &str, path: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    let base = base.strip_suffix("/VPServlet").unwrap_or(base);
    format!("{base}{path}")
}

/// The Garanti GVPS provider.
pub struct GarantiProvider {
    pub(crate) transport: BankTransport,
    creds: Arc<dyn CredentialStore>,
    pub(crate) retry: StepRetry,
}

impl GarantiProvider {
    pub fn new(transport: BankTransport, creds: Arc<dyn CredentialStore>) -> Self {
        Self {
            transport,
            creds,
            retry: StepRetry::default(),
        }
    }

    /// How the second void of a two-step cancel is retried (default [`StepRetry::default`]).
    pub fn with_step_retry(mut self, retry: StepRetry) -> Self {
        self.retry = retry;
        self
    }

    async fn config(&self, account: &PosAccount) -> Result<GarantiConfig, CallError> {
        let parse = GarantiConfig::from_credentials;
        paygate_bankkit::account_config(self.creds.as_ref(), &account.id, parse).await
    }

    /// Sends one request. The body may hold a card number and always a hash: never logged.
    async fn send(
        &self,
        cfg: &GarantiConfig,
        req: &Request<'_>,
    ) -> Result<GvpsResponse, CallError> {
        let bytes = self
            .transport
            .post(
                &servlet_url(&cfg.endpoint_url),
                CONTENT_TYPE,
                req.to_xml().into_bytes(),
            )
            .await
            .map_err(CallError::Transport)?;
        parse_response(&bytes).map_err(|e| {
            tracing::warn!(provider = "garanti", error = %e, "garanti answer unreadable");
            CallError::Malformed(e.to_string())
        })
    }

    /// Runs a money-moving request and maps its answer.
    pub(crate) async fn money(
        &self,
        account: &PosAccount,
        cfg: &GarantiConfig,
        req: Request<'_>,
    ) -> BankOutcome {
        let txn = req.txn;
        let order_id = req.order_id;
        let outcome = match self.send(cfg, &req).await {
            Err(e) => e.outcome(),
            Ok(r) if !r.order_id.is_empty() && r.order_id != order_id => BankOutcome::Unknown {
                reason: "the bank answered for another order".to_owned(),
            },
            Ok(r) => r.outcome(),
        };
        log_outcome(account, order_id, txn, &outcome);
        outcome
    }

    /// A read-only request; `Err` carries (code, message) when there is no usable answer.
    pub(crate) async fn read(
        &self,
        cfg: &GarantiConfig,
        txn: TxnType,
        order_id: &str,
    ) -> Result<GvpsResponse, (String, String)> {
        let req = cfg.request(txn, order_id, FIXED_AMOUNT.to_owned(), Currency::Try);
        self.send(cfg, &req).await.map_err(|e| e.code_and_message())
    }
}

pub(crate) fn log_outcome(
    account: &PosAccount,
    order_id: &str,
    txn: TxnType,
    outcome: &BankOutcome,
) {
    let (result, code) = match outcome {
        BankOutcome::Approved { code, .. } => ("approved", code.as_str()),
        BankOutcome::Declined { code, .. } => ("declined", code.as_str()),
        BankOutcome::Error { code, .. } => ("error", code.as_str()),
        BankOutcome::Unknown { .. } => ("unknown", ""),
    };
    tracing::info!(provider = PROVIDER_CODE, account_id = %account.id, order_id,
        operation = txn.wire(), result, code, "garanti operation");
}

#[async_trait]
impl PosProvider for GarantiProvider {
    fn code(&self) -> &'static str {
        PROVIDER_CODE
    }

    /// `postauth` (PROVAUT) for the amount to capture, in kuruş.
    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let cfg = match self.config(account).await {
            Ok(c) => c,
            Err(e) => return e.outcome(),
        };
        let req = cfg.request(
            TxnType::PostAuth,
            &op.order_id,
            op.amount.to_string(),
            op.currency,
        );
        self.money(account, &cfg, req).await
    }

    /// `orderhistoryinq`, then the voids still missing (see [`crate::cancel`]).
    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let cfg = match self.config(account).await {
            Ok(c) => c,
            Err(e) => return e.outcome(),
        };
        self.cancel_order(account, &cfg, op).await
    }

    /// `refund` (PROVRFN) of the amount, in kuruş; full and partial alike.
    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let cfg = match self.config(account).await {
            Ok(c) => c,
            Err(e) => return e.outcome(),
        };
        let req = cfg.request(
            TxnType::Refund,
            &op.order_id,
            op.amount.to_string(),
            op.currency,
        );
        self.money(account, &cfg, req).await
    }

    /// `orderinq` for the order's status, then `orderhistoryinq` for voids and refunds.
    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        let cfg = match self.config(account).await {
            Ok(c) => c,
            Err(e) => return e.status(),
        };
        let inq = match self.read(&cfg, TxnType::OrderInq, order_id).await {
            Ok(r) if is_not_found(&r) => return BankStatus::not_found(&r.bank_code()),
            Ok(r) if r.verdict() == Verdict::Approved => match parse_order_inq(&r) {
                Ok(inq) => inq,
                Err(_) => return BankStatus::unavailable("response"),
            },
            Ok(r) => return BankStatus::unavailable(&r.bank_code()),
            Err((code, _)) => return BankStatus::unavailable(&code),
        };
        let history = match self.read(&cfg, TxnType::OrderHistoryInq, order_id).await {
            Ok(r) if is_not_found(&r) => Vec::new(),
            Ok(r) if r.verdict() == Verdict::Approved => match parse_history(&r) {
                Ok(h) => h,
                Err(_) => return BankStatus::unavailable("response"),
            },
            Ok(r) => return BankStatus::unavailable(&r.bank_code()),
            Err((code, _)) => return BankStatus::unavailable(&code),
        };
        let st = combine(&inq, &history);
        tracing::info!(provider = PROVIDER_CODE, account_id = %account.id, order_id,
            state = st.state.as_str(), amount = st.amount, refunded = st.refunded_amount,
            "garanti status");
        st
    }

    /// `rewardinq` (PROVAUT) with the card: Bonus (`BNS`), FirmBonus (`FBB`), … balances.
    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        let cfg = match self.config(account).await {
            Ok(c) => c,
            Err(e) => {
                let (code, message) = e.code_and_message();
                return PointsResult::Error { code, message };
            }
        };
        let mut req = cfg.request(
            TxnType::RewardInq,
            "",
            REWARD_INQUIRY_AMOUNT.to_owned(),
            currency,
        );
        req.card = Some(card);
        let result = match self.send(&cfg, &req).await {
            Ok(r) => points::result(&r),
            Err(e) => {
                let (code, message) = e.code_and_message();
                PointsResult::Error { code, message }
            }
        };
        let (kind, code) = match &result {
            PointsResult::Ok { .. } => ("ok", ""),
            PointsResult::Declined { code, .. } => ("declined", code.as_str()),
            PointsResult::Error { code, .. } => ("error", code.as_str()),
        };
        tracing::info!(provider = PROVIDER_CODE, account_id = %account.id,
            card = %card.masked(), result = kind, code, "garanti points inquiry");
        result
    }

    fn test_orders(&self) -> Option<&dyn TestOrders> {
        Some(self)
    }
}

/// The body of the simulator's `POST /_sim/orders`: the order and the terminal it is for.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisterOrder {
    pub terminal_id: String,
    pub merchant_id: String,
    #[serde(flatten)]
    pub order: TestOrder,
}

#[async_trait]
impl TestOrders for GarantiProvider {
    /// Registers the order at the simulator's admin route. A real GVPS endpoint has no such
    /// route: the call fails and the failure is reported.
    async fn register(&self, account: &PosAccount, order: &TestOrder) -> Result<(), StoreError> {
        let creds = self.creds.credentials(&account.id).await?;
        let cfg = GarantiConfig::from_credentials(&creds)?;
        let body = serde_json::to_vec(&RegisterOrder {
            terminal_id: cfg.terminal_id.clone(),
            merchant_id: cfg.merchant_id.clone(),
            order: order.clone(),
        })
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let url = admin_url(&cfg.endpoint_url, "/_sim/orders");
        match self.transport.post(&url, "application/json", body).await {
            Ok(_) => Ok(()),
            Err(TransportError::Http(409)) => Err(StoreError::AlreadyExists),
            Err(e) => Err(StoreError::Unavailable(format!(
                "registering a test order at the bank failed ({e}); only the simulator accepts test orders"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            servlet_url("http://127.0.0.1:1"),
            "http://127.0.0.1:1/VPServlet"
        );
        assert_eq!(
            servlet_url("https://sanalposprovtest.garantibbva.com.tr/VPServlet/"),
            "https://sanalposprovtest.garantibbva.com.tr/VPServlet"
        );
        assert_eq!(
            admin_url("http://h:1/VPServlet", "/_sim/orders"),
            "http://h:1/_sim/orders"
        );
        assert_eq!(
            admin_url("http://h:1/", "/_sim/orders"),
            "http://h:1/_sim/orders"
        );
    }

    #[test]
    fn config_defaults_and_redaction() {
        let c = AccountCredentials::new(
            "http://h",
            [
                ("terminalId".to_owned(), "30691298".to_owned()),
                ("merchantId".to_owned(), "7000679".to_owned()),
                ("provPassword".to_owned(), "p1".to_owned()),
                ("refundPassword".to_owned(), "p2".to_owned()),
            ],
        );
        let cfg = GarantiConfig::from_credentials(&c).unwrap();
        assert_eq!(
            (
                cfg.prov_user_id.as_str(),
                cfg.refund_user_id.as_str(),
                cfg.mode.as_str()
            ),
            ("PROVAUT", "PROVRFN", "PROD")
        );
        assert_eq!(cfg.signer(TxnType::Refund).password, "p2");
        assert_eq!(cfg.signer(TxnType::Void).user_id, "PROVRFN");
        assert_eq!(cfg.signer(TxnType::PostAuth).password, "p1");
        assert_eq!(cfg.signer(TxnType::OrderInq).user_id, "PROVAUT");
        let shown = format!("{cfg:?}");
        assert!(!shown.contains("p1") && !shown.contains("p2"));
        let missing = AccountCredentials::new("http://h", []);
        assert!(GarantiConfig::from_credentials(&missing)
            .unwrap_err()
            .to_string()
            .contains("terminalId"));
    }
}
