//! Merchants' POS accounts, API keys, modes and the BIN table.

use serde::{Deserialize, Serialize};

use crate::ids::{AccountId, ApiKeyId, MerchantId};

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
}

impl PosAccount {
    /// What this account can do: what the bank enabled for it and what its provider speaks.
    pub fn effective_support(&self, provider: &OperationSet) -> OperationSet {
        self.supported.intersect(provider)
    }
}

/// What an API key maps to. The key itself is never stored, only its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyRecord {
    pub key_id: ApiKeyId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    /// Whether the key may still be used.
    pub active: bool,
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

    #[test]
    fn operation_names_round_trip() {
        for op in Operation::ALL {
            assert_eq!(Operation::parse(op.as_str()), Some(op));
        }
    }
}
