//! The SDK's HTTP client: the AWS SDK's calls go over reqwest (hyper 1, HTTP/1.1) with
//! [`paygate_tls`]'s configuration, the same stack the bank, webhook and deploy-hook clients
//! use, instead of the SDK's own hyper client (issue 20). That client links its own HTTP/2
//! stack and connection pool and takes its trust store as PEM only, so each function's first
//! AWS call parsed the ~150 Mozilla roots from text (~6.5 M instructions); here they are the
//! already parsed `webpki-roots` anchors, and every function links one HTTP stack and one
//! crypto provider (ring).
//!
//! What the SDK needs of a connector, and how it is met:
//! - the request as signed, sent as is (method, URI, headers, body; reqwest adds no header the
//!   signature covers), its in-memory body (every DynamoDB, SQS and Secrets Manager request
//!   is JSON in memory; a streaming body is refused as a user error, never sent);
//! - the connector settings' connect and read time-outs (the SDK's attempt and operation
//!   time-outs wrap the call itself), one reqwest client per distinct setting, built on the
//!   first request, not when a service client is constructed (which asks for a connector to
//!   validate its configuration);
//! - errors classified as the SDK's own client does, so its retry policy is unchanged: a
//!   time-out is `timeout`, a failure to connect or any I/O failure (refused, reset, closed,
//!   DNS) is `io` (both transient, retried with the same `ClientRequestToken` where the
//!   operation has one), a request that cannot be built is `user`, anything else `other`;
//! - the answer handed over as it arrives, its body a stream the SDK reads (and bounds) itself,
//!   as from its own client; an in-memory body would put its bytes into the SDK's TRACE log.

use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use aws_smithy_runtime_api::client::{
    http::{
        HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
        SharedHttpConnector,
    },
    orchestrator::{HttpRequest, HttpResponse},
    result::ConnectorError,
    runtime_components::RuntimeComponents,
};
use aws_smithy_types::body::SdkBody;

/// The SDK's HTTP client for every service client ([`crate::Clients`]).
pub fn https_client() -> SharedHttpClient {
    SharedHttpClient::new(ReqwestHttp::default())
}

/// A connector's time-outs: (connect, read).
type Timeouts = (Option<Duration>, Option<Duration>);

/// One connector per distinct [`Timeouts`], kept for the process (the SDK asks for one per
/// request attempt).
#[derive(Debug, Default)]
struct ReqwestHttp {
    connectors: Mutex<Vec<(Timeouts, SharedHttpConnector)>>,
}

impl HttpClient for ReqwestHttp {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        let key = (settings.connect_timeout(), settings.read_timeout());
        let mut connectors = self
            .connectors
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, found)) = connectors.iter().find(|(k, _)| *k == key) {
            return found.clone();
        }
        let connector = SharedHttpConnector::new(Connector {
            timeouts: key,
            client: OnceLock::new(),
        });
        connectors.push((key, connector.clone()));
        connector
    }
}

#[derive(Debug)]
struct Connector {
    timeouts: Timeouts,
    /// Built by the first request.
    client: OnceLock<reqwest::Client>,
}

impl Connector {
    fn client(&self) -> Result<reqwest::Client, ConnectorError> {
        if let Some(client) = self.client.get() {
            return Ok(client.clone());
        }
        let (connect, read) = self.timeouts;
        let mut builder = reqwest::Client::builder()
            .tls_backend_preconfigured(paygate_tls::default_client_config())
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy();
        if let Some(connect) = connect {
            builder = builder.connect_timeout(connect);
        }
        if let Some(read) = read {
            builder = builder.read_timeout(read);
        }
        let client = builder
            .build()
            .map_err(|e| ConnectorError::other(e.into(), None))?;
        Ok(self.client.get_or_init(|| client).clone())
    }
}

impl HttpConnector for Connector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let sent = self
            .client()
            .and_then(|client| Ok((client, to_reqwest(request)?)));
        HttpConnectorFuture::new(async move {
            let (client, request) = sent?;
            let response = client.execute(request).await.map_err(classify)?;
            from_reqwest(response).await
        })
    }
}

