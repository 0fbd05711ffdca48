//! The trimmed partition table (`partitions.json`, `paygate_aws::partitions`) resolves every
//! commercial region to the endpoints the SDK's own table gives, for each service the
//! functions call and each FIPS and dual-stack switch. The SDK reads the table once per
//! process, so the trimmed one is resolved in a child process (this test binary again, with
//! `SMITHY_CLIENT_SDK_CUSTOM_PARTITION` set) and compared with the parent's, which uses the
//! SDK's built-in table.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use paygate_aws::partitions::VAR;

/// Set in the child: print the endpoints instead of comparing.
const CHILD: &str = "PAYGATE_PARTITIONS_CHILD";
const TEST: &str = "the_trimmed_table_resolves_every_commercial_region_as_the_sdk_does";

/// The `aws` partition's regions in the SDK's table, and one it does not list yet.
const COMMERCIAL: &[&str] = &[
    "af-south-1",
    "ap-east-1",
    "ap-east-2",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ap-south-1",
    "ap-south-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
    "ap-southeast-5",
    "ap-southeast-6",
    "ap-southeast-7",
    "ca-central-1",
    "ca-west-1",
    "eu-central-1",
    "eu-central-2",
    "eu-north-1",
    "eu-south-1",
    "eu-south-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "il-central-1",
    "me-central-1",
    "me-south-1",
    "mx-central-1",
    "sa-east-1",
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "eu-west-9",
];
/// Another partition's region: the trimmed table does not know it (template.yaml leaves the
/// variable unset outside the `aws` partition).
const CHINA: &str = "cn-north-1";

/// The endpoint `$service`'s SDK resolves for a region and the FIPS and dual-stack switches.
macro_rules! resolve {
    ($service:ident, $region:expr, $fips:expr, $dual:expr) => {{
        use $service::config::endpoint::{DefaultResolver, Params, ResolveEndpoint as _};
        let params = Params::builder()
            .region($region)
            .use_fips($fips)
            .use_dual_stack($dual)
            .build()
            .unwrap();
        DefaultResolver::new()
            .resolve_endpoint(&params)
            .await
            .map(|e| e.url().to_owned())
    }};
}

async fn endpoints(regions: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for region in regions {
        for (fips, dual) in [(false, false), (true, false), (false, true), (true, true)] {
            for (service, url) in [
                ("dynamodb", resolve!(aws_sdk_dynamodb, *region, fips, dual)),
                ("sqs", resolve!(aws_sdk_sqs, *region, fips, dual)),
                (
                    "secretsmanager",
                    resolve!(aws_sdk_secretsmanager, *region, fips, dual),
                ),
            ] {
                let url = url.unwrap_or_else(|e| format!("error: {e}"));
                out.push(format!(
                    "{service} {region} fips={fips} dualstack={dual} {url}"
                ));
            }
        }
    }
    out
}

fn child_endpoints() -> Vec<String> {
    let table = concat!(env!("CARGO_MANIFEST_DIR"), "/partitions.json");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env(VAR, table)
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        // libtest's "test … " may precede the first line.
        .filter_map(|l| l.split_once("endpoint: ").map(|(_, e)| e.to_owned()))
        .collect()
}

#[tokio::test]
async fn the_trimmed_table_resolves_every_commercial_region_as_the_sdk_does() {
    let mut regions = COMMERCIAL.to_vec();
    regions.push(CHINA);
    if std::env::var_os(CHILD).is_some() {
        for line in endpoints(&regions).await {
            println!("endpoint: {line}");
        }
        return;
    }
    assert!(
        std::env::var_os(VAR).is_none(),
        "the parent uses the SDK's table"
    );
    let sdk = endpoints(&regions).await;
    let trimmed = child_endpoints();
    assert_eq!(trimmed.len(), sdk.len(), "the child's endpoints");
    let (china_sdk, commercial_sdk): (Vec<_>, Vec<_>) = sdk.iter().partition(|l| l.contains(CHINA));
    let (china_trimmed, commercial_trimmed): (Vec<_>, Vec<_>) =
        trimmed.iter().partition(|l| l.contains(CHINA));
    assert_eq!(commercial_trimmed, commercial_sdk);
    // Sanity of the comparison itself: real endpoints, and the one region outside the table
    // resolved differently (so a child that ignored the file would have been seen).
    assert!(
        commercial_sdk.contains(&&"dynamodb eu-central-1 fips=false dualstack=false https://dynamodb.eu-central-1.amazonaws.com".to_owned()),
        "{commercial_sdk:?}"
    );
    assert!(
        china_sdk.iter().any(|l| l.ends_with("amazonaws.com.cn")),
        "{china_sdk:?}"
    );
    assert_ne!(china_trimmed, china_sdk);
}
