//! The runner: every case, in every arm, k times, through the real agent.
//!
//! Each run gets a fresh scratch workspace (the case's fixtures and files)
//! and a scratch `$HOME`; the arm's skills are planted in the agent's
//! project skills folder, so the agent sees exactly them. The agent runs
//! through [`crate::clients::capture`], the same mechanism that checks the
//! client profiles: against a scripted stand-in inside a network namespace
//! with loopback only (`--scripted`), or against its live provider.
//!
//! Runs go `jobs` at a time. A run that ends without the agent's own end
//! record is retried with backoff. A cancelled benchmark keeps its finished
//! runs; so does one stopped by its cost ceiling, which is checked before
//! each run starts. Every finished run is cached by agent, model, the arm's
//! content, the case and the run's number, so a rerun pays only for what
//! changed, and cache folders from several machines merge by copying.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::api::{Api, ApiAgent, OfferedSkill};
use super::grade::{self, Graded, RunView};
use super::judge::Judge;
use super::suite::{TaskCase, TaskSuite};
use super::transcript::Transcript;
use crate::agent::cost::BATCH_PRICE_FACTOR;
use crate::agent::{PriceTable, Usage};
use crate::cancel::Cancel;
use crate::clients::capture::{self, Installed, Isolation, Links, Plan, Task};
use crate::clients::script::{self, Script};
use crate::clients::{Client, Scope};

/// Largest file planted or copied into a workspace.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Which skills an arm runs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum ArmSpec {
    /// The skill under test.
    With,
    /// No skill.
    Without,
    /// The skill under test at a git revision (`git:REV`).
    Git(String),
    /// A pinned copy of the skill (`path:DIR`).
    Path(PathBuf),
    /// Another skill of the library instead (`skill:NAME`).
    Skill(String),
}

impl ArmSpec {
    /// `with`, `without`, `git:REV`, `path:DIR` or `skill:NAME`.
    pub fn parse(text: &str) -> Result<ArmSpec, String> {
        match text.split_once(':') {
            None if text == "with" => Ok(ArmSpec::With),
            None if text == "without" => Ok(ArmSpec::Without),
            Some(("git", rev)) if !rev.is_empty() => Ok(ArmSpec::Git(rev.to_string())),
            Some(("path", dir)) if !dir.is_empty() => Ok(ArmSpec::Path(PathBuf::from(dir))),
            Some(("skill", name)) if !name.is_empty() => Ok(ArmSpec::Skill(name.to_string())),
            _ => Err(format!(
                "`{text}` is not an arm: with, without, git:REV, path:DIR or skill:NAME"
            )),
        }
    }

    pub fn label(&self) -> String {
        match self {
            ArmSpec::With => "with".into(),
            ArmSpec::Without => "without".into(),
            ArmSpec::Git(rev) => format!("git:{rev}"),
            ArmSpec::Path(dir) => format!("path:{}", dir.display()),
            ArmSpec::Skill(name) => format!("skill:{name}"),
        }
    }
}

/// An arm made concrete: the skill folder it plants, if any.
#[derive(Debug)]
pub struct Arm {
    pub label: String,
    /// The folder planted, and the name of its folder in the skills folder.
    skill: Option<(PathBuf, String)>,
    /// Whether this arm holds the skill under test (any version of it).
    pub with_skill: bool,
    /// A hash of every planted file, for the cache.
    content: u64,
    /// Keeps a checked-out revision alive.
    _checkout: Option<tempfile::TempDir>,
}

/// The skill under test, found in the library.
#[derive(Debug, Clone)]
pub struct SkillUnderTest {
    /// The name agents know it by.
    pub name: String,
    pub dir: PathBuf,
}

/// Finds `wanted` (a name or a folder name) among the library's skills;
/// without `wanted`, the library's only skill.
pub fn find_skill(library: &Path, wanted: Option<&str>) -> Result<SkillUnderTest, String> {
    let mut problems = Vec::new();
    let dirs = crate::library::find_skill_dirs(library, &mut problems);
    let skills: Vec<SkillUnderTest> = dirs
        .iter()
        .filter_map(|dir| {
            let skill = crate::skill::Skill::load(dir).ok()?;
            Some(SkillUnderTest {
                name: skill.id.clone(),
                dir: dir.clone(),
            })
        })
        .collect();
    match wanted {
        Some(wanted) => skills
            .into_iter()
            .find(|s| s.name == wanted || s.dir.file_name().is_some_and(|f| f == wanted))
            .ok_or_else(|| format!("no skill named `{wanted}` in {}", library.display())),
        None if skills.len() == 1 => {
            Ok(skills.into_iter().next().unwrap_or_else(|| unreachable!()))
        }
        None => Err(format!(
            "{} holds {} skills: name the one under test (the suite's `skill:` or --skill)",
            library.display(),
            skills.len()
        )),
    }
}

