//! The query service's SOAP answers: `s:Envelope/s:Body/<Method>Response/<Method>Result`
//! holding `Results` (zero or more `Result`: `ErrorCode`, `ErrorMessage`, `Severity`),
//! `Success` and `Value` — a flat record for `SaleReversal`, `DrawBack` and
//! `PartialDrawback` (`ResponseCode`, `ResponseMessage`, `ProvisionNumber`, `RRN`, `Stan`,
//! `OrderId`, `MerchantOrderId`, …), one `OrderContract` per order for
//! `GetMerchantOrderDetail` (MEWS `KuveytPosResponseDataMapper` and its fixtures, which are
//! the bank's test environment's answers). Names are read without their namespace prefix.
//!
//! An answer's code is the first `Result`'s `ErrorCode`, else `Value/ResponseCode`; its
//! class is in [`classify`] (the README's code → outcome table names the sources).

use paygate_bankkit::{xml, Answer, BankReply, Verdict};
use paygate_domain::{BankOutcome, BankStatus};

use crate::status;

/// One flat record (local names, document order; missing fields read as empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(pub Vec<(String, String)>);

impl Fields {
    /// A field's trimmed text (`""` when absent or nil).
    pub fn get(&self, key: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// Adds a field (simulator and tests).
    pub fn with(mut self, key: &str, value: impl Into<String>) -> Self {
        self.0.push((key.to_owned(), value.into()));
        self
    }
}

/// One `Results/Result` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultEntry {
    pub code: String,
    pub message: String,
    pub severity: String,
}

/// A decoded answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The method answered (`SaleReversal`, …: the body element without `Response`).
    pub method: String,
    /// A SOAP fault's `faultstring` instead of an answer.
    pub fault: Option<String>,
    pub results: Vec<ResultEntry>,
    /// `Success` as sent (`true`, `false`, or empty when nil).
    pub success: String,
    /// `Value`'s own fields (money requests).
    pub value: Fields,
    /// `Value/OrderContract` records (`GetMerchantOrderDetail`).
    pub contracts: Vec<Fields>,
}

/// An element's name without its namespace prefix.
pub fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

fn child<'a>(e: &'a xml::Element, name: &str) -> Option<&'a xml::Element> {
    e.children.iter().find(|c| local(&c.name) == name)
}

fn fields_of(e: &xml::Element) -> Fields {
    Fields(
        e.children
            .iter()
            .filter(|c| c.children.is_empty())
            .map(|c| (local(&c.name).to_owned(), c.text.clone()))
            .collect(),
    )
}

impl Reply {
    /// The answer's code: the first `Result`'s `ErrorCode`, else `Value/ResponseCode`.
    pub fn code(&self) -> &str {
        self.results
            .iter()
            .map(|r| r.code.as_str())
            .find(|c| !c.is_empty())
            .unwrap_or_else(|| self.value.get("ResponseCode"))
    }

    /// The code for the merchant: [`Self::code`], else `unknown`.
    pub fn bank_code(&self) -> String {
        let c = self.code();
        if c.is_empty() { "unknown" } else { c }.to_owned()
    }

    /// The first `Result`'s `ErrorMessage`, else `Value/ResponseMessage`.
    pub fn message(&self) -> String {
        self.results
            .iter()
            .map(|r| r.message.as_str())
            .find(|m| !m.is_empty())
            .unwrap_or_else(|| self.value.get("ResponseMessage"))
            .to_owned()
    }

    /// Whether every `Result` is a business rule's refusal (`Severity BusinessError`).
    pub fn business_refusal(&self) -> bool {
        !self.results.is_empty() && self.results.iter().all(|r| r.severity == "BusinessError")
    }

    /// The answer's class.
    pub fn verdict(&self) -> Verdict {
        if self.fault.is_some() {
            return Verdict::Unknown;
        }
        classify(self.code(), self.business_refusal())
    }
}

/// Codes after which the card's bank may have acted (ISO 8583 "issuer or switch
/// inoperative", "system malfunction", "late answer", "duplicate transmission"), as PayFor.
const ISO_UNSURE: [&str; 4] = ["68", "91", "92", "96"];

