//! The Benchmark tab's commands: does the skill help? The task suites of the
//! open library, a suite's cases, what a benchmark would send and cost, the
//! run itself (progress as events, Cancel keeping the finished runs), and
//! the report an author keeps to compare later runs with.
//!
//! Everything is `hone_core::bench`'s, as `hone bench` runs it: this module
//! picks the library's pieces, builds the options and carries the results
//! across. The agent runs its tasks in scratch workspaces, never in the
//! library. A scripted run is isolated the way the CLI isolates it, by
//! re-executing the `hone` CLI (`hone clients capture-inside`) in a network
//! namespace; the app finds `hone` beside itself or on `PATH`, and without
//! it the scripted agent runs unisolated, which the preview says.
//!
//! The last report of each suite is kept in memory for the session; one the
//! author keeps goes to the library's `evals/bench-runs/`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hone_core::agent::PriceTable;
use hone_core::bench::judge::{AnthropicJudge, Judge};
use hone_core::bench::run::{self, Agent, Arm, ArmSpec, BenchOptions, SkillUnderTest, TaskAgent};
use hone_core::bench::{
    self, BenchReport, CostPreview, Progress, ReportHeader, TaskSuite, TaskSuiteError,
};
use hone_core::cancel::Cancel;
use hone_core::clients::capture::{Installed, Isolation};
use hone_core::clients::{Client, Environment};
use hone_core::workspace::{self, SaveError, Stamp};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::agent::AgentState;
use crate::commands::{AppState, CommandError, CommandResult, TaskSlot, blocking, lock};
use crate::events::AppEvent;
use crate::ipc::{ErrorKind, SourcePosition};
use crate::session::{Session, display};

/// Runs of one benchmark at once: the machine's agents share its cores.
const JOBS: usize = 2;
/// Retries of a run the agent did not finish, as `hone bench`'s default.
const RETRIES: u32 = 2;

/// The benchmark in progress and the last report of each suite.
#[derive(Default)]
pub struct BenchState {
    running: TaskSlot,
    last: Mutex<HashMap<PathBuf, BenchReport>>,
}

/// A task suite of the library, as the suite picker lists it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TaskSuiteSummary {
    pub path: String,
    /// The path in the library (`greet/evals/tasks/greet.yaml`).
    pub label: String,
    pub name: Option<String>,
    pub cases: usize,
    /// Why it cannot be read.
    pub error: Option<String>,
    /// Whether cases can be added here (YAML suites; imports are read as they are).
    pub editable: bool,
}

/// One suite with what the tab shows beside its cases.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TaskSuiteView {
    pub path: String,
    pub label: String,
    pub suite: TaskSuite,
    /// The skill under test.
    pub skill: Option<String>,
    /// Why no skill could be chosen.
    pub skill_problem: Option<String>,
    /// The file as read, so an added case never overwrites a change made since.
    pub stamp: Option<Stamp>,
    pub editable: bool,
    /// This session's last report of the suite.
    pub last: Option<BenchReport>,
    /// The report the author kept, to compare with.
    pub kept: Option<BenchReport>,
}

/// What to run: the arms, runs per case and arm, the agent and its model,
/// and whether the model is the scripted stand-in.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct BenchChoice {
    /// `with`, `without`, `git:REV`, `path:DIR` or `skill:NAME`.
    pub arms: Vec<String>,
    pub runs: u32,
    pub agent: Client,
    pub model: Option<String>,
    pub scripted: bool,
    /// The Anthropic model that judges `llm` graders; without one they do not apply.
    pub judge: Option<String>,
    /// The most the runs may cost, in US dollars: a run estimated above it
    /// is refused, and no run starts once this much was spent.
    pub max_cost_usd: Option<f64>,
}

/// What a benchmark will do and cost, and what leaves the machine.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct BenchPreview {
    pub cost: CostPreview,
    pub cases: usize,
    pub arms: Vec<String>,
    pub skill: String,
    /// The agent and its version (`Claude Code 2.1.328`).
    pub agent: String,
    /// Where the prompts, the skill and the workspace files go, in words.
    pub destination: String,
    /// How a scripted run is kept off the network, in words.
    pub isolation: Option<String>,
    /// Where the judge sends the agent's work, in words, when there is one.
    pub judge: Option<String>,
    /// Why the benchmark must not start under the chosen cost ceiling.
    pub over_ceiling: Option<String>,
}

