//! An API agent's runs through its provider's batch API, at half the price
//! and up to a day's wait: Anthropic's Message Batches, OpenAI's Batch API.
//!
//! A run of the tool loop takes several turns, and each turn needs the
//! answer to the one before, so a benchmark goes in rounds: each round
//! collects the batches that ended, takes their answers into the runs'
//! conversations ([`Conversation`]), grades and caches the runs that
//! finished, and submits the next turn of every other run as one new batch.
//! What is in flight (the batches' ids, the runs' conversations) is kept in
//! a state file in the cache folder, so the same command run later resumes
//! collecting where the last one stopped and never submits a turn twice.
//!
//! A request the provider did not answer (it expired, failed, or its batch
//! was cancelled) makes its run an error in this round's report; the run
//! keeps its conversation and its turn is submitted again on the next
//! invocation. Finished runs land in the same cache as runs made call by
//! call, so cache folders from several machines merge by copying as before;
//! the state file is one invocation's at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::api::{ApiAgent, Conversation};
use super::run::{self, Agent, Arm, BenchOptions, Job, RunResult, Shard, SkillUnderTest};

/// The suite's runs by cache key.
type Jobs<'a> = BTreeMap<String, Job<'a>>;
use super::suite::TaskSuite;
use crate::cancel::Cancel;

/// Where batch state files live, inside the cache folder.
const STATE_DIR: &str = "batches";

/// What is in flight for one suite, agent and model.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Batches submitted and not yet collected.
    #[serde(default)]
    in_flight: Vec<InFlight>,
    /// Runs not finished, by cache key.
    #[serde(default)]
    runs: BTreeMap<String, Pending>,
}

