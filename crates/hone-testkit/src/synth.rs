//! Synthetic skill libraries and routing suites, for benchmarks at sizes no
//! real library reaches yet.
//!
//! Skills are built from a small hand-written vocabulary of software domains:
//! each skill belongs to a domain, is named from its verbs and nouns in
//! kebab case, and has a description of the usual shape (what it does, "Use
//! when ...", sometimes "Not for ..."), a `when_to_use` for some and triggers
//! for others. Words are shared across domains the way real libraries share
//! "test", "review" or "data", so postings lists have realistic lengths.
//! Requests name one skill's task in other words mixed with conversational
//! filler, and a tenth of them are off-topic. Everything is deterministic in
//! the seed.

use std::collections::HashSet;

use hone_core::eval::suite::{Case, Suite};
use hone_core::rank::RoutingDoc;

/// A domain: its nouns (the distinctive words) and the verbs of its tasks.
struct Domain {
    nouns: &'static [&'static str],
    verbs: &'static [&'static str],
}

const DOMAINS: &[Domain] = &[
    Domain {
        nouns: &[
            "commit", "branch", "rebase", "merge", "history", "tag", "stash", "remote",
        ],
        verbs: &["write", "squash", "split", "tidy", "recover"],
    },
    Domain {
        nouns: &[
            "container",
            "image",
            "dockerfile",
            "layer",
            "registry",
            "volume",
            "compose",
        ],
        verbs: &["build", "harden", "slim", "scan", "publish"],
    },
    Domain {
        nouns: &[
            "cluster",
            "pod",
            "deployment",
            "helm",
            "ingress",
            "namespace",
            "manifest",
        ],
        verbs: &["deploy", "scale", "rollout", "debug", "configure"],
    },
    Domain {
        nouns: &[
            "query",
            "index",
            "schema",
            "migration",
            "table",
            "join",
            "transaction",
        ],
        verbs: &["optimize", "review", "migrate", "design", "tune"],
    },
    Domain {
        nouns: &[
            "test",
            "fixture",
            "mock",
            "assertion",
            "coverage",
            "suite",
            "flake",
        ],
        verbs: &["write", "fix", "isolate", "measure", "refactor"],
    },
    Domain {
        nouns: &[
            "endpoint",
            "route",
            "payload",
            "status",
            "error",
            "pagination",
            "webhook",
        ],
        verbs: &["design", "document", "validate", "version", "secure"],
    },
    Domain {
        nouns: &[
            "component",
            "state",
            "hook",
            "render",
            "prop",
            "layout",
            "style",
        ],
        verbs: &["build", "refactor", "optimize", "test", "theme"],
    },
    Domain {
        nouns: &[
            "pipeline", "workflow", "job", "artifact", "cache", "runner", "matrix",
        ],
        verbs: &["configure", "speed", "debug", "secure", "automate"],
    },
    Domain {
        nouns: &[
            "secret",
            "token",
            "credential",
            "vault",
            "rotation",
            "policy",
            "key",
        ],
        verbs: &["store", "rotate", "audit", "revoke", "encrypt"],
    },
    Domain {
        nouns: &[
            "log",
            "metric",
            "trace",
            "alert",
            "dashboard",
            "span",
            "incident",
        ],
        verbs: &["instrument", "query", "alert", "correlate", "triage"],
    },
    Domain {
        nouns: &[
            "invoice",
            "payment",
            "subscription",
            "refund",
            "checkout",
            "tax",
            "ledger",
        ],
        verbs: &["reconcile", "process", "retry", "audit", "model"],
    },
    Domain {
        nouns: &[
            "prompt",
            "model",
            "embedding",
            "agent",
            "context",
            "completion",
            "eval",
        ],
        verbs: &["evaluate", "tune", "ground", "route", "compress"],
    },
    Domain {
        nouns: &[
            "spreadsheet",
            "csv",
            "column",
            "encoding",
            "delimiter",
            "row",
            "header",
        ],
        verbs: &["clean", "convert", "validate", "merge", "dedupe"],
    },
    Domain {
        nouns: &[
            "pdf",
            "form",
            "page",
            "font",
            "signature",
            "annotation",
            "scan",
        ],
        verbs: &["extract", "fill", "merge", "sign", "convert"],
    },
    Domain {
        nouns: &[
            "shell", "script", "variable", "quote", "pipe", "exit", "cron",
        ],
        verbs: &["harden", "lint", "port", "schedule", "debug"],
    },
    Domain {
        nouns: &[
            "regex",
            "pattern",
            "capture",
            "match",
            "lookahead",
            "group",
            "escape",
        ],
        verbs: &["write", "explain", "test", "simplify", "port"],
    },
    Domain {
        nouns: &[
            "release",
            "changelog",
            "version",
            "semver",
            "note",
            "tag",
            "breaking",
        ],
        verbs: &["draft", "bump", "publish", "announce", "plan"],
    },
    Domain {
        nouns: &[
            "accessibility",
            "contrast",
            "keyboard",
            "screen",
            "label",
            "focus",
            "aria",
        ],
        verbs: &["audit", "fix", "test", "review", "improve"],
    },
    Domain {
        nouns: &[
            "cache",
            "latency",
            "profile",
            "memory",
            "allocation",
            "throughput",
            "benchmark",
        ],
        verbs: &["profile", "reduce", "measure", "optimize", "compare"],
    },
    Domain {
        nouns: &[
            "email",
            "campaign",
            "newsletter",
            "audience",
            "subject",
            "open",
            "sequence",
        ],
        verbs: &["write", "segment", "schedule", "test", "analyze"],
    },
    Domain {
        nouns: &[
            "translation",
            "locale",
            "plural",
            "string",
            "catalog",
            "language",
            "format",
        ],
        verbs: &["extract", "translate", "review", "sync", "format"],
    },
    Domain {
        nouns: &[
            "diagram",
            "architecture",
            "decision",
            "record",
            "boundary",
            "service",
            "dependency",
        ],
        verbs: &["document", "draw", "review", "split", "map"],
    },
    Domain {
        nouns: &[
            "vulnerability",
            "dependency",
            "license",
            "advisory",
            "package",
            "lockfile",
            "sbom",
        ],
        verbs: &["scan", "audit", "upgrade", "pin", "report"],
    },
    Domain {
        nouns: &[
            "notebook", "dataset", "chart", "plot", "feature", "sample", "outlier",
        ],
        verbs: &["explore", "plot", "clean", "summarize", "train"],
    },
];

