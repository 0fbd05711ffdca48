//! The SDK's trust store, encoded here once instead of at every function's start: the
//! compiled-in Mozilla roots (`webpki-root-certs`) as one PEM bundle, which is the only form
//! the SDK's `TrustStore` takes. Base64-encoding ~150 certificates at init cost a few
//! million instructions per cold start (issue 20); `include_bytes!` costs nothing.

use std::fmt::Write as _;

use base64::Engine as _;

fn main() -> std::io::Result<()> {
    let mut pem = String::with_capacity(300 * 1024);
    for cert in webpki_root_certs::TLS_SERVER_ROOT_CERTS {
        let b64 = base64::engine::general_purpose::STANDARD.encode(cert.as_ref());
        pem.push_str("-----BEGIN CERTIFICATE-----\n");
        for line in b64.as_bytes().chunks(64) {
            // base64 output is ASCII, so every 64-byte chunk is a whole str
            let _ = writeln!(pem, "{}", std::str::from_utf8(line).unwrap_or_default());
        }
        pem.push_str("-----END CERTIFICATE-----\n");
    }
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    std::fs::write(out.join("webpki_roots.pem"), pem)?;
    println!("cargo::rerun-if-changed=build.rs");
    Ok(())
}
