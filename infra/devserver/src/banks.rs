//! The real bank protocols in the local stack: the Nestpay, Garanti GVPS, Posnet, PayFlex,
//! InterVPOS, PayFor and Akbank POS simulators (their crates' `sim` feature) run in-process, each accepting exactly the
//! credentials `infra/local/seed.json` gives its accounts (`credentials`). Every seeded account
//! of a real protocol gets its secret in (moto's) Secrets Manager under the stack's prefix,
//! as deployed: `<prefix><accountId>` = `{"endpointUrl": <simulator URL + protocol path>,
//! <protocol keys from the seed>}`. The functions then reach the simulators through
//! `paygate_compose::Banks` and the registered providers, like they reach a bank in AWS.
//! Seeded payments on those accounts are registered at their simulator through the
//! provider's `test_orders()`, as the test helper does.
//!
//! A seed account whose `credentials` carry their own `endpointUrl` (e.g. a bank's test
//! environment) is stored as is and needs no simulator, so a new protocol works locally
//! without touching this file; a local simulator for it is one more row in `LOCAL` and
//! one arm in `start`.
//!
//! Credential values are never logged or printed: errors and the banner name accounts and
//! keys only.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use paygate_aws::secrets::SecretsManagerCredentials;
use paygate_bankkit::{
    sim::{SimServer, SimState},
    AccountCredentials,
};
use paygate_domain::{
    ports::{TestOrder, TestOrderState},
    PaymentStatus, StoreError,
};
use paygate_payments::Providers;
use serde::Deserialize;

use paygate_bank_akbankpos as akbankpos;
use paygate_bank_garanti as garanti;
use paygate_bank_interpos as interpos;
use paygate_bank_kuveytpos as kuveytpos;
use paygate_bank_nestpay as nestpay;
use paygate_bank_parampos as parampos;
use paygate_bank_payflex as payflex;
use paygate_bank_payfor as payfor;
use paygate_bank_posnet as posnet;
use paygate_bank_posnetv1 as posnetv1;
use paygate_bank_toslapos as toslapos;
use paygate_bank_vakifkatilim as vakifkatilim;

use crate::{
    seed::{Seed, SeedAccount},
    DevServer,
};

/// The bound on one bank call unless [`crate::Options::bank_timeout`] says otherwise: the
/// deployed functions' (`paygate_bankkit::transport::DEFAULT_TIMEOUT`).
pub const DEFAULT_BANK_TIMEOUT: Duration = paygate_bankkit::transport::DEFAULT_TIMEOUT;

/// The key of a seed account's credentials that overrides the local simulator's URL.
const ENDPOINT_URL: &str = "endpointUrl";

/// The values of a seeded account's bank secret (the protocol's keys, see each bank crate's
/// README; `endpointUrl` only to point the account somewhere else than its local
/// simulator). `Debug` shows the keys, never the values.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct SeedCredentials(pub BTreeMap<String, String>);

impl SeedCredentials {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for SeedCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeedCredentials")
            .field("keys", &self.0.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// One running protocol simulator.
pub struct BankSim {
    /// The provider code its accounts use (`nestpay`, `garanti`, `posnet`, `payflex`,
    /// `interpos`, `payfor`, `akbankpos`).
    pub provider_code: &'static str,
    /// What it speaks, for the banner.
    pub protocol: &'static str,
    /// `http://127.0.0.1:<port>`; admin routes `/_sim/orders`, `/_sim/end-of-day`,
    /// `/_sim/faults` (Garanti also `/_sim/rewards`).
    pub url: String,
    /// The `endpointUrl` its accounts' secrets hold: `url` + the protocol's path.
    pub endpoint_url: String,
    /// Its order book and faults.
    pub state: Arc<SimState>,
    _server: SimServer,
}

/// The stack's simulators, the secrets prefix and the bank-call bound (kept alive as long as
/// the [`DevServer`]).
pub struct BankSims {
    sims: Vec<BankSim>,
    /// Where the account secrets are: `<secret_prefix><accountId>`.
    pub secret_prefix: String,
    /// The bound on one bank call.
    pub timeout: Duration,
}

impl BankSims {
    pub fn get(&self, provider_code: &str) -> Option<&BankSim> {
        self.sims.iter().find(|s| s.provider_code == provider_code)
    }

    pub fn iter(&self) -> impl Iterator<Item = &BankSim> {
        self.sims.iter()
    }
}

fn protocol_accounts<'a>(
    seed: &'a Seed,
    provider_code: &'a str,
) -> impl Iterator<Item = &'a SeedAccount> + 'a {
    seed.merchants
        .iter()
        .flat_map(|m| m.accounts.iter())
        .filter(move |a| {
            a.provider_code == provider_code && a.credentials.get(ENDPOINT_URL).is_none()
        })
}

fn required<'a>(a: &'a SeedAccount, key: &str) -> Result<&'a str, String> {
    a.credentials.get(key).ok_or_else(|| {
        format!(
            "seed account {} ({}) lacks credentials.{key}",
            a.id, a.provider_code
        )
    })
}

