//! The rooms of the engine, held by its manifests and its imports.
//!
//! The engine is split into crates, one per concern, lowest first in
//! [`CRATES`]. A crate may depend only on the crates before it in the table
//! (cargo refuses a cycle between crates; this test also refuses a crate
//! reaching up past its place, which cargo would allow while no cycle
//! closes). Inside a crate, no two top-level modules may import each other,
//! even through others, so that each crate still reads bottom-up. This test
//! reads the manifests and sources (no build needed) and fails, naming the
//! crates, modules and files, when either rule breaks.
//!
//! An import is any `crate::a::…` path, each item of a `use crate::{a, b::c}`
//! group, and any `super::…` path that climbs out of its top-level module,
//! outside comments, strings and `#[cfg(test)]` code (tests may reach
//! anywhere in their crate). The sources have no inline modules outside
//! tests, so a file's path is its module's path.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The engine's crates, lowest first, and what each owns. `hone-core`
/// re-exports them all and owns no code.
const CRATES: &[(&str, &str)] = &[
    ("hone-skill", "the skill model and parsing"),
    ("hone-clients", "tokens and the clients' listings"),
    ("hone-rank", "ranking and the embedding models"),
    // The rules judge a skill against what each client does and find
    // routing collisions with the ranker's analysis, so they sit above both.
    (
        "hone-check",
        "the rules, security analysis and routing evals",
    ),
    (
        "hone-agent",
        "language models: the agent ranker, the local model, the installer",
    ),
    ("hone-pack", "packs, plugins and installs into clients"),
    ("hone-bench", "task evals run by the real agents"),
];

#[test]
fn no_two_modules_of_a_crate_import_each_other() {
    let mut cycles = Vec::new();
    for (name, _) in CRATES {
        for cycle in Graph::of_crate(name).cycles() {
            cycles.push(format!("{name}: {cycle}"));
        }
    }
    assert!(
        cycles.is_empty(),
        "top-level modules import each other:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_crate_depends_on_a_crate_above_it() {
    let place: BTreeMap<&str, usize> = CRATES
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (*name, i))
        .collect();
    let mut upward = Vec::new();
    for (index, (name, _)) in CRATES.iter().enumerate() {
        for dependency in engine_dependencies(name) {
            match place.get(dependency.as_str()) {
                Some(&at) if at < index => {}
                Some(_) => upward.push(format!("{name} depends on {dependency}, above it")),
                None => upward.push(format!(
                    "{name} depends on {dependency}, which is not a room of the engine"
                )),
            }
        }
    }
    assert!(upward.is_empty(), "{}", upward.join("\n"));
}

#[test]
fn the_engine_is_its_rooms() {
    let rooms: BTreeSet<String> = CRATES.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(engine_dependencies("hone-core"), rooms);
    for (name, _) in CRATES {
        assert!(
            !top_level_modules(&source_dir(name)).is_empty(),
            "{name} declares no module"
        );
    }
    // The door owns no code: its lib.rs only re-exports.
    let door = code_only(&std::fs::read_to_string(source_dir("hone-core").join("lib.rs")).unwrap());
    assert!(
        top_level_modules(&source_dir("hone-core")).is_empty() && !door.contains("fn "),
        "hone-core re-exports the rooms and owns no code"
    );
}

/// The scanner on a made-up file, so that a change to it is seen to work.
#[test]
fn imports_are_read_from_paths_groups_and_super_but_not_tests_or_comments() {
    let source = r#"
        //! See [`crate::commented`].
        use crate::{alpha::A, beta::{self, B}};
        use super::super::gamma::G;
        use super::sibling;
        fn f() -> crate::delta::D { let s = "crate::quoted"; let c = '"'; x }
        /* crate::block /* nested */ */
        #[cfg(test)]
        mod tests { use crate::tested; }
        #[cfg(test)]
        use crate::test_only;
    "#;
    let module = ["here".to_owned(), "deep".to_owned()];
    let found: BTreeSet<String> = imports(source, &module).into_iter().collect();
    let expected = ["alpha", "beta", "delta", "gamma", "here"];
    assert_eq!(found, expected.iter().map(|s| s.to_string()).collect());
}

/// The `hone-*` crates a crate's manifest depends on (not its dev-dependencies:
/// tests may reach anywhere below).
fn engine_dependencies(name: &str) -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(crate_dir(name).join("Cargo.toml")).unwrap();
    let mut section = "";
    let mut found = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]"
            && line.starts_with("hone-")
            && let Some(dependency) = line.split(['.', ' ', '=']).next()
        {
            found.insert(dependency.to_owned());
        }
    }
    found
}