/// The skill a suite is about: the suite's `skill:`, else the skill whose
/// folder holds the suite, else the library's only skill.
pub fn skill_for_suite(
    library: &Path,
    suite: &TaskSuite,
    suite_path: &Path,
) -> Result<SkillUnderTest, String> {
    if let Some(named) = &suite.skill {
        return find_skill(library, Some(named));
    }
    let holder = suite_path
        .ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(library))
        .find(|dir| dir.join("SKILL.md").is_file());
    match holder.and_then(|dir| dir.file_name()) {
        Some(folder) => find_skill(library, Some(&folder.to_string_lossy())),
        None => find_skill(library, None),
    }
}

/// Makes each arm concrete.
pub fn prepare_arms(
    library: &Path,
    skill: &SkillUnderTest,
    specs: &[ArmSpec],
) -> Result<Vec<Arm>, String> {
    specs
        .iter()
        .map(|spec| {
            let folder = skill
                .dir
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| skill.name.clone());
            let (source, with_skill, checkout) = match spec {
                ArmSpec::With => (Some((skill.dir.clone(), folder)), true, None),
                ArmSpec::Without => (None, false, None),
                ArmSpec::Path(dir) => {
                    if !dir.join("SKILL.md").is_file() {
                        return Err(format!("{} holds no SKILL.md", dir.display()));
                    }
                    (Some((dir.clone(), folder)), true, None)
                }
                ArmSpec::Git(rev) => {
                    let checkout = git_checkout(&skill.dir, rev)?;
                    (
                        Some((checkout.path().to_path_buf(), folder)),
                        true,
                        Some(checkout),
                    )
                }
                ArmSpec::Skill(name) => {
                    let other = find_skill(library, Some(name))?;
                    let other_folder = other
                        .dir
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_else(|| other.name.clone());
                    (Some((other.dir, other_folder)), false, None)
                }
            };
            let content = source.as_ref().map_or(0, |(dir, name)| {
                let files = grade::snapshot(dir);
                xxhash_rust::xxh3::xxh3_64(format!("{name}{files:?}").as_bytes())
            });
            Ok(Arm {
                label: spec.label(),
                skill: source,
                with_skill,
                content,
                _checkout: checkout,
            })
        })
        .collect()
}

/// The skill's folder as it was at `rev`, from the git repository holding it.
fn git_checkout(dir: &Path, rev: &str) -> Result<tempfile::TempDir, String> {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))
    };
    let prefix = git(&["rev-parse", "--show-prefix"])?;
    if !prefix.status.success() {
        return Err(format!("{} is not in a git repository", dir.display()));
    }
    let prefix = String::from_utf8_lossy(&prefix.stdout).trim().to_string();
    let listed = git(&[
        "ls-tree",
        "-r",
        "--full-name",
        "--name-only",
        rev,
        "--",
        ".",
    ])?;
    if !listed.status.success() {
        return Err(format!(
            "git: {}",
            String::from_utf8_lossy(&listed.stderr).trim()
        ));
    }
    let checkout = tempfile::tempdir().map_err(|e| e.to_string())?;
    let files = String::from_utf8_lossy(&listed.stdout).into_owned();
    for file in files.lines() {
        let relative = file.strip_prefix(&prefix).unwrap_or(file);
        let shown = git(&["show", &format!("{rev}:{file}")])?;
        if !shown.status.success() {
            continue;
        }
        let target = checkout.path().join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&target, &shown.stdout).map_err(|e| e.to_string())?;
    }
    if !checkout.path().join("SKILL.md").is_file() {
        return Err(format!("the skill has no SKILL.md at {rev}"));
    }
    Ok(checkout)
}

/// What does the tasks: an installed agent CLI, or a model API with the
/// minimal tool loop of [`super::api`].
pub enum Agent<'a> {
    Cli(Installed),
    Api(&'a ApiAgent),
}

