//! Text analysis for keyword ranking: the same pipeline turns skills and
//! requests into comparable terms.
//!
//! Words are split on anything that is not a letter or digit (so `pdf-tools`,
//! `pdf_tools` and `pdf tools` agree, and any script is accepted), lowercased,
//! folded to ASCII where a Latin letter has an accent, stripped of stop words
//! and stemmed with the Snowball English stemmer (`deploying` and `deploys`
//! both become `deploy`).
//!
//! The stop words go beyond the usual articles and prepositions. Requests are
//! conversational ("can you help me with my...") while descriptions are
//! third-person ("Reviews pull requests..."), so pronouns, modal verbs and
//! politeness are rare in a library, get a high IDF, and would reward the few
//! skills that happen to use them. Removing them from both sides keeps the
//! score on the words that say what a task is about.

use rustc_hash::FxHashMap;
use std::ops::Range;
use std::sync::{Arc, RwLock};

use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// Longest word indexed, in bytes; longer ones are hashes, base64 or prose in
/// a script without spaces, not terms anyone searches for.
const MAX_WORD_BYTES: usize = 40;

/// English function words and conversational filler, written lowercase.
const STOP_WORDS: &[&str] = &[
    // articles, determiners, quantifiers
    "a",
    "an",
    "the",
    "this",
    "that",
    "these",
    "those",
    "some",
    "any",
    "each",
    "every",
    "all",
    "both",
    "either",
    "neither",
    "few",
    "many",
    "much",
    "more",
    "most",
    "other",
    "others",
    "another",
    "such",
    "own",
    "same",
    "lot",
    "lots",
    "bunch",
    "several",
    // pronouns
    "i",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "us",
    "our",
    "ours",
    "ourselves",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "her",
    "hers",
    "herself",
    "it",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "one",
    "someone",
    "somebody",
    "something",
    "anyone",
    "anybody",
    "anything",
    "everyone",
    "everybody",
    "everything",
    "nothing",
    // what the tokenizer leaves of contractions ("I'm", "don't", "we've")
    "m",
    "s",
    "t",
    "ve",
    "ll",
    "re",
    "don",
    "doesn",
    "didn",
    "isn",
    "aren",
    "wasn",
    "im",
    "dont",
    "cant",
    "thats",
    "whats",
    "lets",
    // question words
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "whether",
    // auxiliaries and modals
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "done",
    "can",
    "could",
    "will",
    "would",
    "shall",
    "should",
    "may",
    "might",
    "must",
    "ought",
    "gonna",
    "wanna",
    "gotta",
    // prepositions and conjunctions
    "of",
    "to",
    "in",
    "on",
    "at",
    "by",
    "for",
    "with",
    "from",
    "into",
    "onto",
    "about",
    "above",
    "below",
    "over",
    "under",
    "between",
    "through",
    "during",
    "before",
    "after",
    "against",
    "within",
    "without",
    "upon",
    "via",
    "per",
    "across",
    "toward",
    "towards",
    "up",
    "down",
    "out",
    "off",
    "away",
    "and",
    "or",
    "but",
    "nor",
    "so",
    "if",
    "then",
    "than",
    "because",
    "as",
    "while",
    "until",
    "unless",
    "though",
    "although",
    "since",
    "whereas",
    "also",
    "too",
    "very",
    "just",
    "only",
    "even",
    "still",
    "yet",
    "already",
    "again",
    "here",
    "there",
    "now",
    "not",
    "no",
    "yes",
    "ok",
    "okay",
    "etc",
    "eg",
    "ie",
    "vs",
    // conversational filler
    "please",
    "pls",
    "plz",
    "thanks",
    "thank",
    "hi",
    "hello",
    "hey",
    "really",
    "actually",
    "basically",
    "maybe",
    "perhaps",
    "kinda",
    "sorta",
    "like",
    "stuff",
    "thing",
    "things",
    "want",
    "wants",
    "wanted",
    "need",
    "needs",
    "needed",
    "trying",
    "try",
    "help",
    "helps",
    "able",
    "way",
    "ways",
    "whole",
    "quite",
    "rather",
    "right",
    "well",
    "get",
    "got",
    "getting",
];

