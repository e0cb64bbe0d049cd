//! What one skill costs at each disclosure stage.

use std::path::PathBuf;

use serde::Serialize;

use crate::clients::claude_code::ListingSettings;
use crate::skill::Skill;
use crate::tokens::Tokenizer;

/// A text an agent is given, and its size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StageText {
    /// The exact text.
    pub text: String,
    /// Unicode scalar values.
    pub chars: usize,
    pub tokens: usize,
    /// Whether the runtime cut the text to fit a limit.
    pub truncated: bool,
}

impl StageText {
    pub fn measure(text: String, tokenizer: &Tokenizer, truncated: bool) -> StageText {
        StageText {
            chars: text.chars().count(),
            tokens: tokenizer.count(&text),
            text,
            truncated,
        }
    }
}

/// Stage 1: the skill's entry in each runtime's catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetadataCost {
    /// The `<skill>…</skill>` entry of the agentskills block.
    pub agentskills: StageText,
    /// The Claude Code listing line; `None` when the skill is not listed
    /// (`disable-model-invocation: true`).
    pub claude_code: Option<StageText>,
}

/// Stage 2: the body, as loaded when the skill is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstructionsCost {
    pub bytes: usize,
    pub chars: usize,
    pub lines: usize,
    pub tokens: usize,
}

/// One text resource and its cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceCost {
    /// Relative to the skill directory, `/`-separated.
    pub path: String,
    pub bytes: u64,
    pub tokens: usize,
}

/// A binary resource: listed, not counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BinaryResource {
    pub path: String,
    pub bytes: u64,
}

/// A resource that could not be read (it vanished, or permissions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadableResource {
    pub path: String,
    pub error: String,
}

/// Stage 3: the files beside `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceCosts {
    /// Text files, in path order.
    pub files: Vec<ResourceCost>,
    /// The sum over `files`.
    pub tokens: usize,
    pub binary: Vec<BinaryResource>,
    pub unreadable: Vec<UnreadableResource>,
}

/// A skill's cost at every stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillCosts {
    pub id: String,
    /// The `SKILL.md`.
    pub path: PathBuf,
    pub metadata: MetadataCost,
    pub instructions: InstructionsCost,
    pub resources: ResourceCosts,
}

/// Measures `skill` at each stage. Resources are read from disk (a skill
/// built in memory has none); the body is measured as it is held, so an
/// editor's unsaved text counts.
pub fn skill_costs(skill: &Skill, tokenizer: &Tokenizer) -> SkillCosts {
    let agentskills = StageText::measure(super::agentskills_entry(skill), tokenizer, false);
    let claude_code = crate::clients::claude_code::entry(skill, &ListingSettings::new())
        .map(|(entry, cut)| StageText::measure(entry.text, tokenizer, cut));
    let body = skill.body();
    let instructions = InstructionsCost {
        bytes: body.len(),
        chars: body.chars().count(),
        lines: body.lines().count(),
        tokens: tokenizer.count(body),
    };
    SkillCosts {
        id: skill.id.clone(),
        path: skill.path.clone(),
        metadata: MetadataCost {
            agentskills,
            claude_code,
        },
        instructions,
        resources: resource_costs(skill, tokenizer),
    }
}

/// [`skill_costs`] for many skills at once, in parallel, in the given order.
pub fn skills_costs(skills: &[&Skill], tokenizer: &Tokenizer) -> Vec<SkillCosts> {
    use rayon::prelude::*;
    skills
        .par_iter()
        .map(|skill| skill_costs(skill, tokenizer))
        .collect()
}

/// A skill's tokens at each stage, without the texts: one bar of the
/// library's per-skill chart, where 1,821 skills must stay light to send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StageTotals {
    pub id: String,
    /// The `SKILL.md`.
    pub path: PathBuf,
    /// The skill's `<skill>` entry in the agentskills catalog (always loaded).
    pub metadata: usize,
    /// The body (loaded when the skill is chosen).
    pub instructions: usize,
    /// The text files beside `SKILL.md` (read on demand); binaries are not counted.
    pub resources: usize,
    /// The three stages together: what the skill costs once all of it is read.
    pub total: usize,
}

impl From<&SkillCosts> for StageTotals {
    fn from(costs: &SkillCosts) -> StageTotals {
        let metadata = costs.metadata.agentskills.tokens;
        let instructions = costs.instructions.tokens;
        let resources = costs.resources.tokens;
        StageTotals {
            id: costs.id.clone(),
            path: costs.path.clone(),
            metadata,
            instructions,
            resources,
            total: metadata + instructions + resources,
        }
    }
}

/// [`StageTotals`] of many skills, in parallel, in the given order.
pub fn skills_stage_totals(skills: &[&Skill], tokenizer: &Tokenizer) -> Vec<StageTotals> {
    use rayon::prelude::*;
    skills
        .par_iter()
        .map(|skill| StageTotals::from(&skill_costs(skill, tokenizer)))
        .collect()
}

fn resource_costs(skill: &Skill, tokenizer: &Tokenizer) -> ResourceCosts {
    let mut costs = ResourceCosts {
        files: Vec::new(),
        tokens: 0,
        binary: Vec::new(),
        unreadable: Vec::new(),
    };
    for resource in &skill.resources {
        if !resource.is_text {
            costs.binary.push(BinaryResource {
                path: resource.path.clone(),
                bytes: resource.size,
            });
            continue;
        }
        match std::fs::read(skill.dir.join(&resource.path)) {
            Ok(bytes) => {
                // Text by its first 8 KiB; a stray invalid byte later on is
                // replaced rather than failing the whole file.
                let text = String::from_utf8_lossy(&bytes);
                let tokens = tokenizer.count(&text);
                costs.tokens += tokens;
                costs.files.push(ResourceCost {
                    path: resource.path.clone(),
                    bytes: bytes.len() as u64,
                    tokens,
                });
            }
            Err(err) => costs.unreadable.push(UnreadableResource {
                path: resource.path.clone(),
                error: err.to_string(),
            }),
        }
    }
    costs
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::document::SkillDocument;

    #[test]
    fn stage_totals_are_the_stages_tokens_and_their_sum() {
        let skill = Skill::from_document(
            Path::new("/nowhere/notes"),
            SkillDocument::parse(
                "---\nname: notes\ndescription: Takes notes.\n---\n# Notes\n\nWrite them down.\n"
                    .into(),
            ),
        );
        let tokenizer = Tokenizer::by_name("o200k").unwrap();
        let costs = skill_costs(&skill, &tokenizer);
        let totals = skills_stage_totals(&[&skill], &tokenizer);
        assert_eq!(totals.len(), 1);
        let row = &totals[0];
        assert_eq!(row.id, "notes");
        assert_eq!(row.metadata, costs.metadata.agentskills.tokens);
        assert_eq!(row.instructions, costs.instructions.tokens);
        assert!(row.metadata > 0 && row.instructions > 0);
        assert_eq!(row.resources, 0, "a skill built in memory has no files");
        assert_eq!(row.total, row.metadata + row.instructions);
    }
}
