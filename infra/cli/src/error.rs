//! What can go wrong in a command, as the user reads it (`error: …`, exit status 1).

/// A command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Missing or contradictory input (a flag, an environment variable, a file).
    #[error("{0}")]
    Usage(String),
    /// The API answered with an error (its envelope's code and message, or API Gateway's
    /// own `{"message": …}`).
    #[error("{method} {path}: HTTP {status} {code}: {message}")]
    Api {
        method: String,
        path: String,
        status: u16,
        code: String,
        message: String,
    },
    /// The API could not be reached, or its answer could not be read.
    #[error("{method} {url}: {message}")]
    Http {
        method: String,
        url: String,
        message: String,
    },
    /// The answer was not the JSON expected.
    #[error("unexpected answer from {what}: {message}")]
    Decode { what: String, message: String },
    /// No AWS credentials could be resolved, or they cannot sign.
    #[error("AWS credentials: {0}")]
    Credentials(String),
    /// A local file or socket (the listener's certificate, its port, stdout).
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The local HTTPS listener could not start.
    #[error("listener: {0}")]
    Listener(String),
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        Self::Usage(message.into())
    }

    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            what: what.into(),
            source,
        }
    }

    /// The API's error code, when the API answered with one.
    pub fn api_code(&self) -> Option<&str> {
        match self {
            Self::Api { code, .. } => Some(code),
            _ => None,
        }
    }

    /// The HTTP status, when the API answered.
    pub fn api_status(&self) -> Option<u16> {
        match self {
            Self::Api { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// Writing to the output failed (a closed pipe, a full disk).
impl From<std::io::Error> for CliError {
    fn from(source: std::io::Error) -> Self {
        Self::io("writing the output", source)
    }
}