/// Imports between the top-level modules of one crate: from, to, the files
/// that import.
struct Graph {
    edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

impl Graph {
    fn of_crate(name: &str) -> Graph {
        let root = source_dir(name);
        let modules = top_level_modules(&root);
        let files: Vec<(PathBuf, Vec<String>, String)> = rust_files(&root)
            .into_iter()
            .map(|file| {
                let relative = file.strip_prefix(&root).unwrap().to_path_buf();
                let module = module_path(&relative);
                let source = std::fs::read_to_string(&file).unwrap();
                (relative, module, source)
            })
            .collect();
        // Modules declared under `#[cfg(test)]` (`rules::testing`) are tests.
        let mut tests: Vec<Vec<String>> = Vec::new();
        for (_, module, source) in &files {
            for name in test_modules(&code_only(source)) {
                tests.push(module.iter().cloned().chain([name]).collect());
            }
        }
        let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for (relative, module, source) in &files {
            let Some(from) = module.first() else {
                continue; // lib.rs declares the modules
            };
            if !modules.contains(from) || tests.iter().any(|t| module.starts_with(t)) {
                continue;
            }
            for to in imports(source, module) {
                if &to != from && modules.contains(&to) {
                    edges
                        .entry(from.clone())
                        .or_default()
                        .entry(to)
                        .or_default()
                        .insert(relative.display().to_string());
                }
            }
        }
        Graph { edges }
    }

    fn targets(&self, from: &str) -> impl Iterator<Item = &String> {
        self.edges.get(from).into_iter().flat_map(|t| t.keys())
    }

    /// The shortest import chain from `from` to `to`, both included.
    fn path(&self, from: &str, to: &str) -> Option<Vec<String>> {
        let mut previous: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = VecDeque::from([from.to_owned()]);
        while let Some(at) = queue.pop_front() {
            for next in self.targets(&at) {
                if next == from || previous.contains_key(next) {
                    continue;
                }
                previous.insert(next.clone(), at.clone());
                if next == to {
                    let mut chain = vec![to.to_owned()];
                    while let Some(before) = previous.get(chain.last().unwrap()) {
                        chain.push(before.clone());
                        if before == from {
                            break;
                        }
                    }
                    chain.reverse();
                    return Some(chain);
                }
                queue.push_back(next.clone());
            }
        }
        None
    }

    /// One line per pair of modules that reach each other: the chain there
    /// and back, with the files of each import.
    fn cycles(&self) -> Vec<String> {
        let modules: Vec<&String> = self.edges.keys().collect();
        let mut found = Vec::new();
        for (i, a) in modules.iter().enumerate() {
            for b in &modules[i + 1..] {
                let (Some(there), Some(back)) = (self.path(a, b), self.path(b, a)) else {
                    continue;
                };
                let chain: Vec<String> = there.iter().chain(&back[1..]).cloned().collect();
                let steps: Vec<String> = chain
                    .windows(2)
                    .map(|w| {
                        format!(
                            "  {} -> {} in {}",
                            w[0],
                            w[1],
                            join(&self.edges[&w[0]][&w[1]])
                        )
                    })
                    .collect();
                found.push(format!("{}:\n{}", chain.join(" -> "), steps.join("\n")));
            }
        }
        found
    }
}

fn join(files: &BTreeSet<String>) -> String {
    files.iter().cloned().collect::<Vec<_>>().join(", ")
}

fn crate_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

fn source_dir(name: &str) -> PathBuf {
    crate_dir(name).join("src")
}

/// The modules `lib.rs` declares, except test-only ones.
fn top_level_modules(root: &Path) -> BTreeSet<String> {
    let lib = without_tests(&code_only(
        &std::fs::read_to_string(root.join("lib.rs")).unwrap(),
    ));
    lib.split(';')
        .filter_map(|item| {
            let words: Vec<&str> = item.split_whitespace().collect();
            match words.as_slice() {
                [.., "mod", name] => Some(name.to_string()),
                _ => None,
            }
        })
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// `rules/collision/mod.rs` is `["rules", "collision"]`; `lib.rs` is `[]`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The top-level modules `source`, the file of `module`, imports.
fn imports(source: &str, module: &[String]) -> Vec<String> {
    let code = without_tests(&code_only(source));
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = next_path_start(rest) {
        let (start, after) = rest[at..].split_once("::").unwrap();
        let mut base: Vec<String> = if start.trim() == "crate" {
            Vec::new()
        } else {
            module.to_vec()
        };
        let mut tail = after.trim_start();
        if start.trim() == "super" {
            base.pop();
            while let Some(more) = tail.strip_prefix("super") {
                base.pop();
                tail = more
                    .trim_start()
                    .strip_prefix("::")
                    .unwrap_or(more)
                    .trim_start();
            }
        }
        for first in first_segments(tail) {
            let resolved = base.first().cloned().unwrap_or(first);
            found.push(resolved);
        }
        rest = &rest[at + start.len() + 2..];
    }
    found
}

/// Where the next `crate::` or `super::` path starts (not `self::x::crate`).
fn next_path_start(text: &str) -> Option<usize> {
    let mut from = 0;
    loop {
        let (at, word) = ["crate", "super"]
            .iter()
            .filter_map(|w| text[from..].find(w).map(|i| (from + i, *w)))
            .min()?;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].trim_start();
        let starts_word = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        if starts_word && after.starts_with("::") {
            return Some(at);
        }
        from = at + word.len();
    }
}

/// The first name of each item a path continues with: `a::b` gives `a`,
/// `{a::b, c, self}` gives `a` and `c` (`self` names the module itself).
fn first_segments(tail: &str) -> Vec<String> {
    let name = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = tail.strip_prefix('{') else {
        return vec![name(tail)];
    };
    let mut items = Vec::new();
    let mut depth = 0;
    let mut item_start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[item_start..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[item_start..i]);
                item_start = i + 1;
            }
            _ => {}
        }
    }
    items
        .into_iter()
        .map(name)
        .filter(|n| !n.is_empty() && n != "self")
        .collect()
}

