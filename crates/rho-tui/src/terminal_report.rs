//! What the terminal says of itself at start-up, in one round trip: whether it has the keyboard
//! protocol that tells Shift+Enter from Enter (`CSI ? u`, answered `CSI ? <flags> u`), its
//! background colour (OSC 11, answered `OSC 11 ; rgb:RRRR/GGGG/BBBB` ended by BEL or ST), and
//! the primary device attributes (`CSI c`), which every terminal answers and answers last: once
//! that reply is in, nothing more is coming, so a terminal without the first two costs no
//! timeout. Bytes among the replies that are none of them are what the user typed meanwhile;
//! their printable text is kept for the editor.

use std::time::{Duration, Instant};

/// The queries, in the order their answers come back.
pub const QUERIES: &str = "\x1b[?u\x1b]11;?\x1b\\\x1b[c";

/// How long to wait for a terminal that never answers the device attributes.
pub const TIMEOUT: Duration = Duration::from_secs(1);

/// The background's brightness, as the theme needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Background {
    /// Dark: light text reads.
    Dark,
    /// Light: dark text reads.
    Light,
}

/// What the replies said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TerminalReport {
    /// The keyboard protocol is there.
    pub keyboard_protocol: bool,
    /// The background colour, when the terminal reports it.
    pub background: Option<Background>,
    /// The device attributes came back: the report is complete.
    pub complete: bool,
    /// Printable text typed while the replies came in.
    pub typed: String,
}

/// Reads the replies out of `bytes` (everything read so far).
pub fn parse(bytes: &[u8]) -> TerminalReport {
    let mut report = TerminalReport::default();
    let mut typed = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            0x1b => {
                let Some((length, reply)) = escape(&bytes[at..]) else {
                    break;
                };
                match reply {
                    Reply::Keyboard => report.keyboard_protocol = true,
                    Reply::Background(background) => report.background = background,
                    Reply::DeviceAttributes => report.complete = true,
                    Reply::Other => {}
                }
                at += length;
            }
            byte => {
                if (0x20..0x7f).contains(&byte) || byte >= 0x80 {
                    typed.push(byte);
                }
                at += 1;
            }
        }
    }
    report.typed = String::from_utf8_lossy(&typed).into_owned();
    report
}

enum Reply {
    Keyboard,
    Background(Option<Background>),
    DeviceAttributes,
    Other,
}

/// The escape sequence at the start of `bytes`: its length and what it is; `None` when it is
/// not complete yet.
fn escape(bytes: &[u8]) -> Option<(usize, Reply)> {
    match bytes.get(1)? {
        b'[' => {
            // CSI: parameters and intermediates, then one final byte in 0x40..=0x7e.
            let end = bytes[2..].iter().position(|b| (0x40..=0x7e).contains(b))? + 2;
            let private = bytes.get(2) == Some(&b'?');
            let reply = match (private, bytes[end]) {
                (true, b'u') => Reply::Keyboard,
                (true, b'c') => Reply::DeviceAttributes,
                _ => Reply::Other,
            };
            Some((end + 1, reply))
        }
        b']' => {
            // OSC: up to BEL or ST (ESC \).
            let body = &bytes[2..];
            let (end, terminator) = body.iter().enumerate().find_map(|(i, b)| match b {
                0x07 => Some((i, 1)),
                0x1b if body.get(i + 1) == Some(&b'\\') => Some((i, 2)),
                // An ESC that is not ST abandons the string and starts the next sequence.
                0x1b if i + 1 < body.len() => Some((i, 0)),
                _ => None,
            })?;
            let text = std::str::from_utf8(&body[..end]).unwrap_or("");
            let reply = match text.strip_prefix("11;") {
                Some(colour) => Reply::Background(background(colour)),
                None => Reply::Other,
            };
            Some((2 + end + terminator, reply))
        }
        // A lone ESC or an Alt+key: two bytes.
        _ => Some((2, Reply::Other)),
    }
}

