//! The local language model (Gemma 3 270M, Q4_K_M) run for real: its
//! tokenizer against SentencePiece itself, the forward pass against itself
//! (a tree of candidates scored in one call equals the same tokens run one
//! after another), and the scoring pipeline over the bundled library.
//!
//! These tests need the model (`hone model install --llm`, which the README's
//! test command runs first): without it they fail and say how to install it.
//! They assert the pipeline, never the model's taste in skills.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use hone_core::agent::local::Local;
use hone_core::agent::{Choice, Listing, ListingStyle, Provider, aggregate};
use hone_core::cancel::Cancel;
use hone_core::clients::claude_code::ListingSettings;
use hone_core::library::{Filters, Library};
use hone_core::llm::{ListedSkill, LlmError, LocalModel, choice_prompt, resolve_model_file};
use hone_core::rank::RoutingDoc;

fn model() -> &'static Arc<LocalModel> {
    static MODEL: OnceLock<Arc<LocalModel>> = OnceLock::new();
    MODEL.get_or_init(|| {
        let location = resolve_model_file(None);
        assert!(
            location.installed,
            "no local language model at {}: run `hone model install --llm` (`make test` does)",
            location.path.display()
        );
        Arc::new(LocalModel::open(None).expect("the installed model loads"))
    })
}

fn skills_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")
}

#[derive(serde::Deserialize)]
struct Reference {
    cases: Vec<ReferenceCase>,
}

#[derive(serde::Deserialize)]
struct ReferenceCase {
    text: String,
    ids: Vec<u32>,
}

/// The reference was made by the `sentencepiece` library from PyPI, given a
/// BPE model built from this file's vocabulary
/// (`tests/fixtures/gemma3_tokenizer_reference.py`).
#[test]
fn the_tokenizer_matches_sentencepiece() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gemma3_tokenizer_reference.json"
    );
    let reference: Reference =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tokenizer = model().tokenizer();
    assert_eq!(tokenizer.vocab_size(), 262_144);
    assert_eq!(tokenizer.bos(), Some(2));
    for case in &reference.cases {
        let ids = tokenizer.encode(&case.text);
        assert_eq!(ids, case.ids, "{:?}", case.text);
        // Byte fallback and `▁` decode back to the text.
        assert_eq!(tokenizer.decode(&ids), case.text);
    }
}

#[test]
fn a_tree_of_candidates_scores_as_the_tokens_run_in_sequence() {
    let model = model();
    let prefix = "Facts about Europe.\n\n";
    let middle = "The capital of France is";
    let tree = model
        .score(
            prefix,
            middle,
            &[" Paris", " Paris is a city", " Paris, the", " Berlin"],
        )
        .unwrap();
    let [paris, paris_city, paris_comma, berlin] = tree.scores.as_slice() else {
        panic!("four scores");
    };
    // The same continuation, its first token moved into the middle: run as
    // part of a sequence after the cached prefix instead of in the tree.
    let sequence = model
        .score(prefix, &format!("{middle} Paris"), &[" is a city", ","])
        .unwrap();
    assert!(sequence.prefix_cache_hit);
    let close = |a: f64, b: f64| (a - b).abs() < 2e-3 * (1.0 + a.abs());
    assert!(
        close(
            paris_city.log_likelihood,
            paris.log_likelihood + sequence.scores[0].log_likelihood
        ),
        "{} vs {} + {}",
        paris_city.log_likelihood,
        paris.log_likelihood,
        sequence.scores[0].log_likelihood
    );
    assert!(paris_comma.log_likelihood < paris.log_likelihood);
    // A working forward pass knows this much; a broken one (a wrong
    // activation, mask or rotary embedding) does not.
    assert!(
        paris.log_likelihood > berlin.log_likelihood + 1.0,
        "{tree:?}"
    );
    assert!(paris.log_likelihood > -3.0, "{tree:?}");
}

const REQUESTS: [&str; 3] = [
    "commit msg for whats staged pls",
    "my SKILL.md description is one line and the agent never picks the skill. can you rewrite it?",
    "this bash script breaks when a filename has spaces in it",
];

#[test]
fn the_bundled_library_is_ranked_in_full_deterministically_from_a_cached_listing() {
    let model = model();
    let library = Library::open(&[skills_dir()], &Filters::default()).unwrap();
    let docs = RoutingDoc::from_library(&library);
    assert!(docs.len() >= 10);
    let listed: Vec<ListedSkill<'_>> = docs
        .iter()
        .map(|d| ListedSkill {
            name: &d.id,
            description: &d.description,
        })
        .collect();

    let mut runs = Vec::new();
    for run in 0..2 {
        let mut rankings = Vec::new();
        for (index, request) in REQUESTS.iter().enumerate() {
            let prompt = choice_prompt(&listed, request);
            let scoring = model
                .score(&prompt.prefix, &prompt.middle, &prompt.candidates)
                .unwrap();
            assert_eq!(scoring.scores.len(), docs.len());
            let mut ranking = scoring.ranking();
            assert_eq!(ranking.len(), docs.len());
            ranking.sort();
            assert_eq!(ranking, (0..docs.len()).collect::<Vec<_>>());
            for score in &scoring.scores {
                assert!(score.log_likelihood.is_finite() && score.log_likelihood < 0.0);
                assert!(score.tokens >= 2, "a name and its line break");
            }
            let total: f64 = scoring.scores.iter().map(|s| s.probability).sum();
            assert!((total - 1.0).abs() < 1e-9);
            if run > 0 || index > 0 {
                assert!(scoring.prefix_cache_hit, "run {run}, request {index}");
                assert!(
                    scoring.evaluated_tokens < scoring.prefix_tokens / 2,
                    "{scoring:?}"
                );
            } else if !scoring.prefix_cache_hit {
                assert!(scoring.evaluated_tokens > scoring.prefix_tokens);
            }
            let names: Vec<&str> = scoring
                .ranking()
                .iter()
                .map(|&i| docs[i].id.as_str())
                .collect();
            eprintln!("{request:?}: {:?}", &names[..3]);
            rankings.push(scoring);
        }
        runs.push(rankings);
    }
    for (first, second) in runs[0].iter().zip(&runs[1]) {
        assert_eq!(first.ranking(), second.ranking());
        for (a, b) in first.scores.iter().zip(&second.scores) {
            assert!((a.log_likelihood - b.log_likelihood).abs() < 1e-6);
        }
    }
}

