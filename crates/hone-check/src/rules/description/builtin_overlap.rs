//! HS208 `builtin-overlap`: its documentation, check and tests.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use crate::clients::bundled::{Builtin, bundled};
use crate::clients::{Client, modelled_version};
use crate::rank::analysis::Analyzer;
use crate::rank::collision::MIN_SHARED_TERMS;
use crate::rules::{Checker, Rule, Target};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Claude Code lists its own skills beside the author's: `code-review`,
    /// `security-review`, `simplify`, `dataviz`, `claude-api` and the others
    /// of the version Hone models; GitHub Copilot CLI lists its own too
    /// (`customize-cloud-agent`, `github-pr-media`). Each target is checked
    /// against its client's built-ins (`all`: both). The model picks from the
    /// whole listing, so
    /// an author's skill whose description says what a built-in says
    /// competes with it, and the built-in, always listed in full, often wins.
    ///
    /// ```yaml
    /// name: review-my-diff
    /// description: Reviews the current diff or a pull request for
    ///   correctness bugs. Use when asked to review a PR or a branch.
    ///   # HS208: Claude Code's built-in `code-review` says the same
    /// ```
    ///
    /// Closeness is how much of the skill's routing text the built-in's
    /// holds too: the share of the skill's terms (stemmed, stop words
    /// dropped, each weighted by how few built-ins use it) that the
    /// built-in's name and description share, from 0.6 with at least three
    /// shared terms. It is one-sided, unlike `HS502`'s cosine, because a
    /// built-in's description is often long (`code-review` holds about sixty
    /// terms): a short skill it covers still competes with it. A skill with
    /// the same name as a built-in is reported whatever its text: the client
    /// then lists the author's skill and drops its own. Fix it by saying what only your skill does (your team's
    /// checklist, your tools), or by leaving the task to the built-in.
}

/// A built-in's analysed routing text: its distinct terms, weighted, and
/// where the first word of each is.
struct Analysed<'a> {
    client: Client,
    builtin: &'a Builtin,
    terms: HashMap<String, Range<usize>>,
}

struct Builtins {
    analysed: Vec<Analysed<'static>>,
    /// Per term, how many built-ins use it.
    document_frequency: HashMap<String, usize>,
}

impl Builtins {
    fn idf(&self, term: &str) -> f32 {
        let n = self.analysed.len() as f32;
        let df = self.document_frequency.get(term).copied().unwrap_or(0) as f32;
        (1.0 + (n + 1.0) / (df + 1.0)).ln()
    }
}

fn terms(analyzer: &mut Analyzer, text: &str) -> HashMap<String, Range<usize>> {
    analyzer.with_index_terms(text, |found| {
        let mut terms = HashMap::new();
        for t in found {
            terms.entry(t.term.to_owned()).or_insert(t.word);
        }
        terms
    })
}

/// The clients whose built-ins a check target competes with.
fn clients_of(target: Target) -> &'static [Client] {
    match target {
        Target::ClaudeCode => &[Client::ClaudeCode],
        Target::Copilot => &[Client::Copilot],
        _ => &[Client::ClaudeCode, Client::Copilot],
    }
}

/// Every client's built-ins this rule knows, analysed once; each term's
/// weight is how few of them use it.
static BUILTINS: LazyLock<Builtins> = LazyLock::new(|| {
    let mut analyzer = Analyzer::default();
    let analysed: Vec<Analysed<'static>> = clients_of(Target::All)
        .iter()
        .flat_map(|&client| bundled(client).skills.iter().map(move |b| (client, b)))
        .map(|(client, builtin)| Analysed {
            client,
            builtin,
            terms: terms(
                &mut analyzer,
                &format!("{}: {}", builtin.name, builtin.description),
            ),
        })
        .collect();
    let mut document_frequency = HashMap::new();
    for a in &analysed {
        for term in a.terms.keys() {
            *document_frequency.entry(term.clone()).or_insert(0) += 1;
        }
    }
    Builtins {
        analysed,
        document_frequency,
    }
});

/// From this share of the skill's weighted terms held by a built-in, the
/// two overlap.
const COVERED: f32 = 0.6;