/// The credentials shared by every account of a one-terminal simulator: the first
/// account's, provided the others agree on `keys`.
fn one_terminal<'a>(
    seed: &'a Seed,
    provider_code: &'a str,
    keys: &[&str],
) -> Result<Option<&'a SeedAccount>, String> {
    let mut accounts = protocol_accounts(seed, provider_code);
    let Some(first) = accounts.next() else {
        return Ok(None);
    };
    for other in accounts {
        if let Some(key) = keys
            .iter()
            .find(|k| other.credentials.get(k) != first.credentials.get(k))
        {
            return Err(format!(
                "the local {provider_code} simulator serves one terminal: seed accounts {} and {} differ in credentials.{key}",
                first.id, other.id
            ));
        }
    }
    Ok(Some(first))
}

/// A local simulator: the provider code its accounts use, what it speaks (for the banner)
/// and the path its accounts' `endpointUrl` adds to the simulator's URL.
struct Local {
    code: &'static str,
    protocol: &'static str,
    path: &'static str,
}

/// The simulators [`start`] runs, in this order.
/// A slice, not a fixed-size array: adding a family is one row, no count to keep in step.
const LOCAL: &[Local] = &[
    Local {
        code: nestpay::PROVIDER_CODE,
        protocol: "Nestpay (EST v3 CC5Request XML)",
        path: nestpay::API_PATH,
    },
    Local {
        code: garanti::PROVIDER_CODE,
        protocol: "Garanti BBVA GVPS (GVPSRequest XML)",
        path: "/VPServlet",
    },
    Local {
        code: posnet::PROVIDER_CODE,
        protocol: "Yapı Kredi Posnet (posnetRequest XML)",
        path: posnet::wire::SERVICE_PATH,
    },
    Local {
        code: payflex::PROVIDER_CODE,
        protocol: "VakıfBank PayFlex V4 (prmstr XML + search)",
        path: payflex::VPOS_PATH,
    },
    Local {
        code: interpos::PROVIDER_CODE,
        protocol: "Denizbank InterVPOS (form, key=value;;)",
        path: interpos::API_PATH,
    },
    Local {
        code: payfor::PROVIDER_CODE,
        protocol: "QNB Finansbank PayFor (PayforRequest XML)",
        path: payfor::API_PATH,
    },
    Local {
        code: vakifkatilim::PROVIDER_CODE,
        protocol: "Vakıf Katılım (BOA VPosMessageContract XML)",
        path: vakifkatilim::API_PATH,
    },
    Local {
        code: kuveytpos::PROVIDER_CODE,
        protocol: "Kuveyt Türk (BOA SOAP query service)",
        path: kuveytpos::SERVICE_PATH,
    },
    Local {
        code: akbankpos::PROVIDER_CODE,
        protocol: "Akbank POS (JSON, HMAC-SHA512 auth-hash)",
        path: akbankpos::API_PATH,
    },
    Local {
        code: posnetv1::PROVIDER_CODE,
        protocol: "Albaraka PosNet V1 (JSON, SHA-256 MAC)",
        path: posnetv1::API_PATH,
    },
    Local {
        code: toslapos::PROVIDER_CODE,
        protocol: "Tosla (JSON, SHA-512 hash)",
        path: toslapos::API_PATH,
    },
    Local {
        code: parampos::PROVIDER_CODE,
        protocol: "Param TurkPOS (SOAP)",
        path: parampos::API_PATH,
    },
];

