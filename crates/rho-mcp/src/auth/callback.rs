//! The loopback end of a sign-in: a one-shot HTTP listener on `127.0.0.1` (or the configured
//! callback host and port) that the browser is sent back to with `?code=…&state=…&iss=…`, and
//! the same reading of a redirect URL pasted by hand (a browser on another machine). The page
//! the browser gets says whether the sign-in went through; nothing else is served.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The longest request line and headers read from the browser.
const MAX_REQUEST: usize = 16 * 1024;

/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// What the authorization server sent back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The authorization code.
    pub code: String,
    /// The state the request carried.
    pub state: String,
    /// The issuer (RFC 9207), when the server names it.
    pub iss: Option<String>,
}

/// Why a redirect is not a usable answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RedirectError {
    /// Not a URL.
    #[error("Expected the full redirect URL from the browser address bar")]
    NotAUrl,
    /// A URL of something else.
    #[error("The redirect URL does not match this sign-in's redirect URI")]
    OtherUri,
    /// The server refused (`error=…`).
    #[error("{0}")]
    Refused(String),
    /// Another sign-in's answer.
    #[error("The redirect URL belongs to a different sign-in")]
    OtherSignIn,
    /// No `code`.
    #[error("The redirect URL does not contain an authorization code")]
    NoCode,
}

/// Reads a redirect to `redirect_uri` for the sign-in with `state`.
pub fn read_redirect(
    input: &str,
    redirect_uri: &str,
    state: &str,
) -> Result<Redirect, RedirectError> {
    let url = url::Url::parse(input.trim()).map_err(|_| RedirectError::NotAUrl)?;
    let expected = url::Url::parse(redirect_uri).map_err(|_| RedirectError::OtherUri)?;
    if url.origin() != expected.origin() || url.path() != expected.path() {
        return Err(RedirectError::OtherUri);
    }
    let query = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    if let Some(error) = query("error") {
        return Err(RedirectError::Refused(
            query("error_description").unwrap_or(error),
        ));
    }
    if query("state").as_deref() != Some(state) {
        return Err(RedirectError::OtherSignIn);
    }
    let code = query("code").ok_or(RedirectError::NoCode)?;
    Ok(Redirect {
        code,
        state: state.to_owned(),
        iss: query("iss"),
    })
}

/// A listener waiting for the browser.
pub struct Callback {
    listener: TcpListener,
    redirect_uri: String,
}

impl Callback {
    /// Listens on `host:port` (port 0: any free one); `redirect_uri` is the configured callback
    /// URL, else `http://<host>:<port>/callback`.
    pub async fn listen(
        host: &str,
        port: u16,
        configured: Option<&str>,
    ) -> std::io::Result<Callback> {
        let listener = TcpListener::bind((host, port)).await?;
        let bound = listener.local_addr()?.port();
        let redirect_uri = match configured {
            Some(url) => with_port(url, bound),
            None => format!("http://{host}:{bound}/callback"),
        };
        Ok(Callback {
            listener,
            redirect_uri,
        })
    }

    /// The redirect URI to register and send.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Serves until a request brings the answer for `state` (or a refusal); other requests get
    /// a 404 and are not answers.
    pub async fn answer(&self, state: &str) -> Result<Redirect, RedirectError> {
        loop {
            let Ok((stream, _)) = self.listener.accept().await else {
                continue;
            };
            if let Some(result) = self.serve(stream, state).await {
                return result;
            }
        }
    }

    /// One connection: its request's target read as a redirect, and a page back.
    async fn serve(
        &self,
        mut stream: TcpStream,
        state: &str,
    ) -> Option<Result<Redirect, RedirectError>> {
        let target = tokio::time::timeout(READ_TIMEOUT, request_target(&mut stream))
            .await
            .ok()??;
        let base = url::Url::parse(&self.redirect_uri).ok()?;
        let full = base.join(&target).ok()?;
        if full.path() != base.path() {
            let _ = respond(&mut stream, "404 Not Found", "Not found.").await;
            return None;
        }
        let result = read_redirect(full.as_str(), &self.redirect_uri, state);
        let page = match &result {
            Ok(_) => "Signed in to the MCP server. You may now close this page.".to_owned(),
            Err(error) => format!("The sign-in did not go through: {error}"),
        };
        let status = if result.is_ok() {
            "200 OK"
        } else {
            "400 Bad Request"
        };
        let _ = respond(&mut stream, status, &page).await;
        // A request for another sign-in is not this one's answer.
        match result {
            Err(RedirectError::OtherSignIn) => None,
            other => Some(other),
        }
    }
}

/// `url` with `port` when it names none.
fn with_port(url: &str, port: u16) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.port().is_none() => {
            let _ = parsed.set_port(Some(port));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

/// The target of a `GET` request (`/callback?code=…`), read up to the end of its headers.
async fn request_target(stream: &mut TcpStream) -> Option<String> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buffer.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 || buffer.len() + read > MAX_REQUEST {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let head = String::from_utf8_lossy(&buffer);
    let line = head.lines().next()?;
    let mut parts = line.split(' ');
    (parts.next()? == "GET").then_some(())?;
    parts.next().map(str::to_owned)
}

async fn respond(stream: &mut TcpStream, status: &str, text: &str) -> std::io::Result<()> {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>rho</title></head><body><p>{}</p></body></html>",
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    );
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_redirect_is_read_and_checked_against_the_sign_in() {
        let uri = "http://127.0.0.1:4000/callback";
        assert_eq!(
            read_redirect(
                " http://127.0.0.1:4000/callback?code=c1&state=s1&iss=https%3A%2F%2Fas ",
                uri,
                "s1"
            ),
            Ok(Redirect {
                code: "c1".into(),
                state: "s1".into(),
                iss: Some("https://as".into())
            })
        );
        assert_eq!(
            read_redirect(
                "http://127.0.0.1:4000/callback?code=c&state=other",
                uri,
                "s1"
            ),
            Err(RedirectError::OtherSignIn)
        );
        assert_eq!(
            read_redirect("http://127.0.0.1:4001/callback?code=c&state=s1", uri, "s1"),
            Err(RedirectError::OtherUri)
        );
        assert_eq!(
            read_redirect(
                "http://127.0.0.1:4000/callback?error=access_denied&error_description=No%20way&state=s1",
                uri,
                "s1"
            ),
            Err(RedirectError::Refused("No way".into()))
        );
        assert_eq!(
            read_redirect("code=c", uri, "s1"),
            Err(RedirectError::NotAUrl)
        );
        assert_eq!(
            read_redirect("http://127.0.0.1:4000/callback?state=s1", uri, "s1"),
            Err(RedirectError::NoCode)
        );
    }

    #[test]
    fn a_configured_callback_gets_the_port_it_lacks() {
        assert_eq!(
            with_port("http://localhost/callback", 5000),
            "http://localhost:5000/callback"
        );
        assert_eq!(
            with_port("http://127.0.0.1:7000/cb", 5000),
            "http://127.0.0.1:7000/cb"
        );
    }
}
