//! Token counts against counts recorded from independent implementations:
//! `fixtures/token-counts.json` (js-tiktoken, cross-checked with OpenAI's
//! tiktoken core; see `token-counts.mjs`) and `fixtures/tiny-tokenizer-counts.json`
//! (the Python `tokenizers` package; see `tiny-tokenizer.py`).

mod common;

use std::path::{Path, PathBuf};

use hone_core::document::SkillDocument;
use hone_core::skill::Skill;
use hone_core::tokens::{self, CLAUDE_FACTOR, Tokenizer, TokenizerError};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read_json(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name)).expect("fixture");
    serde_json::from_str(&text).expect("fixture is JSON")
}

/// (name, text, o200k, cl100k) for every reference case.
fn reference_cases() -> Vec<(String, String, usize, usize)> {
    let json = read_json("token-counts.json");
    let cases = json["cases"].as_array().expect("cases");
    cases
        .iter()
        .map(|case| {
            let count = |key: &str| case[key].as_u64().expect("count") as usize;
            let text = case["text"].as_str().expect("text").to_owned();
            (
                case["name"].as_str().expect("name").to_owned(),
                text,
                count("o200k"),
                count("cl100k"),
            )
        })
        .collect()
}

#[test]
fn o200k_and_cl100k_match_the_reference_counts() {
    let cases = reference_cases();
    assert!(cases.len() >= 20);
    let (o200k, cl100k) = (Tokenizer::o200k(), Tokenizer::cl100k());
    for (name, text, want_o200k, want_cl100k) in &cases {
        assert_eq!(o200k.count(text), *want_o200k, "o200k, case {name:?}");
        assert_eq!(cl100k.count(text), *want_cl100k, "cl100k, case {name:?}");
    }
}

#[test]
fn special_token_text_is_ordinary_text() {
    let cases = reference_cases();
    let (_, text, want, _) = cases
        .iter()
        .find(|c| c.0 == "special token text")
        .expect("case");
    assert!(text.contains("<|endoftext|>"));
    // As one special token each, the text would be far shorter.
    assert!(*want > 8);
    assert_eq!(Tokenizer::o200k().count(text), *want);
}

#[test]
fn count_up_to_agrees_with_count() {
    let o200k = Tokenizer::o200k();
    for (name, text, want, _) in reference_cases() {
        assert_eq!(o200k.count_up_to(&text, want), Some(want), "case {name:?}");
        assert!(!o200k.exceeds(&text, want), "case {name:?}");
        if want > 0 {
            assert_eq!(o200k.count_up_to(&text, want - 1), None, "case {name:?}");
            assert!(o200k.exceeds(&text, want - 1), "case {name:?}");
        }
    }
}

#[test]
fn claude_is_a_labelled_estimate_scaled_from_o200k() {
    let claude = Tokenizer::by_name("claude").unwrap();
    assert!(!claude.is_exact());
    assert!(claude.label().contains("estimate"));
    assert!(claude.info().method.contains("estimate"));
    let text = "Drafts release notes from merged pull requests.";
    let o200k = Tokenizer::o200k().count(text);
    assert_eq!(
        claude.count(text),
        (o200k as f64 * CLAUDE_FACTOR).ceil() as usize
    );
    assert_eq!(claude.count(""), 0);
    assert_eq!(claude.count_up_to(text, 1), None);
}

#[test]
fn builtin_names_and_errors() {
    for name in tokens::BUILTIN_NAMES {
        let tokenizer = Tokenizer::by_name(name).unwrap();
        assert_eq!(tokenizer.name(), *name);
    }
    assert!(Tokenizer::by_name("O200K_BASE").unwrap().is_exact());
    assert!(matches!(
        Tokenizer::by_name("gpt2"),
        Err(TokenizerError::UnknownName(_))
    ));
    assert!(matches!(
        Tokenizer::from_spec("no/such/tokenizer.json"),
        Err(TokenizerError::UnknownName(_))
    ));
}