impl Local {
    /// A per-account simulator's credentials: `add` takes each seed account with the values
    /// of `keys`, in order (a missing one is an error naming account and key).
    fn per_account<C: Default>(
        &self,
        seed: &Seed,
        keys: &[&str],
        add: impl Fn(C, &[&str], &SeedAccount) -> C,
    ) -> Result<C, String> {
        let mut creds = C::default();
        for a in protocol_accounts(seed, self.code) {
            let values = keys
                .iter()
                .map(|k| required(a, k))
                .collect::<Result<Vec<_>, _>>()?;
            creds = add(creds, &values, a);
        }
        Ok(creds)
    }

    fn started(
        &self,
        started: std::io::Result<(SimServer, Arc<SimState>)>,
    ) -> Result<BankSim, String> {
        let (server, state) =
            started.map_err(|e| format!("starting the {} simulator: {e}", self.protocol))?;
        Ok(BankSim {
            provider_code: self.code,
            protocol: self.protocol,
            url: server.url.clone(),
            endpoint_url: format!("{}{}", server.url, self.path),
            state,
            _server: server,
        })
    }
}

/// Whether the account's `pointsInquiry` credential names `programme`.
fn points_inquiry(a: &SeedAccount, programme: &str) -> bool {
    a.credentials
        .get("pointsInquiry")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case(programme))
}

/// Garanti GVPS: one terminal with its PROVAUT and PROVRFN users (the sample terminal when
/// the seed has no Garanti account), read as the adapter reads it.
fn garanti_terminal(seed: &Seed) -> Result<garanti::sim::SimCredentials, String> {
    use garanti::keys as k;
    let sample = garanti::sim::SimCredentials::garanti_test();
    let keys = [
        k::TERMINAL_ID,
        k::MERCHANT_ID,
        k::PROV_USER_ID,
        k::PROV_PASSWORD,
        k::REFUND_USER_ID,
        k::REFUND_PASSWORD,
    ];
    let Some(a) = one_terminal(seed, garanti::PROVIDER_CODE, &keys)? else {
        return Ok(sample);
    };
    let terminal = garanti::Terminal::read(|key| required(a, key), |key| a.credentials.get(key))?;
    Ok(garanti::sim::SimCredentials {
        terminal,
        // The sample Bonus card (`TEST_BONUS_CARD`): 12.35 TL Bonus, 5.00 TL FirmBonus.
        reward_cards: sample.reward_cards,
    })
}

/// Posnet: one terminal (mid, tid); the reference's test terminal without a seed account.
fn posnet_terminal(seed: &Seed) -> Result<posnet::sim::SimCredentials, String> {
    use posnet::keys as k;
    Ok(
        match one_terminal(seed, posnet::PROVIDER_CODE, &[k::MID, k::TID])? {
            None => posnet::sim::SimCredentials::default(),
            Some(a) => posnet::sim::SimCredentials {
                mid: required(a, k::MID)?.to_owned(),
                tid: required(a, k::TID)?.to_owned(),
            },
        },
    )
}

