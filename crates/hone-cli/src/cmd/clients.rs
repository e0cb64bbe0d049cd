//! `hone clients`: the agent clients installed here, and what the installed
//! client really shows its model beside Hone's prediction.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anstream::println;
use hone_core::clients::capture::{self, Captured, Installed, Isolation, Plan};
use hone_core::clients::{self, Client, Environment, Prediction, Scope};
use serde::Serialize;

#[derive(clap::Args)]
#[command(after_help = "\
Nothing leaves this machine: the installed client runs in a scratch copy of the project and of \
your skill folders, with a scratch $HOME, pointed at a stand-in of its provider on 127.0.0.1, in a \
network namespace with loopback only where the OS allows it. Clients are looked for where `make \
test` installs them ($HONE_CLIENTS_DIR, else $XDG_CACHE_HOME/hone/clients).")]
pub struct Args {
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// List the clients Hone models and the ones installed (the default).
    List {
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Run the installed client on DIR offline and compare what it shows the model with Hone's prediction.
    Show {
        /// The folder the client would be started in.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        #[arg(long, value_parser = parse_client)]
        client: Client,
        /// The model (default: the client's own default).
        #[arg(long)]
        model: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Seconds before the client is stopped.
        #[arg(long, default_value = "120")]
        timeout: u64,
    },
    /// Internal: run a capture plan inside the network namespace.
    #[command(hide = true)]
    CaptureInside { plan: PathBuf, out: PathBuf },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

pub fn parse_client(name: &str) -> Result<Client, String> {
    Client::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Client::ALL.iter().map(|c| c.as_str()).collect();
        format!("unknown client `{name}`; one of {}", names.join(", "))
    })
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command.unwrap_or(Sub::List {
        format: Format::Text,
    }) {
        Sub::List { format } => list(format),
        Sub::Show {
            dir,
            client,
            model,
            format,
            timeout,
        } => show(&dir, client, model.as_deref(), format, timeout),
        Sub::CaptureInside { plan, out } => {
            let plan: Plan = serde_json::from_slice(&std::fs::read(&plan)?)?;
            let captured = capture::run_here(&plan, true)?;
            hone_core::workspace::write_atomic(&out, &serde_json::to_vec(&captured)?)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[derive(Serialize)]
struct Row {
    client: Client,
    name: &'static str,
    modelled_version: Option<&'static str>,
    installed: Option<String>,
}

fn list(format: Format) -> anyhow::Result<ExitCode> {
    let env = Environment::current();
    let rows: Vec<Row> = Client::ALL
        .into_iter()
        .map(|client| Row {
            client,
            name: client.display_name(),
            modelled_version: clients::modelled_version(client),
            installed: capture::find_installed(client, &env).map(|i| i.version),
        })
        .collect();
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&rows)?),
        Format::Text => {
            for row in &rows {
                println!(
                    "{:<12} {:<20} modelled: {:<10} installed: {}",
                    row.client.as_str(),
                    row.name,
                    row.modelled_version.unwrap_or("no"),
                    row.installed.as_deref().unwrap_or("no")
                );
            }
            println!(
                "\nInstalled means found in {}.",
                capture::clients_dir(&env).display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The scratch project and home a capture runs in, holding copies of the
/// skill folders and settings the client would read.
struct Scratch {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

fn scratch_copy(dir: &Path, env: &Environment, client: Client) -> anyhow::Result<Scratch> {
    let scratch = tempfile::tempdir()?;
    let project = scratch.path().join("project");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&project)?;
    std::fs::create_dir_all(&home)?;
    // A git root, as the clients look for the project's root.
    std::fs::create_dir_all(project.join(".git"))?;
    for (base, target, scope) in [
        (dir, &project, Scope::Project),
        (&env.home, &home, Scope::User),
    ] {
        for folder in client.skill_folders(scope) {
            let from = base.join(folder);
            if from.is_dir() {
                capture::copy_tree(
                    &from,
                    &target.join(folder),
                    capture::Links::Follow,
                    u64::MAX,
                )?;
            }
        }
    }
    for file in [".claude/settings.json", ".claude/settings.local.json"] {
        if dir.join(file).is_file() {
            std::fs::create_dir_all(project.join(".claude"))?;
            std::fs::copy(dir.join(file), project.join(file))?;
        }
    }
    if env.home.join(".claude/settings.json").is_file() {
        std::fs::create_dir_all(home.join(".claude"))?;
        std::fs::copy(
            env.home.join(".claude/settings.json"),
            home.join(".claude/settings.json"),
        )?;
    }
    Ok(Scratch {
        _dir: scratch,
        project,
        home,
    })
}

#[derive(Serialize)]
struct Comparison<'a> {
    client: Client,
    installed_version: &'a str,
    prediction: &'a Prediction,
    captured: Option<&'a str>,
    identical: bool,
    entries_compared: usize,
    entries_identical: usize,
    differences: Vec<Difference>,
    isolated: bool,
    seconds: f64,
    note: &'static str,
}

#[derive(Serialize)]
pub struct Difference {
    pub index: usize,
    pub predicted: Option<String>,
    pub real: Option<String>,
}

const PRIVACY_NOTE: &str =
    "Nothing left this machine: the client ran on scratch copies against a loopback stand-in.";

/// Entry by entry, where the prediction and the real listing differ.
pub fn compare(predicted: &[String], real: &[String]) -> (usize, Vec<Difference>) {
    let mut identical = 0;
    let mut differences = Vec::new();
    for index in 0..predicted.len().max(real.len()) {
        let p = predicted.get(index);
        let r = real.get(index);
        if p == r {
            identical += 1;
        } else {
            differences.push(Difference {
                index,
                predicted: p.cloned(),
                real: r.cloned(),
            });
        }
    }
    (identical, differences)
}

pub fn plan_for(
    installed: Installed,
    project: &Path,
    home: &Path,
    model: Option<&str>,
    env: &Environment,
    timeout: u64,
) -> Plan {
    let passed = ["SLASH_COMMAND_TOOL_CHAR_BUDGET"];
    Plan {
        installed,
        project: project.to_path_buf(),
        home: home.to_path_buf(),
        model: model.map(str::to_string),
        vars: passed
            .iter()
            .filter_map(|name| env.var(name).map(|v| (name.to_string(), v.to_string())))
            .collect(),
        timeout_secs: timeout,
        task: None,
    }
}

/// This program, re-executed inside the namespace.
pub fn isolation() -> Isolation {
    match std::env::current_exe() {
        Ok(exe) => Isolation::Namespace {
            reexec: vec![
                OsString::from(exe),
                OsString::from("clients"),
                OsString::from("capture-inside"),
            ],
        },
        Err(_) => Isolation::None,
    }
}

fn show(
    dir: &Path,
    client: Client,
    model: Option<&str>,
    format: Format,
    timeout: u64,
) -> anyhow::Result<ExitCode> {
    let env = Environment::current();
    let Some(installed) = capture::find_installed(client, &env) else {
        anyhow::bail!(
            "{} is not installed where Hone looks ({}); `make test` installs it, or run scripts/install-clients.sh",
            client.display_name(),
            capture::clients_dir(&env).display()
        );
    };
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder", dir.display());
    }
    let scratch = scratch_copy(dir, &env, client)?;
    let mut scratch_env = Environment::with_home(&scratch.home);
    // The clients' own files stay where they are installed.
    scratch_env.vars.insert(
        "HONE_CLIENTS_DIR".into(),
        capture::clients_dir(&env).display().to_string(),
    );
    for (name, value) in &env.vars {
        if name == "SLASH_COMMAND_TOOL_CHAR_BUDGET" {
            scratch_env.vars.insert(name.clone(), value.clone());
        }
    }
    let Some(prediction) = clients::predict(client, &scratch.project, &scratch_env, model) else {
        anyhow::bail!("Hone does not model {} yet", client.display_name());
    };
    let version = installed.version.clone();
    let plan = plan_for(
        installed,
        &scratch.project,
        &scratch.home,
        model,
        &env,
        timeout,
    );
    let captured: Captured = capture::run(&plan, &isolation())?;
    let real = captured.listing.as_deref();
    let predicted_entries: Vec<String> =
        prediction.entries.iter().map(|e| e.text.clone()).collect();
    let real_entries = real
        .map(|r| clients::split_listing(client, r))
        .unwrap_or_default();
    let (identical_count, differences) = compare(&predicted_entries, &real_entries);
    let identical = real == Some(prediction.listing.as_str());
    let comparison = Comparison {
        client,
        installed_version: &version,
        prediction: &prediction,
        captured: real,
        identical,
        entries_compared: predicted_entries.len().max(real_entries.len()),
        entries_identical: identical_count,
        differences,
        isolated: captured.isolated,
        seconds: captured.seconds,
        note: PRIVACY_NOTE,
    };
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&comparison)?),
        Format::Text => print_comparison(&comparison, &captured),
    }
    Ok(
        if identical || real.is_none() && prediction.entries.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

fn print_comparison(c: &Comparison, captured: &Captured) {
    println!(
        "{} {} (Hone models {}), model {}",
        c.client.display_name(),
        c.installed_version,
        c.prediction.client_version,
        c.prediction.model
    );
    match c.captured {
        None => println!(
            "The client sent no listing ({}; {} requests). stderr: {}",
            captured.status,
            captured.requests.len(),
            captured.stderr_tail.trim()
        ),
        Some(_) => {
            println!(
                "{} of {} entries identical to Hone's prediction{}",
                c.entries_identical,
                c.entries_compared,
                if c.identical {
                    "; the listing is byte-identical"
                } else {
                    ""
                }
            );
            for entry in &c.prediction.entries {
                let marker = if entry.builtin {
                    "built-in"
                } else if entry.bare {
                    "bare"
                } else {
                    "listed"
                };
                println!("  [{marker}] {}", first_line(&entry.text));
            }
            for left in &c.prediction.left_out {
                println!("  [left out] {}: {}", left.path, left.reason);
            }
            for d in &c.differences {
                println!("  differs at entry {}:", d.index + 1);
                println!(
                    "    Hone:   {}",
                    d.predicted.as_deref().map(first_line).unwrap_or("(none)")
                );
                println!(
                    "    client: {}",
                    d.real.as_deref().map(first_line).unwrap_or("(none)")
                );
            }
        }
    }
    println!(
        "{} {}",
        PRIVACY_NOTE,
        if c.isolated {
            "The run had loopback only."
        } else {
            "No network namespace was available, so the client was only pointed at loopback."
        }
    );
}

fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or(text)
}