/// The class of a code; `business` says the answer's `Results` are all `BusinessError`s.
///
/// - `00` approved.
/// - `HashDataError`, `ApiUserNotDefined`, `EmptyMDException` (MEWS maps them to
///   `invalid_transaction`): refused before processing, a configuration error.
/// - `21` already cancelled, `28` a cancelled sale cannot be refunded,
///   `InvalidRequestError` (e.g. a reversal past the sale's day),
///   `TransactionAmountMismatchException` (a `DrawBack` not of the sale's amount), other
///   two-digit ISO host codes, and `DbLayerError` when every `Result` is a `BusinessError`
///   (the same-day refund rules answer so, without an `ErrorCode`): declined.
/// - Anything else — no code, `ServiceUnavailable` ("IsoProxyFactoryServiceResponseWasNull":
///   the host's answer was lost), `IntegrationFatalException`, `DbLayerError` without a
///   business reason, the ISO "may have acted" codes, codes not seen in the sources: unknown.
pub fn classify(code: &str, business: bool) -> Verdict {
    match code.trim() {
        "00" => Verdict::Approved,
        "HashDataError" | "ApiUserNotDefined" | "EmptyMDException" => Verdict::Error,
        "21" | "28" | "InvalidRequestError" | "TransactionAmountMismatchException" => {
            Verdict::Declined
        }
        "DbLayerError" if business => Verdict::Declined,
        c if c.len() == 2 && c.bytes().all(|b| b.is_ascii_digit()) && !ISO_UNSURE.contains(&c) => {
            Verdict::Declined
        }
        _ => Verdict::Unknown,
    }
}

impl BankReply for Reply {
    /// Reads a SOAP answer (UTF-8).
    fn decode(body: &[u8]) -> Result<Self, String> {
        let text = std::str::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())?;
        let root = xml::parse(text.trim_start_matches('\u{feff}')).map_err(|e| e.to_string())?;
        if local(&root.name) != "Envelope" {
            return Err(format!("unexpected root element <{}>", root.name));
        }
        let answer = child(&root, "Body")
            .and_then(|b| b.children.first())
            .ok_or_else(|| "an envelope without a body".to_owned())?;
        if local(&answer.name) == "Fault" {
            let why = child(answer, "faultstring").map(|f| f.text.clone());
            return Ok(Reply {
                fault: Some(why.unwrap_or_default()),
                ..Reply::default()
            });
        }
        let method = local(&answer.name)
            .strip_suffix("Response")
            .ok_or_else(|| format!("unexpected body element <{}>", answer.name))?
            .to_owned();
        let result = child(answer, &format!("{method}Result"))
            .ok_or_else(|| format!("no {method}Result"))?;
        let results = child(result, "Results")
            .map(|rs| {
                rs.children
                    .iter()
                    .filter(|r| local(&r.name) == "Result")
                    .map(|r| {
                        let f = fields_of(r);
                        ResultEntry {
                            code: f.get("ErrorCode").to_owned(),
                            message: f.get("ErrorMessage").to_owned(),
                            severity: f.get("Severity").to_owned(),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let value = child(result, "Value");
        Ok(Reply {
            method,
            fault: None,
            results,
            success: child(result, "Success")
                .map(|s| s.text.clone())
                .unwrap_or_default(),
            value: value.map(fields_of).unwrap_or_default(),
            contracts: value
                .map(|v| {
                    v.children
                        .iter()
                        .filter(|c| local(&c.name) == "OrderContract")
                        .map(fields_of)
                        .collect()
                })
                .unwrap_or_default(),
        })
    }

    fn outcome(&self) -> BankOutcome {
        if let Some(why) = &self.fault {
            return BankOutcome::Unknown {
                reason: format!("the bank answered with a SOAP fault ({why})"),
            };
        }
        self.verdict().outcome(Answer {
            approval: "00".to_owned(),
            auth_code: self.value.get("ProvisionNumber").to_owned(),
            rrn: self.value.get("RRN").to_owned(),
            code: self.bank_code(),
            message: self.message(),
            after_cutoff: false,
        })
    }

    /// A `GetMerchantOrderDetail` answer.
    fn status(&self) -> BankStatus {
        match status::read_detail(self, None).found() {
            Ok(contract) => status::of_contract(&contract),
            Err(st) => st,
        }
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
