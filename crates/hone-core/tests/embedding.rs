//! The embedding model against independent reference values, and semantic
//! ranking on the installed model.
//!
//! These tests need the model (`hone model install`, which the README's test
//! command runs first): without it they fail and say how to install it.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use hone_core::embed::model::QUANTISATION_OFFSET;
use hone_core::embed::{Embedder, EmbeddingCache, EmbeddingModel, resolve_model_dir};
use hone_core::rank::semantic::SemanticRanker;
use hone_core::rank::{Explanation, Ranker, RoutingDoc, RoutingField};

/// The installed model's folder; a missing model fails the test.
fn model_dir() -> PathBuf {
    let location = resolve_model_dir(None);
    assert!(
        location.installed,
        "no embedding model at {}: run `hone model install` (`make test` does)",
        location.dir.display()
    );
    location.dir
}

fn model() -> &'static EmbeddingModel {
    static MODEL: OnceLock<EmbeddingModel> = OnceLock::new();
    MODEL.get_or_init(|| EmbeddingModel::load(&model_dir()).expect("the installed model loads"))
}

fn embedder(cache: EmbeddingCache) -> Arc<Embedder> {
    let model = EmbeddingModel::load(&model_dir()).expect("the installed model loads");
    Arc::new(Embedder::with_cache(model, cache))
}

#[derive(serde::Deserialize)]
struct Reference {
    cases: Vec<ReferenceCase>,
}

#[derive(serde::Deserialize)]
struct ReferenceCase {
    text: String,
    embedding: Vec<f32>,
}

#[test]
fn embeddings_match_the_independent_reference() {
    let model = model();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/embedding_reference.json"
    );
    let reference: Reference =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // One batch: sentences of different lengths share padded tensors, which
    // must not change any of them.
    let texts: Vec<&str> = reference.cases.iter().map(|c| c.text.as_str()).collect();
    let vectors = model.embed(&texts).unwrap();
    for (case, vector) in reference.cases.iter().zip(&vectors) {
        assert_eq!(vector.len(), case.embedding.len());
        let worst = vector
            .iter()
            .zip(&case.embedding)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(worst < 1e-4, "{:?}: largest difference {worst}", case.text);
        eprintln!(
            "{:?}: largest difference from the reference {worst:.2e}",
            case.text
        );
    }
    // Alone, too.
    let alone = model.embed(&[texts[2]]).unwrap();
    let worst = alone[0]
        .iter()
        .zip(&vectors[2])
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-5, "batching changed an embedding by {worst}");
}

#[test]
fn long_texts_are_truncated_not_rejected() {
    let model = model();
    let long = "word ".repeat(5000);
    let vectors = model.embed(&[long.as_str(), ""]).unwrap();
    let norm: f32 = vectors[0].iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4);
    assert_eq!(model.max_tokens(), 256);
}

/// A request's vector and token vectors (the 16-bit integer pass, where the processor
/// has it) against the float pass that embeds skills.
#[test]
fn a_request_embeds_as_a_skill_text_does() {
    let model = model();
    let long = "We want to extract tables from scanned PDF invoices and load them into a \
                spreadsheet every night; the team reviews everything through pull requests. "
        .repeat(4);
    let texts = [
        "",
        "fill out a tax form",
        "Reads PDF files. Fills in PDF forms and signs them.",
        long.as_str(),
    ];
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let inputs: Vec<(&str, &[std::ops::Range<usize>])> =
        texts.iter().map(|t| (*t, &[][..])).collect();
    let skills = model.embed_segmented(&inputs, &mut |_| {}).unwrap();
    for (text, skill) in texts.iter().zip(&skills) {
        let request = model.embed_query(text).unwrap();
        let cosine = dot(&request.vector, &skill.vector);
        assert!(cosine > 0.99, "{text:?}: cosine {cosine}");
        assert_eq!(request.token_ids, skill.tokens.ids, "{text:?}");
        // The skill's token vectors are stored in 8 bits: restore them.
        let dim = model.dim();
        for (t, scale) in skill.tokens.scales.iter().enumerate() {
            let restored: Vec<f32> = skill.tokens.values[t * dim..][..dim]
                .iter()
                .map(|&b| scale * (f32::from(b) - QUANTISATION_OFFSET))
                .collect();
            let norm = dot(&restored, &restored).sqrt();
            let cosine = dot(&request.tokens[t * dim..][..dim], &restored) / norm;
            assert!(cosine > 0.97, "{text:?}, token {t}: cosine {cosine}");
        }
    }
}