/// A case to add to a task suite: the request tried in the query panel.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct NewTaskCase {
    pub prompt: String,
    /// The file as the window last read it; `None` adds whatever changed since.
    pub stamp: Option<Stamp>,
}

/// A suite that cannot be read: its message, and where.
impl From<TaskSuiteError> for CommandError {
    fn from(error: TaskSuiteError) -> Self {
        Self {
            kind: ErrorKind::Invalid,
            position: Some(SourcePosition {
                path: error.path.display().to_string(),
                line: error.line,
                column: error.column,
            }),
            message: error.message,
        }
    }
}

fn library_root(session: &Session) -> CommandResult<PathBuf> {
    session
        .project_root()
        .map(Path::to_path_buf)
        .ok_or_else(|| CommandError::unavailable("no library is open"))
}

fn label(root: &Path, path: &Path) -> String {
    display(path.strip_prefix(root).unwrap_or(path))
}

fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

/// The task suites of the open library.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn bench_suites(app: AppHandle) -> CommandResult<Vec<TaskSuiteSummary>> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let root = library_root(&session)?;
        Ok(bench::suite::find_suites(&root)
            .into_iter()
            .map(|path| {
                let loaded = TaskSuite::load(&path);
                TaskSuiteSummary {
                    label: label(&root, &path),
                    name: loaded.as_ref().ok().map(|s| s.name.clone()),
                    cases: loaded.as_ref().map_or(0, |s| s.cases.len()),
                    error: loaded.as_ref().err().map(ToString::to_string),
                    editable: is_yaml(&path) && loaded.is_ok(),
                    path: display(&path),
                }
            })
            .collect())
    })
    .await
}

/// The suite at `path`: its cases, the skill under test, the last report
/// and the kept one.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn bench_suite(app: AppHandle, path: String) -> CommandResult<TaskSuiteView> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let path = session.confine(&path)?;
        suite_view(&app, &library_root(&session)?, &path)
    })
    .await
}

fn suite_view(app: &AppHandle, root: &Path, path: &Path) -> CommandResult<TaskSuiteView> {
    let stamp = path
        .is_file()
        .then(|| workspace::read_stamped(path).ok().map(|(_, stamp)| stamp))
        .flatten();
    let suite = TaskSuite::load(path)?;
    let (skill, skill_problem) = match run::skill_for_suite(root, &suite, path) {
        Ok(skill) => (Some(skill.name), None),
        Err(why) => (None, Some(why)),
    };
    let kept = bench::kept(root, path).map_err(CommandError::failed)?;
    Ok(TaskSuiteView {
        path: display(path),
        label: label(root, path),
        editable: is_yaml(path),
        last: lock(&app.state::<BenchState>().last).get(path).cloned(),
        suite,
        skill,
        skill_problem,
        stamp,
        kept,
    })
}

/// A benchmark made concrete: the suite, the skill, the arms and the agent.
struct Prepared {
    path: PathBuf,
    suite: TaskSuite,
    skill: SkillUnderTest,
    arms: Vec<Arm>,
    installed: Installed,
    isolation: Isolation,
    cache_dir: PathBuf,
    scratch_dir: PathBuf,
    prices: PriceTable,
    judge: Option<AnthropicJudge>,
}

