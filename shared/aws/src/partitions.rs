//! The SDK's endpoint partition table, trimmed (issue 20). Every SDK client parses a
//! partition table when it is built: by default the SDK's own, every AWS partition with
//! every region (about 5 KB of JSON and eight regular expressions), which was 40 % of a
//! money function's instructions to ready and as much again in its first event for each of
//! SQS and Secrets Manager. `SMITHY_CLIENT_SDK_CUSTOM_PARTITION` names a file the SDK reads
//! instead: `shared/aws/partitions.json` is the commercial `aws` partition alone, its outputs
//! as the SDK has them and its regions left to its region pattern (the SDK's per-region
//! entries carry only descriptions), so every commercial region resolves to the same
//! endpoints (`tests/partitions.rs` compares them with the SDK's own table).
//!
//! Deployed: every bundle holds the file at its root (`scripts/arm64.sh`) and template.yaml
//! sets the variable to `/var/task/partitions.json`, unless the stack is in another
//! partition (China, GovCloud, ISO), where it is left unset and the SDK's whole table is
//! used. The SDK panics when the variable names a file it cannot read, so [`check`] turns a
//! bundle without the file into a clear init error first.

use std::path::Path;

/// The variable the SDK reads.
pub const VAR: &str = "SMITHY_CLIENT_SDK_CUSTOM_PARTITION";

/// The file's name in a bundle (`/var/task/partitions.json` when deployed).
pub const BUNDLE_FILE: &str = "partitions.json";

/// [`VAR`] names a path with no file there.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {VAR} names {path}, which is not a file (is {BUNDLE_FILE} missing from the bundle?)")]
pub struct MissingPartitions {
    pub path: String,
}

/// Whether the SDK will find the file [`VAR`] names (`var` reads a variable); unset is fine.
pub fn check(var: impl Fn(&str) -> Option<String>) -> Result<(), MissingPartitions> {
    match var(VAR) {
        Some(path) if !Path::new(&path).is_file() => Err(MissingPartitions { path }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn env(value: Option<&str>) -> impl Fn(&str) -> Option<String> + '_ {
        move |name| (name == VAR).then(|| value.map(str::to_owned)).flatten()
    }

    #[test]
    fn unset_or_a_file_is_fine_and_a_path_without_one_is_refused() {
        assert!(check(env(None)).is_ok());
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/partitions.json");
        assert!(check(env(Some(file))).is_ok());
        let err = check(env(Some("/var/task/partitions.json"))).unwrap_err();
        assert_eq!(err.path, "/var/task/partitions.json");
        assert!(err.to_string().contains(VAR), "{err}");
        // A folder is not the file.
        assert!(check(env(Some(env!("CARGO_MANIFEST_DIR")))).is_err());
    }
}