impl Agent<'_> {
    /// The agent's name and version, for the cache key and the report.
    pub fn id(&self) -> (String, String) {
        match self {
            Agent::Cli(installed) => (
                installed.client.as_str().to_string(),
                installed.version.clone(),
            ),
            Agent::Api(api) => (api.api().name().into(), api.api().version().into()),
        }
    }

    /// The tokenizer the agent's model counts with, for the cost preview.
    fn tokenizer(&self) -> crate::tokens::Tokenizer {
        match self {
            Agent::Cli(installed)
                if matches!(
                    installed.client,
                    Client::Codex | Client::Gemini | Client::Opencode
                ) =>
            {
                crate::tokens::Tokenizer::o200k()
            }
            Agent::Api(api) if api.api() == Api::OpenAi => crate::tokens::Tokenizer::o200k(),
            _ => crate::tokens::Tokenizer::claude(),
        }
    }

    /// The agent CLI; `None` for a model API.
    pub fn client(&self) -> Option<Client> {
        match self {
            Agent::Cli(installed) => Some(installed.client),
            Agent::Api(_) => None,
        }
    }
}

/// How a benchmark runs.
pub struct BenchOptions<'a> {
    pub agent: Agent<'a>,
    pub model: Option<String>,
    /// Runs per case and arm; a case's own `runs` when `None` (else 3).
    pub runs: Option<u32>,
    pub jobs: usize,
    /// Play the model from each case's script instead of the live provider.
    pub scripted: bool,
    pub isolation: &'a Isolation,
    pub cache_dir: Option<PathBuf>,
    /// Stop launching runs once this much was spent.
    pub max_cost_usd: Option<f64>,
    pub retries: u32,
    /// Where each run's scratch workspace and home are made; the system's
    /// temporary folder when `None`. Codex will not set up its sandbox under
    /// `/tmp`, so the CLI uses Hone's cache folder.
    pub scratch_dir: Option<PathBuf>,
    pub judge: Option<&'a dyn Judge>,
    pub prices: &'a PriceTable,
    pub cancel: Cancel,
    /// The API agent's turns go through its provider's batch API
    /// ([`super::batch`]), at the batch price.
    pub batch: bool,
    /// Only this part of the suite's runs.
    pub shard: Option<Shard>,
}

/// Claude Code's default model at the version Hone models (2.1.328): what
/// a preview prices when no model is chosen.
pub const DEFAULT_CLAUDE_MODEL: &str = "claude-opus-5-5";

/// Where finished runs are cached unless told: `$XDG_CACHE_HOME/hone/bench`,
/// shared by `hone bench` and the app, so either pays only for what changed.
pub fn default_cache_dir(env: &crate::clients::Environment) -> PathBuf {
    env.var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.home.join(".cache"))
        .join("hone/bench")
}

/// Where runs make their scratch workspaces and homes:
/// `$XDG_CACHE_HOME/hone/bench-scratch` (Codex will not set up its sandbox
/// under `/tmp`). Each run's folder is removed when it ends.
pub fn default_scratch_dir(env: &crate::clients::Environment) -> PathBuf {
    env.var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.home.join(".cache"))
        .join("hone/bench-scratch")
}

/// Runs per case and arm when neither the case nor the command says.
pub const DEFAULT_RUNS: u32 = 3;

impl BenchOptions<'_> {
    fn runs_of(&self, case: &TaskCase) -> u32 {
        self.runs.or(case.runs).unwrap_or(DEFAULT_RUNS).max(1)
    }

    /// What the runs pay of the model's price: half through a batch API.
    fn price_factor(&self) -> f64 {
        if self.batch { BATCH_PRICE_FACTOR } else { 1.0 }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Passed,
    Failed,
    /// An arm with the skill in which the agent never loaded it: this run
    /// measured nothing about the skill.
    NotLoaded,
    /// No grader applied to the run (an `llm` grader with no judge, say).
    Ungraded,
    /// The agent did not finish (it crashed, timed out, or the provider
    /// failed after every retry).
    Error,
}

/// One finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunResult {
    pub case: String,
    pub arm: String,
    pub run: u32,
    pub outcome: Outcome,
    pub graded: Vec<Graded>,
    pub transcript: Transcript,
    /// Files the run created or changed, with their text (cut to 4,000
    /// characters each).
    pub files: Vec<(String, String)>,
    pub seconds: f64,
    pub cost_usd: f64,
    /// Why the agent did not finish, for an error.
    pub status: String,
    /// Whether this result came from the cache.
    #[serde(default)]
    pub cached: bool,
}

/// Where a benchmark is: runs done of runs planned.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename = "BenchProgress")]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub last: Option<RunResult>,
}

/// One run to do.
pub(super) struct Job<'a> {
    pub case: &'a TaskCase,
    pub arm: &'a Arm,
    pub run: u32,
}