impl Prepared {
    fn new(app: &AppHandle, path: &str, choice: &BenchChoice) -> CommandResult<Prepared> {
        let session = app.state::<AppState>().session();
        let root = library_root(&session)?;
        let path = session.confine(path)?;
        let env = Environment::current();
        let installed = run::find_task_agent(choice.agent, choice.scripted, &env)
            .map_err(CommandError::unavailable)?;
        let suite = TaskSuite::load(&path)?;
        let skill = run::skill_for_suite(&root, &suite, &path).map_err(CommandError::invalid)?;
        let specs = choice
            .arms
            .iter()
            .map(|a| ArmSpec::parse(a))
            .collect::<Result<Vec<_>, _>>()
            .map_err(CommandError::invalid)?;
        if specs.is_empty() {
            return Err(CommandError::invalid("choose at least one arm"));
        }
        let arms = run::prepare_arms(&root, &skill, &specs).map_err(CommandError::invalid)?;
        let judge = match choice.judge.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(model) => {
                let key = app.state::<AgentState>().anthropic_key().ok_or_else(|| {
                    CommandError::unavailable(
                        "the judge needs an Anthropic key: set ANTHROPIC_API_KEY, or enter it in the Agent panel",
                    )
                })?;
                Some(AnthropicJudge::new(model, key, None))
            }
        };
        Ok(Prepared {
            path,
            suite,
            skill,
            arms,
            installed,
            isolation: isolation(),
            cache_dir: run::default_cache_dir(&env),
            scratch_dir: run::default_scratch_dir(&env),
            prices: PriceTable::bundled(),
            judge,
        })
    }

    fn options(&self, choice: &BenchChoice, cancel: Cancel) -> BenchOptions<'_> {
        BenchOptions {
            agent: Agent::Cli(self.installed.clone()),
            model: choice.model.clone().filter(|m| !m.trim().is_empty()),
            runs: Some(choice.runs.max(1)),
            jobs: JOBS,
            scripted: choice.scripted,
            isolation: &self.isolation,
            cache_dir: Some(self.cache_dir.clone()),
            max_cost_usd: choice.max_cost_usd,
            retries: RETRIES,
            scratch_dir: Some(self.scratch_dir.clone()),
            judge: self.judge.as_ref().map(|j| j as &dyn Judge),
            prices: &self.prices,
            cancel,
            batch: false,
            shard: None,
        }
    }

    /// What the benchmark would run, cost and send.
    fn preview(&self, choice: &BenchChoice) -> BenchPreview {
        let options = self.options(choice, Cancel::new());
        let cost = run::preview(&self.suite, &self.arms, &options);
        let destination = if choice.scripted {
            "Nothing leaves this machine: the agent's model is a scripted stand-in on loopback that follows each case's script.".to_string()
        } else {
            format!(
                "The prompts, the skill and the workspace files of every run go to {}'s provider ({}), under your own login or key.",
                choice.agent.display_name(),
                cost.model
            )
        };
        BenchPreview {
            cases: self.suite.cases.len(),
            arms: self.arms.iter().map(|a| a.label.clone()).collect(),
            skill: self.skill.name.clone(),
            agent: self.agent(),
            destination,
            isolation: Some(isolation_note(&self.isolation, choice)),
            judge: self.judge.as_ref().map(|_| {
                "`llm` graders send each run's reply and files to Anthropic's API, under your key."
                    .to_string()
            }),
            over_ceiling: run::over_ceiling(&cost, choice.max_cost_usd, choice.scripted),
            cost,
        }
    }

    fn agent(&self) -> String {
        format!(
            "{} {}",
            self.installed.client.display_name(),
            self.installed.version
        )
    }
}

/// `hone clients capture-inside` in a network namespace, as `hone bench`
/// isolates a scripted run; no isolation without the `hone` CLI.
fn isolation() -> Isolation {
    match crate::serving::hone_program() {
        Some(hone) => Isolation::Namespace {
            reexec: vec![
                OsString::from(hone),
                OsString::from("clients"),
                OsString::from("capture-inside"),
            ],
        },
        None => Isolation::None,
    }
}

fn isolation_note(isolation: &Isolation, choice: &BenchChoice) -> String {
    let note = run::network_note(
        choice.agent,
        choice.model.as_deref(),
        choice.scripted,
        isolation,
    );
    match isolation {
        Isolation::Namespace { .. } => note,
        Isolation::None => {
            format!("the `hone` CLI is neither beside the app nor on PATH, so {note}")
        }
    }
}

/// What the benchmark of the suite at `path` with `choice` would run, cost
/// and send.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn bench_preview(
    app: AppHandle,
    path: String,
    choice: BenchChoice,
) -> CommandResult<BenchPreview> {
    blocking(move || {
        let prepared = Prepared::new(&app, &path, &choice)?;
        Ok(prepared.preview(&choice))
    })
    .await
}