#[test]
fn hugging_face_tokenizer_matches_python_tokenizers() {
    let tokenizer = Tokenizer::from_file(&fixture("tiny-tokenizer.json")).unwrap();
    assert!(tokenizer.is_exact());
    assert!(tokenizer.name().starts_with("hf:"));
    let cases = read_json("tiny-tokenizer-counts.json");
    for case in cases.as_array().expect("cases") {
        let text = case["text"].as_str().expect("text");
        let want = case["tokens"].as_u64().expect("tokens") as usize;
        // The file truncates at 8 tokens and adds <s> … </s>; counts must not.
        assert_eq!(tokenizer.count(text), want, "text {text:?}");
    }
    let by_spec = Tokenizer::from_spec(fixture("tiny-tokenizer.json").to_str().unwrap()).unwrap();
    assert_eq!(by_spec.count("skill"), tokenizer.count("skill"));
}

#[test]
fn bad_tokenizer_files_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.json");
    assert!(matches!(
        Tokenizer::from_file(&missing),
        Err(TokenizerError::BadFile { .. })
    ));
    let garbage = tmp.path().join("garbage.json");
    std::fs::write(&garbage, "{\"model\": 3}").unwrap();
    let err = Tokenizer::from_file(&garbage).unwrap_err();
    assert!(err.to_string().contains("garbage.json"), "{err}");
}

#[test]
fn stage_costs_of_a_skill_with_resources() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-notes");
    std::fs::create_dir_all(dir.join("references")).unwrap();
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    let text = "---\nname: release-notes\ndescription: Drafts release notes.\nwhen_to_use: When a tag is cut.\n---\n# Release notes\n\nSee [style](references/style.md).\n";
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    std::fs::write(
        dir.join("references/style.md"),
        "Write in the imperative.\n",
    )
    .unwrap();
    std::fs::write(dir.join("references/check.py"), "print('ok')\n").unwrap();
    std::fs::write(
        dir.join("assets/logo.png"),
        [0x89, b'P', b'N', b'G', 0, 0, 1, 2],
    )
    .unwrap();
    let skill = Skill::load(&dir).unwrap();
    let o200k = Tokenizer::o200k();
    let costs = hone_core::catalog::skill_costs(&skill, &o200k);

    assert_eq!(costs.id, "release-notes");
    let entry = &costs.metadata.agentskills;
    assert!(
        entry
            .text
            .starts_with("<skill>\n<name>\nrelease-notes\n</name>"),
        "{}",
        entry.text
    );
    assert_eq!(entry.tokens, o200k.count(&entry.text));
    let line = costs.metadata.claude_code.as_ref().unwrap();
    assert_eq!(
        line.text,
        "- release-notes: Drafts release notes. - When a tag is cut."
    );
    assert_eq!(line.tokens, o200k.count(&line.text));
    assert!(!line.truncated);

    assert_eq!(costs.instructions.tokens, o200k.count(skill.body()));
    assert_eq!(costs.instructions.bytes, skill.body().len());

    let paths: Vec<_> = costs
        .resources
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths, ["references/check.py", "references/style.md"]);
    let sum = o200k.count("Write in the imperative.\n") + o200k.count("print('ok')\n");
    assert_eq!(costs.resources.tokens, sum);
    assert_eq!(costs.resources.binary.len(), 1);
    assert_eq!(costs.resources.binary[0].path, "assets/logo.png");
    assert_eq!(costs.resources.binary[0].bytes, 8);

    let json = serde_json::to_value(&costs).unwrap();
    for key in ["id", "path", "metadata", "instructions", "resources"] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    assert_eq!(json["metadata"]["claude_code"]["truncated"], false);
    assert_eq!(json["resources"]["binary"][0]["bytes"], 8);
}

#[test]
fn raw_files_count_as_plain_text() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, b"plain \xff text").unwrap();
    let o200k = Tokenizer::o200k();
    let counts = tokens::count_files(&[file.clone(), tmp.path().join("missing")], &o200k);
    let first = counts[0].as_ref().unwrap();
    assert_eq!(first.tokens, o200k.count("plain \u{fffd} text"));
    assert_eq!(first.bytes, 12);
    assert!(counts[1].is_err());
}

