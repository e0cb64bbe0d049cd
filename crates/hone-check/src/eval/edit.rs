//! Edits to a suite file that keep the rest of it as the author wrote it.
//!
//! Suites are hand-written: they carry comments, blank lines between groups
//! of cases and the author's quoting. Re-serialising a suite to add one case
//! would throw all of that away, so an edit replaces only the lines of the
//! case it touches, found through the spans of the YAML tree. Every edit is
//! checked by parsing the result, so a suite is never saved broken.

use std::ops::Range;
use std::path::Path;

use crate::eval::suite::{Case, Suite, SuiteError};
use crate::text::LineIndex;
use crate::yaml::{self, Node, Value};

/// A suite file holding `cases`, for a suite that does not exist yet.
pub fn new_suite(name: &str, cases: &[Case]) -> String {
    if cases.is_empty() {
        return format!("name: {}\ncases: []\n", scalar(name));
    }
    let mut text = format!("name: {}\ncases:\n", scalar(name));
    for case in cases {
        text.push_str(&render_case(case, 2));
    }
    text
}

/// `text` with `case` appended to its `cases`.
pub fn add_case(path: &Path, text: &str, case: &Case) -> Result<String, SuiteError> {
    let cases = CasesNode::find(path, text)?;
    let edited = match &cases.items {
        Items::Block(items) => {
            let indent = items.first().map_or(2, |item| item.dash_column);
            let at = items
                .last()
                .map_or(cases.value_span.end, |item| item.lines.end);
            splice(text, at..at, &render_case(case, indent))
        }
        Items::Flow(existing) => {
            let mut all = existing.clone();
            all.push(case.clone());
            splice(text, cases.value_span.clone(), &render_block(&all))
        }
        Items::Empty => splice(
            text,
            cases.value_span.clone(),
            &render_block(std::slice::from_ref(case)),
        ),
    };
    verified(path, edited, cases.count + 1)
}

/// `text` with the case at `index` (0-based, in file order) replaced by `case`.
pub fn replace_case(
    path: &Path,
    text: &str,
    index: usize,
    case: &Case,
) -> Result<String, SuiteError> {
    let cases = CasesNode::find(path, text)?;
    let edited = match &cases.items {
        Items::Block(items) => {
            let item = nth(path, items, index)?;
            splice(
                text,
                item.lines.clone(),
                &render_case(case, item.dash_column),
            )
        }
        Items::Flow(existing) => {
            let mut all = existing.clone();
            nth(path, &all, index)?;
            all[index] = case.clone();
            splice(text, cases.value_span.clone(), &render_block(&all))
        }
        Items::Empty => return Err(no_case(path, index)),
    };
    verified(path, edited, cases.count)
}

/// `text` without the case at `index` (0-based, in file order).
pub fn remove_case(path: &Path, text: &str, index: usize) -> Result<String, SuiteError> {
    let cases = CasesNode::find(path, text)?;
    let edited = match &cases.items {
        Items::Block(items) => {
            let item = nth(path, items, index)?;
            if items.len() == 1 {
                // A block list cannot be empty: the last case leaves `[]`.
                let span = cases.value_span.start..item.lines.end;
                splice(text, span, " []\n")
            } else {
                splice(text, item.lines.clone(), "")
            }
        }
        Items::Flow(existing) => {
            let mut all = existing.clone();
            nth(path, &all, index)?;
            all.remove(index);
            let rendered = if all.is_empty() {
                "[]".to_owned()
            } else {
                render_block(&all)
            };
            splice(text, cases.value_span.clone(), &rendered)
        }
        Items::Empty => return Err(no_case(path, index)),
    };
    verified(path, edited, cases.count - 1)
}

/// One case as block YAML, its dash at `indent` columns, ending in a newline.
pub fn render_case(case: &Case, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!("{pad}- query: {}\n", quoted(&case.query));
    if let Some(expect) = &case.expect {
        out.push_str(&format!("{pad}  expect: {}\n", flow_list(expect)));
    }
    if !case.reject.is_empty() {
        out.push_str(&format!("{pad}  reject: {}\n", flow_list(&case.reject)));
    }
    match case.kinds.as_slice() {
        [] => {}
        [kind] => out.push_str(&format!("{pad}  kind: {}\n", scalar(kind))),
        kinds => out.push_str(&format!("{pad}  kind: {}\n", flow_list(kinds))),
    }
    out
}

/// The `cases` value of a suite, located in its text.
struct CasesNode {
    /// From just after the colon of `cases:` to the end of its value (for
    /// an empty value, to the end of the line).
    value_span: Range<usize>,
    items: Items,
    count: usize,
}