/// Runs the benchmark of the suite at `path`; each finished run goes out as
/// a `bench_progress` event. [`bench_cancel`] stops it between runs, and the
/// report then holds the runs that finished.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn bench_run(
    app: AppHandle,
    path: String,
    choice: BenchChoice,
) -> CommandResult<BenchReport> {
    blocking(move || {
        let prepared = Prepared::new(&app, &path, &choice)?;
        if let Some(why) = prepared.preview(&choice).over_ceiling {
            return Err(CommandError::invalid(format!("{why}; nothing was run")));
        }
        let agent = Agent::Cli(prepared.installed.clone());
        if let Some(why) = run::cannot_start(&agent, choice.model.as_deref(), choice.scripted) {
            return Err(CommandError::unavailable(why));
        }
        let bench_state = app.state::<BenchState>();
        let task = bench_state
            .running
            .start()
            .ok_or_else(|| CommandError::unavailable("a benchmark is already running"))?;
        let options = prepared.options(&choice, task.cancel.clone());
        let state = app.state::<AppState>();
        let progress = |p: &Progress| state.send(AppEvent::BenchProgress(p.clone()));
        let (runs, stopped) = run::run_suite(
            &prepared.suite,
            &prepared.skill,
            &prepared.arms,
            &options,
            &progress,
        );
        drop(task);
        let labels: Vec<(String, bool)> = prepared
            .arms
            .iter()
            .map(|a| (a.label.clone(), a.with_skill))
            .collect();
        let cases: Vec<String> = prepared
            .suite
            .cases
            .iter()
            .map(|c| c.name.clone())
            .collect();
        let report = bench::summarize(
            ReportHeader {
                suite: prepared.suite.name.clone(),
                skill: prepared.skill.name.clone(),
                agent: choice.agent.as_str().to_string(),
                agent_version: prepared.installed.version.clone(),
                model: options.model.clone(),
                scripted: choice.scripted,
                notes: prepared.suite.notes.clone(),
            },
            &labels,
            &cases,
            runs,
            stopped,
        );
        lock(&bench_state.last).insert(prepared.path.clone(), report.clone());
        Ok(report)
    })
    .await
}

/// The agent CLIs a benchmark can run here, and why each cannot, if it cannot.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn bench_agents() -> CommandResult<Vec<TaskAgent>> {
    blocking(|| Ok(run::task_agents(&Environment::current()))).await
}

/// Stops the benchmark in progress, if any, between runs.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn bench_cancel(app: AppHandle) -> bool {
    app.state::<BenchState>().running.cancel()
}

/// Keeps this session's last report of the suite at `path` in the library's
/// `evals/bench-runs/`, for later runs to be compared with; answers the
/// suite as the tab shows it now.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn bench_keep(app: AppHandle, path: String) -> CommandResult<TaskSuiteView> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let root = library_root(&session)?;
        let path = session.confine(&path)?;
        let report = lock(&app.state::<BenchState>().last)
            .get(&path)
            .cloned()
            .ok_or_else(|| CommandError::unavailable("no benchmark of this suite to keep yet"))?;
        bench::keep(&root, &path, &report).map_err(|e| CommandError::io(&e))?;
        suite_view(&app, &root, &path)
    })
    .await
}

/// Appends a case asking `request.prompt` to the YAML task suite at `path`,
/// the file's comments and layout kept. Refuses when the file changed since
/// `request.stamp` was read, so the window can ask first.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn bench_add_case(
    app: AppHandle,
    path: String,
    request: NewTaskCase,
) -> CommandResult<TaskSuiteView> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let root = library_root(&session)?;
        let path = session.confine(&path)?;
        if !is_yaml(&path) {
            return Err(CommandError::invalid(
                "cases can be added to YAML task suites only; an imported suite is read as it is",
            ));
        }
        let (bytes, on_disk) = workspace::read_stamped(&path).map_err(|e| CommandError::io(&e))?;
        let expected = request.stamp.unwrap_or(on_disk);
        let text = String::from_utf8(bytes)
            .map_err(|_| CommandError::invalid(format!("{} is not UTF-8", path.display())))?;
        let edited = bench::edit::append_case(&path, &text, &request.prompt)?;
        workspace::save_atomic(&path, edited.as_bytes(), Some(&expected)).map_err(|e| match e {
            SaveError::Conflict { .. } => CommandError::new(
                ErrorKind::Conflict,
                format!("{} changed on disk since it was read", label(&root, &path)),
            ),
            SaveError::Io(e) => CommandError::io(&e),
        })?;
        suite_view(&app, &root, &path)
    })
    .await
}
