//! Each protocol account's credentials and endpoint live in Secrets Manager, one secret per
//! account, and are never printed.

use std::time::Duration;

use paygate_aws::secrets::SecretsManagerCredentials;
use paygate_bankkit::CredentialStore;
use paygate_domain::AccountId;
use paygate_tests::seed;

use crate::{credential, stack};

#[tokio::test]
async fn each_account_has_its_secret_with_the_simulator_endpoint() {
    let stack = stack().await;
    let server = stack.server();
    let sims = server.bank_sims();
    assert!(
        sims.secret_prefix.starts_with("paygate/local/"),
        "{}",
        sims.secret_prefix
    );
    assert!(
        sims.secret_prefix.ends_with("banks/"),
        "{}",
        sims.secret_prefix
    );
    let store =
        SecretsManagerCredentials::new(server.secrets.clone(), &sims.secret_prefix, Duration::ZERO);
    for (account, provider, path, keys) in [
        (
            "acc_cappadociaIsbank",
            "nestpay",
            "/fim/api",
            &["clientId", "name", "password", "pointsInquiry"][..],
        ),
        (
            "acc_cappadociaAkbank",
            "nestpay",
            "/fim/api",
            &["clientId", "name", "password"][..],
        ),
        (
            "acc_cappadociaGaranti",
            "garanti",
            "/VPServlet",
            &[
                "terminalId",
                "merchantId",
                "provUserId",
                "provPassword",
                "refundUserId",
                "refundPassword",
                "mode",
            ][..],
        ),
        (
            "acc_cappadociaYapikredi",
            "posnet",
            "/PosnetWebService/XML",
            &["mid", "tid"][..],
        ),
    ] {
        // GIVEN the secret `<prefix><accountId>`
        let creds = store
            .credentials(&AccountId::parse(account).unwrap())
            .await
            .unwrap_or_else(|e| panic!("{account}: {e}"));
        // THEN it points at the stack's simulator of the account's protocol
        let url = server.bank_sim_url(provider).unwrap();
        assert_eq!(creds.endpoint_url, format!("{url}{path}"), "{account}");
        // AND holds the protocol's keys, as the seed gives them
        for key in keys {
            assert_eq!(
                creds.get(key),
                Some(credential(account, key).as_str()),
                "{account} {key}"
            );
        }
    }
    // AND the simulator provider's accounts have none
    assert!(store
        .credentials(&AccountId::parse("acc_anatoliaIsbank").unwrap())
        .await
        .is_err());

    // AND the banner names the simulators and accounts, never a credential value
    let banner = paygate_devserver::banner(server, seed());
    for sim in ["nestpay", "garanti", "posnet"] {
        assert!(
            banner.contains(server.bank_sim_url(sim).unwrap()),
            "{banner}"
        );
    }
    assert!(banner.contains("acc_cappadociaYapikredi"), "{banner}");
    for secret in ["ISBANK07", "AKBANK01", "123qweASD/"] {
        assert!(!banner.contains(secret), "{banner}");
    }
}
