//! What a run will cost, before anything is spent, and what it did cost.
//!
//! Prices come from a table in the repository (`prices.json`, US dollars per
//! million tokens) that a user's file overrides entry by entry. Token counts
//! are Hone's: the listing and each request are counted with the provider's
//! tokenizer (an estimate for Claude, exact `o200k` for OpenAI models); the
//! output is assumed to be [`ESTIMATED_OUTPUT_TOKENS`] per call (a short
//! preamble and a tool call), since it cannot be known beforehand.
//!
//! Prompt caching: with caching on and a listing at least as long as the
//! model's shortest cached prefix, the first call writes the cache and every
//! later call reads it. The runner makes the first uncached call alone for
//! this reason, before going parallel. A cache lives five minutes; a run
//! with pauses longer than that pays more writes than estimated.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Usage;

/// What a provider's batch API charges against its standard price:
/// Anthropic's Message Batches and OpenAI's Batch API both bill half.
pub const BATCH_PRICE_FACTOR: f64 = 0.5;

/// Output tokens assumed per call in an estimate.
pub const ESTIMATED_OUTPUT_TOKENS: u64 = 100;
/// Tokens of a request's framing (role, message wrapper), added to its text.
pub const REQUEST_OVERHEAD_TOKENS: u64 = 8;

const BUNDLED_PRICES: &str = include_str!("prices.json");

/// Per-million-token prices of one model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Writing the prompt cache.
    pub cache_write: f64,
    /// Reading the prompt cache.
    pub cache_read: f64,
    /// The shortest prefix the provider caches.
    #[serde(default)]
    pub min_cache_tokens: u64,
}

impl Price {
    /// The price of `usage`, in dollars.
    pub fn of(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input
            + usage.output_tokens as f64 * self.output
            + usage.cache_write_tokens as f64 * self.cache_write
            + usage.cache_read_tokens as f64 * self.cache_read)
            / 1e6
    }
}

#[derive(Debug, Clone, Deserialize)]
struct PriceFile {
    models: BTreeMap<String, Price>,
}

/// The price table.
#[derive(Debug, Clone)]
pub struct PriceTable {
    models: BTreeMap<String, Price>,
}

impl PriceTable {
    /// The table shipped with Hone.
    pub fn bundled() -> PriceTable {
        let file: PriceFile =
            serde_json::from_str(BUNDLED_PRICES).expect("the bundled price table is valid JSON");
        PriceTable {
            models: file.models,
        }
    }

    /// The bundled table with `path`'s entries over it.
    pub fn with_overrides(path: &Path) -> Result<PriceTable, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: PriceFile = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}: not a price table ({e}); expected {{\"models\": {{\"NAME\": {{\"input\": 1.0, \"output\": 5.0, \"cache_write\": 1.25, \"cache_read\": 0.1}}}}}}",
                path.display()
            )
        })?;
        let mut table = PriceTable::bundled();
        table.models.extend(file.models);
        Ok(table)
    }

    /// The names of the models the table prices, in order.
    pub fn models(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }

    /// The price of `model`: its exact entry, else the longest entry it
    /// starts with (dated snapshots share their family's price). A model
    /// named with its provider (`anthropic/claude-…`, as OpenCode names
    /// them) is priced by its own name.
    pub fn price(&self, model: &str) -> Option<(&str, Price)> {
        let model = model.rsplit('/').next().unwrap_or(model);
        if let Some((name, price)) = self.models.get_key_value(model) {
            return Some((name, *price));
        }
        self.models
            .iter()
            .filter(|(name, _)| model.starts_with(name.as_str()))
            .max_by_key(|(name, _)| name.len())
            .map(|(name, price)| (name.as_str(), *price))
    }
}

/// What a run will cost, computed before it starts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CostEstimate {
    /// Calls to make (answers not in the cache).
    pub calls: usize,
    /// Answers the on-disk cache already holds.
    pub cached_answers: usize,
    /// The tokenizer the counts come from.
    pub tokenizer: String,
    /// Tokens of the listing (tool description and system prompt), sent with every call.
    pub listing_tokens: u64,
    /// Tokens of the requests of the calls to make, framing included.
    pub request_tokens: u64,
    /// Output tokens assumed.
    pub output_tokens: u64,
    /// Whether the listing will be read from the provider's prompt cache.
    pub prompt_caching: bool,
    /// The price-table entry used, when the model has one.
    pub price_entry: Option<String>,
    /// Estimated dollars; `None` without a price.
    pub usd: Option<f64>,
    /// The same without prompt caching, for comparison.
    pub usd_without_caching: Option<f64>,
    /// What the estimate leaves out for this provider.
    pub caveat: Option<String>,
}

