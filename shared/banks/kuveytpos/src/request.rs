//! The SOAP requests of the query service (`VirtualPosService.svc/Basic`,
//! `BOA.Integration.WCFService`): `GetMerchantOrderDetail`, `SaleReversal`, `DrawBack` and
//! `PartialDrawback`. Element names, order and fixed values follow MEWS
//! `KuveytPosRequestDataMapper` and its serializer test (`soapenv` envelope, the service
//! namespace `http://boa.net/BOA.Integration.VirtualPos/Service` as `ser:`, every element
//! prefixed); `SOAPAction` is `<namespace>/IVirtualPosService/<method>` (MEWS
//! `KuveytPos::sendSoapRequest`). Amounts are kuruş digits (`101` for 1.01 TL), currencies
//! four-digit ISO 4217 numeric (`0949`). Cancel and refund name the sale as the bank knows
//! it (`OrderId`, `RRN`, `Stan`, `ProvisionNumber`), read first from
//! `GetMerchantOrderDetail` ([`SaleRef`]).

use paygate_bankkit::{xml::escape, BankRequest, Order};
use paygate_domain::Currency;

use crate::{config::ApiCredentials, hash, response::Reply};

/// The request body's content type (MEWS `KuveytPos::sendSoapRequest`).
pub const CONTENT_TYPE: &str = "text/xml; charset=UTF-8";
/// The `SOAPAction` header.
pub const SOAP_ACTION: &str = "SOAPAction";
/// The `VPosMessage` API version.
pub const API_VERSION: &str = "TDV2.0.0";
/// The service's XML namespace.
pub const SERVICE_NS: &str = "http://boa.net/BOA.Integration.VirtualPos/Service";
/// The SOAP 1.1 envelope namespace.
pub const SOAP_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";

/// The service's methods (also the `VPosMessage`'s `TransactionType`).
pub mod method {
    pub const ORDER_DETAIL: &str = "GetMerchantOrderDetail";
    pub const SALE_REVERSAL: &str = "SaleReversal";
    pub const DRAW_BACK: &str = "DrawBack";
    pub const PARTIAL_DRAWBACK: &str = "PartialDrawback";
}

/// `SOAPAction` of a method.
pub fn soap_action(method: &str) -> String {
    format!("{SERVICE_NS}/IVirtualPosService/{method}")
}

/// The bank's own references of a sale (`GetMerchantOrderDetail`'s `OrderContract`), which
/// a reversal or refund must carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SaleRef {
    /// The bank's order number (`OrderId`), not the merchant's order id.
    pub order_id: String,
    pub rrn: String,
    pub stan: String,
    /// `ProvNumber` of the contract, sent as `ProvisionNumber`.
    pub provision: String,
}

/// One request of the query service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// The order's contract(s), searched by the merchant's order id within
    /// `start`..`end` (`YYYY-MM-DDTHH:MM:SS`; the service refuses a request without them).
    OrderDetail {
        order_id: &'a str,
        start: String,
        end: String,
    },
    /// Reverses the sale (same business day only); `order.amount` is the sale's amount.
    Reversal { order: Order<'a>, sale: SaleRef },
    /// Refunds the whole sale (its full amount, after its business day).
    DrawBack { order: Order<'a>, sale: SaleRef },
    /// Refunds part of the sale.
    PartialDrawback { order: Order<'a>, sale: SaleRef },
}

impl Request<'_> {
    /// The service method.
    pub fn method(&self) -> &'static str {
        match self {
            Self::OrderDetail { .. } => method::ORDER_DETAIL,
            Self::Reversal { .. } => method::SALE_REVERSAL,
            Self::DrawBack { .. } => method::DRAW_BACK,
            Self::PartialDrawback { .. } => method::PARTIAL_DRAWBACK,
        }
    }

    /// The merchant's order id the request is about.
    pub fn order_id(&self) -> &str {
        match self {
            Self::OrderDetail { order_id, .. } => order_id,
            Self::Reversal { order, .. }
            | Self::DrawBack { order, .. }
            | Self::PartialDrawback { order, .. } => order.order_id,
        }
    }
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    /// The service method.
    fn kind(&self) -> &'static str {
        self.method()
    }

    /// An answer of the same method about the same order (a refusal names no order).
    fn answered_by(&self, reply: &Reply) -> bool {
        let named = reply.value.get("MerchantOrderId");
        reply.method == self.method() && (named.is_empty() || named == self.order_id())
    }
}

/// A four-digit ISO 4217 numeric code (`0949`).
pub fn currency_code(c: Currency) -> String {
    format!("{:0>4}", c.numeric())
}