#[test]
fn part_contributions_add_up_to_the_similarity() {
    let model = model();
    let text = "pdf: Reads PDF files. Fills in PDF forms and signs them.";
    let parts = [0..3, 5..21, 22..text.len()];
    let segmented = model
        .embed_segmented(&[(text, &parts[..])], &mut |_| {})
        .unwrap()
        .remove(0);
    let query = model.embed(&["fill out a tax form"]).unwrap().remove(0);
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let similarity = dot(&segmented.vector, &query);
    let shares: Vec<f32> = segmented.parts.iter().map(|p| dot(p, &query)).collect();
    let special = similarity - shares.iter().sum::<f32>();
    assert!(
        special.abs() < 0.35 * similarity.abs().max(0.1),
        "special tokens dominate: {shares:?} of {similarity}"
    );
    assert!(
        shares[2] > shares[1],
        "the forms sentence should carry a form request: {shares:?}"
    );
}

fn doc(name: &str, description: &str) -> RoutingDoc {
    RoutingDoc {
        key: format!("/lib/{name}"),
        id: name.into(),
        name: name.into(),
        description: description.into(),
        when_to_use: None,
        triggers: Vec::new(),
    }
}

fn library() -> Vec<RoutingDoc> {
    vec![
        doc(
            "pdf",
            "Extract text and tables from PDF documents, fill PDF forms, merge and split PDFs.",
        ),
        doc(
            "git-commit",
            "Write conventional commit messages from staged changes. Use when committing code.",
        ),
        doc(
            "chart",
            "Draw bar, line and pie charts from CSV or spreadsheet data.",
        ),
        doc(
            "docker",
            "Write Dockerfiles and compose files, and debug container builds.",
        ),
        doc(
            "email-drafts",
            "Draft polite, concise business emails and replies.",
        ),
    ]
}

#[test]
fn semantic_ranking_finds_paraphrases_and_explains_them() {
    let embedder = embedder(EmbeddingCache::in_memory("test", 384));
    let ranker = SemanticRanker::new(embedder, library(), &mut |_| {}).unwrap();
    let matches = ranker
        .rank("combine two portable document files into one", 3)
        .unwrap();
    assert_eq!(matches[0].id, "pdf");
    assert!(matches[0].confidence > matches[1].confidence);
    assert!((0.0..=1.0).contains(&matches[0].confidence));
    let Explanation::Semantic(explanation) = &matches[0].explanation else {
        panic!("not semantic")
    };
    assert_eq!(explanation.similarity, matches[0].score);
    assert!(
        explanation
            .parts
            .iter()
            .any(|p| p.field == RoutingField::Description)
    );

    let unrelated = ranker.rank("what is the capital of Mongolia", 3).unwrap();
    assert!(
        unrelated[0].confidence < ranker.default_threshold(),
        "an unrelated request is selected: {:?}",
        unrelated[0]
    );
    assert!(ranker.rank("   ", 3).unwrap().is_empty());
    assert!(ranker.rank(&"x".repeat(20_000), 3).is_err());
}

#[test]
fn edits_reembed_one_skill_and_removals_drop_it() {
    let embedder = embedder(EmbeddingCache::in_memory("test", 384));
    let mut ranker = SemanticRanker::new(embedder, library(), &mut |_| {}).unwrap();
    ranker
        .upsert(doc("chart", "Plan weekly meals and grocery lists."))
        .unwrap();
    assert_eq!(ranker.len(), 5);
    let top = &ranker.rank("what should I cook this week", 1).unwrap()[0];
    assert_eq!(top.id, "chart");
    assert!(ranker.remove("/lib/chart").unwrap());
    assert!(!ranker.remove("/lib/chart").unwrap());
    assert_eq!(ranker.len(), 4);
    let ids: Vec<String> = ranker
        .rank("pdf forms", 10)
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert!(!ids.contains(&"chart".to_string()));
    assert_eq!(ranker.rank("pdf forms", 10).unwrap()[0].id, "pdf");
}