/// Every run of the suite (of its shard, if the options name one), by
/// case, run number and arm.
pub(super) fn jobs<'a>(
    suite: &'a TaskSuite,
    arms: &'a [Arm],
    options: &BenchOptions,
) -> Vec<Job<'a>> {
    let mut jobs = Vec::new();
    for case in &suite.cases {
        for run in 0..options.runs_of(case) {
            for arm in arms {
                jobs.push(Job { case, arm, run });
            }
        }
    }
    match options.shard {
        Some(shard) => jobs
            .into_iter()
            .enumerate()
            .filter(|(index, _)| shard.holds(*index))
            .map(|(_, job)| job)
            .collect(),
        None => jobs,
    }
}

/// One of `count` parts of a suite's runs (`index` from 1), so that several
/// machines split a suite: every `count`-th run, each run in one part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// `K/N`, with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let parsed = text
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if (1..=count).contains(&index) => Ok(Shard { index, count }),
            _ => Err(format!(
                "`{text}` is not a shard: K/N with 1 ≤ K ≤ N (1/3, 2/3 and 3/3 split a suite in three)"
            )),
        }
    }

    fn holds(self, run: usize) -> bool {
        run % self.count as usize == (self.index - 1) as usize
    }
}

/// Results in the suite's order: case, arm, run.
pub(super) fn sort_results(suite: &TaskSuite, arms: &[Arm], results: &mut [RunResult]) {
    results.sort_by_key(|r| {
        (
            suite.cases.iter().position(|c| c.name == r.case),
            arms.iter().position(|a| a.label == r.arm),
            r.run,
        )
    });
}

/// Every run of the suite: a run for each case, arm and run number, in
/// that order, with a reason when the benchmark stopped early.
pub fn run_suite(
    suite: &TaskSuite,
    skill: &SkillUnderTest,
    arms: &[Arm],
    options: &BenchOptions,
    progress: &(dyn Fn(&Progress) + Sync),
) -> (Vec<RunResult>, Option<String>) {
    let queue: VecDeque<Job> = jobs(suite, arms, options).into();
    let total = queue.len();
    let queue = Mutex::new(queue);
    let results: Mutex<Vec<RunResult>> = Mutex::new(Vec::new());
    let stopped: Mutex<Option<String>> = Mutex::new(None);
    let spent = Mutex::new(0.0f64);
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    if options.cancel.is_cancelled() {
                        set_once(&stopped, "cancelled: the finished runs are kept");
                        return;
                    }
                    if let Some(max) = options.max_cost_usd
                        && spent.lock().map_or(0.0, |s| *s) >= max
                    {
                        set_once(
                            &stopped,
                            &format!("stopped at the cost ceiling of ${max:.2}: the finished runs are kept"),
                        );
                        return;
                    }
                    let Some(job) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
                        return;
                    };
                    let result = cached_or_run(suite, skill, &job, options);
                    if let Ok(mut spent) = spent.lock() {
                        *spent += if result.cached { 0.0 } else { result.cost_usd };
                    }
                    let done = results.lock().map_or(0, |mut r| {
                        r.push(result.clone());
                        r.len()
                    });
                    progress(&Progress {
                        done,
                        total,
                        last: Some(result),
                    });
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    sort_results(suite, arms, &mut results);
    (results, stopped.into_inner().unwrap_or_default())
}

fn set_once(slot: &Mutex<Option<String>>, why: &str) {
    if let Ok(mut slot) = slot.lock()
        && slot.is_none()
    {
        *slot = Some(why.to_string());
    }
}

/// The cache key of a run.
pub(super) fn cache_key(options: &BenchOptions, case: &TaskCase, arm: &Arm, run: u32) -> String {
    let case_json = serde_json::to_string(case).unwrap_or_default();
    let (agent, version) = options.agent.id();
    let key = format!(
        "{}|{}|{}|{}|{}|{}|{}",
        agent,
        version,
        options.model.as_deref().unwrap_or("default"),
        if options.scripted { "scripted" } else { "live" },
        arm.content,
        case_json,
        run
    );
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
}

fn cached_or_run(
    suite: &TaskSuite,
    skill: &SkillUnderTest,
    job: &Job,
    options: &BenchOptions,
) -> RunResult {
    let key = cache_key(options, job.case, job.arm, job.run);
    if let Some(result) = cached(options, job, &key) {
        return result;
    }
    let result = run_with_retries(suite, skill, job, options);
    store(options, &key, &result);
    result
}