/// The analysis pipeline shared by indexing and querying.
///
/// Clones share a cache of analysed words: a library repeats a few thousand
/// words, and stemming every occurrence again would be most of the cost of
/// indexing. The index tokenizes with a clone (as a tantivy [`Tokenizer`]),
/// so a document's words, analysed once for the ranker's own records, cost
/// the index's thread only lookups. Requests read the cache but never fill
/// it, so arbitrary requests cannot grow it.
#[derive(Clone)]
pub struct Analyzer {
    /// The pipeline; given one word, it yields at most one term.
    word: TextAnalyzer,
    cache: Arc<RwLock<FxHashMap<String, Option<String>>>>,
}

impl Default for Analyzer {
    fn default() -> Self {
        let word = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(MAX_WORD_BYTES + 1))
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter)
            .filter(StopWordFilter::remove(
                STOP_WORDS.iter().map(|w| (*w).to_owned()),
            ))
            .filter(Stemmer::new(Language::English))
            .build();
        Analyzer {
            word,
            cache: Arc::default(),
        }
    }
}

impl Analyzer {
    /// The terms of a request with their byte ranges in it. Words the cache
    /// lacks are analysed but not remembered.
    pub fn tokens(&mut self, text: &str) -> Vec<Token> {
        let words: Vec<(usize, Range<usize>)> = words(text).collect();
        // One lock per text, not per word. A panic elsewhere cannot leave an
        // entry half written, so a poisoned lock is still good.
        let known: Vec<Option<Option<String>>> = {
            let cache = self.cache.read().unwrap_or_else(|e| e.into_inner());
            words
                .iter()
                .map(|(_, range)| cache.get(&text[range.clone()]).cloned())
                .collect()
        };
        words
            .into_iter()
            .zip(known)
            .filter_map(|((position, word), known)| {
                let term = known.unwrap_or_else(|| self.term(&text[word.clone()]))?;
                Some(token(term, position, word))
            })
            .collect()
    }

    /// The terms of a document's text, remembering its words.
    pub fn index_tokens(&mut self, text: &str) -> Vec<Token> {
        self.with_index_terms(text, |terms| {
            terms
                .map(|t| token(t.term.to_owned(), t.position, t.word))
                .collect()
        })
    }

    /// Gives `use_terms` every term of a document's text, in order,
    /// remembering the text's words. The terms are borrowed from the cache:
    /// nothing is allocated for a word seen before (the collision index
    /// keeps only a skill's distinct terms).
    pub fn with_index_terms<R>(
        &mut self,
        text: &str,
        use_terms: impl FnOnce(&mut dyn Iterator<Item = TermAt<'_>>) -> R,
    ) -> R {
        let words: Vec<(usize, Range<usize>)> = words(text).collect();
        // Locked once to find the words not yet known, once to add them and
        // once to read the terms, not once per word. A panic elsewhere cannot
        // leave an entry half written, so a poisoned lock is still good.
        let mut unknown: Vec<&str> = {
            let cache = self.cache.read().unwrap_or_else(|e| e.into_inner());
            words
                .iter()
                .map(|(_, range)| &text[range.clone()])
                .filter(|word| !cache.contains_key(*word))
                .collect()
        };
        // A new word written twice in the text is analysed once.
        unknown.sort_unstable();
        unknown.dedup();
        if !unknown.is_empty() {
            let learned: Vec<(String, Option<String>)> = unknown
                .into_iter()
                .map(|word| (word.to_owned(), self.term(word)))
                .collect();
            self.cache
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .extend(learned);
        }
        let cache = self.cache.read().unwrap_or_else(|e| e.into_inner());
        let mut terms = words.into_iter().filter_map(|(position, word)| {
            let term = cache.get(&text[word.clone()])?.as_deref()?;
            Some(TermAt {
                term,
                position,
                word,
            })
        });
        use_terms(&mut terms)
    }

    /// The term of one word; `None` for a stop word or an overlong word.
    fn term(&mut self, word: &str) -> Option<String> {
        let mut stream = self.word.token_stream(word);
        stream.advance().then(|| stream.token().text.clone())
    }
}

impl Tokenizer for Analyzer {
    type TokenStream<'a> = Terms;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Terms {
        Terms {
            tokens: self.index_tokens(text),
            next: 0,
            none: Token::default(),
        }
    }
}

/// One term of a text, as [`Analyzer::with_index_terms`] lends it.
pub struct TermAt<'a> {
    pub term: &'a str,
    /// Which word of the text it comes from, counting from 0.
    pub position: usize,
    /// The byte range of that word.
    pub word: Range<usize>,
}