#[derive(Debug, Serialize, Deserialize)]
struct InFlight {
    /// The provider's id of the batch.
    id: String,
    /// The cache keys of the runs whose turn it holds (its `custom_id`s).
    runs: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Pending {
    conversation: Conversation,
    /// The batch holding the run's next turn.
    batch: Option<String>,
    /// Why the run's last turn got no answer; it is submitted again on the
    /// next invocation.
    error: Option<String>,
    /// When the run's first turn was submitted (Unix seconds).
    started: u64,
}

/// Where a batched benchmark stands after an invocation.
#[derive(Debug)]
pub struct Batched {
    /// Every run with a result: finished (now or earlier, from the cache)
    /// or failed in this invocation.
    pub results: Vec<RunResult>,
    /// Runs whose next turn is in a batch.
    pub waiting: usize,
    /// The provider's ids of the batches in flight.
    pub batches: Vec<String>,
    /// Turns submitted by this invocation.
    pub submitted: usize,
    /// Problems that stopped nothing (a batch that could not be polled).
    pub notes: Vec<String>,
}

/// How long to wait for batches: not at all (one round, then return), or
/// polling every `poll` until none is in flight.
#[derive(Debug, Clone, Copy)]
pub enum Wait {
    No,
    Poll(Duration),
}

/// The state file of the suite at `suite_path` (of its shard, if the
/// options name one) for `agent`'s model and endpoint: runs of another
/// suite or shard never share it, so no invocation drops another's runs.
fn state_path(
    cache_dir: &Path,
    suite_path: &Path,
    agent: &ApiAgent,
    shard: Option<Shard>,
) -> PathBuf {
    let suite = std::fs::canonicalize(suite_path).unwrap_or_else(|_| suite_path.to_path_buf());
    let key = format!(
        "{}|{}|{}|{}|{:?}",
        agent.api().name(),
        agent.model,
        agent.base_url(),
        suite.display(),
        shard.map(|s| (s.index, s.count))
    );
    cache_dir.join(STATE_DIR).join(format!(
        "{}-{:016x}.json",
        agent.api().name(),
        xxhash_rust::xxh3::xxh3_64(key.as_bytes())
    ))
}

/// Runs the suite through the batch API: rounds until no batch is in
/// flight when `wait` polls, else one round. Cancelling stops waiting;
/// the batches keep running and the next invocation collects them.
pub fn run_batched(
    suite: &TaskSuite,
    suite_path: &Path,
    skill: &SkillUnderTest,
    arms: &[Arm],
    options: &BenchOptions,
    wait: Wait,
) -> Result<Batched, String> {
    let Agent::Api(agent) = &options.agent else {
        return Err("only a model API agent (anthropic, openai) runs through a batch API".into());
    };
    let Some(cache_dir) = &options.cache_dir else {
        return Err("--batch keeps what is in flight in the cache folder: drop --no-cache".into());
    };
    let path = state_path(cache_dir, suite_path, agent, options.shard);
    let mut state: State = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: not a batch state file ({e})", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::default(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    // The turns that failed last time are tried again now.
    for pending in state.runs.values_mut() {
        pending.error = None;
    }
    let jobs: Jobs = run::jobs(suite, arms, options)
        .into_iter()
        .map(|job| (run::cache_key(options, job.case, job.arm, job.run), job))
        .collect();
    let mut submitted = 0;
    let mut errors: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let notes = collect(agent, &mut state, &mut errors, &jobs, &options.cancel);
        let mut results = finish(suite, skill, &jobs, options, &mut state, &errors);
        submitted += submit(agent, &mut state, &mut errors, &jobs, &options.cancel);
        save(&path, &state)?;
        // Runs that failed are reported now and tried again next time.
        for (key, error) in &errors {
            if let Some(job) = jobs.get(key) {
                results.push(run::error_result(job, error.clone()));
            }
        }
        run::sort_results(suite, arms, &mut results);
        let waiting = state.runs.values().filter(|p| p.batch.is_some()).count();
        let done = Batched {
            results,
            waiting,
            batches: state.in_flight.iter().map(|b| b.id.clone()).collect(),
            submitted,
            notes,
        };
        match wait {
            Wait::Poll(poll) if waiting > 0 && options.cancel.sleep(poll) => {}
            _ => return Ok(done),
        }
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn save(path: &Path, state: &State) -> Result<(), String> {
    crate::workspace::write_json_atomic(path, state)
        .map_err(|e| format!("cannot keep the batch state in {}: {e}", path.display()))
}

/// Collects every batch that ended: its answers go into the runs'
/// conversations, its failures into `errors`. A batch that cannot be
/// polled stays in flight, with a note.
fn collect(
    agent: &ApiAgent,
    state: &mut State,
    errors: &mut BTreeMap<String, String>,
    jobs: &Jobs,
    cancel: &Cancel,
) -> Vec<String> {
    let mut notes = Vec::new();
    let mut still = Vec::new();
    for batch in std::mem::take(&mut state.in_flight) {
        let (status, mut answers) = match poll(agent, &batch.id, cancel) {
            Ok(Polled::Running) => {
                still.push(batch);
                continue;
            }
            Ok(Polled::Ended { status, answers }) => (status, answers),
            Err(e) => {
                notes.push(format!("batch {} could not be read: {e}", batch.id));
                still.push(batch);
                continue;
            }
        };
        for key in &batch.runs {
            let Some(job) = jobs.get(key) else {
                // The suite changed since the turn was submitted.
                state.runs.remove(key);
                continue;
            };
            let Some(pending) = state.runs.get_mut(key) else {
                continue;
            };
            pending.batch = None;
            let answer = answers
                .remove(key)
                .unwrap_or_else(|| Err(format!("the batch ended {status} without an answer")));
            let loaded = run::arm_skill(job.arm);
            let offered = loaded.as_ref().map(run::offer);
            let taken = answer.and_then(|answer| {
                agent.take_answer(
                    &mut pending.conversation,
                    &answer,
                    offered.as_ref(),
                    job.case.max_turns,
                )
            });
            if let Err(e) = taken {
                errors.insert(key.clone(), format!("batch {}: {e}", batch.id));
                pending.error = Some(e);
            }
        }
    }
    state.in_flight = still;
    notes
}

/// Every run's result that is known: from the cache, or finished now
/// (graded, cached, and dropped from the state).
fn finish(
    suite: &TaskSuite,
    skill: &SkillUnderTest,
    jobs: &Jobs,
    options: &BenchOptions,
    state: &mut State,
    errors: &BTreeMap<String, String>,
) -> Vec<RunResult> {
    let mut results = Vec::new();
    for (key, job) in jobs {
        if let Some(result) = run::cached(options, job, key) {
            state.runs.remove(key);
            results.push(result);
            continue;
        }
        if errors.contains_key(key) {
            continue;
        }
        let pending = state.runs.entry(key.clone()).or_insert_with(|| Pending {
            conversation: Conversation::new(&job.case.prompt),
            batch: None,
            error: None,
            started: now(),
        });
        if !pending.conversation.finished() {
            continue;
        }
        let seconds = now().saturating_sub(pending.started) as f64;
        let transcript = pending.conversation.transcript.clone();
        let result = match run::lay_out(suite, job, options) {
            Ok(scratch) => run::graded(
                skill,
                job,
                options,
                &scratch,
                transcript,
                seconds,
                "finished in a batch".into(),
            ),
            Err(e) => run::error_result(job, e),
        };
        run::store(options, key, &result);
        state.runs.remove(key);
        results.push(result);
    }
    results
}

/// Submits the next turn of every run that is neither finished, in a
/// batch nor failed, as one batch; the turns submitted. A batch the
/// provider refused makes its runs errors.
fn submit(
    agent: &ApiAgent,
    state: &mut State,
    errors: &mut BTreeMap<String, String>,
    jobs: &Jobs,
    cancel: &Cancel,
) -> usize {
    let mut requests = Vec::new();
    for (key, pending) in &state.runs {
        if pending.batch.is_some() || pending.error.is_some() || pending.conversation.finished() {
            continue;
        }
        let Some(job) = jobs.get(key) else {
            continue;
        };
        let loaded = run::arm_skill(job.arm);
        let offered = loaded.as_ref().map(run::offer);
        requests.push((
            key.clone(),
            agent.request(&pending.conversation, offered.as_ref()),
        ));
    }
    if requests.is_empty() || cancel.is_cancelled() {
        return 0;
    }
    let keys: Vec<String> = requests.iter().map(|(key, _)| key.clone()).collect();
    match create(agent, requests, cancel) {
        Ok(id) => {
            for key in &keys {
                if let Some(pending) = state.runs.get_mut(key) {
                    pending.batch = Some(id.clone());
                }
            }
            state.in_flight.push(InFlight {
                id,
                runs: keys.clone(),
            });
            keys.len()
        }
        Err(e) => {
            for key in keys {
                errors.insert(key.clone(), format!("the batch was not submitted: {e}"));
                if let Some(pending) = state.runs.get_mut(&key) {
                    pending.error = Some(e.clone());
                }
            }
            0
        }
    }
}

/// A batch's answers by `custom_id`: the model's answer, or why there is none.
type Answers = BTreeMap<String, Result<Value, String>>;

/// Where a batch stands.
enum Polled {
    Running,
    /// It ended (`status` in the provider's words) with these answers.
    Ended {
        status: String,
        answers: Answers,
    },
}

/// Creates a batch of `requests` (`custom_id`, request body); its id.
fn create(
    agent: &ApiAgent,
    requests: Vec<(String, Value)>,
    cancel: &Cancel,
) -> Result<String, String> {
    let batch = match (agent.messages_api(), agent.chat_api()) {
        (Some(api), _) => {
            let requests = requests
                .into_iter()
                .map(|(custom_id, params)| json!({"custom_id": custom_id, "params": params}))
                .collect();
            api.create_batch(requests, cancel)
        }
        (None, Some(api)) => {
            let jsonl: String = requests
                .into_iter()
                .map(|(custom_id, body)| {
                    format!(
                        "{}\n",
                        json!({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body})
                    )
                })
                .collect();
            let file = api
                .upload_batch_file(&jsonl, cancel)
                .map_err(|e| format!("the input file was not uploaded: {e}"))?;
            let file_id = file["id"]
                .as_str()
                .ok_or_else(|| format!("an uploaded file without an id: {}", short(&file)))?;
            api.create_batch(file_id, cancel)
        }
        (None, None) => unreachable!("an API agent has an endpoint"),
    }
    .map_err(|e| e.to_string())?;
    batch["id"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("a batch without an id: {}", short(&batch)))
}

fn poll(agent: &ApiAgent, id: &str, cancel: &Cancel) -> Result<Polled, String> {
    match (agent.messages_api(), agent.chat_api()) {
        (Some(api), _) => {
            let batch = api.batch(id, cancel).map_err(|e| e.to_string())?;
            if batch["processing_status"] != "ended" {
                return Ok(Polled::Running);
            }
            let url = batch["results_url"].as_str().ok_or_else(|| {
                format!("an ended batch without a results_url: {}", short(&batch))
            })?;
            let results = api.batch_results(url, cancel).map_err(|e| e.to_string())?;
            Ok(Polled::Ended {
                status: "ended".into(),
                answers: messages_answers(&results),
            })
        }
        (None, Some(api)) => {
            let batch = api.batch(id, cancel).map_err(|e| e.to_string())?;
            let status = batch["status"].as_str().unwrap_or_default().to_string();
            if matches!(
                status.as_str(),
                "validating" | "in_progress" | "finalizing" | "cancelling"
            ) {
                return Ok(Polled::Running);
            }
            let mut answers = Answers::new();
            for file in ["output_file_id", "error_file_id"] {
                if let Some(file_id) = batch[file].as_str() {
                    let lines = api
                        .file_content(file_id, cancel)
                        .map_err(|e| e.to_string())?;
                    answers.extend(chat_answers(&lines));
                }
            }
            if let Some(error) = batch["errors"]["data"][0]["message"].as_str() {
                return Ok(Polled::Ended {
                    status: format!("{status} ({error})"),
                    answers,
                });
            }
            Ok(Polled::Ended { status, answers })
        }
        (None, None) => unreachable!("an API agent has an endpoint"),
    }
}

/// The start of an answer, for an error message.
fn short(value: &Value) -> String {
    value.to_string().chars().take(200).collect()
}

/// The lines of a Message Batch's results.
fn messages_answers(jsonl: &str) -> Answers {
    answers_by_id(jsonl, |line| {
        let result = &line["result"];
        match result["type"].as_str() {
            Some("succeeded") => Ok(result["message"].clone()),
            Some("errored") => Err(format!(
                "the request failed: {}",
                result["error"]["error"]["message"]
                    .as_str()
                    .or_else(|| result["error"]["message"].as_str())
                    .unwrap_or("no message")
            )),
            Some("canceled") => Err("the batch was cancelled before the request ran".into()),
            Some("expired") => Err("the batch expired before the request ran".into()),
            other => Err(format!("an unknown result type {other:?}")),
        }
    })
}

/// The lines of an OpenAI batch's output or error file.
fn chat_answers(jsonl: &str) -> Answers {
    answers_by_id(jsonl, |line| {
        let response = &line["response"];
        if response["status_code"] == 200 {
            return Ok(response["body"].clone());
        }
        let message = line["error"]["message"]
            .as_str()
            .or_else(|| response["body"]["error"]["message"].as_str())
            .unwrap_or("no message");
        let code = line["error"]["code"]
            .as_str()
            .map(str::to_string)
            .or_else(|| {
                response["status_code"]
                    .as_u64()
                    .map(|s| format!("HTTP {s}"))
            })
            .unwrap_or_default();
        Err(format!("the request failed ({code}): {message}"))
    })
}

/// Each JSONL line's answer by its `custom_id`; lines that are not JSON or
/// have no id are passed over (their runs get "without an answer").
fn answers_by_id(jsonl: &str, read: impl Fn(&Value) -> Result<Value, String>) -> Answers {
    jsonl
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| Some((line["custom_id"].as_str()?.to_string(), read(&line))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shard_and_model_keeps_its_own_state() {
        let agent =
            |model| ApiAgent::anthropic(model, crate::agent::providers::Secret::new("k"), None);
        let (cache, suite) = (Path::new("/c"), Path::new("/s.yaml"));
        let shard = |index| Some(Shard { index, count: 2 });
        let whole = state_path(cache, suite, &agent("m"), None);
        assert!(whole.starts_with("/c/batches"));
        assert_ne!(whole, state_path(cache, suite, &agent("m"), shard(1)));
        assert_ne!(
            state_path(cache, suite, &agent("m"), shard(1)),
            state_path(cache, suite, &agent("m"), shard(2))
        );
        assert_ne!(whole, state_path(cache, suite, &agent("n"), None));
        assert_eq!(whole, state_path(cache, suite, &agent("m"), None));
    }

    #[test]
    fn every_kind_of_result_line_is_read() {
        let anthropic = [
            r#"{"custom_id":"a","result":{"type":"succeeded","message":{"content":[]}}}"#,
            r#"{"custom_id":"b","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"too long"}}}}"#,
            r#"{"custom_id":"c","result":{"type":"expired"}}"#,
            r#"{"custom_id":"d","result":{"type":"canceled"}}"#,
            "not json",
        ]
        .join("\n");
        let answers = messages_answers(&anthropic);
        assert!(answers["a"].is_ok());
        assert!(answers["b"].as_ref().unwrap_err().contains("too long"));
        assert!(answers["c"].as_ref().unwrap_err().contains("expired"));
        assert!(answers["d"].as_ref().unwrap_err().contains("cancelled"));
        let openai = [
            r#"{"id":"r1","custom_id":"a","response":{"status_code":200,"body":{"choices":[]}},"error":null}"#,
            r#"{"id":"r2","custom_id":"b","response":null,"error":{"code":"batch_expired","message":"not run in time"}}"#,
            r#"{"id":"r3","custom_id":"c","response":{"status_code":400,"body":{"error":{"message":"bad"}}},"error":null}"#,
        ]
        .join("\n");
        let answers = chat_answers(&openai);
        assert!(answers["a"].is_ok());
        assert_eq!(
            answers["b"].as_ref().unwrap_err(),
            "the request failed (batch_expired): not run in time"
        );
        assert!(answers["c"].as_ref().unwrap_err().contains("HTTP 400"));
    }
}
