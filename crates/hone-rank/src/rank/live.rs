//! Rankers kept in step with a library on disk and with one unsaved edit.
//!
//! An editor asks "what would this edit do to routing" before anything is
//! saved. Rebuilding a ranker per keystroke is out of the question (a
//! semantic ranker embeds the whole library), so each ranker is built once
//! per kind and then updated in place: when the library is re-read, only the
//! skills whose routing metadata changed are re-indexed; while the author
//! types, the open skill's edited metadata replaces its saved version (the
//! "overlay") until another edit, or none, takes its place. Rankings and
//! eval runs then answer for the text as typed, and [`LiveRankers::saved_rank`]
//! still tells where the saved text stood.

use std::collections::HashMap;

use super::{Match, RankError, Ranker, RankerKind, RoutingDoc};

/// One ranker and the edited document it holds in place of the saved one.
struct Live {
    ranker: Box<dyn Ranker>,
    overlay: Option<RoutingDoc>,
}

/// The rankers of one library, by kind, with at most one edited document
/// overlaid on each.
#[derive(Default)]
pub struct LiveRankers {
    /// Routing metadata of every skill as on disk, by key.
    disk: HashMap<String, RoutingDoc>,
    rankers: HashMap<RankerKind, Live>,
}

impl LiveRankers {
    /// The documents as on disk, by key: what a new ranker starts from.
    pub fn snapshot(&self) -> Vec<RoutingDoc> {
        let mut docs: Vec<RoutingDoc> = self.disk.values().cloned().collect();
        docs.sort_by(|a, b| a.key.cmp(&b.key));
        docs
    }

    pub fn has(&self, kind: RankerKind) -> bool {
        self.rankers.contains_key(&kind)
    }

    /// Adds a ranker built from `built_from` (possibly an older
    /// [`LiveRankers::snapshot`]: it catches up with what changed since).
    pub fn insert(&mut self, ranker: Box<dyn Ranker>, built_from: Vec<RoutingDoc>) {
        let mut live = Live {
            ranker,
            overlay: None,
        };
        let built: HashMap<String, RoutingDoc> =
            built_from.into_iter().map(|d| (d.key.clone(), d)).collect();
        for (key, doc) in &self.disk {
            if built.get(key) != Some(doc) {
                let _ = live.ranker.upsert(doc.clone());
            }
        }
        for key in built.keys().filter(|k| !self.disk.contains_key(*k)) {
            let _ = live.ranker.remove(key);
        }
        self.rankers.insert(live.ranker.kind(), live);
    }

    /// Takes `fresh` (the library as re-read) as the saved documents,
    /// re-indexing only those that changed. Overlays are dropped; the next
    /// [`LiveRankers::prepare`] puts the edit back.
    pub fn update(&mut self, fresh: Vec<RoutingDoc>) {
        let fresh: HashMap<String, RoutingDoc> =
            fresh.into_iter().map(|d| (d.key.clone(), d)).collect();
        for live in self.rankers.values_mut() {
            if let Some(edited) = live.overlay.take() {
                restore(live.ranker.as_mut(), &self.disk, &edited.key);
            }
            for (key, doc) in &fresh {
                if self.disk.get(key) != Some(doc) {
                    let _ = live.ranker.upsert(doc.clone());
                }
            }
            for key in self.disk.keys().filter(|k| !fresh.contains_key(*k)) {
                let _ = live.ranker.remove(key);
            }
        }
        self.disk = fresh;
    }

    /// The ranker of `kind` with `edited` (the open skill's metadata as
    /// typed) in place of its saved version; `None` puts the saved one back.
    pub fn prepare(
        &mut self,
        kind: RankerKind,
        edited: Option<&RoutingDoc>,
    ) -> Result<&dyn Ranker, RankError> {
        let disk = &self.disk;
        let live = self
            .rankers
            .get_mut(&kind)
            .ok_or(RankError::NotBuilt(kind))?;
        // An edit that changes nothing the ranker sees is no overlay.
        let wanted = edited.filter(|doc| disk.get(&doc.key) != Some(*doc));
        if live.overlay.as_ref() != wanted {
            if let Some(old) = live.overlay.take() {
                restore(live.ranker.as_mut(), disk, &old.key);
            }
            if let Some(doc) = wanted {
                live.ranker.upsert(doc.clone())?;
                live.overlay = Some(doc.clone());
            }
        }
        Ok(live.ranker.as_ref())
    }

    /// Runs `work` on the ranker of `kind` with `edited` in place (see
    /// [`LiveRankers::prepare`]), given the documents it indexes, sorted by
    /// key, the edit included. `work` may change the ranker only if it puts
    /// every document back as it found it.
    pub fn with_prepared<T>(
        &mut self,
        kind: RankerKind,
        edited: Option<&RoutingDoc>,
        work: impl FnOnce(&mut dyn Ranker, &[RoutingDoc]) -> T,
    ) -> Result<T, RankError> {
        self.prepare(kind, edited)?;
        let live = self
            .rankers
            .get_mut(&kind)
            .ok_or(RankError::NotBuilt(kind))?;
        let mut docs: Vec<RoutingDoc> = self
            .disk
            .values()
            .filter(|d| live.overlay.as_ref().is_none_or(|o| o.key != d.key))
            .chain(live.overlay.as_ref())
            .cloned()
            .collect();
        docs.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(work(live.ranker.as_mut(), &docs))
    }