fn token(term: String, position: usize, word: Range<usize>) -> Token {
    Token {
        offset_from: word.start,
        offset_to: word.end,
        position,
        text: term,
        position_length: 1,
    }
}

/// The terms of a text, for tantivy.
pub struct Terms {
    tokens: Vec<Token>,
    /// One past the current token.
    next: usize,
    /// What `token` returns before the first `advance`.
    none: Token,
}

impl TokenStream for Terms {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        self.next
            .checked_sub(1)
            .map_or(&self.none, |i| &self.tokens[i])
    }

    fn token_mut(&mut self) -> &mut Token {
        match self.next.checked_sub(1) {
            Some(i) => &mut self.tokens[i],
            None => &mut self.none,
        }
    }
}

/// The words of `text` (runs of letters and digits) with their positions
/// and byte ranges: the boundaries tantivy's `SimpleTokenizer` uses, so that
/// analysing word by word equals analysing the whole text.
fn words(text: &str) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = chars.find(|(_, c)| c.is_alphanumeric())?;
        let mut end = text.len();
        while let Some(&(offset, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                end = offset;
                break;
            }
            chars.next();
        }
        Some(start..end)
    })
    .enumerate()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        Analyzer::default()
            .tokens(text)
            .into_iter()
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn splits_names_and_stems() {
        assert_eq!(terms("pdf-tools_Deploying"), ["pdf", "tool", "deploy"]);
        assert_eq!(terms("Can you help me deploy my app?"), ["deploy", "app"]);
    }

    #[test]
    fn offsets_point_at_the_original_words() {
        let text = "Réview the PRs";
        let tokens = Analyzer::default().tokens(text);
        assert_eq!(tokens[0].text, "review");
        assert_eq!(&text[tokens[0].offset_from..tokens[0].offset_to], "Réview");
        assert_eq!(&text[tokens[1].offset_from..tokens[1].offset_to], "PRs");
    }

    #[test]
    fn any_script_and_control_characters_are_accepted() {
        assert_eq!(terms("日本語 \u{0}\u{7} κόσμος"), ["日本語", "κόσμος"]);
        assert!(terms(&"x".repeat(100)).is_empty());
    }

    #[test]
    fn requests_never_fill_the_cache_and_documents_do() {
        let mut analyzer = Analyzer::default();
        let cached = |analyzer: &Analyzer| analyzer.cache.read().unwrap().len();
        assert_eq!(analyzer.tokens("deploying servers quickly").len(), 3);
        assert_eq!(cached(&analyzer), 0);
        assert_eq!(analyzer.index_tokens("deploying servers quickly").len(), 3);
        assert_eq!(cached(&analyzer), 3);
        analyzer.with_index_terms("the newest words", |terms| terms.count());
        assert_eq!(cached(&analyzer), 6);
    }

    #[test]
    fn word_by_word_and_cached_analysis_equal_the_whole_pipeline() {
        let text = "Deploying the app-server: can't\u{7}stop, Réviews ÜBER-fast 日本語 x2 ok";
        let mut whole = Analyzer::default().word.clone();
        let mut stream = whole.token_stream(text);
        let mut expected = Vec::new();
        while stream.advance() {
            let t = stream.token();
            expected.push((t.text.clone(), t.offset_from, t.offset_to));
        }
        let mut analyzer = Analyzer::default();
        for _ in 0..2 {
            let got: Vec<_> = analyzer
                .index_tokens(text)
                .into_iter()
                .map(|t| (t.text, t.offset_from, t.offset_to))
                .collect();
            assert_eq!(got, expected);
        }
        let mut stream = analyzer.clone().token_stream(text);
        let mut streamed = 0;
        while stream.advance() {
            streamed += 1;
        }
        assert_eq!(streamed, expected.len());
        assert_eq!(analyzer.tokens(text).len(), expected.len());
        // Borrowed from the cache, new words and known ones alike.
        for analyzer in [Analyzer::default(), analyzer] {
            let mut analyzer = analyzer;
            let borrowed: Vec<_> = analyzer.with_index_terms(text, |terms| {
                terms
                    .map(|t| (t.term.to_owned(), t.word.start, t.word.end))
                    .collect()
            });
            assert_eq!(borrowed, expected);
        }
    }
}