#[test]
fn a_cached_library_embeds_nothing_and_an_edit_embeds_one_text() {
    let model = model();
    let tmp = tempfile::tempdir().unwrap();
    let cache_path = tmp.path().join("cache.bin");
    let open = || {
        let cache = EmbeddingCache::open(&cache_path, model.id(), model.dim(), 1 << 30);
        embedder(cache)
    };
    let mut embedded = Vec::new();
    SemanticRanker::new(open(), library(), &mut |p| embedded.push(p.total)).unwrap();
    assert_eq!(embedded.last(), Some(&5));

    embedded.clear();
    let mut docs = library();
    docs[1].description.push_str(" Also writes changelogs.");
    SemanticRanker::new(open(), docs.clone(), &mut |p| embedded.push(p.total)).unwrap();
    assert_eq!(
        embedded.last(),
        Some(&1),
        "only the edited skill is embedded"
    );

    embedded.clear();
    SemanticRanker::new(open(), docs, &mut |p| embedded.push(p.total)).unwrap();
    assert!(
        embedded.is_empty(),
        "reopening embeds nothing: {embedded:?}"
    );

    embedded.clear();
    std::fs::write(&cache_path, b"damaged").unwrap();
    let ranker = SemanticRanker::new(open(), library(), &mut |p| embedded.push(p.total)).unwrap();
    assert_eq!(embedded.last(), Some(&5), "a damaged cache is rebuilt");
    assert_eq!(ranker.rank("merge pdfs", 1).unwrap()[0].id, "pdf");
}

#[test]
fn hybrid_ranking_fuses_both_sides_and_explains_them() {
    use hone_core::rank::hybrid::HybridRanker;
    let embedder = embedder(EmbeddingCache::in_memory("test", 384));
    let mut ranker = HybridRanker::new(embedder, library(), &mut |_| {}).unwrap();
    assert_eq!(ranker.kind(), hone_core::rank::RankerKind::Hybrid);

    let exact = ranker.rank("write a Dockerfile", 3).unwrap();
    assert_eq!(exact[0].id, "docker");
    let Explanation::Hybrid(explanation) = &exact[0].explanation else {
        panic!("not hybrid")
    };
    assert!(
        explanation
            .keyword
            .as_ref()
            .is_some_and(|k| !k.terms.is_empty()),
        "{explanation:?}"
    );
    assert!(explanation.keyword_confidence > 0.0);
    assert!(
        explanation
            .semantic
            .as_ref()
            .is_some_and(|s| s.similarity > 0.3)
    );
    assert!(explanation.token_match > 0.0);

    let paraphrase = ranker
        .rank("combine two portable document files into one", 3)
        .unwrap();
    assert_eq!(paraphrase[0].id, "pdf");
    for pair in paraphrase.windows(2) {
        assert!(pair[0].score >= pair[1].score);
    }
    let unrelated = ranker.rank("what is the capital of Mongolia", 3).unwrap();
    assert!(
        unrelated[0].confidence < ranker.default_threshold(),
        "{:?}",
        unrelated[0]
    );

    ranker
        .upsert(doc("meals", "Plan weekly meals and grocery lists."))
        .unwrap();
    assert_eq!(ranker.len(), 6);
    assert_eq!(
        ranker.rank("what should I cook this week", 1).unwrap()[0].id,
        "meals"
    );
    assert!(ranker.remove("/lib/meals").unwrap());
    assert_eq!(ranker.len(), 5);
    assert!(
        ranker
            .rank("what should I cook this week", 5)
            .unwrap()
            .iter()
            .all(|m| m.id != "meals")
    );
}

