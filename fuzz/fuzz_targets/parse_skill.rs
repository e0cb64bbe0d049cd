//! Any bytes as a SKILL.md: splitting, YAML, the typed model, links and (when
//! present) every rule must return, never panic or hang.
#![no_main]

use std::path::Path;

use hone_core::document::SkillDocument;
use hone_core::skill::Skill;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let skill = Skill::from_document(Path::new("fuzz-skill"), SkillDocument::from_bytes(data));
    let _ = skill.yaml_root().map(|root| root.to_json());
    for link in &skill.links {
        assert!(link.span.end <= skill.text().len());
    }
});