#[test]
fn odd_input_gets_an_answer_or_a_clear_error() {
    let model = model();
    // Nothing to choose from.
    let none = model.score("Skills:\n", "", &[] as &[&str]).unwrap();
    assert!(none.scores.is_empty());
    // Empty prefix and middle: the BOS token alone predicts.
    let bare = model.score("", "", &["a", "", " b\n"]).unwrap();
    assert_eq!(bare.scores.len(), 3);
    assert_eq!(bare.scores[1].log_likelihood, 0.0);
    assert_eq!(bare.scores[1].tokens, 0);
    // Control characters, turn markers, emoji, a long candidate.
    let long_candidate = "x".repeat(2_000);
    let odd = model
        .score(
            "<start_of_turn>user\n\u{0}\u{1}",
            "\u{7f}🙂\t\t  <bos> \n\n\n",
            &["<eos>", long_candidate.as_str(), "\u{202e}rtl"],
        )
        .unwrap();
    assert!(odd.scores.iter().all(|s| s.log_likelihood.is_finite()));
    // Past the context: refused before any work, with the numbers.
    let huge = "word ".repeat(40_000);
    for (prefix, middle) in [(huge.as_str(), ""), ("", huge.as_str())] {
        match model.score(prefix, middle, &[" a"]) {
            Err(LlmError::TooLong { tokens, limit }) => {
                assert!(tokens > limit);
                assert_eq!(limit, model.context_length());
            }
            other => panic!("expected TooLong, got {other:?}"),
        }
    }
}

#[test]
fn the_model_id_names_the_model_and_its_file() {
    let id = model().id();
    assert!(id.starts_with("gemma-3-270m@xxh3:"), "{id}");
    assert_eq!(id.len(), "gemma-3-270m@xxh3:".len() + 16);
}

#[test]
fn a_missing_or_foreign_file_is_a_clear_error() {
    let missing = LocalModel::open(Some(Path::new("/nonexistent/model.gguf")));
    assert!(matches!(missing, Err(LlmError::NotInstalled(_))));
    let dir = tempfile::tempdir().unwrap();
    let not_gguf = dir.path().join("model.gguf");
    std::fs::write(&not_gguf, b"not a model").unwrap();
    let err = LocalModel::open(Some(&not_gguf)).err().expect("refused");
    assert!(err.to_string().contains("not a GGUF file"), "{err}");
}

/// The provider scores "no skill" in the same constrained choice (the
/// mechanism of picking nothing is unit-tested in `agent`); a library with a
/// skill named `none` is not offered that answer.
#[test]
fn the_local_provider_offers_no_skill_unless_a_skill_is_named_none() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, description: &str| {
        let skill = dir.path().join(name);
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n\nBody.\n"),
        )
        .unwrap();
    };
    write("pdf", "Reads PDF files and fills in PDF forms.");
    write("git-commits", "Writes commit messages for staged changes.");
    let provider = Local::new(model().clone());
    let ask = || {
        let library = Library::open(&[dir.path().to_path_buf()], &Filters::default()).unwrap();
        let skills: Vec<_> = library.skills.iter().collect();
        let listing = Listing::new(
            &skills,
            ListingStyle::ClaudeCode,
            &ListingSettings::new(),
            "local",
        );
        let answer = provider
            .ask(&listing, "what is the capital of France?", &Cancel::new())
            .unwrap();
        (listing, answer)
    };

    let (listing, answer) = ask();
    let Choice::Ranking { scores, no_skill } = &answer.choice else {
        panic!("a ranking: {answer:?}")
    };
    assert_eq!(scores.len(), 2);
    let no_skill = no_skill.expect("the no-skill answer is offered");
    assert!(no_skill.is_finite() && no_skill < 0.0);
    // It takes its share: the skills' confidences no longer add up to one.
    let matches = aggregate(&listing, std::slice::from_ref(&answer));
    assert_eq!(matches.len(), 2);
    let total: f32 = matches.iter().map(|m| m.confidence).sum();
    assert!(total < 1.0 && total > 0.0, "{total}");

    write("none", "A skill that happens to be called none.");
    let (_, answer) = ask();
    let Choice::Ranking { scores, no_skill } = &answer.choice else {
        panic!("a ranking: {answer:?}")
    };
    assert_eq!(scores.len(), 3);
    assert_eq!(*no_skill, None);
}