#[test]
fn cached_embeddings_are_shared_not_copied() {
    let embedder = embedder(EmbeddingCache::in_memory("test", 384));
    let texts = vec![("pdf: Reads PDF files.".to_string(), vec![0..3, 5..21])];
    let first = embedder.embed_segmented(&texts, &mut |_| {}).unwrap();
    let again = embedder.embed_segmented(&texts, &mut |_| {}).unwrap();
    assert!(
        Arc::ptr_eq(&first[0], &again[0]),
        "a cache hit hands out the cached entry itself"
    );
}

/// The token match computed the obvious way: every stored token vector
/// restored to floats, its best cosine per request token, IDF-weighted.
fn reference_token_match(
    query: &hone_core::embed::model::QueryEmbedding,
    tokens: &hone_core::embed::model::TokenVectors,
    document_frequency: &std::collections::HashMap<u32, u32>,
    documents: usize,
) -> f32 {
    use hone_core::embed::model::QUANTISATION_OFFSET;
    let dim = 384;
    let restored: Vec<Vec<f32>> = tokens
        .values
        .chunks_exact(dim)
        .zip(&tokens.scales)
        .map(|(bytes, scale)| {
            bytes
                .iter()
                .map(|&b| (f32::from(b) - QUANTISATION_OFFSET) * scale)
                .collect()
        })
        .collect();
    let (mut weighted, mut total) = (0.0, 0.0);
    for (id, request) in query.token_ids.iter().zip(query.tokens.chunks_exact(dim)) {
        let frequency = document_frequency.get(id).copied().unwrap_or(0) as f32;
        let weight = ((documents as f32 + 1.0) / (frequency + 0.5)).ln().max(0.0);
        let best = restored
            .iter()
            .map(|t| t.iter().zip(request).map(|(a, b)| a * b).sum::<f32>())
            .fold(f32::NEG_INFINITY, f32::max);
        weighted += weight * best;
        total += weight;
    }
    weighted / total
}

#[test]
fn token_matches_equal_the_restored_vectors_cosines() {
    use hone_core::rank::semantic::routing_parts;
    let embedder = embedder(EmbeddingCache::in_memory("test", 384));
    let docs = library();
    let ranker = SemanticRanker::new(Arc::clone(&embedder), docs.clone(), &mut |_| {}).unwrap();
    let texts: Vec<(String, Vec<std::ops::Range<usize>>)> = docs
        .iter()
        .map(|doc| {
            let (text, parts) = routing_parts(doc);
            (text, parts.into_iter().map(|p| p.text_range).collect())
        })
        .collect();
    let embedded = embedder.embed_segmented(&texts, &mut |_| {}).unwrap();
    let mut document_frequency = std::collections::HashMap::new();
    for embedding in &embedded {
        let distinct: std::collections::HashSet<u32> =
            embedding.tokens.ids.iter().copied().collect();
        for id in distinct {
            *document_frequency.entry(id).or_insert(0) += 1;
        }
    }
    let query = ranker
        .embed_query("combine two portable document files into one")
        .unwrap();
    let indices: Vec<usize> = (0..docs.len()).collect();
    let matches = ranker.token_matches(&query, &indices).unwrap();
    for (index, score) in indices.iter().zip(matches) {
        let position = docs
            .iter()
            .position(|d| d.key == ranker.doc(*index).key)
            .unwrap();
        let expected = reference_token_match(
            &query,
            &embedded[position].tokens,
            &document_frequency,
            docs.len(),
        );
        assert!(
            (score - expected).abs() < 1e-5,
            "{}: {score} against {expected}",
            docs[position].name
        );
    }
}

#[test]
fn a_long_request_keeps_its_distinctive_sentence_wherever_it_sits() {
    use hone_core::rank::semantic::LONG_REQUEST_TOKENS;
    let ranker = SemanticRanker::new(
        embedder(EmbeddingCache::in_memory("test", 384)),
        library(),
        &mut |_| {},
    )
    .unwrap();
    let short = "combine two portable document files into one";
    assert_eq!(ranker.reduce_request(short).unwrap(), short);
    let context = "Some background first: I have been going back and forth on this \
                   for a while, and the person who owned it left last month. "
        .repeat(8);
    let ask = "Merge the two PDF forms into one file.";
    for request in [format!("{ask} {context}"), format!("{context}{ask}")] {
        let reduced = ranker.reduce_request(&request).unwrap();
        assert!(reduced.contains(ask), "{reduced}");
        let tokens = ranker.embedder().model().tokens(&reduced).unwrap();
        assert!(tokens.len() + 2 <= LONG_REQUEST_TOKENS, "{}", tokens.len());
        assert_eq!(ranker.rank(&request, 1).unwrap()[0].id, "pdf");
    }
}