/// The job's result from the cache, if it holds one.
pub(super) fn cached(options: &BenchOptions, job: &Job, key: &str) -> Option<RunResult> {
    let file = options.cache_dir.as_ref()?.join(format!("{key}.json"));
    let mut result = serde_json::from_slice::<RunResult>(&std::fs::read(file).ok()?).ok()?;
    result.cached = true;
    // The arm's label may differ between benchmarks with the same content.
    result.arm = job.arm.label.clone();
    Some(result)
}

/// Caches a finished run; an error is not cached, so the next benchmark
/// tries again.
pub(super) fn store(options: &BenchOptions, key: &str, result: &RunResult) {
    if let Some(dir) = &options.cache_dir
        && result.outcome != Outcome::Error
        && std::fs::create_dir_all(dir).is_ok()
        && let Ok(bytes) = serde_json::to_vec(result)
    {
        let _ = crate::workspace::write_atomic(&dir.join(format!("{key}.json")), &bytes);
    }
}

fn run_with_retries(
    suite: &TaskSuite,
    skill: &SkillUnderTest,
    job: &Job,
    options: &BenchOptions,
) -> RunResult {
    let mut attempt = 0;
    loop {
        let result = run_once(suite, skill, job, options);
        if result.outcome != Outcome::Error || attempt >= options.retries {
            return result;
        }
        attempt += 1;
        // Backoff with full jitter, 2^attempt seconds at most.
        let wait = Duration::from_secs(1 << attempt.min(5)).mul_f64(fastrand::f64());
        if !options.cancel.sleep(wait) {
            return result;
        }
    }
}

pub(super) fn error_result(job: &Job, status: String) -> RunResult {
    RunResult {
        case: job.case.name.clone(),
        arm: job.arm.label.clone(),
        run: job.run,
        outcome: Outcome::Error,
        graded: Vec::new(),
        transcript: Transcript::default(),
        files: Vec::new(),
        seconds: 0.0,
        cost_usd: 0.0,
        status,
        cached: false,
    }
}

/// Lays out the workspace: fixtures, copied paths, inline files, and the
/// arm's skill in the agent's project skills folder.
fn prepare_workspace(
    suite: &TaskSuite,
    case: &TaskCase,
    arm: &Arm,
    client: Option<Client>,
    workspace: &Path,
) -> std::io::Result<()> {
    std::fs::create_dir_all(workspace.join(".git"))?;
    if let Some(fixtures) = &case.fixtures {
        capture::copy_tree(
            &suite.base.join(fixtures),
            workspace,
            Links::Skip,
            MAX_FILE_BYTES,
        )?;
    }
    for path in &case.copy {
        let from = suite.base.join(path);
        let to = workspace.join(path);
        if from.is_dir() {
            capture::copy_tree(&from, &to, Links::Skip, MAX_FILE_BYTES)?;
        } else {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(&from, &to)?;
        }
    }
    for (path, content) in &case.files {
        let to = workspace.join(path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(to, content)?;
    }
    if let (Some((dir, folder)), Some(client)) = (&arm.skill, client) {
        let target = client.install_folder(Scope::Project, workspace, folder);
        capture::copy_tree(dir, &target, Links::Skip, MAX_FILE_BYTES)?;
    }
    Ok(())
}

/// A run's scratch folder: its workspace and home laid out, and the
/// workspace's files before the agent started.
pub(super) struct Scratch {
    workspace: PathBuf,
    home: PathBuf,
    before: grade::Snapshot,
    _dir: tempfile::TempDir,
}

/// Lays out the job's scratch workspace and home.
pub(super) fn lay_out(
    suite: &TaskSuite,
    job: &Job,
    options: &BenchOptions,
) -> Result<Scratch, String> {
    let dir = match &options.scratch_dir {
        Some(dir) => std::fs::create_dir_all(dir)
            .and_then(|()| tempfile::Builder::new().prefix("run-").tempdir_in(dir)),
        None => tempfile::tempdir(),
    }
    .map_err(|_| "cannot make a scratch folder".to_string())?;
    let workspace = dir.path().join("workspace");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home)
        .and_then(|()| {
            prepare_workspace(suite, job.case, job.arm, options.agent.client(), &workspace)
        })
        .map_err(|e| format!("cannot lay out the workspace: {e}"))?;
    Ok(Scratch {
        before: grade::snapshot(&workspace),
        workspace,
        home,
        _dir: dir,
    })
}

/// The skill an arm offers an API agent, loaded.
pub(super) fn arm_skill(arm: &Arm) -> Option<crate::skill::Skill> {
    arm.skill
        .as_ref()
        .and_then(|(dir, _)| crate::skill::Skill::load(dir).ok())
}

