//! The simulator's wire format: reading a SOAP 1.1 request strictly (UTF-8, `soap:Envelope` /
//! `soap:Body` / one method element in the `https://turkpos.com.tr/` namespace) and writing
//! `<Method>Response/<Method>Result` envelopes (or a `soap:Fault`) like the TurkPOS service.

use paygate_bankkit::{xml, xml::Element};

/// The answer's content type.
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";

/// Why a request could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// Reads a request body: the method's name and its element.
pub fn read_request(body: &[u8]) -> Result<(String, Element), WireError> {
    let text =
        std::str::from_utf8(body).map_err(|_| WireError("the request is not UTF-8".into()))?;
    let root = xml::parse(text).map_err(|e| WireError(e.to_string()))?;
    if local(&root.name) != "Envelope" {
        return Err(WireError(format!("root element is <{}>", root.name)));
    }
    let body = root
        .children
        .iter()
        .find(|c| local(&c.name) == "Body")
        .ok_or_else(|| WireError("no soap:Body".into()))?;
    let [method] = body.children.as_slice() else {
        return Err(WireError("the Body must hold one method".into()));
    };
    if method.attr("xmlns") != Some(crate::request::NAMESPACE) {
        return Err(WireError(
            "the method is not in the TurkPOS namespace".into(),
        ));
    }
    Ok((local(&method.name).to_owned(), method.clone()))
}

/// One flat list of fields being written.
#[derive(Debug, Clone, Default)]
pub struct Fields(pub Vec<(&'static str, String)>);

impl Fields {
    pub fn with(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.0.push((key, value.into()));
        self
    }

    pub fn get(&self, key: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    fn write(&self, out: &mut String) {
        for (k, v) in &self.0 {
            if v.is_empty() {
                out.push_str(&format!("<{k} />"));
            } else {
                out.push_str(&format!("<{k}>{}</{k}>", xml::escape(v)));
            }
        }
    }
}

/// An answer being written.
#[derive(Debug, Clone)]
pub enum Answer {
    /// `<Method>Response/<Method>Result` with these fields (and `DT_Bilgi` when given).
    Result {
        method: String,
        fields: Fields,
        dt: Option<Fields>,
    },
    /// `<Method>Response/<Method>Result` whose `DT_Bilgi` is a .NET data set (`xs:schema`,
    /// `diffgr:diffgram/NewDataSet/Temp` rows), as `TP_Islem_Izleme` answers (MEWS fixture
    /// `history_response_1`).
    Rows {
        method: String,
        fields: Fields,
        rows: Vec<Fields>,
    },
    /// A `soap:Fault` (the service could not read the request).
    Fault(String),
}

impl Answer {
    /// A result without `DT_Bilgi`.
    pub fn result(method: &str, fields: Fields) -> Self {
        Self::Result {
            method: method.to_owned(),
            fields,
            dt: None,
        }
    }

    /// `Sonuc` (`""` for a fault).
    pub fn code(&self) -> &str {
        match self {
            Self::Result { fields, .. } | Self::Rows { fields, .. } => fields.get("Sonuc"),
            Self::Fault(_) => "",
        }
    }

    /// The envelope in UTF-8.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::from(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope \
             xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
             xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><soap:Body>",
        );
        match self {
            Self::Result { method, fields, dt } => {
                out.push_str(&format!(
                    "<{method}Response xmlns=\"{}\"><{method}Result>",
                    crate::request::NAMESPACE
                ));
                if let Some(dt) = dt {
                    out.push_str("<DT_Bilgi>");
                    dt.write(&mut out);
                    out.push_str("</DT_Bilgi>");
                }
                fields.write(&mut out);
                out.push_str(&format!("</{method}Result></{method}Response>"));
            }
            Self::Rows {
                method,
                fields,
                rows,
            } => {
                out.push_str(&format!(
                    "<{method}Response xmlns=\"{}\"><{method}Result><DT_Bilgi>\
                     <xs:schema id=\"NewDataSet\" xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" />\
                     <diffgr:diffgram xmlns:msdata=\"urn:schemas-microsoft-com:xml-msdata\" \
                     xmlns:diffgr=\"urn:schemas-microsoft-com:xml-diffgram-v1\"><NewDataSet xmlns=\"\">",
                    crate::request::NAMESPACE
                ));
                for (i, row) in rows.iter().enumerate() {
                    out.push_str(&format!(
                        "<Temp diffgr:id=\"Temp{}\" msdata:rowOrder=\"{i}\">",
                        i + 1
                    ));
                    row.write(&mut out);
                    out.push_str("</Temp>");
                }
                out.push_str("</NewDataSet></diffgr:diffgram></DT_Bilgi>");
                fields.write(&mut out);
                out.push_str(&format!("</{method}Result></{method}Response>"));
            }
            Self::Fault(why) => out.push_str(&format!(
                "<soap:Fault><faultcode>soap:Client</faultcode><faultstring>{}</faultstring>\
                 <detail /></soap:Fault>",
                xml::escape(why)
            )),
        }
        out.push_str("</soap:Body></soap:Envelope>");
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paygate_bankkit::BankReply;

    #[test]
    fn reads_requests_strictly() {
        let ok = "<soap:Envelope xmlns:soap=\"s\"><soap:Body><TP_Islem_Sorgulama4 xmlns=\"https://turkpos.com.tr/\"><Siparis_ID>ş</Siparis_ID></TP_Islem_Sorgulama4></soap:Body></soap:Envelope>";
        let (method, el) = read_request(ok.as_bytes()).unwrap();
        assert_eq!(
            (method.as_str(), el.text_at(&["Siparis_ID"])),
            ("TP_Islem_Sorgulama4", Some("ş"))
        );
        let other_ns = ok.replace("https://turkpos.com.tr/", "https://x/");
        assert!(read_request(other_ns.as_bytes()).is_err());
        assert!(read_request(b"<PayforRequest/>").is_err());
        assert!(read_request(b"<soap:Envelope><soap:Body>").is_err());
    }

    #[test]
    fn answers_read_back() {
        let a = Answer::Result {
            method: "TP_Islem_Sorgulama4".into(),
            fields: Fields::default().with("Sonuc", "1").with("Sonuc_Str", ""),
            dt: Some(Fields::default().with("Siparis_ID", "O1")),
        };
        let r = crate::response::Reply::decode(&a.to_bytes()).unwrap();
        assert_eq!((r.method.as_str(), r.sonuc()), ("TP_Islem_Sorgulama4", "1"));
        assert_eq!(r.dt.unwrap().get("Siparis_ID"), "O1");
        let f = crate::response::Reply::decode(&Answer::Fault("bad".into()).to_bytes()).unwrap();
        assert_eq!(f.fault.as_deref(), Some("bad"));
    }
}
