//! Adding a case to a YAML task suite in place: the new case goes after the
//! last one, with the file's comments and layout kept, and the edited text
//! is read back as a suite before anyone writes it.

use std::path::Path;

use super::suite::{TaskSuite, TaskSuiteError};
use crate::eval::edit::{block_item, quoted, scalar, splice};
use crate::text::LineIndex;
use crate::yaml::{self, Value};

/// `text` with a case asking `prompt` appended to its `cases`, under a name
/// made from the prompt that no case of the suite has yet.
///
/// The case gets one grader (the skill loaded, in the arm with it) and a
/// comment asking for the graders that check the task itself: a grader that
/// guessed what "done" means would measure the guess.
pub fn append_case(path: &Path, text: &str, prompt: &str) -> Result<String, TaskSuiteError> {
    let error = |offset: usize, message: String| {
        let position = LineIndex::new(text).position(text, offset);
        TaskSuiteError {
            path: path.to_path_buf(),
            line: position.line,
            column: position.column,
            message,
        }
    };
    if prompt.trim().is_empty() {
        return Err(error(0, "a case needs a prompt".into()));
    }
    let suite = TaskSuite::from_yaml(path, text)?;
    let names: Vec<&str> = suite.cases.iter().map(|c| c.name.as_str()).collect();
    let name = case_name(prompt, &names);
    let root = yaml::parse(text, 0).map_err(|e| error(e.offset, e.message))?;
    let (key, value) = root
        .as_map()
        .and_then(|entries| entries.iter().find(|(k, _)| k.key_string() == "cases"))
        .ok_or_else(|| error(0, "the suite has no `cases` list".into()))?;
    let edited = match &value.value {
        Value::Seq(items) if text[value.span.start..].starts_with('[') => {
            if !items.is_empty() {
                return Err(error(
                    value.span.start,
                    "the cases are written inline (`cases: [...]`): write them one per line to add a case here".into(),
                ));
            }
            // `cases: []` becomes a block list; the line's own newline ends it.
            let block = format!("\n{}", render(&name, prompt, 2));
            splice(text, value.span.clone(), block.trim_end_matches('\n'))
        }
        Value::Seq(items) => {
            let last = items
                .last()
                .and_then(|item| block_item(text, item))
                .ok_or_else(|| error(value.span.start, "a case is not a list item".into()))?;
            let at = last.lines.end;
            splice(text, at..at, &render(&name, prompt, last.dash_column))
        }
        _ => return Err(error(key.span.start, "`cases` is not a list".into())),
    };
    let read_back = TaskSuite::from_yaml(path, &edited)?;
    if read_back.cases.len() != suite.cases.len() + 1 {
        return Err(error(
            0,
            "the edit would not add exactly one case; the file was not changed".into(),
        ));
    }
    Ok(edited)
}

/// One case as block YAML, its dash at `indent` columns.
fn render(name: &str, prompt: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    format!(
        "{pad}- name: {}\n{pad}  prompt: {}\n{pad}  graders:\n{pad}    # Add the graders that show the task was done (file_matches, regex, command).\n{pad}    - {{type: skill_loaded, arm: with-only}}\n",
        scalar(name),
        quoted(prompt)
    )
}

/// A short name from the prompt's first words, unused among `taken`.
fn case_name(prompt: &str, taken: &[&str]) -> String {
    let words: Vec<String> = prompt
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(5)
        .map(str::to_lowercase)
        .collect();
    let base = if words.is_empty() {
        "case".to_string()
    } else {
        words.join("-")
    };
    std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .find(|name| !taken.contains(&name.as_str()))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = "# Greeting tasks\nname: greet\ncases:\n  - name: greets-ada\n    prompt: \"Greet Ada\"\n    graders:\n      - {type: regex, pattern: done}   # the reply\n\n# more below\n";

    #[test]
    fn appends_after_the_last_case_and_keeps_the_comments() {
        let path = Path::new("/lib/evals/tasks/greet.yaml");
        let edited = append_case(path, SUITE, "Greet Ada: loudly!").unwrap();
        assert!(edited.starts_with("# Greeting tasks\n"), "{edited}");
        assert!(
            edited.contains(
                "# the reply\n  - name: greet-ada-loudly\n    prompt: \"Greet Ada: loudly!\"\n"
            ),
            "{edited}"
        );
        assert!(edited.ends_with("\n# more below\n"), "{edited}");
        let suite = TaskSuite::from_yaml(path, &edited).unwrap();
        assert_eq!(suite.cases[1].prompt, "Greet Ada: loudly!");
        // The same prompt again gets a name of its own.
        let again = append_case(path, &edited, "Greet Ada: loudly!").unwrap();
        let suite = TaskSuite::from_yaml(path, &again).unwrap();
        assert_eq!(suite.cases[2].name, "greet-ada-loudly-2");
    }

    #[test]
    fn fills_an_empty_list_and_refuses_inline_cases() {
        let path = Path::new("t.yaml");
        let edited = append_case(path, "name: t\ncases: []\n", "Say hi").unwrap();
        let suite = TaskSuite::from_yaml(path, &edited).unwrap();
        assert_eq!(suite.cases[0].name, "say-hi");
        let inline = "cases: [{name: a, prompt: p, graders: [{type: skill_loaded}]}]\n";
        let err = append_case(path, inline, "Say hi").unwrap_err();
        assert!(err.message.contains("inline"), "{err}");
        assert!(append_case(path, "cases: []\n", "  ").is_err());
    }
}