/// The built-in of `clients` covering most of `routing_text`, if it
/// overlaps: its client and name, the share covered and the shared words as
/// the skill writes them.
fn closest(
    clients: &[Client],
    name: &str,
    routing_text: &str,
) -> Option<(Client, &'static str, f32, Vec<String>)> {
    let builtins = &*BUILTINS;
    let mine_only = || {
        builtins
            .analysed
            .iter()
            .filter(|a| clients.contains(&a.client))
    };
    if let Some(same) = mine_only().find(|a| a.builtin.name == name) {
        return Some((same.client, &same.builtin.name, 1.0, Vec::new()));
    }
    let mut analyzer = Analyzer::default();
    let mine = terms(&mut analyzer, routing_text);
    let my_weight: f32 = mine.keys().map(|t| builtins.idf(t).powi(2)).sum();
    mine_only()
        .filter_map(|a| {
            let mut shared: Vec<(f32, &str)> = mine
                .iter()
                .filter(|(term, _)| a.terms.contains_key(*term))
                .map(|(term, word)| (builtins.idf(term), &routing_text[word.clone()]))
                .collect();
            let dot: f32 = shared.iter().map(|(w, _)| w * w).sum();
            let similarity = dot / my_weight.max(f32::MIN_POSITIVE);
            if similarity < COVERED || shared.len() < MIN_SHARED_TERMS {
                return None;
            }
            shared.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
            let words = shared.into_iter().map(|(_, w)| w.to_owned()).collect();
            Some((a.client, a.builtin.name.as_str(), similarity, words))
        })
        .max_by(|x, y| x.2.total_cmp(&y.2))
}

pub(super) fn check(checker: &mut Checker, value: &Node, text: &str, when_to_use: &str) {
    let name = checker
        .entry("name")
        .and_then(|(_, n)| n.as_str().map(str::to_owned))
        .unwrap_or_else(|| checker.skill.id.clone());
    let mut routing_text = format!("{name}: {}", text.trim());
    if !when_to_use.trim().is_empty() {
        routing_text.push_str("\nWhen to use: ");
        routing_text.push_str(when_to_use.trim());
    }
    let clients = clients_of(checker.target);
    let Some((client, builtin, similarity, shared)) = closest(clients, &name, &routing_text) else {
        return;
    };
    let shown = client.display_name();
    let version = modelled_version(client).unwrap_or_default();
    let message = if shared.is_empty() {
        format!(
            "{shown} {version} has a built-in skill named `{builtin}`: this skill takes its place in the listing, and the built-in is no longer offered"
        )
    } else {
        let shared: Vec<&str> = shared.iter().take(6).map(String::as_str).collect();
        format!(
            "`{name}` describes the requests of {shown}'s built-in `{builtin}` ({version}), which is listed beside it (shared: {}; {:.0}% of its terms)",
            shared.join(", "),
            similarity * 100.0
        )
    };
    checker
        .report(Rule::BuiltinOverlap, value.span.clone(), message)
        .help(format!(
            "say what only this skill does that `{builtin}` does not, or leave the task to the built-in"
        ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_skill_meets_code_review() {
        let found = closest(
            &[Client::ClaudeCode],
            "review-my-diff",
            "review-my-diff: Review the current diff or a PR for correctness bugs. Use when asked to review a pull request, branch or diff.",
        )
        .expect("overlaps code-review");
        assert_eq!(found.1, "code-review");
        assert!(
            found.3.iter().any(|w| w.eq_ignore_ascii_case("diff")),
            "{found:?}"
        );
    }

    #[test]
    fn unrelated_skills_and_names_do_not() {
        assert!(
            closest(
                &[Client::ClaudeCode, Client::Copilot],
                "csv-cleaner",
                "csv-cleaner: Cleans CSV files: fixes delimiters, encodings and headers. Use when a CSV will not load."
            )
            .is_none()
        );
        assert_eq!(
            closest(&[Client::ClaudeCode], "simplify", "simplify: anything")
                .unwrap()
                .1,
            "simplify"
        );
    }

    /// Copilot CLI's built-ins count for the `copilot` target, not for
    /// `claude-code`.
    #[test]
    fn each_target_meets_its_own_clients_built_ins() {
        let text = "pr-media: Upload a screenshot or a video to GitHub and embed it in a pull request description or a comment. Use when asked to add screenshots or recordings to a PR.";
        let found =
            closest(&[Client::Copilot], "pr-media", text).expect("overlaps github-pr-media");
        assert_eq!((found.0, found.1), (Client::Copilot, "github-pr-media"));
        assert!(closest(&[Client::ClaudeCode], "pr-media", text).is_none());
    }
}
