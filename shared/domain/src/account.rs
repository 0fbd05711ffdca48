//! Merchants' POS accounts, API keys, modes and the BIN table.

use serde::{Deserialize, Serialize};

use crate::ids::{AccountId, ApiKeyId, MerchantId};
use crate::time::Timestamp;

/// Test or live. A key only ever sees objects of its own mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Test,
    Live,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Test => "test",
            Self::Live => "live",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "test" => Some(Self::Test),
            "live" => Some(Self::Live),
            _ => None,
        }
    }
}

/// An operation a POS account may or may not support.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    Capture,
    Cancel,
    Refund,
    Query,
    PointsInquiry,
}

impl Operation {
    pub const ALL: [Operation; 5] = [
        Self::Capture,
        Self::Cancel,
        Self::Refund,
        Self::Query,
        Self::PointsInquiry,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Capture => "capture",
            Self::Cancel => "cancel",
            Self::Refund => "refund",
            Self::Query => "query",
            Self::PointsInquiry => "points_inquiry",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.as_str() == s)
    }
}

/// A set of operations (the support matrix of one account or one provider).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OperationSet(Vec<Operation>);

impl OperationSet {
    pub fn all() -> Self {
        Self(Operation::ALL.to_vec())
    }

    pub fn of(ops: &[Operation]) -> Self {
        let mut v = Vec::new();
        for op in ops {
            if !v.contains(op) {
                v.push(*op);
            }
        }
        Self(v)
    }

    pub fn contains(&self, op: Operation) -> bool {
        self.0.contains(&op)
    }

    pub fn intersect(&self, other: &Self) -> Self {
        Self(
            self.0
                .iter()
                .copied()
                .filter(|op| other.contains(*op))
                .collect(),
        )
    }

    pub fn iter(&self) -> impl Iterator<Item = Operation> + '_ {
        self.0.iter().copied()
    }
}

impl Serialize for OperationSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for OperationSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Self::of(&Vec::<Operation>::deserialize(d)?))
    }
}

/// A merchant's POS account at a bank or provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PosAccount {
    pub id: AccountId,
    pub merchant_id: MerchantId,
    /// Provider (protocol) code, e.g. `simulator`; chooses the adapter.
    pub provider_code: String,
    /// Turkish EFT code of the bank that runs the POS (e.g. `0064` for İşbank).
    pub bank_code: String,
    pub bank_name: String,
    /// Operations this account has been enabled for at the bank.
    pub supported: OperationSet,
    /// Human label shown in the dashboard.
    #[serde(default)]
    pub label: String,
    /// Test accounts hold the bank's test endpoint and credentials (or use the simulator),
    /// live accounts the production ones. Only keys and payments of the same mode use it.
    pub mode: Mode,
}

/// The provider code of the built-in bank simulator, which serves test mode only.
pub const SIMULATOR_PROVIDER: &str = "simulator";

/// Why an account's configuration is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountConfigError {
    /// The simulator moves no money: a live account on it would approve for real nothing.
    #[error("account {0}: a live account cannot use the simulator provider (test mode only)")]
    LiveSimulator(AccountId),
}

impl PosAccount {
    /// What this account can do: what the bank enabled for it and what its provider speaks.
    pub fn effective_support(&self, provider: &OperationSet) -> OperationSet {
        self.supported.intersect(provider)
    }

    /// Whether a key or payment of `mode` may use this account: only of the same mode, so a
    /// test key never reaches live bank credentials and a live payment never a test bank.
    pub fn serves(&self, mode: Mode) -> bool {
        self.mode == mode
    }

    /// Checks the account's configuration (when it is stored or seeded).
    pub fn validate(&self) -> Result<(), AccountConfigError> {
        if self.mode == Mode::Live && self.provider_code == SIMULATOR_PROVIDER {
            return Err(AccountConfigError::LiveSimulator(self.id.clone()));
        }
        Ok(())
    }
}

/// What an API key maps to. The key itself is never stored, only its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyRecord {
    pub key_id: ApiKeyId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    /// Whether the key may still be used: `false` once revoked.
    pub active: bool,
    /// When a rolled key stops working (`None`: no expiry).
    #[serde(default)]
    pub expires_at: Option<Timestamp>,
    /// When the key last authenticated a request (written at most once a minute).
    #[serde(default)]
    pub last_used_at: Option<Timestamp>,
}

/// One row of the BIN → issuing bank table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BinInfo {
    pub bin: String,
    pub bank_code: String,
    pub bank_name: String,
    /// Card programme (Bonus, Maximum, World, …), when known.
    #[serde(default)]
    pub program: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_support_is_the_intersection() {
        let acc = OperationSet::of(&[Operation::Capture, Operation::Refund, Operation::Query]);
        let provider = OperationSet::of(&[Operation::Capture, Operation::Query, Operation::Cancel]);
        let eff = acc.intersect(&provider);
        assert!(eff.contains(Operation::Capture));
        assert!(eff.contains(Operation::Query));
        assert!(!eff.contains(Operation::Refund));
        assert!(!eff.contains(Operation::Cancel));
    }

    fn account(mode: Mode, provider: &str) -> PosAccount {
        PosAccount {
            id: AccountId::parse("acc_1").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            provider_code: provider.into(),
            bank_code: "0064".into(),
            bank_name: "İşbank".into(),
            supported: OperationSet::all(),
            label: String::new(),
            mode,
        }
    }

    #[test]
    fn an_account_serves_its_own_mode_only() {
        for (account_mode, caller, serves) in [
            (Mode::Test, Mode::Test, true),
            (Mode::Live, Mode::Live, true),
            (Mode::Test, Mode::Live, false),
            (Mode::Live, Mode::Test, false),
        ] {
            assert_eq!(
                account(account_mode, "nestpay").serves(caller),
                serves,
                "{account_mode:?} account, {caller:?} caller"
            );
        }
    }

    #[test]
    fn the_simulator_is_test_only() {
        assert!(account(Mode::Test, SIMULATOR_PROVIDER).validate().is_ok());
        assert!(account(Mode::Live, "nestpay").validate().is_ok());
        assert!(account(Mode::Test, "garanti").validate().is_ok());
        assert_eq!(
            account(Mode::Live, SIMULATOR_PROVIDER).validate(),
            Err(AccountConfigError::LiveSimulator(
                AccountId::parse("acc_1").unwrap()
            ))
        );
    }

    #[test]
    fn the_mode_is_part_of_the_account_document() {
        let json = serde_json::to_value(account(Mode::Live, "posnet")).unwrap();
        assert_eq!(json["mode"], "live");
        let mut no_mode = json.clone();
        no_mode.as_object_mut().unwrap().remove("mode");
        assert!(
            serde_json::from_value::<PosAccount>(no_mode).is_err(),
            "an account without a mode is refused, never guessed"
        );
    }

    #[test]
    fn operation_names_round_trip() {
        for op in Operation::ALL {
            assert_eq!(Operation::parse(op.as_str()), Some(op));
        }
    }
}