const ADJECTIVES: &[&str] = &[
    "safe",
    "fast",
    "clear",
    "small",
    "reliable",
    "readable",
    "consistent",
    "secure",
    "typed",
    "incremental",
    "reproducible",
    "structured",
    "minimal",
    "robust",
    "portable",
    "accessible",
];

const FILLER: &[&str] = &[
    "can you help me",
    "please",
    "I need to",
    "how do I",
    "quick question:",
    "we want to",
    "what is the best way to",
    "could you",
    "my team needs to",
    "is there a way to",
];

const OFF_TOPIC: &[&str] = &[
    "recipe", "holiday", "poem", "weather", "football", "garden", "piano", "novel", "flight",
    "hotel", "birthday", "yoga", "painting", "wine", "marathon", "aquarium", "knitting", "chess",
];

/// A small deterministic generator (SplitMix64): benchmarks must see the same
/// library on every run and every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// `n` routing documents with distinct names, keyed `synthetic/<name>`.
pub fn library(n: usize, seed: u64) -> Vec<RoutingDoc> {
    let mut rng = Rng(seed);
    let mut names = HashSet::new();
    let mut docs = Vec::with_capacity(n);
    while docs.len() < n {
        let domain = &DOMAINS[rng.below(DOMAINS.len())];
        let verb = rng.pick(domain.verbs);
        let noun = rng.pick(domain.nouns);
        let other = rng.pick(domain.nouns);
        let mut name = if other == noun {
            format!("{noun}-{verb}")
        } else {
            format!("{noun}-{other}-{verb}")
        };
        // Past a few thousand skills the combinations run out, as in real
        // libraries where collections repeat a theme with a qualifier.
        if !names.insert(name.clone()) {
            name = format!("{name}-{}", rng.pick(ADJECTIVES));
            if !names.insert(name.clone()) {
                name = format!("{name}-{}", docs.len());
                names.insert(name.clone());
            }
        }
        docs.push(skill(&mut rng, domain, name, verb, noun, other));
    }
    docs
}