enum Items {
    /// `cases:` with nothing after it.
    Empty,
    /// `cases: [...]`, as parsed.
    Flow(Vec<Case>),
    Block(Vec<BlockItem>),
}

/// A case of a block list: where it sits, for edits that keep the rest of the file.
pub struct BlockItem {
    /// Whole lines, from the one holding the dash to the last line of the
    /// case's own content (trailing comments and blank lines excluded, since
    /// they usually introduce the next group of cases).
    pub lines: Range<usize>,
    pub dash_column: usize,
}

impl CasesNode {
    fn find(path: &Path, text: &str) -> Result<CasesNode, SuiteError> {
        let suite = Suite::from_yaml(path, text)?;
        let error = |offset: usize, message: &str| {
            let position = LineIndex::new(text).position(text, offset);
            SuiteError {
                path: path.to_path_buf(),
                line: position.line,
                column: position.column,
                message: message.to_owned(),
            }
        };
        let root = yaml::parse(text, 0).map_err(|e| error(e.offset, &e.message))?;
        let (key, value) = root
            .as_map()
            .and_then(|entries| entries.iter().find(|(k, _)| k.key_string() == "cases"))
            .ok_or_else(|| error(0, "the suite has no `cases` list"))?;
        let colon = text[key.span.end..]
            .find(':')
            .map_or(key.span.end, |i| key.span.end + i + 1);
        let count = suite.cases.len();
        let items = match &value.value {
            Value::Seq(_) if text[value.span.start..].starts_with('[') => Items::Flow(suite.cases),
            Value::Seq(items) => Items::Block(
                items
                    .iter()
                    .map(|item| block_item(text, item))
                    .collect::<Option<_>>()
                    .ok_or_else(|| error(value.span.start, "a case is not a list item"))?,
            ),
            _ => Items::Empty,
        };
        // An empty value spans nothing; give the edit the rest of the key's line.
        let value_end = if matches!(items, Items::Empty) {
            text[colon..].find('\n').map_or(text.len(), |i| colon + i)
        } else {
            value.span.end.max(colon)
        };
        Ok(CasesNode {
            value_span: colon..value_end,
            items,
            count,
        })
    }
}

pub fn block_item(text: &str, item: &Node) -> Option<BlockItem> {
    let line_start = text[..item.span.start].rfind('\n').map_or(0, |i| i + 1);
    let dash = text[line_start..item.span.start].rfind('-')? + line_start;
    let dash_column = text[line_start..dash].chars().count();
    // The case ends at its last line that is neither blank nor a comment.
    let mut end = item.span.end.max(item.span.start);
    let own = &text[item.span.start..end];
    let kept = own
        .split_inclusive('\n')
        .scan(item.span.start, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some((start, line))
        })
        .filter(|(_, line)| {
            let trimmed = line.trim();
            !trimmed.is_empty() && !trimmed.starts_with('#')
        })
        .last();
    if let Some((start, line)) = kept {
        end = start + line.trim_end().len();
    }
    Some(BlockItem {
        lines: line_start..line_end(text, end),
        dash_column,
    })
}

/// The offset after the newline ending the line that holds `offset`.
fn line_end(text: &str, offset: usize) -> usize {
    text[offset..]
        .find('\n')
        .map_or(text.len(), |i| offset + i + 1)
}

pub fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    let mut before = text[..range.start].to_owned();
    // An insertion after a last line without a newline starts a new line.
    if !with.is_empty() && !before.is_empty() && !before.ends_with('\n') && with.ends_with('\n') {
        before.push('\n');
    }
    before + with + &text[range.end..]
}

fn render_block(cases: &[Case]) -> String {
    let mut out = String::from("\n");
    for case in cases {
        out.push_str(&render_case(case, 2));
    }
    out.truncate(out.trim_end_matches('\n').len());
    out
}

fn nth<'a, T>(path: &Path, items: &'a [T], index: usize) -> Result<&'a T, SuiteError> {
    items
        .get(index)
        .ok_or_else(|| no_case_of(path, index, items.len()))
}

fn no_case(path: &Path, index: usize) -> SuiteError {
    no_case_of(path, index, 0)
}

fn no_case_of(path: &Path, index: usize, len: usize) -> SuiteError {
    SuiteError {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        message: format!("the suite has no case {} (it has {len})", index + 1),
    }
}