/// The signed request as reqwest's, its body copied out of memory.
fn to_reqwest(request: HttpRequest) -> Result<reqwest::Request, ConnectorError> {
    let request = request
        .try_into_http1x()
        .map_err(|e| ConnectorError::user(e.into()))?;
    let (parts, body) = request.into_parts();
    let Some(bytes) = body.bytes() else {
        return Err(ConnectorError::user(
            "a streaming request body is not supported by this HTTP client".into(),
        ));
    };
    reqwest::Request::try_from(http::Request::from_parts(parts, bytes.to_vec()))
        .map_err(|e| ConnectorError::user(e.into()))
}

/// The answer as it arrives: its head, and its body as a stream the SDK reads (as with the
/// SDK's own client). Never an in-memory body: the SDK logs every answer at TRACE with its
/// body's `Debug`, which prints in-memory bytes (a secret's value, a bank credential) but
/// not a stream's.
async fn from_reqwest(response: reqwest::Response) -> Result<HttpResponse, ConnectorError> {
    let answer = http::Response::from(response).map(SdkBody::from_body_1_x);
    HttpResponse::try_from(answer).map_err(|e| ConnectorError::other(e.into(), None))
}

/// As the SDK's own client classifies its transport errors (see the module's notes).
fn classify(e: reqwest::Error) -> ConnectorError {
    if e.is_timeout() {
        ConnectorError::timeout(e.into())
    } else if e.is_builder() {
        ConnectorError::user(e.into())
    } else if e.is_connect() || e.is_request() || e.is_body() || io_in_chain(&e) {
        ConnectorError::io(e.into())
    } else {
        ConnectorError::other(e.into(), None)
    }
}