fn skill(
    rng: &mut Rng,
    domain: &Domain,
    name: String,
    verb: &str,
    noun: &str,
    other: &str,
) -> RoutingDoc {
    let extra = rng.pick(domain.nouns);
    let neighbour = &DOMAINS[rng.below(DOMAINS.len())];
    let mut description = format!(
        "{}s {} {noun} and {other} work: {} {extra}s, {} {}s and {} checks for {}. Use when asked to {verb} a {noun}, when a {other} {} is {}, or when reviewing {extra} changes.",
        capitalize(verb),
        rng.pick(ADJECTIVES),
        rng.pick(domain.verbs),
        rng.pick(domain.verbs),
        rng.pick(domain.nouns),
        rng.pick(ADJECTIVES),
        rng.pick(domain.nouns),
        rng.pick(domain.nouns),
        rng.pick(ADJECTIVES),
    );
    if rng.chance(40) {
        description.push_str(&format!(
            " Not for {} {}s.",
            rng.pick(neighbour.verbs),
            rng.pick(neighbour.nouns)
        ));
    }
    let when_to_use = rng.chance(30).then(|| {
        format!(
            "When a {noun} needs to be {}d or a {} {extra} fails",
            rng.pick(domain.verbs),
            rng.pick(ADJECTIVES)
        )
    });
    let triggers = if rng.chance(25) {
        vec![
            format!("{verb} my {noun}"),
            format!("{} the {other}", rng.pick(domain.verbs)),
        ]
    } else {
        Vec::new()
    };
    RoutingDoc {
        key: format!("synthetic/{name}"),
        id: name.clone(),
        name,
        description,
        when_to_use,
        triggers,
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A suite of `cases` requests over `docs`: nine in ten ask for one skill's
/// task (tagged `direct`), one in ten is off-topic (`negative`).
pub fn suite(docs: &[RoutingDoc], cases: usize, seed: u64) -> Suite {
    let mut rng = Rng(seed);
    let cases = (0..cases)
        .map(|i| {
            let line = i as u32 + 1;
            if docs.is_empty() || rng.chance(10) {
                let query = format!(
                    "{} plan a {} and a {}",
                    rng.pick(FILLER),
                    rng.pick(OFF_TOPIC),
                    rng.pick(OFF_TOPIC)
                );
                return Case {
                    query,
                    expect: Some(Vec::new()),
                    reject: Vec::new(),
                    kinds: vec!["negative".into()],
                    line,
                };
            }
            let doc = &docs[rng.below(docs.len())];
            let words: Vec<&str> = doc.name.split('-').collect();
            let query = format!(
                "{} {} the {} for our {} {}",
                rng.pick(FILLER),
                words.last().copied().unwrap_or_default(),
                words.first().copied().unwrap_or_default(),
                rng.pick(ADJECTIVES),
                words.get(1).copied().unwrap_or("project"),
            );
            Case {
                query,
                expect: Some(vec![doc.id.clone()]),
                reject: Vec::new(),
                kinds: vec!["direct".into()],
                line,
            }
        })
        .collect();
    Suite {
        name: "synthetic".into(),
        cases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_are_deterministic_with_unique_names() {
        let a = library(3000, 7);
        assert_eq!(a, library(3000, 7));
        assert_ne!(a, library(3000, 8));
        let names: HashSet<_> = a.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(names.len(), 3000);
        assert!(
            a.iter().any(|d| d.when_to_use.is_some()) && a.iter().any(|d| !d.triggers.is_empty())
        );
        assert!(
            a.iter()
                .all(|d| d.description.split_whitespace().count() >= 25)
        );
    }

    #[test]
    fn suites_name_skills_of_the_library() {
        let docs = library(200, 1);
        let suite = suite(&docs, 500, 2);
        assert_eq!(suite.cases.len(), 500);
        let negatives = suite.cases.iter().filter(|c| c.is_negative()).count();
        assert!((20..=80).contains(&negatives), "{negatives}");
        for case in suite.cases.iter().filter(|c| c.is_positive()) {
            let expect = &case.expect.as_ref().unwrap()[0];
            assert!(docs.iter().any(|d| &d.id == expect));
        }
    }
}
