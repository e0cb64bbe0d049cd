//! The scale benchmark of `hone serve`: a 10,000-skill library served over
//! Streamable HTTP on loopback, measured from outside the process.
//!
//! The library is the shared corpus (`HONE_CORPUS`, used in place, as the
//! first root) plus synthetic skills (`hone_testkit::synth`) written to a
//! temporary folder (the second root) up to `HONE_BENCH_SKILLS` (10,000).
//! For each ranker (BM25, then hybrid when the embedding model is installed)
//! and each view (`HONE_BENCH_VIEWS`, default `retrieval,listing`: the whole
//! skill, the server's default, and the listing alone):
//! - first start: the synthetic skills are new files, so no security scan
//!   has seen them: time until the server listens (it withholds them), until
//!   its scan of them ends and it serves them all, and (retrieval view,
//!   semantic or hybrid) until it has embedded the body sections the cache
//!   lacked and ranks on them;
//! - start to ready: spawn `hone serve` again, time until it listens with
//!   every skill served (the catalog opened and checked, the verdicts
//!   remembered, the ranker built; hybrid with embeddings cached by the
//!   first start), median of 5;
//! - `search_skills` latency over HTTP, one client, 500 requests of a
//!   synthetic suite: p50 and p99 (JSON-RPC round trip, what an agent waits);
//! - resident memory (VmRSS) when ready;
//! - load: 32 clients issuing `search_skills` and `load_skill` for
//!   `HONE_BENCH_SECONDS` (60): requests, errors, p99, and RSS sampled each
//!   second (first and last ten seconds compared).
//!
//! Run: `HONE_CORPUS=../shared/corpus cargo bench --profile dev -p hone-serve --bench serve`
//! (it builds and measures the dev-profile `hone`, whose engine and
//! dependencies are optimised; `HONE_BENCH_RANKERS=bm25` measures one ranker).
//! Loopback only, bounded in time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hone_core::rank::RoutingDoc;
use serde_json::{Value, json};

fn main() {
    let skills: usize = env_number("HONE_BENCH_SKILLS", 10_000);
    let seconds: u64 = env_number("HONE_BENCH_SECONDS", 60) as u64;
    let hone = build_hone();
    let work = tempfile::tempdir().expect("a temporary folder");
    let corpus = std::env::var_os("HONE_CORPUS").map(PathBuf::from);
    let mut roots = Vec::new();
    let corpus_count = match &corpus {
        Some(path) => {
            roots.push(path.canonicalize().expect("HONE_CORPUS exists"));
            count_skills(&hone, path)
        }
        None => {
            println!("HONE_CORPUS is not set: the library is synthetic only");
            0
        }
    };
    let synthetic = skills.saturating_sub(corpus_count);
    let synth_root = work.path().join("synthetic");
    let docs = hone_testkit::synth::library(synthetic, 7);
    write_library(&synth_root, &docs);
    roots.push(synth_root);
    let total = count_skills_in(&hone, &roots);
    println!(
        "library: {total} skills ({corpus_count} from the corpus, {synthetic} synthetic), 2 roots"
    );
    let queries: Vec<String> = hone_testkit::synth::suite(&docs, 500, 11)
        .cases
        .into_iter()
        .map(|c| c.query)
        .collect();
    let names: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();

    let wanted = std::env::var("HONE_BENCH_RANKERS").unwrap_or_else(|_| "bm25,hybrid".into());
    let mut rankers: Vec<&str> = wanted.split(',').map(str::trim).collect();
    if !hone_core::embed::install::resolve_model_dir(None).installed {
        rankers.retain(|r| *r == "bm25");
        println!("no embedding model installed: only bm25 is measured");
    }
    let views = std::env::var("HONE_BENCH_VIEWS").unwrap_or_else(|_| "retrieval,listing".into());
    let views: Vec<&str> = views.split(',').map(str::trim).collect();
    let runs = rankers
        .iter()
        .flat_map(|ranker| views.iter().map(move |view| (*ranker, *view)));
    for (ranker, view) in runs {
        println!("\n== {ranker}, {view} view ==");
        let server = Server {
            hone: &hone,
            roots: &roots,
            ranker,
            view,
        };
        let first = Instant::now();
        let (mut child, _, served) = server.start();
        stop(&mut child);
        println!(
            "first start (verdicts of the synthetic skills unknown; embeds what the cache lacks): \
             listening {:.1} s, every skill served {:.1} s, body sections embedded {}",
            served.listening.as_secs_f64(),
            served.all.unwrap_or(first.elapsed()).as_secs_f64(),
            served.sections.map_or("none missing".into(), |at| format!(
                "{:.1} s",
                at.as_secs_f64()
            ))
        );
        let mut ready = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            let (mut child, _, served) = server.start();
            assert!(
                served.all.is_none() && served.sections.is_none(),
                "every verdict and section is remembered after the first start"
            );
            ready.push(started.elapsed().as_secs_f64());
            stop(&mut child);
        }
        ready.sort_by(f64::total_cmp);
        println!(
            "start to ready: median {:.2} s (min {:.2}, max {:.2})",
            ready[2], ready[0], ready[4]
        );

        let (mut child, url, _) = server.start();
        let pid = child.id();
        println!("RSS when ready: {} MB", rss_mb(pid));
        let mut client = Client::connect(&url);
        let mut latencies = Vec::new();
        for query in &queries {
            let started = Instant::now();
            let reply = client.call_tool("search_skills", json!({"query": query, "top_k": 5}));
            latencies.push(started.elapsed().as_secs_f64() * 1000.0);
            assert!(reply.is_some(), "search failed for {query}");
        }
        println!(
            "search_skills over HTTP, {} requests: p50 {:.2} ms, p99 {:.2} ms",
            latencies.len(),
            percentile(&mut latencies, 0.50),
            percentile(&mut latencies, 0.99)
        );
        println!("RSS after the searches: {} MB", rss_mb(pid));
        load(&url, pid, seconds, &queries, &names);
        stop(&mut child);
    }
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Builds the `hone` binary of this workspace (the dev profile the tests use).
fn build_hone() -> PathBuf {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--quiet", "-p", "hone-cli", "--bin", "hone"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building hone failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("debug/hone")
}