fn io_in_chain(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(err) = next {
        if err.is::<std::io::Error>() {
            return true;
        }
        next = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use aws_smithy_runtime_api::client::runtime_components::RuntimeComponentsBuilder;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    fn connector(read: Option<Duration>) -> SharedHttpConnector {
        let mut settings = HttpConnectorSettings::builder();
        settings.set_read_timeout(read);
        let components = RuntimeComponentsBuilder::for_tests().build().unwrap();
        ReqwestHttp::default().http_connector(&settings.build(), &components)
    }

    fn request(uri: &str, body: &'static str) -> HttpRequest {
        let req = http::Request::builder()
            .method("POST")
            .uri(uri)
            .header("x-amz-target", "DynamoDB_20120810.GetItem")
            .header("content-type", "application/x-amz-json-1.0")
            .body(SdkBody::from(body))
            .unwrap();
        HttpRequest::try_from(req).unwrap()
    }

    /// A one-shot server: reads one request, writes `answer` (or nothing, holding the
    /// connection), and hands the request's text back.
    async fn server(answer: Option<&'static str>) -> (String, tokio::task::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            // The head, then as many body bytes as its content-length says.
            while !whole_request(&seen) {
                let n = sock.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                seen.extend_from_slice(&buf[..n]);
            }
            match answer {
                Some(a) => sock.write_all(a.as_bytes()).await.unwrap(),
                None => tokio::time::sleep(Duration::from_secs(5)).await,
            }
            String::from_utf8_lossy(&seen).into_owned()
        });
        (format!("http://{addr}/"), task)
    }

    fn whole_request(seen: &[u8]) -> bool {
        let text = String::from_utf8_lossy(seen).to_ascii_lowercase();
        let Some(head_end) = text.find("\r\n\r\n") else {
            return false;
        };
        let length = text[..head_end]
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(0);
        seen.len() >= head_end + 4 + length
    }

    #[tokio::test]
    async fn sends_the_signed_request_as_is_and_returns_the_whole_answer() {
        let (uri, seen) = server(Some(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/x-amz-json-1.0\r\nx-amzn-requestid: r-1\r\ncontent-length: 17\r\n\r\n{\"__type\":\"Oops\"}",
        ))
        .await;
        let answer = connector(None)
            .call(request(&uri, "{\"Key\":1}"))
            .await
            .unwrap();
        assert_eq!(answer.status().as_u16(), 400);
        assert_eq!(answer.headers().get("x-amzn-requestid"), Some("r-1"));
        // A stream, whose `Debug` (the SDK's TRACE log of every answer) shows no content.
        assert!(answer.body().bytes().is_none());
        assert!(!format!("{answer:?}").contains("Oops"), "{answer:?}");
        let seen = seen.await.unwrap().to_ascii_lowercase();
        assert!(seen.starts_with("post / http/1.1\r\n"), "{seen}");
        assert!(
            seen.contains("x-amz-target: dynamodb_20120810.getitem\r\n"),
            "{seen}"
        );
        assert!(seen.contains("content-length: 9\r\n"), "{seen}");
    }

    #[tokio::test]
    async fn a_silent_server_is_a_timeout_and_a_refused_connection_is_io() {
        let (uri, _held) = server(None).await;
        let err = connector(Some(Duration::from_millis(200)))
            .call(request(&uri, "{\"Key\":1}"))
            .await
            .unwrap_err();
        assert!(err.is_timeout(), "{err:?}");

        let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = closed.local_addr().unwrap();
        drop(closed);
        let err = connector(None)
            .call(request(&format!("http://{addr}/"), "{}"))
            .await
            .unwrap_err();
        assert!(err.is_io(), "{err:?}");
    }

    type GetItem = Result<
        aws_sdk_dynamodb::operation::get_item::GetItemOutput,
        aws_sdk_dynamodb::error::SdkError<aws_sdk_dynamodb::operation::get_item::GetItemError>,
    >;

    /// A `GetItem` through the SDK, this client under it, against `uri`.
    async fn get_item(uri: &str) -> GetItem {
        use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
        let conf = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .endpoint_url(uri)
            .region(Region::new("eu-central-1"))
            .credentials_provider(Credentials::new("AKID", "secret", None, None, "test"))
            .retry_config(aws_smithy_types::retry::RetryConfig::disabled())
            .http_client(https_client())
            .build();
        aws_sdk_dynamodb::Client::from_conf(conf)
            .get_item()
            .table_name("t")
            .key("Key", one())
            .send()
            .await
    }

    fn one() -> aws_sdk_dynamodb::types::AttributeValue {
        aws_sdk_dynamodb::types::AttributeValue::N("1".into())
    }

    /// Through the SDK: an answer is parsed from the stream, and one cut short is an error,
    /// never a partial success.
    #[tokio::test]
    async fn the_sdk_reads_the_answer_and_fails_on_one_cut_short() {
        let (uri, seen) = server(Some(
            "HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: 24\r\n\r\n{\"Item\":{\"a\":{\"N\":\"1\"}}}",
        ))
        .await;
        let got = get_item(&uri).await;
        let seen = seen.await.unwrap().to_ascii_lowercase();
        assert!(seen.contains("authorization: aws4-hmac-sha256"), "{seen}");
        assert_eq!(got.unwrap().item.unwrap()["a"], one());

        let (uri, _seen) = server(Some(
            "HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: 100\r\n\r\n{\"Item\":",
        ))
        .await;
        let got = get_item(&uri).await;
        assert!(got.is_err(), "{got:?}");
    }

    #[test]
    fn one_connector_per_setting_and_no_client_until_a_request() {
        let http = ReqwestHttp::default();
        let components = RuntimeComponentsBuilder::for_tests().build().unwrap();
        let a = HttpConnectorSettings::builder()
            .connect_timeout(Duration::from_secs(1))
            .build();
        let b = HttpConnectorSettings::builder().build();
        let _ = http.http_connector(&a, &components);
        let _ = http.http_connector(&a, &components);
        let _ = http.http_connector(&b, &components);
        assert_eq!(http.connectors.lock().unwrap().len(), 2);
    }
}