/// What an API agent is offered of a loaded skill.
pub(super) fn offer(skill: &crate::skill::Skill) -> OfferedSkill<'_> {
    OfferedSkill {
        name: &skill.id,
        description: skill.meta.description.as_deref().unwrap_or_default(),
        skill_md: &skill.path,
    }
}

fn run_once(
    suite: &TaskSuite,
    skill: &SkillUnderTest,
    job: &Job,
    options: &BenchOptions,
) -> RunResult {
    let scratch = match lay_out(suite, job, options) {
        Ok(scratch) => scratch,
        Err(e) => return error_result(job, e),
    };
    let (transcript, seconds, status) = match &options.agent {
        Agent::Api(api) => {
            let started = std::time::Instant::now();
            let loaded = arm_skill(job.arm);
            let offered = loaded.as_ref().map(offer);
            match api.run(
                &job.case.prompt,
                offered.as_ref(),
                job.case.max_turns,
                &options.cancel,
            ) {
                Ok(transcript) => (
                    transcript,
                    started.elapsed().as_secs_f64(),
                    "finished".to_string(),
                ),
                Err(e) => return error_result(job, e),
            }
        }
        Agent::Cli(installed) => {
            let script = options.scripted.then(|| Script {
                steps: job.case.script.clone(),
                workspace: scratch.workspace.clone(),
            });
            let plan = Plan {
                installed: installed.clone(),
                project: scratch.workspace.clone(),
                home: scratch.home.clone(),
                model: options.model.clone(),
                vars: Vec::new(),
                timeout_secs: job.case.timeout,
                task: Some(Task {
                    prompt: job.case.prompt.clone(),
                    script,
                    allowed_tools: job.case.allowed_tools.clone(),
                    max_turns: job.case.max_turns,
                }),
                egress: None,
            };
            let captured = match capture::run(&plan, options.isolation) {
                Ok(captured) => captured,
                Err(e) => return error_result(job, e.to_string()),
            };
            let transcript = Transcript::parse(installed.client, &captured.stdout);
            let refused = if captured.refused.is_empty() {
                String::new()
            } else {
                format!(
                    "; it tried to reach {}, which a live run may not",
                    captured.refused.join(", ")
                )
            };
            if !transcript.finished {
                let why = super::transcript::stopped_because(installed.client, &captured.stdout)
                    .unwrap_or_else(|| captured.stderr_tail.trim().to_string());
                let mut result = error_result(
                    job,
                    format!(
                        "the agent did not finish ({}{refused}): {why}",
                        captured.status
                    ),
                );
                result.seconds = captured.seconds;
                result.transcript = transcript;
                return result;
            }
            (
                transcript,
                captured.seconds,
                format!("{}{refused}", captured.status),
            )
        }
    };
    graded(skill, job, options, &scratch, transcript, seconds, status)
}