/// `ser:`-prefixed elements, in order.
#[derive(Default)]
struct Body(String);

impl Body {
    fn leaf(mut self, name: &str, text: &str) -> Self {
        self.0
            .push_str(&format!("<ser:{name}>{}</ser:{name}>", escape(text)));
        self
    }

    fn wrap(name: &str, inner: Body) -> Body {
        Body(format!("<ser:{name}>{}</ser:{name}>", inner.0))
    }

    fn raw(mut self, inner: Body) -> Self {
        self.0.push_str(&inner.0);
        self
    }
}

/// The `VPosMessage` (account data, the hash over it, the operation's amounts).
fn vpos_message(
    creds: &ApiCredentials,
    method: &str,
    merchant_order_id: &str,
    (amount, display, cancel): (&str, &str, &str),
    currency: &str,
) -> Body {
    let hash = hash::hash_data(creds, merchant_order_id, amount);
    Body::default()
        .leaf("APIVersion", API_VERSION)
        .leaf("InstallmentMaturityCommisionFlag", "0")
        .leaf("HashData", &hash)
        .leaf("MerchantId", &creds.merchant_id)
        .leaf("SubMerchantId", "0")
        .leaf("CustomerId", &creds.customer_id)
        .leaf("UserName", &creds.user_name)
        .leaf("CardType", "Visa")
        .leaf("BatchID", "0")
        .leaf("TransactionType", method)
        .leaf("InstallmentCount", "0")
        .leaf("Amount", amount)
        .leaf("DisplayAmount", display)
        .leaf("CancelAmount", cancel)
        .leaf("MerchantOrderId", merchant_order_id)
        .leaf("FECAmount", "0")
        .leaf("CurrencyCode", currency)
        .leaf("QeryId", "0")
        .leaf("DebtId", "0")
        .leaf("SurchargeAmount", "0")
        .leaf("SGKDebtAmount", "0")
        .leaf("TransactionSecurity", "1")
}

/// The fields every request starts with.
fn head(creds: &ApiCredentials, amount: &str) -> Body {
    Body::default()
        .leaf("IsFromExternalNetwork", "true")
        .leaf("BusinessKey", "0")
        .leaf("ResourceId", "0")
        .leaf("ActionId", "0")
        .leaf("LanguageId", "0")
        .leaf("CustomerId", &creds.customer_id)
        .leaf("MailOrTelephoneOrder", "true")
        .leaf("Amount", amount)
        .leaf("MerchantId", &creds.merchant_id)
}

/// The SOAP envelope (UTF-8 text).
pub fn to_xml(creds: &ApiCredentials, req: &Request<'_>) -> String {
    let m = req.method();
    let request = match req {
        Request::OrderDetail {
            order_id,
            start,
            end,
        } => head(creds, "0")
            .leaf("MerchantOrderId", order_id)
            .leaf("OrderId", "0")
            .leaf("StartDate", start)
            .leaf("EndDate", end)
            .leaf("TransactionType", "0")
            .raw(Body::wrap(
                "VPosMessage",
                vpos_message(creds, m, order_id, ("0", "0", "0"), "0949"),
            )),
        Request::Reversal { order, sale }
        | Request::DrawBack { order, sale }
        | Request::PartialDrawback { order, sale } => {
            let amount = order.amount.to_string();
            // A reversal displays its amount; a refund does not (MEWS).
            let display = if matches!(req, Request::Reversal { .. }) {
                amount.as_str()
            } else {
                "0"
            };
            head(creds, &amount)
                .leaf("OrderId", &sale.order_id)
                .leaf("RRN", &sale.rrn)
                .leaf("Stan", &sale.stan)
                .leaf("ProvisionNumber", &sale.provision)
                .raw(Body::wrap(
                    "VPosMessage",
                    vpos_message(
                        creds,
                        m,
                        order.order_id,
                        (&amount, display, &amount),
                        &currency_code(order.currency),
                    ),
                ))
        }
    };
    let call = Body::wrap(m, Body::wrap("request", request));
    format!(
        "<soapenv:Envelope xmlns:soapenv=\"{SOAP_NS}\" xmlns:ser=\"{SERVICE_NS}\">\
         <soapenv:Body>{}</soapenv:Body></soapenv:Envelope>",
        call.0
    )
}

/// The request body: the envelope in UTF-8.
pub fn encode(creds: &ApiCredentials, req: &Request<'_>) -> Vec<u8> {
    to_xml(creds, req).into_bytes()
}
