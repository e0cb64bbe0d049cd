//! What a program that runs the server hears from it: lines about its life,
//! the moment it is ready (with a [`Monitor`] to ask how it is doing), and
//! one [`Answered`] per request. `hone serve` prints the lines; the app
//! shows all three in its "Serve this library" panel.

use std::net::SocketAddr;
use std::sync::Arc;

use hone_core::rank::RankerKind;
use serde::Serialize;

use crate::engine::Engine;
use crate::handler::Clients;

/// Receives what a running server reports. Called from the server's threads:
/// keep each call short.
pub trait Observer: Send + Sync + 'static {
    /// A line about the server's life: ready, reloads, skills left out.
    fn log(&self, line: &str);
    /// The server answers requests from now on.
    fn ready(&self, _ready: Ready) {}
    /// A request was answered.
    fn answered(&self, _answered: Answered) {}
}

/// Only the lines, to a function (what `hone serve` prints).
pub(crate) struct Lines<F>(pub F);

impl<F: Fn(&str) + Send + Sync + 'static> Observer for Lines<F> {
    fn log(&self, line: &str) {
        (self.0)(line)
    }
}

/// A server that has started.
pub struct Ready {
    /// The bound HTTP address; `None` over stdio.
    pub addr: Option<SocketAddr>,
    pub monitor: Monitor,
}

/// Asks a running server how it is doing.
#[derive(Clone)]
pub struct Monitor {
    engine: Arc<Engine>,
    clients: Clients,
}

impl Monitor {
    pub(crate) fn new(engine: Arc<Engine>, clients: Clients) -> Monitor {
        Monitor { engine, clients }
    }

    /// Skills served now (after the last reload).
    pub fn skills(&self) -> usize {
        self.engine.catalog().skills.len()
    }

    /// Skills left out (`--strict`, links out of the library).
    pub fn excluded(&self) -> usize {
        self.engine.catalog().excluded.len()
    }

    /// Clients connected now.
    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    pub fn ranker(&self) -> RankerKind {
        self.engine.kind()
    }

    pub fn threshold(&self) -> f32 {
        self.engine.threshold()
    }
}

/// One answered request.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Answered {
    /// The JSON-RPC method (`tools/call`, `resources/read`, …).
    pub method: &'static str,
    /// What was asked: the tool and its main argument, the URI, the client.
    pub detail: String,
    /// Why it was refused, when it was (an error or a tool's `isError`).
    pub error: Option<String>,
    pub micros: u64,
}

/// The longest `detail` reported: a log line, not the request.
const MAX_DETAIL_CHARS: usize = 120;

/// `text` cut to a log line's length, on a character boundary.
pub(crate) fn clip(text: &str) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    match one_line.char_indices().nth(MAX_DETAIL_CHARS) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_are_one_short_line() {
        assert_eq!(clip("a\nb"), "a b");
        let long = "é".repeat(200);
        let clipped = clip(&long);
        assert_eq!(clipped.chars().count(), MAX_DETAIL_CHARS + 1);
        assert!(clipped.ends_with('…'));
    }
}