fn count_skills(hone: &Path, root: &Path) -> usize {
    count_skills_in(hone, &[root.to_path_buf()])
}

/// Skills as `hone prompt` sees them (one `<skill>` per skill).
fn count_skills_in(hone: &Path, roots: &[PathBuf]) -> usize {
    let output = Command::new(hone)
        .arg("prompt")
        .args(roots)
        .output()
        .expect("hone runs");
    String::from_utf8_lossy(&output.stdout)
        .matches("<skill>")
        .count()
}

fn write_library(root: &Path, docs: &[RoutingDoc]) {
    for doc in docs {
        let dir = root.join(&doc.id);
        std::fs::create_dir_all(&dir).expect("create a skill folder");
        let mut text = format!(
            "---\nname: {}\ndescription: {}\n",
            doc.name,
            yaml_quote(&doc.description)
        );
        if let Some(when) = &doc.when_to_use {
            text.push_str(&format!("when_to_use: {}\n", yaml_quote(when)));
        }
        if !doc.triggers.is_empty() {
            text.push_str("triggers:\n");
            for trigger in &doc.triggers {
                text.push_str(&format!("  - {}\n", yaml_quote(trigger)));
            }
        }
        text.push_str(&format!(
            "---\n# {}\n\n{}\n\nSteps for $ARGUMENTS:\n1. Read the request.\n2. Do the task.\n3. Report.\n",
            doc.name, doc.description
        ));
        std::fs::write(dir.join("SKILL.md"), text).expect("write SKILL.md");
        std::fs::write(
            dir.join("reference.md"),
            format!("# {} reference\n", doc.name),
        )
        .expect("write a resource");
    }
}

fn yaml_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// How `hone serve` is started.
struct Server<'a> {
    hone: &'a Path,
    roots: &'a [PathBuf],
    ranker: &'a str,
    view: &'a str,
}

impl Server<'_> {
    /// Starts `hone serve --http 127.0.0.1:0` and waits until it listens
    /// and serves every skill.
    fn start(&self) -> (Child, String, Served) {
        start(self.hone, self.roots, self.ranker, self.view)
    }
}

/// When a started server was ready.
struct Served {
    /// Listening.
    listening: Duration,
    /// Serving every skill, when some waited for their security scan.
    all: Option<Duration>,
    /// Ranking on the body sections' embeddings, when it waited for them.
    sections: Option<Duration>,
}

fn start(hone: &Path, roots: &[PathBuf], ranker: &str, view: &str) -> (Child, String, Served) {
    let started = Instant::now();
    let mut child = Command::new(hone)
        .arg("serve")
        .args(roots)
        .args(["--ranker", ranker, "--view", view, "--http", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hone serve starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    let mut next_line = || {
        lines
            .next()
            .expect("hone serve keeps its stderr open")
            .expect("stderr is text")
    };
    let mut unembedded = false;
    let (url, withheld) = loop {
        let line = next_line();
        unembedded |= line.contains("body sections not embedded yet");
        if let Some(at) = line.find("at http://") {
            break (
                line[at + 3..].trim().to_owned(),
                line.contains("when their security scan ends"),
            );
        }
    };
    let listening = started.elapsed();
    let all = withheld.then(|| {
        while !next_line().contains("security scan done") {}
        started.elapsed()
    });
    let sections = unembedded.then(|| {
        while !next_line().contains("body sections embedded") {}
        started.elapsed()
    });
    // Keep reading stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (
        child,
        url,
        Served {
            listening,
            all,
            sections,
        },
    )
}

fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    if child.wait().is_err() {
        let _ = child.kill();
    }
}

