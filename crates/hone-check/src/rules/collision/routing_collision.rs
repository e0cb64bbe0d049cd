//! HS502 `routing-collision`: its documentation, what `hone rule HS502`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// An agent picks a skill from its `name`, `description`, `when_to_use` and
    /// `triggers` only. When two skills of a library say nearly the same thing
    /// there, a request that fits one fits the other, and the agent picks either:
    /// which one wins is an accident of wording, and the author of the other sees
    /// it "never" run.
    ///
    /// ```yaml
    /// # pdf-tools/SKILL.md
    /// description: Extract text and tables from PDF files. Use when the user
    ///   asks to read or pull data out of a PDF.
    /// # pdf-extract/SKILL.md           HS502 with pdf-tools
    /// description: Extracts the text and tables of PDF files. Use when asked
    ///   to pull data out of a PDF.
    /// ```
    ///
    /// Reported at the `description` of *both* skills, each naming the other and
    /// the distinctive words they share. Two skills with the same name are HS501's
    /// to report, not this rule's. Closeness is the cosine of the two
    /// routing texts' term sets, each term weighted by how few skills of the
    /// library use it (so `pdf` counts in a library with one PDF skill and little
    /// in a library of PDF tools); a pair is reported from 0.5 with at least three
    /// shared distinctive terms. The rule reads the terms only, so that `hone
    /// check` gives the same verdict on every machine, model or not; the app's map
    /// of the library, which has the embeddings, also links pairs sharing a term
    /// whose routing texts' embeddings have a cosine of at least 0.9.
    ///
    /// Fix it by making each description say what only it does and when *not* to
    /// use it ("for filling forms use pdf-forms"), or by merging the two skills.
    /// `hone search LIB "request" --why SKILL` shows, for one request, which words
    /// each of the two matched.
}