/// The edited text, if it still parses as a suite with `expected` cases.
fn verified(path: &Path, text: String, expected: usize) -> Result<String, SuiteError> {
    let suite = Suite::from_yaml(path, &text)?;
    if suite.cases.len() != expected {
        return Err(SuiteError {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: format!(
                "the edit would leave {} cases instead of {expected}; the file was not changed",
                suite.cases.len()
            ),
        });
    }
    Ok(text)
}

/// A double-quoted YAML string (JSON's escapes are YAML's).
pub fn quoted(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "\"\"".into())
}

/// A scalar left plain when YAML would read it back as the same string.
pub fn scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && value.chars().next().is_some_and(char::is_alphabetic)
        && !matches!(
            value.to_ascii_lowercase().as_str(),
            "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "y" | "n"
        );
    if plain {
        value.to_owned()
    } else {
        quoted(value)
    }
}

fn flow_list(values: &[String]) -> String {
    let items: Vec<String> = values.iter().map(|v| scalar(v)).collect();
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = "# Routing cases\nname: r\ncases:\n  # --- pdf ---\n  - query: \"read a pdf\"\n    expect: [pdf]\n    kind: direct\n\n  # --- none ---\n  - query: plan a trip\n    expect: []   # nothing fits\n";

    fn case(query: &str, expect: &[&str]) -> Case {
        Case {
            query: query.into(),
            expect: Some(expect.iter().map(|s| s.to_string()).collect()),
            reject: Vec::new(),
            kinds: Vec::new(),
            line: 0,
        }
    }

    fn parse(text: &str) -> Suite {
        Suite::from_yaml(Path::new("s.yaml"), text).unwrap()
    }

    #[test]
    fn adding_keeps_comments_and_appends_at_the_same_indent() {
        let text = add_case(
            Path::new("s.yaml"),
            SUITE,
            &case("fill \"form\": now", &["pdf"]),
        )
        .unwrap();
        assert!(text.starts_with(SUITE), "{text}");
        assert!(text.ends_with("  - query: \"fill \\\"form\\\": now\"\n    expect: [pdf]\n"));
        let suite = parse(&text);
        assert_eq!(suite.cases[2].query, "fill \"form\": now");
    }

    #[test]
    fn replacing_touches_only_that_case() {
        let mut new = case("read a PDF file", &["pdf", "documents"]);
        new.kinds = vec!["paraphrase".into()];
        new.reject = vec!["yes".into()];
        let text = replace_case(Path::new("s.yaml"), SUITE, 0, &new).unwrap();
        assert!(text.contains("# --- pdf ---\n  - query: \"read a PDF file\"\n    expect: [pdf, documents]\n    reject: [\"yes\"]\n    kind: paraphrase\n\n  # --- none ---"), "{text}");
        assert_eq!(parse(&text).cases[0], Case { line: 5, ..new });
    }

    #[test]
    fn removing_keeps_the_comments_of_the_next_group() {
        let text = remove_case(Path::new("s.yaml"), SUITE, 0).unwrap();
        assert_eq!(
            text,
            "# Routing cases\nname: r\ncases:\n  # --- pdf ---\n\n  # --- none ---\n  - query: plan a trip\n    expect: []   # nothing fits\n"
        );
        let last = remove_case(Path::new("s.yaml"), &text, 0).unwrap();
        assert!(parse(&last).cases.is_empty(), "{last}");
        let again = add_case(Path::new("s.yaml"), &last, &case("x", &[])).unwrap();
        assert_eq!(parse(&again).cases.len(), 1, "{again}");
    }

    #[test]
    fn flow_and_empty_lists_become_block_lists() {
        for text in ["name: r\ncases: []\n", "name: r\ncases:\n"] {
            let added = add_case(Path::new("s.yaml"), text, &case("q", &["a"])).unwrap();
            assert_eq!(
                added,
                "name: r\ncases:\n  - query: \"q\"\n    expect: [a]\n"
            );
        }
        let flow = "name: r\ncases: [{query: a, expect: [x]}, {query: b, expect: []}]\n";
        let removed = remove_case(Path::new("s.yaml"), flow, 0).unwrap();
        assert_eq!(parse(&removed).cases.len(), 1);
    }

    #[test]
    fn a_missing_case_is_an_error_and_new_suites_parse() {
        assert!(remove_case(Path::new("s.yaml"), SUITE, 5).is_err());
        assert!(
            replace_case(Path::new("s.yaml"), "name: r\ncases:\n", 0, &case("q", &[])).is_err()
        );
        let text = new_suite("my suite", &[case("q", &["a"])]);
        let suite = parse(&text);
        assert_eq!(suite.name, "my suite");
        assert_eq!(suite.cases.len(), 1);
    }
}