fn rss_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb / 1024)
        .unwrap_or(0)
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let index = ((values.len() as f64 - 1.0) * p).round() as usize;
    values[index]
}

/// A minimal Streamable HTTP client: one session, JSON-RPC over POST, the
/// answer read from the SSE stream (or a JSON body).
struct Client {
    host: String,
    path: String,
    session: String,
    next_id: u64,
}

impl Client {
    fn connect(url: &str) -> Client {
        let rest = url.strip_prefix("http://").expect("an http URL");
        let (host, path) = rest.split_at(rest.find('/').expect("a path"));
        let mut client = Client {
            host: host.to_owned(),
            path: path.to_owned(),
            session: String::new(),
            next_id: 1,
        };
        let (headers, _) = client
            .post(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "hone-bench", "version": "0"}}}),
            )
            .expect("initialize");
        client.session = headers
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_default();
        client
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .expect("initialized");
        client
    }

    /// The result of a tool call, or `None` on any error.
    fn call_tool(&mut self, name: &str, arguments: Value) -> Option<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let (_, body) = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments}}))
            .ok()?;
        let message = body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .chain(std::iter::once(body.trim()))
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|m| m.get("id") == Some(&json!(id)))?;
        let result = message.get("result")?;
        (result.get("isError") != Some(&json!(true))).then(|| result.clone())
    }

    fn post(&self, message: &Value) -> std::io::Result<(String, String)> {
        let body = serde_json::to_vec(message)?;
        let mut stream = TcpStream::connect(&self.host)?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        let mut request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.path,
            self.host,
            body.len()
        );
        if !self.session.is_empty() {
            request.push_str(&format!(
                "Mcp-Session-Id: {}\r\nMcp-Protocol-Version: 2025-06-18\r\n",
                self.session
            ));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes())?;
        stream.write_all(&body)?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response)?;
        let text = String::from_utf8_lossy(&response).into_owned();
        let (headers, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        if !headers.starts_with("HTTP/1.1 2") {
            return Err(std::io::Error::other(
                headers.lines().next().unwrap_or("").to_owned(),
            ));
        }
        Ok((headers.to_owned(), body.to_owned()))
    }
}

/// 32 clients for `seconds`: half searches, half loads.
fn load(url: &str, pid: u32, seconds: u64, queries: &[String], names: &[String]) {
    const CLIENTS: usize = 32;
    let stop = Arc::new(AtomicBool::new(false));
    let requests = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let queries = Arc::new(queries.to_vec());
    let names = Arc::new(names.to_vec());
    let workers: Vec<_> = (0..CLIENTS)
        .map(|worker| {
            let (stop, requests, errors) = (stop.clone(), requests.clone(), errors.clone());
            let (queries, names, url) = (queries.clone(), names.clone(), url.to_owned());
            std::thread::spawn(move || {
                let mut client = Client::connect(&url);
                let mut latencies = Vec::new();
                let mut i = worker;
                while !stop.load(Ordering::Relaxed) {
                    let started = Instant::now();
                    let ok = if i % 2 == 0 {
                        let query = &queries[i % queries.len()];
                        client.call_tool("search_skills", json!({"query": query}))
                    } else {
                        let name = &names[i % names.len()];
                        client.call_tool("load_skill", json!({"name": name, "arguments": "x"}))
                    }
                    .is_some();
                    latencies.push(started.elapsed().as_secs_f64() * 1000.0);
                    requests.fetch_add(1, Ordering::Relaxed);
                    if !ok {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                    i += CLIENTS;
                }
                latencies
            })
        })
        .collect();
    let started = Instant::now();
    let mut samples = Vec::new();
    while started.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_secs(1));
        samples.push(rss_mb(pid));
    }
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<f64> = workers
        .into_iter()
        .flat_map(|w| w.join().expect("a client thread"))
        .collect();
    let elapsed = started.elapsed().as_secs_f64();
    let total = requests.load(Ordering::Relaxed);
    let window = samples.len().min(10);
    let first = samples[..window].iter().max().copied().unwrap_or(0);
    let last = samples[samples.len() - window..]
        .iter()
        .max()
        .copied()
        .unwrap_or(0);
    println!(
        "load, {CLIENTS} clients for {elapsed:.0} s: {total} requests ({:.0}/s), {} errors, p50 {:.1} ms, p99 {:.1} ms",
        total as f64 / elapsed,
        errors.load(Ordering::Relaxed),
        percentile(&mut latencies, 0.50),
        percentile(&mut latencies, 0.99)
    );
    println!(
        "RSS during the load: max of the first 10 s {first} MB, of the last 10 s {last} MB, peak {} MB",
        samples.iter().max().copied().unwrap_or(0)
    );
}