/// Starts the simulators with the seed accounts' credentials and stores every seeded
/// real-protocol account's secret under `secret_prefix`.
pub(crate) async fn start(
    seed: &Seed,
    secrets: &paygate_aws::secrets::Client,
    secret_prefix: &str,
    timeout: Duration,
) -> Result<BankSims, String> {
    let mut sims = Vec::new();
    for local in LOCAL {
        let started = match local.code {
            // One store (client) per account; MAXIPUANSORGU where `pointsInquiry: maxipuan`.
            nestpay::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["clientId", "name", "password"],
                    |c: nestpay::sim::SimCredentials, v, a| {
                        c.with(v[0], v[1], v[2], points_inquiry(a, "maxipuan"))
                    },
                )?;
                nestpay::sim::start(creds).await
            }
            garanti::PROVIDER_CODE => garanti::sim::start(garanti_terminal(seed)?).await,
            posnet::PROVIDER_CODE => posnet::sim::try_start(posnet_terminal(seed)?).await,
            // One merchant (merchantId, password, terminalNo) per account.
            payflex::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["merchantId", "password", "terminalNo"],
                    |c: payflex::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2]),
                )?;
                payflex::sim::start(creds).await
            }
            // One shop per account; BonusInquiry where `pointsInquiry: bonus`.
            interpos::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["shopCode", "userCode", "userPass"],
                    |c: interpos::sim::SimCredentials, v, a| {
                        c.with(v[0], v[1], v[2], points_inquiry(a, "bonus"))
                    },
                )?;
                interpos::sim::start(creds).await
            }
            // One user per account (MbrId, MerchantId, UserCode, UserPass).
            payfor::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["mbrId", "merchantId", "userCode", "userPass"],
                    |c: payfor::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2], v[3]),
                )?;
                payfor::sim::start(creds).await
            }
            // One merchant user per account (its password checks HashData).
            vakifkatilim::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["merchantId", "customerId", "userName", "password"],
                    |c: vakifkatilim::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2], v[3]),
                )?;
                vakifkatilim::sim::start(creds).await
            }
            // One API user per account (its password checks HashData); sales only.
            kuveytpos::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["merchantId", "customerId", "userName", "password"],
                    |c: kuveytpos::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2], v[3]),
                )?;
                kuveytpos::sim::start(creds).await
            }
            // One terminal per account (its secret key checks the auth-hash).
            akbankpos::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["merchantSafeId", "terminalSafeId", "secretKey"],
                    |c: akbankpos::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2]),
                )?;
                akbankpos::sim::start(creds).await
            }
            // One terminal per account (its encKey checks the MAC).
            posnetv1::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["merchantNo", "terminalNo", "encKey"],
                    |c: posnetv1::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2]),
                )?;
                posnetv1::sim::start(creds).await
            }
            // One API client per account (its password checks the hash).
            toslapos::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["clientId", "apiUser", "apiPass"],
                    |c: toslapos::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2]),
                )?;
                toslapos::sim::start(creds).await
            }
            // One account per seed account (CLIENT_CODE, CLIENT_USERNAME, CLIENT_PASSWORD, GUID).
            parampos::PROVIDER_CODE => {
                let creds = local.per_account(
                    seed,
                    &["clientCode", "clientUsername", "clientPassword", "guid"],
                    |c: parampos::sim::SimCredentials, v, _| c.with(v[0], v[1], v[2], v[3]),
                )?;
                parampos::sim::start(creds).await
            }
            other => return Err(format!("no local simulator for `{other}`")),
        };
        sims.push(local.started(started)?);
    }
    let sims = BankSims {
        sims,
        secret_prefix: secret_prefix.to_owned(),
        timeout,
    };
    store_secrets(seed, secrets, &sims).await?;
    Ok(sims)
}

/// Writes `<prefix><accountId>` for every seeded account of a real protocol.
async fn store_secrets(
    seed: &Seed,
    secrets: &paygate_aws::secrets::Client,
    sims: &BankSims,
) -> Result<(), String> {
    let store =
        SecretsManagerCredentials::new(secrets.clone(), &sims.secret_prefix, Duration::ZERO);
    for a in seed.merchants.iter().flat_map(|m| m.accounts.iter()) {
        if a.provider_code == paygate_bank_simulator::PROVIDER_CODE {
            continue;
        }
        let mut values = a.credentials.0.clone();
        let endpoint = match values.remove(ENDPOINT_URL).filter(|u| !u.is_empty()) {
            Some(url) => url,
            None => sims
                .get(&a.provider_code)
                .map(|s| s.endpoint_url.clone())
                .ok_or_else(|| {
                    format!(
                        "seed account {}: provider `{}` has no local simulator; give its credentials an endpointUrl",
                        a.id, a.provider_code
                    )
                })?,
        };
        store
            .put(&a.id, &AccountCredentials::new(endpoint, values))
            .await
            .map_err(|e| format!("storing the bank secret of {}: {e}", a.id))?;
    }
    Ok(())
}