/// `source` without comments and with every string and character literal
/// emptied, so that only code is left.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        let previous = if i == 0 { ' ' } else { chars[i - 1] };
        let in_word = previous.is_alphanumeric() || previous == '_';
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            let mut depth = 0;
            while i < chars.len() {
                if at(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if !in_word && (at(i, "r\"") || at(i, "r#") || at(i, "br\"") || at(i, "br#")) {
            // A raw string: r"…", r#"…"#, with as many `#` at both ends.
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            j += 1;
            while j < chars.len() && !at(j, &close) {
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.chars().count();
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' && chars.get(i + 1) == Some(&'\\') {
            // An escaped character literal: '\n', '\'', '\u{…}'.
            i += 3;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            out.push_str("' '");
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("' '");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `code` without the items under `#[cfg(test)]` (or a `cfg` naming `test`
/// other than `not(test)`): a `mod x;`, a `use`, or an item with a body.
fn without_tests(code: &str) -> String {
    split_tests(code).0
}

/// The names of the modules `code` declares for tests only (`mod x;`).
fn test_modules(code: &str) -> Vec<String> {
    split_tests(code)
        .1
        .iter()
        .filter_map(
            |item| match item.split_whitespace().collect::<Vec<_>>()[..] {
                [.., "mod", name] => Some(name.trim_end_matches(';').to_owned()),
                _ => None,
            },
        )
        .collect()
}

/// `code` without its test-only items, and those items.
fn split_tests(code: &str) -> (String, Vec<String>) {
    let mut kept = String::with_capacity(code.len());
    let mut removed = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(") {
        let close = rest[at..].find(")]").map_or(rest.len(), |i| at + i + 2);
        let condition: String = rest[at..close].split_whitespace().collect();
        let is_test = condition
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "test")
            && !condition.contains("not(test)");
        if !is_test {
            kept.push_str(&rest[..close]);
            rest = &rest[close..];
            continue;
        }
        kept.push_str(&rest[..at]);
        let item = &rest[close..];
        // The item ends at its body's closing brace, or at a `;` outside
        // any brackets when it has none.
        let (mut braces, mut brackets) = (0, 0);
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => braces += 1,
                '}' => {
                    braces -= 1;
                    if braces == 0 {
                        end = i + 1;
                        break;
                    }
                }
                '(' | '[' => brackets += 1,
                ')' | ']' => brackets -= 1,
                ';' if braces == 0 && brackets == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        removed.push(item[..end].to_owned());
        rest = &item[end..];
    }
    kept.push_str(rest);
    (kept, removed)
}