/// A finished run, graded on its scratch workspace and priced.
pub(super) fn graded(
    skill: &SkillUnderTest,
    job: &Job,
    options: &BenchOptions,
    scratch: &Scratch,
    transcript: Transcript,
    seconds: f64,
    status: String,
) -> RunResult {
    let view = RunView {
        transcript: &transcript,
        workspace: &scratch.workspace,
        before: &scratch.before,
        skill: &skill.name,
        with_skill: job.arm.with_skill,
        home: &scratch.home,
    };
    let graded = grade::grade(&job.case.graders, &view, options.judge);
    let loaded = transcript.skills_loaded.iter().any(|s| s == &skill.name);
    let outcome = if job.arm.with_skill && !loaded {
        Outcome::NotLoaded
    } else if graded.iter().all(|g| g.passed.is_none()) {
        Outcome::Ungraded
    } else if graded.iter().all(|g| g.passed != Some(false)) {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    // A scripted run pays nothing, whatever the client computed.
    let cost_usd = if options.scripted {
        0.0
    } else {
        transcript.cost_usd.unwrap_or_else(|| {
            let model = match &options.agent {
                Agent::Api(api) => Some(api.model.as_str()),
                Agent::Cli(_) => options.model.as_deref(),
            };
            model
                .and_then(|m| options.prices.price(m))
                .map_or(0.0, |(_, price)| price.of(&transcript.usage))
                * options.price_factor()
        })
    };
    RunResult {
        case: job.case.name.clone(),
        arm: job.arm.label.clone(),
        run: job.run,
        outcome,
        graded,
        files: changed_files(&scratch.workspace, &scratch.before),
        transcript,
        seconds,
        cost_usd,
        status,
        cached: false,
    }
}

/// The files a run created or changed, with their text.
fn changed_files(workspace: &Path, before: &grade::Snapshot) -> Vec<(String, String)> {
    grade::snapshot(workspace)
        .into_iter()
        .filter(|(path, hash)| before.get(path) != Some(hash))
        .map(|(path, _)| {
            let text = std::fs::read(workspace.join(&path))
                .map(|b| String::from_utf8_lossy(&b).chars().take(4000).collect())
                .unwrap_or_default();
            (path, text)
        })
        .collect()
}

/// Why `client` cannot run a benchmark in this mode, if it cannot.
pub fn unsupported(client: Client, scripted: bool) -> Option<String> {
    match client {
        Client::ClaudeCode | Client::Codex | Client::Gemini | Client::Opencode => None,
        _ => Some(format!(
            "{} cannot run task evals yet: Hone reads the transcripts of Claude Code, Codex, Gemini CLI and OpenCode only",
            client.display_name()
        )),
    }
    .or_else(|| {
        (scripted && !script::supports(client))
            .then(|| format!("{} cannot be scripted", client.display_name()))
    })
}

/// Why the runs cannot start although they could be previewed: a live
/// agent CLI with no credential to sign in with.
pub fn cannot_start(agent: &Agent, model: Option<&str>, scripted: bool) -> Option<String> {
    match agent {
        Agent::Cli(installed) if !scripted => {
            capture::live_credentials_missing(installed.client, model)
        }
        _ => None,
    }
}

/// What the runs of `client` can reach over the network, as a sentence for
/// the confirmation: one wording for the CLI and the app.
pub fn network_note(
    client: Client,
    model: Option<&str>,
    scripted: bool,
    isolation: &Isolation,
) -> String {
    let isolated =
        matches!(isolation, Isolation::Namespace { .. }) && capture::namespaces_available();
    match (scripted, isolated) {
        (true, true) => "each run is in a network namespace with loopback only".into(),
        (true, false) => "the runs are not in a network namespace: the agent is pointed at the loopback stand-in but could reach the network".into(),
        (false, true) => match capture::live_destination(client, model) {
            Ok(provider) => format!(
                "each run is in a network namespace whose one way out is the provider at {provider}: anything else the agent tries to reach is refused"
            ),
            Err(why) => why,
        },
        (false, false) => {
            "the runs are not in a network namespace: the agent has this machine's network".into()
        }
    }
}

/// An agent CLI as a benchmark can use it: its installed version, and why
/// it cannot run live or scripted tasks, if it cannot.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskAgent {
    pub client: Client,
    /// Its display name (`Claude Code`).
    pub name: String,
    /// `None` when it is not installed where Hone looks.
    pub version: Option<String>,
    pub live_problem: Option<String>,
    pub scripted_problem: Option<String>,
}

/// The installed agent CLI that runs a benchmark in this mode, or why
/// none can.
pub fn find_task_agent(
    client: Client,
    scripted: bool,
    env: &crate::clients::Environment,
) -> Result<Installed, String> {
    if let Some(why) = unsupported(client, scripted) {
        return Err(why);
    }
    capture::find_installed(client, env).ok_or_else(|| not_installed(client, env))
}

fn not_installed(client: Client, env: &crate::clients::Environment) -> String {
    format!(
        "{} is not installed where Hone looks ({}); run scripts/install-clients.sh",
        client.display_name(),
        capture::clients_dir(env).display()
    )
}

/// Every agent CLI Hone knows, as a benchmark can use it here.
pub fn task_agents(env: &crate::clients::Environment) -> Vec<TaskAgent> {
    Client::ALL
        .into_iter()
        .map(|client| {
            let version = capture::find_installed(client, env).map(|i| i.version);
            let not_installed = || version.is_none().then(|| not_installed(client, env));
            TaskAgent {
                client,
                name: client.display_name().to_string(),
                live_problem: unsupported(client, false).or_else(not_installed),
                scripted_problem: unsupported(client, true).or_else(not_installed),
                version,
            }
        })
        .collect()
}

/// The model an agent uses when none is named, for the cost preview.
fn default_model(client: Option<Client>) -> &'static str {
    match client {
        Some(Client::Codex) => crate::clients::codex::DEFAULT_MODEL,
        Some(Client::Gemini) => crate::clients::gemini::DEFAULT_MODEL,
        Some(Client::Opencode) => crate::clients::opencode::DEFAULT_MODEL,
        _ => DEFAULT_CLAUDE_MODEL,
    }
}