impl CostEstimate {
    /// The estimate for `calls` calls whose requests have `request_tokens`
    /// tokens in all, with a listing of `listing_tokens`.
    pub fn new(
        calls: usize,
        cached_answers: usize,
        tokenizer: String,
        listing_tokens: u64,
        request_tokens: u64,
        caching_requested: bool,
        price: Option<(&str, Price)>,
    ) -> CostEstimate {
        let n = calls as u64;
        let output_tokens = n * ESTIMATED_OUTPUT_TOKENS;
        let prompt_caching = caching_requested
            && n > 1
            && price.is_some_and(|(_, p)| listing_tokens >= p.min_cache_tokens);
        let uncached = Usage {
            input_tokens: n * listing_tokens + request_tokens,
            output_tokens,
            ..Usage::default()
        };
        let cached = if prompt_caching {
            Usage {
                input_tokens: request_tokens,
                output_tokens,
                cache_write_tokens: listing_tokens,
                cache_read_tokens: (n - 1) * listing_tokens,
            }
        } else {
            uncached
        };
        CostEstimate {
            calls,
            cached_answers,
            tokenizer,
            listing_tokens,
            request_tokens,
            output_tokens,
            prompt_caching,
            price_entry: price.map(|(name, _)| name.to_owned()),
            usd: price.map(|(_, p)| p.of(&cached)),
            usd_without_caching: price.map(|(_, p)| p.of(&uncached)),
            caveat: None,
        }
    }

    /// Estimated dollars of one more call, for the running budget check.
    pub fn per_call_usd(&self) -> Option<f64> {
        let usd = self.usd_without_caching?;
        Some(if self.calls == 0 {
            0.0
        } else {
            usd / self.calls as f64
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_named_with_its_provider_takes_its_own_price() {
        let table = PriceTable::bundled();
        assert_eq!(
            table
                .price("anthropic/claude-sonnet-4-5")
                .map(|(name, _)| name),
            Some("claude-sonnet-4-5")
        );
    }

    #[test]
    fn dated_models_take_their_family_price() {
        let table = PriceTable::bundled();
        let (entry, price) = table.price("claude-haiku-4-5-20251001").unwrap();
        assert_eq!(entry, "claude-haiku-4-5");
        assert_eq!(price.input, 1.0);
        // The longest prefix wins: gpt-4.1-mini is not priced as gpt-4.1.
        assert_eq!(table.price("gpt-4.1-mini-2025").unwrap().0, "gpt-4.1-mini");
        assert!(table.price("llama3.2").is_none());
    }

    #[test]
    fn overrides_replace_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(
            &path,
            r#"{"models": {"llama3.2": {"input": 0, "output": 0, "cache_write": 0, "cache_read": 0}}}"#,
        )
        .unwrap();
        let table = PriceTable::with_overrides(&path).unwrap();
        assert_eq!(table.price("llama3.2").unwrap().1.output, 0.0);
        assert!(table.price("claude-sonnet-4-5").is_some());
        std::fs::write(&path, "{}").unwrap();
        assert!(
            PriceTable::with_overrides(&path)
                .unwrap_err()
                .contains("not a price table")
        );
    }

    #[test]
    fn caching_makes_the_listing_cheap_after_the_first_call() {
        let price = Price {
            input: 3.0,
            output: 15.0,
            cache_write: 3.75,
            cache_read: 0.3,
            min_cache_tokens: 1024,
        };
        let estimate = CostEstimate::new(
            100,
            0,
            "claude".into(),
            2000,
            2000,
            true,
            Some(("m", price)),
        );
        assert!(estimate.prompt_caching);
        let cached = estimate.usd.unwrap();
        let uncached = estimate.usd_without_caching.unwrap();
        // 100 × 2000 listing tokens at $3/M, plus requests and output.
        assert!((uncached - (202_000.0 * 3.0 + 10_000.0 * 15.0) / 1e6).abs() < 1e-9);
        assert!(cached < uncached / 3.0);
        // A listing shorter than the cached minimum is never cached.
        let short = CostEstimate::new(100, 0, "claude".into(), 500, 2000, true, Some(("m", price)));
        assert!(!short.prompt_caching);
        assert_eq!(short.usd, short.usd_without_caching);
    }
}
