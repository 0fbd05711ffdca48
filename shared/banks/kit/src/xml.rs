//! A small XML tree: enough for the banks' flat request/response documents, strict about
//! well-formedness (a malformed document is an error, never a guess).

use quick_xml::{events::Event, Reader};

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    /// Concatenated text content, unescaped and trimmed.
    pub text: String,
    pub children: Vec<Element>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed XML: {0}")]
pub struct XmlError(pub String);

impl Element {
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The element at a path of child names below this one.
    pub fn at(&self, path: &[&str]) -> Option<&Element> {
        path.iter().try_fold(self, |e, name| e.child(name))
    }

    /// Text at a path; `None` when the element is absent (present but empty gives `""`).
    pub fn text_at(&self, path: &[&str]) -> Option<&str> {
        self.at(path).map(|e| e.text.as_str())
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses a whole document into its root element.
pub fn parse(doc: &str) -> Result<Element, XmlError> {
    let mut reader = Reader::from_str(doc);
    reader.config_mut().trim_text(false);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let err = |e: &dyn std::fmt::Display| XmlError(e.to_string());
    loop {
        match reader.read_event().map_err(|e| err(&e))? {
            Event::Start(s) => {
                stack.push(open(&s)?);
            }
            Event::Empty(s) => {
                let el = open(&s)?;
                attach(&mut stack, &mut root, el)?;
            }
            Event::End(_) => {
                let mut el = stack
                    .pop()
                    .ok_or_else(|| XmlError("unbalanced end tag".into()))?;
                el.text = el.text.trim().to_owned();
                attach(&mut stack, &mut root, el)?;
            }
            Event::Text(t) => {
                let text = t.decode().map_err(|e| err(&e))?;
                let text = quick_xml::escape::unescape(&text).map_err(|e| err(&e))?;
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&text);
                } else if !text.trim().is_empty() {
                    return Err(XmlError("text outside the root element".into()));
                }
            }
            Event::CData(c) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&String::from_utf8_lossy(&c));
                }
            }
            Event::GeneralRef(r) => {
                let name = r.decode().map_err(|e| err(&e))?;
                let reference = format!("&{name};");
                let resolved = quick_xml::escape::unescape(&reference).map_err(|e| err(&e))?;
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&resolved);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(XmlError("unclosed element".into()));
    }
    root.ok_or_else(|| XmlError("no root element".into()))
}

fn open(s: &quick_xml::events::BytesStart<'_>) -> Result<Element, XmlError> {
    let name = String::from_utf8_lossy(s.name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for a in s.attributes() {
        let a = a.map_err(|e| XmlError(e.to_string()))?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a
            .unescape_value()
            .map_err(|e| XmlError(e.to_string()))?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        ..Element::default()
    })
}

fn attach(stack: &mut [Element], root: &mut Option<Element>, el: Element) -> Result<(), XmlError> {
    match stack.last_mut() {
        Some(parent) => {
            parent.children.push(el);
            Ok(())
        }
        None if root.is_none() => {
            *root = Some(el);
            Ok(())
        }
        None => Err(XmlError("more than one root element".into())),
    }
}

/// Escapes text for element content and attribute values.
pub fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

/// Builds a document: `XmlBuilder::new("CC5Request").leaf("Name", "x").open("Extra")…`.
#[derive(Debug, Clone)]
pub struct XmlBuilder {
    out: String,
    open: Vec<String>,
}

impl XmlBuilder {
    /// Starts a document with an XML declaration naming `encoding` (e.g. `ISO-8859-9`).
    pub fn new(root: &str, encoding: &str) -> Self {
        let mut b = Self {
            out: format!("<?xml version=\"1.0\" encoding=\"{encoding}\"?>"),
            open: Vec::new(),
        };
        b = b.open(root);
        b
    }

    pub fn open(mut self, name: &str) -> Self {
        self.out.push('<');
        self.out.push_str(name);
        self.out.push('>');
        self.open.push(name.to_owned());
        self
    }

    pub fn leaf(mut self, name: &str, text: &str) -> Self {
        self.out
            .push_str(&format!("<{name}>{}</{name}>", escape(text)));
        self
    }

    pub fn close(mut self) -> Self {
        if let Some(name) = self.open.pop() {
            self.out.push_str(&format!("</{name}>"));
        }
        self
    }

    /// Closes every open element and returns the document.
    pub fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self = self.close();
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_parses_round_trip() {
        let doc = XmlBuilder::new("CC5Request", "ISO-8859-9")
            .leaf("Name", "ş & <x> y")
            .open("Extra")
            .leaf("ORDERSTATUS", "QUERY")
            .finish();
        assert!(doc.starts_with("<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><CC5Request><Name>ş &amp; &lt;x&gt; y</Name>"));
        let root = parse(&doc).unwrap();
        assert_eq!(root.name, "CC5Request");
        assert_eq!(root.text_at(&["Name"]), Some("ş & <x> y"));
        let spaced = parse("<a>\n  <b> 1 &amp; 2 </b>\n</a>").unwrap();
        assert_eq!(spaced.text_at(&["b"]), Some("1 & 2"));
        assert_eq!(spaced.text, "");
        assert_eq!(root.text_at(&["Extra", "ORDERSTATUS"]), Some("QUERY"));
        assert_eq!(root.text_at(&["Missing"]), None);
    }

    #[test]
    fn malformed_documents_are_errors() {
        for bad in ["", "<a>", "<a></b>", "<a/><b/>", "text", "<a><b></a>"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let ok = parse("<a x=\"1\"><b/><b>2</b></a>").unwrap();
        assert_eq!(ok.children_named("b").count(), 2);
        assert_eq!(ok.attr("x"), Some("1"));
    }
}
