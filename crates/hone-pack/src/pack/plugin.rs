//! Claude Code plugins and marketplaces: a library exported as a plugin
//! folder (`.claude-plugin/plugin.json`, `skills/<name>/SKILL.md`) or as a
//! marketplace (`.claude-plugin/marketplace.json` listing one plugin per
//! input, each under `plugins/<name>/`), the layouts `/plugin marketplace
//! add` and `claude plugin validate` read.
//!
//! The manifest comes from the library's `package` settings
//! ([`crate::library_settings::PackageSettings`]). What goes into it is checked
//! first against what `claude plugin validate` (Claude Code 2.1.328) refuses,
//! learnt by running it on a fixture of each kind of error: a name that is
//! empty, holds a space, or has characters a plugin id (`plugin@marketplace`)
//! cannot; a `homepage` or `repository` that is not a URL; a marketplace
//! without an owner or with two plugins of one name. Each skill is checked
//! for the frontmatter the validator refuses (HP007, [`refusals`]) on top of
//! the export's target. Its warnings (no version, description or author; a
//! name that is not kebab-case) are reported, not enforced.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::export::{self, ExportOptions, Plan};
use super::tree::Staging;
use super::{ManifestProblem, PackError, select};
use crate::diagnostic::Diagnostic;
use crate::folder::SKILL_FILE;
use crate::library::DiscoveryProblem;
use crate::library_settings::{Author, LibrarySettings, PackageSettings};
use crate::rules::Rule;
use crate::skill::Skill;
use crate::yaml::{self, Node, Value};

/// Where a plugin's manifest is, relative to the plugin folder.
pub const PLUGIN_MANIFEST: &str = ".claude-plugin/plugin.json";
/// Where a marketplace's manifest is, relative to the marketplace folder.
pub const MARKETPLACE_MANIFEST: &str = ".claude-plugin/marketplace.json";

/// `.claude-plugin/plugin.json`, the fields Hone writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginManifest {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Author>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

/// `.claude-plugin/marketplace.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarketplaceManifest {
    pub name: String,
    pub owner: Author,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<MarketplaceMetadata>,
    pub plugins: Vec<MarketplaceEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarketplaceMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// One plugin of a marketplace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarketplaceEntry {
    pub name: String,
    /// `./plugins/<name>`: relative to the marketplace folder, as the
    /// validator requires (`./` first, no `..`).
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Author>,
}

/// How to export a plugin or a marketplace.
#[derive(Debug, Clone, Default)]
pub struct PluginOptions {
    /// The gate (target, errors allowed), evals kept; `name` and `version`
    /// override the library's `package` settings. A marketplace's `name` is
    /// the marketplace's.
    pub export: ExportOptions,
    /// Replace a non-empty output folder.
    pub force: bool,
}

/// One skill of an exported plugin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PluginSkill {
    pub name: String,
    /// How Claude Code names it: `plugin:skill`.
    pub id: String,
    pub dir: PathBuf,
    pub files: usize,
    /// Every finding, the warnings that did not stop the export included.
    pub findings: Vec<Diagnostic>,
}

/// What a plugin export wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PluginReport {
    /// The plugin folder.
    pub path: PathBuf,
    pub manifest: PluginManifest,
    pub skills: Vec<PluginSkill>,
    /// What `claude plugin validate` warns about and accepts.
    pub warnings: Vec<ManifestProblem>,
    pub ignored_skills: Vec<PathBuf>,
    pub problems: Vec<DiscoveryProblem>,
}

/// What a marketplace export wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarketplaceReport {
    /// The marketplace folder.
    pub path: PathBuf,
    pub manifest: MarketplaceManifest,
    pub plugins: Vec<PluginReport>,
    pub warnings: Vec<ManifestProblem>,
}

