//! The keyword ranker's incremental index against a fresh one, over many
//! edits of a synthetic library.

use hone_core::rank::{Bm25Ranker, Explanation, KeywordExplanation, Match, Ranker};
use hone_testkit::synth;

fn ids(matches: &[Match]) -> Vec<&str> {
    matches.iter().map(|m| m.id.as_str()).collect()
}

fn keyword(m: &Match) -> &KeywordExplanation {
    match &m.explanation {
        Explanation::Keyword(k) => k,
        other => panic!("not a keyword explanation: {other:?}"),
    }
}

#[test]
fn many_edits_across_commits_keep_scores_exact() {
    let mut docs = synth::library(300, 5);
    let mut ranker = Bm25Ranker::new(docs.clone()).unwrap();
    let queries = [
        "write the commit for our branch",
        "scan the container image",
        "clean csv",
    ];
    for round in 0..200 {
        let index = (round * 37) % docs.len();
        if round % 5 == 4 {
            assert!(ranker.remove(&docs[index].key).unwrap());
            docs.remove(index);
        } else {
            docs[index].description.push_str(" Also cleans containers.");
            ranker.upsert(docs[index].clone()).unwrap();
        }
        if round % 40 == 39 {
            let fresh = Bm25Ranker::new(docs.clone()).unwrap();
            for query in queries {
                let a = ranker.rank(query, 10).unwrap();
                let b = fresh.rank(query, 10).unwrap();
                assert_eq!(ids(&a), ids(&b), "round {round}: {query}");
                for (x, y) in a.iter().zip(&b) {
                    assert!((x.score - y.score).abs() < 1e-4, "round {round}: {query}");
                    assert_eq!(keyword(x), keyword(y), "round {round}: {query}");
                }
            }
        }
    }
    assert_eq!(ranker.len(), docs.len());
}