#[test]
fn an_unsaved_buffer_is_measured_as_held() {
    let skill = Skill::from_document(
        Path::new("/lib/demo"),
        SkillDocument::parse("---\nname: demo\ndescription: x\n---\nhello world\n".into()),
    );
    let costs = hone_core::catalog::skill_costs(&skill, &Tokenizer::cl100k());
    assert_eq!(
        costs.instructions.tokens,
        Tokenizer::cl100k().count("hello world\n")
    );
    assert!(costs.resources.files.is_empty());
}

/// With the corpus present, the totals over every `SKILL.md` match the ones
/// OpenAI's tiktoken core (npm `tiktoken` 1.0.22) gave for the same files.
#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn corpus_totals_match_tiktoken() {
    let dir = common::corpus();
    let json = read_json("token-counts.json");
    let reference = &json["corpus"];
    let mut texts = Vec::new();
    for entry in walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        if entry.file_type().is_file() && entry.file_name() == "SKILL.md" {
            let bytes = std::fs::read(entry.path()).unwrap();
            texts.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    assert!(
        texts.len() as u64 == reference["files"].as_u64().unwrap()
            && bytes as u64 == reference["bytes"].as_u64().unwrap(),
        "the corpus changed since the reference was recorded: record it again \
         (tests/fixtures/token-counts.mjs)"
    );
    let o200k: usize = texts.iter().map(|t| Tokenizer::o200k().count(t)).sum();
    let cl100k: usize = texts.iter().map(|t| Tokenizer::cl100k().count(t)).sum();
    assert_eq!(o200k as u64, reference["o200k"].as_u64().unwrap());
    assert_eq!(cl100k as u64, reference["cl100k"].as_u64().unwrap());
}

/// With the corpus present: `exceeds` agrees with the exact count for every
/// `SKILL.md` of the corpus, at the body rule's limit and at the exact count
/// itself, where a bound over the count would answer wrongly.
#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn corpus_limits_agree_with_exact_counts() {
    let dir = common::corpus();
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        if !(entry.file_type().is_file() && entry.file_name() == "SKILL.md") {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()).into_owned();
        for tokenizer in [Tokenizer::o200k(), Tokenizer::cl100k()] {
            let exact = tokenizer.count(&text);
            for limit in [exact, exact.saturating_sub(1), 5000] {
                assert_eq!(
                    tokenizer.exceeds(&text, limit),
                    exact > limit,
                    "{} at {limit} ({} count {exact})",
                    entry.path().display(),
                    tokenizer.name()
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} skills in the corpus");
}

/// With the corpus present: every skill measures and renders without a panic,
/// and no rendered body keeps a script or an event handler.
#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn corpus_skills_measure_and_render() {
    let dir = common::corpus();
    let filters = hone_core::library::Filters::default();
    let library = hone_core::library::Library::open(&[dir], &filters).unwrap();
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let costs = hone_core::catalog::skills_costs(&skills, &Tokenizer::o200k());
    assert_eq!(costs.len(), skills.len());
    let catalog = hone_core::catalog::catalog_costs(&skills, &Tokenizer::o200k(), None);
    assert_eq!(catalog.skills, skills.len());
    for skill in &skills {
        let html = hone_core::render::render_body(skill);
        // Text `<` is escaped, so every `<` opens a real tag.
        for tag in html.split('<').skip(1).filter_map(|t| t.split('>').next()) {
            let tag = tag.to_ascii_lowercase();
            let path = skill.path.display();
            assert!(
                !tag.starts_with("script") && !tag.starts_with("svg"),
                "{path}: <{tag}>"
            );
            let mut attributes = tag.split_whitespace().skip(1);
            assert!(
                !attributes.any(|a| a.starts_with("on") && a.contains('=')),
                "{path}: <{tag}>"
            );
            assert!(!tag.contains("javascript:"), "{path}: <{tag}>");
        }
    }
}
