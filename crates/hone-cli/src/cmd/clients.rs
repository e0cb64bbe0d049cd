//! `hone clients`: the agent clients installed here, and what the installed
//! client really shows its model beside Hone's prediction.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anstream::println;
use hone_core::cancel::Cancel;
use hone_core::clients::capture::{self, Captured, Isolation, Plan};
use hone_core::clients::compare::{self, CaptureOptions, ListingComparison};
use hone_core::clients::{self, Client, Environment};
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

/// This program, re-executed inside the namespace.
pub fn isolation() -> Isolation {
    match std::env::current_exe() {
        Ok(exe) => compare::reexec_isolation(exe),
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
    let isolation = isolation();
    let cancel = Cancel::new();
    let options = CaptureOptions {
        model,
        timeout,
        isolation: &isolation,
        cancel: &cancel,
    };
    let shown = compare::show(dir, client, &env, &options)?;
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&shown.comparison)?),
        Format::Text => print_comparison(&shown.comparison, &shown.captured),
    }
    Ok(if shown.agrees() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_comparison(c: &ListingComparison, captured: &Captured) {
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
    println!("{} {}", c.note, compare::isolation_note(c.isolated));
}

fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or(text)
}