    /// Whether the ranker of `kind` holds an edit.
    pub fn is_overlaid(&self, kind: RankerKind) -> bool {
        self.rankers
            .get(&kind)
            .is_some_and(|live| live.overlay.is_some())
    }

    /// The 1-based rank of `key` among the best `depth` for `query` with the
    /// saved text in place of the overlay (the overlay stays afterwards).
    pub fn saved_rank(
        &mut self,
        kind: RankerKind,
        query: &str,
        depth: usize,
        key: &str,
    ) -> Option<usize> {
        let live = self.rankers.get_mut(&kind)?;
        let Some(edited) = live.overlay.clone() else {
            return live
                .ranker
                .rank(query, depth)
                .ok()
                .and_then(|m| position(&m, key));
        };
        restore(live.ranker.as_mut(), &self.disk, &edited.key);
        let before = live.ranker.rank(query, depth);
        let _ = live.ranker.upsert(edited);
        before.ok().and_then(|m| position(&m, key))
    }

    /// The document the ranker of `kind` holds for `key`: the overlay, else
    /// the saved one.
    pub fn doc(&self, kind: RankerKind, key: &str) -> Option<&RoutingDoc> {
        self.rankers
            .get(&kind)
            .and_then(|live| live.overlay.as_ref())
            .filter(|doc| doc.key == key)
            .or_else(|| self.disk.get(key))
    }
}

/// Puts the saved version of `key` back (or removes a skill that has none).
fn restore(ranker: &mut dyn Ranker, disk: &HashMap<String, RoutingDoc>, key: &str) {
    let _ = match disk.get(key) {
        Some(doc) => ranker.upsert(doc.clone()),
        None => ranker.remove(key).map(|_| ()),
    };
}

/// The 1-based position of `key` in `matches`.
pub fn position(matches: &[Match], key: &str) -> Option<usize> {
    matches.iter().position(|m| m.key == key).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{self, RankerKind};

    fn doc(id: &str, description: &str) -> RoutingDoc {
        RoutingDoc {
            key: id.to_owned(),
            id: id.to_owned(),
            name: id.to_owned(),
            description: description.to_owned(),
            when_to_use: None,
            triggers: Vec::new(),
        }
    }

    fn live() -> LiveRankers {
        let mut live = LiveRankers::default();
        live.update(vec![
            doc(
                "pdf-forms",
                "Fill PDF forms. Use when the user has a PDF form to fill.",
            ),
            doc(
                "spreadsheets",
                "Edit Excel spreadsheets. Use when a .xlsx file is mentioned.",
            ),
        ]);
        let docs = live.snapshot();
        let ranker = rank::build(RankerKind::Bm25, docs.clone(), None, &mut |_| {}).unwrap();
        live.insert(ranker, docs);
        live
    }

    const QUERY: &str = "fill in the tax form in this pdf";

    #[test]
    fn an_edit_moves_the_skill_until_it_is_withdrawn() {
        let mut live = live();
        let top = |live: &mut LiveRankers, edited: Option<&RoutingDoc>| {
            let ranker = live.prepare(RankerKind::Bm25, edited).unwrap();
            ranker.rank(QUERY, 5).unwrap()[0].id.clone()
        };
        assert_eq!(top(&mut live, None), "pdf-forms");
        let edited = doc(
            "spreadsheets",
            "Fill tax forms in PDF files and spreadsheets. Fill the tax form.",
        );
        assert_eq!(top(&mut live, Some(&edited)), "spreadsheets");
        assert!(live.is_overlaid(RankerKind::Bm25));
        assert_eq!(live.doc(RankerKind::Bm25, "spreadsheets"), Some(&edited));
        // Saved, it shares no word with the request.
        assert_eq!(
            live.saved_rank(RankerKind::Bm25, QUERY, 50, "spreadsheets"),
            None
        );
        assert_eq!(
            top(&mut live, Some(&edited)),
            "spreadsheets",
            "the overlay stays"
        );
        assert_eq!(top(&mut live, None), "pdf-forms");
        assert!(!live.is_overlaid(RankerKind::Bm25));
    }

    #[test]
    fn an_edit_equal_to_the_saved_text_is_no_overlay() {
        let mut live = live();
        let saved = live.snapshot().remove(0);
        live.prepare(RankerKind::Bm25, Some(&saved)).unwrap();
        assert!(!live.is_overlaid(RankerKind::Bm25));
    }

    #[test]
    fn a_reread_library_reindexes_and_drops_the_overlay() {
        let mut live = live();
        let edited = doc("spreadsheets", "Fill tax forms in PDF files.");
        live.prepare(RankerKind::Bm25, Some(&edited)).unwrap();
        live.update(vec![doc(
            "taxes",
            "Fill in tax forms in a PDF. Use when taxes are due.",
        )]);
        assert!(!live.is_overlaid(RankerKind::Bm25));
        let ranker = live.prepare(RankerKind::Bm25, None).unwrap();
        assert_eq!(ranker.len(), 1);
        assert_eq!(ranker.rank(QUERY, 5).unwrap()[0].id, "taxes");
    }

    #[test]
    fn a_kind_not_built_is_an_error() {
        let mut live = LiveRankers::default();
        assert!(matches!(
            live.prepare(RankerKind::Semantic, None),
            Err(RankError::NotBuilt(RankerKind::Semantic))
        ));
    }
}