/// Writes the skills of `inputs` as one Claude Code plugin in the folder
/// `output` (replaced whole with `force`).
pub fn export_plugin(
    inputs: &[PathBuf],
    output: &Path,
    options: &PluginOptions,
) -> Result<PluginReport, PackError> {
    let prepared = prepare_plugin(inputs, &options.export)?;
    let staging = Staging::new(output)?;
    write_plugin(&staging, "", &prepared)?;
    let path = staging.commit(options.force)?;
    Ok(prepared.into_report(path))
}

/// Writes a marketplace in the folder `output`: one plugin per input (a
/// library, or a skill), under `plugins/<name>/`. The marketplace is named
/// by `options.export.name`, else after the first library's package; its
/// owner is the first plugin author.
pub fn export_marketplace(
    inputs: &[PathBuf],
    output: &Path,
    options: &PluginOptions,
) -> Result<MarketplaceReport, PackError> {
    let (manifest, plugins, warnings) = prepare_marketplace(inputs, &options.export)?;
    let staging = Staging::new(output)?;
    for plugin in &plugins {
        write_plugin(
            &staging,
            &format!("plugins/{}/", plugin.manifest.name),
            plugin,
        )?;
    }
    staging.write(MARKETPLACE_MANIFEST, &to_json(&manifest), false)?;
    let path = staging.commit(options.force)?;
    let plugins = plugins
        .into_iter()
        .map(|p| {
            let plugin_path = path.join("plugins").join(&p.manifest.name);
            p.into_report(plugin_path)
        })
        .collect();
    Ok(MarketplaceReport {
        path,
        manifest,
        plugins,
        warnings,
    })
}

/// Checks what exporting `inputs` as a plugin (or, with `marketplace`, as a
/// marketplace) would, and writes nothing: the gate with what `claude
/// plugin validate` refuses in a skill ([`PackError::Blocked`]), and in the
/// manifest ([`PackError::Manifest`]). When it would pass, what the
/// validator only warns about.
pub fn check(
    inputs: &[PathBuf],
    options: &ExportOptions,
    marketplace: bool,
) -> Result<Vec<ManifestProblem>, PackError> {
    if !marketplace {
        return prepare_plugin(inputs, options).map(|plugin| plugin.warnings);
    }
    let (_, plugins, mut warnings) = prepare_marketplace(inputs, options)?;
    warnings.extend(plugins.into_iter().flat_map(|p| p.warnings));
    Ok(warnings)
}

/// A marketplace's manifest and plugins, checked; and its warnings.
fn prepare_marketplace(
    inputs: &[PathBuf],
    options: &ExportOptions,
) -> Result<
    (
        MarketplaceManifest,
        Vec<PreparedPlugin>,
        Vec<ManifestProblem>,
    ),
    PackError,
> {
    if inputs.is_empty() {
        return Err(PackError::NoSkills(Vec::new()));
    }
    let mut plugin_options = options.clone();
    plugin_options.name = None;
    let plugins: Vec<PreparedPlugin> = inputs
        .iter()
        .map(|input| prepare_plugin(std::slice::from_ref(input), &plugin_options))
        .collect::<Result<_, _>>()?;
    let first = &plugins[0];
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| first.manifest.name.clone());
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    check_name(
        &name,
        "marketplace",
        &match options.name {
            Some(_) => Origin::Option("name"),
            None => first.origin.clone(),
        },
        &mut problems,
        &mut warnings,
    );
    let owner = plugins.iter().find_map(|p| p.manifest.author.clone());
    if owner.is_none() {
        problems.push(
            first.origin.problem(
                "package.author",
                "a marketplace needs an owner: set `package.author.name` in the library's settings"
                    .into(),
            ),
        );
    }
    let mut seen = std::collections::HashSet::new();
    for plugin in &plugins {
        if !seen.insert(plugin.manifest.name.as_str()) {
            problems.push(plugin.origin.problem(
                "package.name",
                format!(
                    "two plugins of the marketplace are named `{}`; the client refuses duplicates",
                    plugin.manifest.name
                ),
            ));
        }
    }
    let owner = match owner {
        Some(owner) if problems.is_empty() => owner,
        _ => return Err(PackError::Manifest(problems)),
    };
    let manifest = MarketplaceManifest {
        name,
        owner,
        metadata: Some(MarketplaceMetadata {
            description: first.manifest.description.clone(),
            version: first.manifest.version.clone(),
        }),
        plugins: plugins
            .iter()
            .map(|p| MarketplaceEntry {
                name: p.manifest.name.clone(),
                source: format!("./plugins/{}", p.manifest.name),
                description: p.manifest.description.clone(),
                version: p.manifest.version.clone(),
                author: p.manifest.author.clone(),
            })
            .collect(),
    };
    Ok((manifest, plugins, warnings))
}

