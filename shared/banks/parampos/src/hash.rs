//! Param's operations after the payment carry no hash: `TP_Islem_Odeme_OnProv_Kapa`,
//! `TP_Islem_Iptal_OnProv`, `TP_Islem_Iptal_Iade_Kismi2` and `TP_Islem_Sorgulama4` are
//! authenticated by the `G` object (`CLIENT_CODE`, `CLIENT_USERNAME`, `CLIENT_PASSWORD`) and
//! the merchant's `GUID` in every body (over TLS, from the IP addresses registered in the Param
//! panel), which is why no body is ever logged. `Islem_Hash` — base64(SHA-1) over the
//! ISO-8859-9 bytes of `CLIENT_CODE`, `GUID`, the installment, the amounts, the order id and
//! the URLs — exists only on the payment methods (`TP_WMD_UCD`, `TP_Islem_Odeme_OnProv_WMD`,
//! …), which the gateway does not send (sources in this crate's README: MEWS
//! `ParamPosCrypt::createHash`, `ParamPosRequestDataMapper`; dev.param.com.tr "Hash
//! Hesaplama").

/// Whether the requests this crate sends are signed: they are not (see the module
/// documentation).
pub const SIGNED: bool = false;