#[test]
fn rankers_over_a_file_cache_keep_the_vectors_on_disk_and_rank_the_same() {
    use hone_core::rank::hybrid::HybridRanker;
    let model = model();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("cache.bin");
    let on_disk = embedder(EmbeddingCache::open(
        &path,
        model.id(),
        model.dim(),
        1 << 30,
    ));
    let ranker = HybridRanker::new(Arc::clone(&on_disk), library(), &mut |_| {}).unwrap();
    assert_eq!(
        on_disk.cache().resident(),
        0,
        "written entries leave memory"
    );
    let in_memory = HybridRanker::new(
        embedder(EmbeddingCache::in_memory("test", 384)),
        library(),
        &mut |_| {},
    )
    .unwrap();
    let request = "combine two portable document files into one";
    let top = ranker.rank(request, 3).unwrap();
    let expected = in_memory.rank(request, 3).unwrap();
    assert_eq!(top[0].id, "pdf");
    for (got, want) in top.iter().zip(&expected) {
        assert_eq!((&got.id, got.score), (&want.id, want.score));
    }
    let Explanation::Hybrid(explanation) = &top[0].explanation else {
        panic!("not hybrid")
    };
    assert!(
        explanation
            .semantic
            .as_ref()
            .is_some_and(|s| !s.parts.is_empty()),
        "{explanation:?}"
    );
    assert_eq!(
        on_disk.cache().resident(),
        0,
        "a request reads what it needs and keeps none of it"
    );
}

/// A stop asked for mid-run gives up between slices with how far it came;
/// what was embedded is in the cache file, so the next run embeds the rest.
#[test]
fn a_stopped_embedding_keeps_what_it_did_and_the_next_run_goes_on() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    let model = model();
    let tmp = tempfile::tempdir().unwrap();
    let cache_path = tmp.path().join("cache.bin");
    let open = || {
        let cache = EmbeddingCache::open(&cache_path, model.id(), model.dim(), 1 << 30);
        let model = EmbeddingModel::load(&model_dir()).expect("the installed model loads");
        Embedder::with_cache(model, cache)
    };
    let texts: Vec<(String, Vec<std::ops::Range<usize>>)> = (0..300)
        .map(|i| (format!("skill number {i} converts files"), Vec::new()))
        .collect();
    // Stops at its second ask: after the first slice.
    let asks = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asks);
    let stopping = open().stopping_when(Arc::new(move || {
        counted.fetch_add(1, Ordering::SeqCst) >= 1
    }));
    let mut last = None;
    let error = stopping
        .embed_segmented(&texts, &mut |p| last = Some(p))
        .unwrap_err();
    assert!(
        matches!(
            error,
            hone_core::embed::EmbedError::Stopped {
                done: 256,
                total: 300
            }
        ),
        "{error}"
    );
    assert_eq!(last.map(|p| (p.done, p.total)), Some((256, 300)));
    assert!(
        error
            .to_string()
            .contains("the next run goes on from there")
    );

    let mut totals = Vec::new();
    let all = open()
        .embed_segmented(&texts, &mut |p| totals.push(p.total))
        .unwrap();
    assert_eq!(all.len(), 300);
    assert_eq!(
        totals.last(),
        Some(&44),
        "only the texts the stopped run left are embedded"
    );
}

/// The bundled library's skills, by id.
fn bundled_skills() -> Vec<hone_core::skill::Skill> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../skills"));
    let mut skills: Vec<hone_core::skill::Skill> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|entry| hone_core::skill::Skill::load(&entry.unwrap().path()).ok())
        .collect();
    skills.sort_by(|a, b| a.id.cmp(&b.id));
    skills
}