/// A plugin checked and planned, not yet written.
struct PreparedPlugin {
    manifest: PluginManifest,
    plan: Plan,
    /// The library's README and LICENSE files, copied into the plugin.
    extra_files: Vec<(String, PathBuf)>,
    origin: Origin,
    warnings: Vec<ManifestProblem>,
}

impl PreparedPlugin {
    fn into_report(self, path: PathBuf) -> PluginReport {
        let plugin = self.manifest.name.clone();
        PluginReport {
            path,
            manifest: self.manifest,
            skills: self
                .plan
                .skills
                .into_iter()
                .map(|s| PluginSkill {
                    id: format!("{plugin}:{}", s.skill.id),
                    name: s.skill.id,
                    dir: s.skill.dir,
                    files: s.files.len(),
                    findings: s.findings,
                })
                .collect(),
            warnings: self.warnings,
            ignored_skills: self.plan.ignored,
            problems: self.plan.problems,
        }
    }
}

fn prepare_plugin(
    inputs: &[PathBuf],
    options: &ExportOptions,
) -> Result<PreparedPlugin, PackError> {
    let library = inputs
        .first()
        .filter(|p| p.is_dir() && !p.join(SKILL_FILE).is_file());
    let (package, origin) = match library {
        Some(root) => {
            let settings = LibrarySettings::load(root)?;
            let path = LibrarySettings::path(root);
            let origin = match std::fs::read_to_string(&path) {
                Ok(text) if settings.package.is_some() => Origin::Settings { path, text },
                _ => Origin::Default,
            };
            (settings.package.unwrap_or_default(), origin)
        }
        None => (PackageSettings::default(), Origin::default()),
    };
    // The gate runs with the validator's refusals added; the pack name it
    // checks is the plugin's.
    let mut gate = options.clone();
    gate.name = options.name.clone().or(package.name.clone());
    let plan = export::plan(inputs, &gate, &refusals)?;
    let manifest = PluginManifest {
        name: plan.name.clone(),
        version: options.version.clone().or(package.version),
        description: package.description,
        author: package.author,
        homepage: package.homepage,
        repository: package.repository,
        license: package.license,
        keywords: package.keywords,
    };
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let name_origin = if options.name.is_some() {
        Origin::Option("name")
    } else {
        origin.clone()
    };
    check_name(
        &manifest.name,
        "plugin",
        &name_origin,
        &mut problems,
        &mut warnings,
    );
    for (key, value) in [
        ("homepage", &manifest.homepage),
        ("repository", &manifest.repository),
    ] {
        if let Some(value) = value.as_deref().filter(|v| !looks_like_url(v)) {
            problems.push(origin.problem(
                &format!("package.{key}"),
                format!("`{value}` is not a URL (scheme://...); the client refuses the manifest"),
            ));
        }
    }
    for (key, missing) in [
        ("version", manifest.version.is_none()),
        ("description", manifest.description.is_none()),
        ("author", manifest.author.is_none()),
    ] {
        if missing {
            warnings.push(origin.problem(
                &format!("package.{key}"),
                format!("no {key}; `claude plugin validate` warns"),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(PackError::Manifest(problems));
    }
    let extra_files = library
        .map(|root| {
            ["README.md", "LICENSE", "LICENSE.md", "LICENSE.txt"]
                .into_iter()
                .map(|name| (name.to_owned(), root.join(name)))
                .filter(|(_, path)| path.is_file())
                .collect()
        })
        .unwrap_or_default();
    Ok(PreparedPlugin {
        manifest,
        plan,
        extra_files,
        origin,
        warnings,
    })
}

/// Writes the plugin's files under `prefix` (empty, or ending in `/`).
fn write_plugin(staging: &Staging, prefix: &str, plugin: &PreparedPlugin) -> Result<(), PackError> {
    staging.write(
        &format!("{prefix}{PLUGIN_MANIFEST}"),
        &to_json(&plugin.manifest),
        false,
    )?;
    for planned in &plugin.plan.skills {
        for file in &planned.files {
            let select::SelectedFile {
                path,
                source,
                executable,
            } = &file.file;
            let relative = format!("{prefix}skills/{}/{path}", planned.skill.id);
            staging.copy(&relative, source, *executable)?;
        }
    }
    if !plugin
        .extra_files
        .iter()
        .any(|(name, _)| name == "README.md")
    {
        staging.write(
            &format!("{prefix}README.md"),
            readme(plugin).as_bytes(),
            false,
        )?;
    }
    for (name, source) in &plugin.extra_files {
        staging.copy(&format!("{prefix}{name}"), source, false)?;
    }
    Ok(())
}

/// A README for a library that has none: what the plugin is and its skills.
fn readme(plugin: &PreparedPlugin) -> String {
    let name = &plugin.manifest.name;
    let mut text = format!("# {name}\n\n");
    if let Some(description) = &plugin.manifest.description {
        text.push_str(description);
        text.push_str("\n\n");
    }
    text.push_str("A Claude Code plugin of agent skills, exported by Hone.\n\n## Skills\n\n");
    for planned in &plugin.plan.skills {
        let description = planned.skill.meta.description.as_deref().unwrap_or("");
        let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
        text.push_str(&format!("- `{name}:{}`: {description}\n", planned.skill.id));
    }
    text
}

fn to_json(value: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Where a manifest value comes from, for the position of a problem.
#[derive(Debug, Clone, Default)]
enum Origin {
    /// The library's settings file, with its text to find the key's line.
    Settings { path: PathBuf, text: String },
    /// A command-line option, such as `name` for `--name`.
    Option(&'static str),
    /// A default: the library folder's or the skill's name.
    #[default]
    Default,
}

impl Origin {
    fn problem(&self, key: &str, message: String) -> ManifestProblem {
        match self {
            Origin::Settings { path, text } => ManifestProblem {
                path: Some(path.clone()),
                line: key_line(text, key),
                key: key.to_owned(),
                message,
            },
            Origin::Option(option) => ManifestProblem {
                path: None,
                line: None,
                key: format!("--{option}"),
                message,
            },
            Origin::Default => ManifestProblem {
                path: None,
                line: None,
                key: key.to_owned(),
                message,
            },
        }
    }
}

/// The 1-based line where the last part of the JSON path `key` is written in
/// `text`, looking after each earlier part in turn.
fn key_line(text: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    for part in key.split('.') {
        let quoted = format!("\"{part}\"");
        from += text[from..].find(&quoted)?;
    }
    Some(text[..from].matches('\n').count() + 1)
}

/// Checks a plugin or marketplace name as the validator does.
fn check_name(
    name: &str,
    what: &str,
    origin: &Origin,
    problems: &mut Vec<ManifestProblem>,
    warnings: &mut Vec<ManifestProblem>,
) {
    let key = "package.name";
    let refused = if name.is_empty() {
        Some(format!("the {what} name is empty"))
    } else if name.chars().any(char::is_whitespace) {
        Some(format!(
            "the {what} name `{name}` holds a space; use kebab-case"
        ))
    } else if !is_plugin_id_part(name) {
        Some(format!(
            "the {what} name `{name}` cannot be part of a plugin id (letters, digits, `.`, `_`, `-`, starting with a letter or digit)"
        ))
    } else {
        None
    };
    match refused {
        Some(message) => problems.push(origin.problem(key, message)),
        None if !is_kebab_case(name) => warnings.push(origin.problem(
            key,
            format!("`{name}` is not kebab-case; Claude Code accepts it, the Claude.ai marketplace sync does not"),
        )),
        None => {}
    }
}

/// `[A-Za-z0-9][A-Za-z0-9._-]*`: one side of `plugin@marketplace`.
fn is_plugin_id_part(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn is_kebab_case(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// `scheme:rest` without spaces: what a URL parser accepts at the least.
fn looks_like_url(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !value.chars().any(char::is_whitespace)
}

/// The skill's frontmatter as `claude plugin validate` refuses it (HP007),
/// each at the value it is about. A skill without frontmatter, or with one
/// Hone cannot find, gets only the validator's warning, which is not
/// reported here.
pub fn refusals(skill: &Skill) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut refuse = |range: std::ops::Range<usize>, message: String| {
        found.push(Diagnostic {
            code: Rule::PluginRefused.code().into(),
            rule: Rule::PluginRefused.name().into(),
            severity: Rule::PluginRefused.severity(),
            message,
            path: skill.path.clone(),
            span: skill.lines.span(skill.text(), range),
            help: Some("`claude plugin validate` refuses the plugin; the rule's doc says how to write the value".into()),
            fix: None,
        })
    };
    let root = match &skill.yaml {
        None => return found,
        Some(Ok(root)) => root,
        Some(Err(err)) => {
            // Claude Code retries with each line's leading tabs as two spaces.
            let retried = skill
                .doc
                .yaml_text()
                .is_some_and(|(text, base)| yaml::parse(&tabs_as_spaces(text), base).is_ok());
            if !retried {
                refuse(
                    err.offset..err.offset,
                    format!("the frontmatter's YAML does not parse: {}", err.message),
                );
            }
            return found;
        }
    };
    let entries = match &root.value {
        Value::Null => return found,
        Value::Map(entries) => entries,
        _ => {
            refuse(
                root.span.clone(),
                format!("the frontmatter is {}, not a mapping of keys", root.kind()),
            );
            return found;
        }
    };
    // A JavaScript object keeps the last of duplicate keys.
    let last = |key: &str| -> Option<&Node> {
        entries
            .iter()
            .rev()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    };
    if let Some(node) = last("description")
        && matches!(node.value, Value::Seq(_) | Value::Map(_))
    {
        refuse(
            node.span.clone(),
            format!("`description` is {}, not a string", node.kind()),
        );
    }
    if let Some(node) = last("name")
        && !matches!(node.value, Value::Null | Value::String(_))
    {
        refuse(
            node.span.clone(),
            format!("`name` is {}, not a string; quote it", node.kind()),
        );
    }
    if let Some(node) = last("allowed-tools") {
        match &node.value {
            Value::Null | Value::String(_) => {}
            Value::Seq(items) => {
                if let Some(item) = items.iter().find(|i| !matches!(i.value, Value::String(_))) {
                    refuse(
                        item.span.clone(),
                        format!(
                            "`allowed-tools` holds {}; only strings are allowed",
                            item.kind()
                        ),
                    );
                }
            }
            _ => refuse(
                node.span.clone(),
                format!(
                    "`allowed-tools` is {}, not a string or a list of strings",
                    node.kind()
                ),
            ),
        }
    }
    if let Some(node) = last("shell") {
        match &node.value {
            Value::Null => {}
            Value::String(shell)
                if matches!(shell.trim().to_lowercase().as_str(), "bash" | "powershell") => {}
            Value::String(shell) => refuse(
                node.span.clone(),
                format!("`shell` is `{shell}`; it must be `bash` or `powershell`"),
            ),
            _ => refuse(
                node.span.clone(),
                format!("`shell` is {}, not a string", node.kind()),
            ),
        }
    }
    found
}

fn tabs_as_spaces(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let tabs = line.len() - line.trim_start_matches('\t').len();
            format!("{}{}", "  ".repeat(tabs), &line[tabs..])
        })
        .collect()
}