/// Why a benchmark estimated at `preview` must not start under a ceiling
/// of `max_usd`: the estimate is over it, or a live run's price is unknown
/// (a scripted run is free).
pub fn over_ceiling(preview: &CostPreview, max_usd: Option<f64>, scripted: bool) -> Option<String> {
    let max = max_usd?;
    match preview.usd {
        Some(usd) if usd > max => Some(format!(
            "the estimate ${usd:.2} is over the ceiling of ${max:.2}"
        )),
        None if !scripted => Some(format!(
            "a cost ceiling needs a price for {}: name a model with a known price, or give a price file",
            preview.model
        )),
        _ => None,
    }
}

/// What the runs are expected to use and cost, before any is made.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CostPreview {
    pub runs: usize,
    /// Runs answered from the cache (free).
    pub cached: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when the model's price is unknown.
    pub usd: Option<f64>,
    pub model: String,
    pub basis: String,
}

/// Tokens of an agent's own first request before any skill or prompt: its
/// system prompt, tool definitions and reminders, in a request the real
/// client sent to the stand-in. Claude Code 2.1.328: 50,283 characters of
/// JSON, ~13,267 tokens by Hone's Claude estimate; Codex 0.171.0: 37,668
/// characters, 8,487 o200k tokens; Gemini CLI 0.61.0 with its tools offered:
/// 48,677 characters, 10,585 o200k tokens; OpenCode 1.18.33: 30,880
/// characters, 6,919 o200k tokens.
/// A model API agent has a one-line system prompt and one tool.
pub fn base_tokens(client: Option<Client>) -> u64 {
    match client {
        Some(Client::Codex) => 8_500,
        Some(Client::Gemini) => 10_500,
        Some(Client::Opencode) => 7_000,
        Some(_) => 13_000,
        None => 100,
    }
}
/// Turns a task run is assumed to take: load the skill, act, check, answer.
const ESTIMATED_TURNS: u64 = 4;
/// Output tokens assumed per turn.
const ESTIMATED_OUTPUT_PER_TURN: u64 = 400;

/// An estimate of what the runs that are not cached will cost, with the
/// agent's default model ([`default_model`]) unless the options name one.
pub fn preview(suite: &TaskSuite, arms: &[Arm], options: &BenchOptions) -> CostPreview {
    let client = options.agent.client();
    let tokenizer = options.agent.tokenizer();
    let base = base_tokens(client);
    let model = match &options.agent {
        // The API agent knows its model, defaulted or not.
        Agent::Api(api) => api.model.clone(),
        Agent::Cli(_) => options
            .model
            .clone()
            .unwrap_or_else(|| default_model(client).to_string()),
    };
    let price = options.prices.price(&model);
    let (mut runs, mut cached) = (0, 0);
    let mut usage = Usage::default();
    for Job { case, arm, run } in jobs(suite, arms, options) {
        runs += 1;
        let key = cache_key(options, case, arm, run);
        if options
            .cache_dir
            .as_ref()
            .is_some_and(|d| d.join(format!("{key}.json")).is_file())
        {
            cached += 1;
            continue;
        }
        let skill_tokens = arm.skill.as_ref().map_or(0, |(dir, _)| {
            std::fs::read_to_string(dir.join("SKILL.md"))
                .map(|t| tokenizer.count(&t) as u64)
                .unwrap_or(0)
        });
        let prompt = tokenizer.count(&case.prompt) as u64;
        // The agent's base prompt is cached after the first turn.
        let per_turn = prompt + skill_tokens + 500;
        usage.add(&Usage {
            input_tokens: per_turn * ESTIMATED_TURNS,
            output_tokens: ESTIMATED_OUTPUT_PER_TURN * ESTIMATED_TURNS,
            cache_write_tokens: base,
            cache_read_tokens: base * (ESTIMATED_TURNS - 1),
        });
    }
    CostPreview {
        runs,
        cached,
        input_tokens: usage.input_tokens + usage.cache_write_tokens + usage.cache_read_tokens,
        output_tokens: usage.output_tokens,
        usd: if options.scripted {
            Some(0.0)
        } else {
            price.map(|(_, p)| p.of(&usage) * options.price_factor())
        },
        model,
        basis: format!(
            "{ESTIMATED_TURNS} turns a run, {ESTIMATED_OUTPUT_PER_TURN} output tokens a turn, the agent's own ~{base}-token prompt cached after the first turn{}; a run that takes more turns costs more",
            if options.batch {
                ", at the batch price (half)"
            } else {
                ""
            }
        ),
    }
}