/// A retrieval ranker built from the cache alone leaves the section term out
/// while a section is missing, and once `embed_sections` has filled the
/// cache, ranks as a build that embeds them.
#[test]
fn retrieval_sections_built_from_the_cache_alone_rank_as_embedded_ones() {
    use hone_core::rank::RankerKind;
    use hone_core::rank::retrieval::doc::RetrievalDoc;
    use hone_core::rank::retrieval::{RetrievalRanker, SectionEmbedding, embed_sections};

    let mut skills = bundled_skills();
    skills.truncate(6);
    let docs = || {
        skills
            .iter()
            .map(RetrievalDoc::from_skill)
            .collect::<Vec<_>>()
    };
    let cache = tempfile::tempdir().unwrap();
    let build = |sections| {
        RetrievalRanker::with_sections(
            RankerKind::Hybrid,
            docs(),
            Some(embedder(EmbeddingCache::in_memory("test", 384))),
            Some(cache.path()),
            sections,
            &mut |_| {},
        )
        .unwrap()
    };
    let request = "check a skill's frontmatter before publishing it";
    let deferred = build(SectionEmbedding::CachedOnly);
    assert!(!deferred.has_sections());
    assert!(!deferred.rank(request, 3).unwrap().is_empty());

    let embedder = embedder(EmbeddingCache::in_memory("test", 384));
    let sections: usize = docs().iter().map(|d| d.chunks.len()).sum();
    assert!(sections > 0);
    let embedded = embed_sections(&embedder, &skills, Some(cache.path()), &mut |_| {}).unwrap();
    assert_eq!(embedded, sections);
    assert_eq!(
        embed_sections(&embedder, &skills, Some(cache.path()), &mut |_| {}).unwrap(),
        0,
        "a second pass finds every section in the cache"
    );

    let cached = build(SectionEmbedding::CachedOnly);
    assert!(cached.has_sections());
    let ids = |ranker: &RetrievalRanker| -> Vec<(String, String)> {
        ranker
            .rank(request, 6)
            .unwrap()
            .into_iter()
            .map(|m| (m.id, format!("{:.5}", m.confidence)))
            .collect()
    };
    assert_eq!(ids(&cached), ids(&build(SectionEmbedding::Embed)));
}

/// The retrieval view's score is its three pieces of evidence at equal
/// weights (the listing's token match and keyword confidence only select),
/// so the semantic and hybrid rankers order skills alike in it.
#[test]
fn a_retrieval_score_is_its_evidence_summed_and_both_model_rankers_order_alike() {
    use hone_core::rank::retrieval::RetrievalRanker;
    use hone_core::rank::retrieval::doc::RetrievalDoc;
    use hone_core::rank::{Explanation, RankerKind};

    let skills = bundled_skills();
    let build = |kind| {
        RetrievalRanker::new(
            kind,
            skills.iter().map(RetrievalDoc::from_skill).collect(),
            Some(embedder(EmbeddingCache::in_memory("test", 384))),
            None,
            &mut |_| {},
        )
        .unwrap()
    };
    let (hybrid, semantic) = (build(RankerKind::Hybrid), build(RankerKind::Semantic));
    for request in [
        "check a skill's frontmatter before publishing it",
        "write release notes from the git log",
        "something unrelated about gardening",
    ] {
        let matches = hybrid.rank(request, 5).unwrap();
        assert!(!matches.is_empty());
        for m in &matches {
            let Explanation::Retrieval(e) = &m.explanation else {
                panic!("a retrieval explanation");
            };
            let sum = e.description_similarity
                + e.section_similarity
                + e.body_evidence / (1.0 + e.body_evidence);
            assert!((m.score - sum).abs() < 1e-5, "{request}: {m:?}");
        }
        let order = |matches: Vec<hone_core::rank::Match>| -> Vec<String> {
            matches.into_iter().map(|m| m.id).collect()
        };
        assert_eq!(order(matches), order(semantic.rank(request, 5).unwrap()));
    }
}