/// Registers the seeded payments of real-protocol accounts at their bank (the simulator
/// provider's are registered by `seed::load`). An order the bank already holds is kept.
pub(crate) async fn register_seed_orders(providers: &Providers, seed: &Seed) -> Result<(), String> {
    for p in &seed.payments {
        let Some(account) = seed.account(&p.account_id) else {
            return Err(format!("seed payment {}: unknown account", p.id));
        };
        if account.provider_code == paygate_bank_simulator::PROVIDER_CODE {
            continue;
        }
        let orders = providers
            .get(&account.provider_code)
            .and_then(|provider| provider.test_orders())
            .ok_or_else(|| {
                format!(
                    "seed payment {}: provider `{}` cannot register test orders",
                    p.id, account.provider_code
                )
            })?;
        let state = match (p.status, p.bank_state.as_deref()) {
            (PaymentStatus::Authorized, _) => TestOrderState::Preauth,
            (PaymentStatus::Captured, _) => TestOrderState::Approved,
            (PaymentStatus::Pending, s) => TestOrderState::parse(s.unwrap_or("none"))
                .ok_or_else(|| format!("seed payment {}: bad bankState", p.id))?,
            _ => {
                return Err(format!(
                    "seed payment {}: status must be authorized, captured or pending",
                    p.id
                ))
            }
        };
        let order = TestOrder {
            order_id: crate::seed::order_id(&p.id),
            amount: p.amount,
            currency: p.currency,
            state,
            settled: false,
        };
        match orders.register(&account, &order).await {
            Ok(()) | Err(StoreError::AlreadyExists) => {}
            Err(e) => {
                return Err(format!(
                    "seed payment {}: the {} bank did not take its order: {e}",
                    p.id, account.provider_code
                ))
            }
        }
    }
    Ok(())
}

impl DevServer {
    /// The order book and faults of the stack's `provider_code` simulator (`nestpay`,
    /// `garanti`, `posnet`): tests move it past its end-of-day cut
    /// (`bank_sim("nestpay")?.book().end_of_day()`), read its orders or inject faults.
    pub fn bank_sim(&self, provider_code: &str) -> Option<Arc<SimState>> {
        self.banks.get(provider_code).map(|s| s.state.clone())
    }

    /// The base URL of the stack's `provider_code` simulator (its `/_sim/…` admin routes,
    /// e.g. Posnet's `/_sim/faults` with `only`, Garanti's `/_sim/rewards`).
    pub fn bank_sim_url(&self, provider_code: &str) -> Option<&str> {
        self.banks.get(provider_code).map(|s| s.url.as_str())
    }

    /// Every simulator of the stack, the secrets prefix and the bank-call bound.
    pub fn bank_sims(&self) -> &BankSims {
        &self.banks
    }
}

/// The banner's lines about the banks.
pub(crate) fn banner_lines(server: &DevServer, seed: &Seed) -> String {
    let b = &server.banks;
    let mut out = format!(
        "  Banks:    real protocols against in-process simulators; account secrets in Secrets Manager as {}<accountId>;\n\
         \x20           each bank call bounded to {} ms (a time-out is an unknown outcome, settled by POST /v1/payments/{{id}}/query)\n",
        b.secret_prefix,
        b.timeout.as_millis()
    );
    for sim in b.iter() {
        let accounts: Vec<String> = seed
            .merchants
            .iter()
            .flat_map(|m| m.accounts.iter())
            .filter(|a| a.provider_code == sim.provider_code)
            .map(|a| a.id.to_string())
            .collect();
        out.push_str(&format!(
            "    {:<8} {:<38} {}\n    {:<8} accounts: {}\n",
            sim.provider_code,
            sim.protocol,
            sim.endpoint_url,
            "",
            if accounts.is_empty() {
                "none".to_owned()
            } else {
                accounts.join(", ")
            }
        ));
    }
    out
}

#[cfg(test)]
mod tests;