/// `rgb:R/G/B` (or `rgba:R/G/B/A`), each 1–4 hex digits, to dark or light by its luminance.
fn background(colour: &str) -> Option<Background> {
    let channels = colour
        .strip_prefix("rgb:")
        .or_else(|| colour.strip_prefix("rgba:"))?;
    let mut values = channels.split('/').map(|hex| {
        let max = 16f64.powi(i32::try_from(hex.len()).ok()?) - 1.0;
        let value = u32::from_str_radix(hex, 16).ok()?;
        (1..=4).contains(&hex.len()).then(|| f64::from(value) / max)
    });
    let (red, green, blue) = (values.next()??, values.next()??, values.next()??);
    // Rec. 709 weights on the reported values: a mid-grey or brighter background is light.
    let luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue;
    Some(if luminance > 0.5 {
        Background::Light
    } else {
        Background::Dark
    })
}

/// Asks the terminal on `fd` (raw mode already on) and reads its replies until the device
/// attributes come back or [`TIMEOUT`] passes.
#[cfg(unix)]
pub fn ask(
    out: &mut impl std::io::Write,
    fd: std::os::fd::RawFd,
) -> std::io::Result<TerminalReport> {
    out.write_all(QUERIES.as_bytes())?;
    out.flush()?;
    let deadline = Instant::now() + TIMEOUT;
    let mut bytes = Vec::new();
    loop {
        let report = parse(&bytes);
        let left = deadline.saturating_duration_since(Instant::now());
        if report.complete || left.is_zero() {
            return Ok(report);
        }
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd, for the duration of the call.
        let ready = unsafe { libc::poll(&mut poll, 1, millis) };
        if ready < 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if ready == 0 {
            continue;
        }
        let mut buffer = [0u8; 256];
        // SAFETY: reads at most the buffer's length into the buffer.
        let read = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
        match usize::try_from(read) {
            Ok(0) => return Ok(parse(&bytes)),
            Ok(count) => bytes.extend_from_slice(&buffer[..count]),
            Err(_) => {
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_answer_gives_the_protocol_the_background_and_completion() {
        let replies = b"\x1b[?1u\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c";
        assert_eq!(
            parse(replies),
            TerminalReport {
                keyboard_protocol: true,
                background: Some(Background::Light),
                complete: true,
                typed: String::new(),
            }
        );
    }

    #[test]
    fn backgrounds_are_read_in_every_width_and_either_terminator() {
        let of = |reply: &str| parse(reply.as_bytes()).background;
        assert_eq!(of("\x1b]11;rgb:0000/0000/0000\x07"), Some(Background::Dark));
        assert_eq!(of("\x1b]11;rgb:1e/1e/2e\x07"), Some(Background::Dark));
        assert_eq!(of("\x1b]11;rgb:fdf/fdf/e3e\x1b\\"), Some(Background::Light));
        assert_eq!(
            of("\x1b]11;rgba:ffff/ffff/ffff/ffff\x07"),
            Some(Background::Light)
        );
        assert_eq!(of("\x1b]11;rgb:zz/00/00\x07"), None);
        assert_eq!(of("\x1b]11;rgb:ff/ff\x07"), None);
        assert_eq!(of("\x1b]11;#ffffff\x07"), None);
    }

    #[test]
    fn a_terminal_without_the_protocol_or_osc_11_still_completes() {
        let report = parse(b"\x1b[?1;2c");
        assert!(report.complete && !report.keyboard_protocol && report.background.is_none());
    }

    #[test]
    fn a_reply_cut_short_is_not_complete_yet() {
        assert!(!parse(b"\x1b]11;rgb:ffff/ff").complete);
        assert!(!parse(b"\x1b[?62;2").complete);
        assert!(
            parse(b"\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?62;2")
                .background
                .is_some()
        );
    }

    #[test]
    fn keys_typed_among_the_replies_are_kept_as_text() {
        let report = parse("hé\x1b[?1u\x1b[A!\r\x1b[?62c".as_bytes());
        assert_eq!(report.typed, "hé!");
        assert!(report.complete);
    }
}
