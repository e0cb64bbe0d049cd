//! `hone serve`: serve a library to agents over MCP (see the `hone-serve` crate).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, print};
use hone_core::library_settings::{library_target, settings_root};
use hone_core::rules::Target;
use hone_serve::catalog::CatalogOptions;
use hone_serve::config::{Client, Registration, TOKEN_ENV, snippet};
use hone_serve::{HttpOptions, ServeOptions, Transport};
use tokio_util::sync::CancellationToken;

use crate::cmd::check::target_parser;
use crate::cmd::search::RankingArgs;

#[derive(clap::Args)]
#[command(after_help = "\
Serves the library's skills as skill:// resources (the MCP Skills extension, SEP-2640: \
skills/list, skills/get, resources/directory/read), the tools search_skills, load_skill and \
read_skill_resource, and each user-invocable skill as a prompt. File changes reach clients as \
list-changed notifications. Read-only; every path is confined to the library.")]
pub struct Args {
    /// The library: one or more folders of skills, highest priority first.
    #[arg(value_name = "LIBRARY", required = true)]
    libraries: Vec<PathBuf>,
    /// Serve Streamable HTTP at this address (e.g. 127.0.0.1:8808) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Allow --http to bind an address that is not loopback.
    #[arg(long, requires = "http")]
    listen: bool,
    /// Require `Authorization: Bearer TOKEN` over HTTP (ignored over stdio).
    #[arg(long, value_name = "TOKEN", env = TOKEN_ENV, hide_env_values = true)]
    token: Option<String>,
    /// A browser origin allowed to call the HTTP server besides its own (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    #[command(flatten)]
    ranking: RankingArgs,
    /// Whose rules decide which findings are errors (what --strict leaves
    /// out). [default: the `target` the library (the first root) remembers in
    /// evals/hone-settings.json, else agentskills]
    #[arg(long, value_parser = target_parser())]
    target: Option<Target>,
    /// Leave out skills with error-level findings (by default they are served with their findings).
    #[arg(long)]
    strict: bool,
    /// Serve skills whose security verdict is dangerous (see `hone scan`);
    /// by default they are left out and the reason is logged.
    #[arg(long)]
    serve_dangerous: bool,
    /// Print the snippet that registers this server with a client, and exit.
    #[arg(long, value_name = "CLIENT", value_parser = ["claude-code", "claude-desktop", "cursor"])]
    print_config: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut roots = Vec::new();
    for library in &args.libraries {
        let root = hone_core::workspace::canonical_root(library)
            .map_err(|e| anyhow::anyhow!("{}: {e}", library.display()))?;
        roots.push(root);
    }
    if let Some(client) = &args.print_config {
        return print_config(client, &args, roots);
    }
    let view = args
        .ranking
        .view
        .unwrap_or(hone_core::rank::RankView::Retrieval);
    if args.ranking.builtins.is_some() && view != hone_core::rank::RankView::Listing {
        anyhow::bail!(
            "--builtins takes part in the listing view only: add --view listing (the retrieval view ranks this library's skills)"
        );
    }
    let options = ServeOptions {
        catalog: CatalogOptions {
            target: library_target(settings_root(&roots), args.target)?,
            roots,
            strict: args.strict,
            serve_dangerous: args.serve_dangerous,
        },
        ranker: args.ranking.ranker,
        threshold: args.ranking.threshold,
        model: args.ranking.model.clone(),
        view,
        builtins: args.ranking.builtins,
    };
    let transport = match args.http {
        None => Transport::Stdio,
        Some(addr) => {
            if args.listen && args.token.is_none() {
                eprintln!(
                    "hone serve: warning: listening beyond loopback without --token: anyone who can reach {addr} can read the library"
                );
            }
            Transport::Http(HttpOptions {
                addr,
                listen: args.listen,
                token: args.token.clone(),
                allowed_origins: args.allow_origin.clone(),
            })
        }
    };
    // Ranking and reading run on blocking threads; more of them than a few
    // per core adds no throughput, only memory (each keeps its own heap).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(8)
        .build()?;
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.cancel();
        }
    });
    let outcome = runtime.block_on(hone_serve::run(options, transport, cancel, |line| {
        eprintln!("hone serve: {line}")
    }));
    // Blocked reads of stdin must not keep the process alive.
    runtime.shutdown_background();
    outcome.map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

fn print_config(client: &str, args: &Args, roots: Vec<PathBuf>) -> anyhow::Result<ExitCode> {
    let client: Client = client.parse().map_err(anyhow::Error::msg)?;
    let mut options = Vec::new();
    if let Some(ranker) = args.ranking.ranker {
        options.extend(["--ranker".to_owned(), ranker.to_string()]);
    }
    if let Some(view) = args.ranking.view {
        options.extend(["--view".to_owned(), view.to_string()]);
    }
    if let Some(threshold) = args.ranking.threshold {
        options.extend(["--threshold".to_owned(), threshold.to_string()]);
    }
    if let Some(model) = &args.ranking.model {
        let model = model.canonicalize().unwrap_or_else(|_| model.clone());
        options.extend(["--model".to_owned(), model.to_string_lossy().into_owned()]);
    }
    // Without --target the server reads the library's own each time it starts.
    if let Some(target) = args.target {
        options.extend(["--target".to_owned(), target.as_str().to_owned()]);
    }
    if args.strict {
        options.push("--strict".into());
    }
    if args.serve_dangerous {
        options.push("--serve-dangerous".into());
    }
    let registration = Registration {
        program: std::env::current_exe()?,
        roots,
        options,
        http: args.http,
        token: args.token.is_some(),
    };
    if client == Client::ClaudeDesktop && args.http.is_some() {
        eprintln!(
            "hone serve: Claude Desktop's config starts local servers: printing the stdio form"
        );
    }
    print!("{}", snippet(client, &registration));
    Ok(ExitCode::SUCCESS)
}
