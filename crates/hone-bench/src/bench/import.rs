//! Task suites written for other tools, read as they are.
//!
//! - skill-creator's `evals/evals.json`: `{skill_name, evals: [{id, prompt,
//!   expected_output, files, expectations}]}`. Each expectation is a
//!   statement a model checks, so each becomes an `llm` grader (the expected
//!   output becomes one when there are none); `files` are copied into the
//!   workspace from the skill's folder.
//! - `claude plugin eval` cases (Claude Code ≥ 2.1.269): a folder per case
//!   holding `case.yaml`, or `prompt.md` (frontmatter and the prompt) with
//!   `graders/*.md` (frontmatter with `type:`, the body as the criteria or
//!   pattern). Its graders map one to one, except `baseline` and a regex on
//!   `mock_calls`, which are left out and named in the suite's notes, as is a
//!   `scaffold_script` (Hone never runs one).

use std::path::Path;

use serde_json::{Value as Json, json};

use super::suite::{
    ArmScope, Check, Grader, Target, TaskCase, TaskSuite, TaskSuiteError, name_graders, stem,
};
use crate::yaml;

fn error(path: &Path, message: impl Into<String>) -> TaskSuiteError {
    TaskSuiteError {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        message: message.into(),
    }
}

/// skill-creator's `evals.json`.
pub fn skill_creator_evals(path: &Path, text: &str) -> Result<TaskSuite, TaskSuiteError> {
    let json: Json = serde_json::from_str(text).map_err(|e| TaskSuiteError {
        path: path.to_path_buf(),
        line: e.line() as u32,
        column: e.column() as u32,
        message: e.to_string(),
    })?;
    let evals = json
        .get("evals")
        .and_then(Json::as_array)
        .ok_or_else(|| error(path, "an evals.json needs an `evals` list"))?;
    // `files` are relative to the skill's root, the folder above `evals/`.
    let folder = path.parent().unwrap_or(Path::new("."));
    let base = if folder.file_name().is_some_and(|n| n == "evals") {
        folder.parent().unwrap_or(folder)
    } else {
        folder
    };
    let mut cases = Vec::new();
    for (index, eval) in evals.iter().enumerate() {
        let id = eval
            .get("id")
            .map(|id| id.to_string().trim_matches('"').to_string())
            .unwrap_or_else(|| (index + 1).to_string());
        let prompt = eval
            .get("prompt")
            .and_then(Json::as_str)
            .ok_or_else(|| error(path, format!("eval {id} has no `prompt`")))?;
        let strings = |key: &str| -> Vec<String> {
            eval.get(key)
                .and_then(Json::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut criteria = strings("expectations");
        if criteria.is_empty()
            && let Some(expected) = eval.get("expected_output").and_then(Json::as_str)
        {
            criteria.push(expected.to_string());
        }
        if criteria.is_empty() {
            return Err(error(
                path,
                format!("eval {id} has neither expectations nor an expected_output"),
            ));
        }
        let mut graders: Vec<Grader> = criteria
            .into_iter()
            .map(|criteria| Grader {
                name: String::new(),
                arm: ArmScope::Both,
                check: Check::Llm {
                    criteria,
                    focus: Target::LastMessage,
                    votes: 3,
                },
            })
            .collect();
        name_graders(&mut graders);
        cases.push(TaskCase {
            name: format!("eval-{id}"),
            prompt: prompt.to_string(),
            files: Default::default(),
            fixtures: None,
            copy: strings("files"),
            allowed_tools: Vec::new(),
            max_turns: 10,
            timeout: 300,
            runs: None,
            graders,
            script: Vec::new(),
        });
    }
    let suite = TaskSuite {
        name: json
            .get("skill_name")
            .and_then(Json::as_str)
            .map_or_else(|| stem(path), str::to_string),
        skill: json
            .get("skill_name")
            .and_then(Json::as_str)
            .map(str::to_string),
        cases,
        notes: Vec::new(),
        base: base.to_path_buf(),
    };
    suite.check().map_err(|m| error(path, m))?;
    Ok(suite)
}

/// A folder of `claude plugin eval` cases: the plugin (whose `evals/` holds
/// them) or the eval folder itself.
pub fn plugin_eval_cases(dir: &Path) -> Result<TaskSuite, TaskSuiteError> {
    let root = if dir.join("evals").is_dir() && !is_case(dir) {
        dir.join("evals")
    } else {
        dir.to_path_buf()
    };
    let mut folders: Vec<_> = walkdir::WalkDir::new(&root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != "results" && e.file_name() != "mocks")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir() && is_case(e.path()))
        .map(|e| e.into_path())
        .collect();
    folders.sort();
    if folders.is_empty() {
        return Err(error(
            dir,
            "no eval cases here: a case is a folder holding case.yaml or prompt.md",
        ));
    }
    let mut cases = Vec::new();
    let mut notes = Vec::new();
    for folder in folders {
        let (case, mut left_out) = plugin_case(&folder)?;
        notes.append(&mut left_out);
        cases.push(case);
    }
    let suite = TaskSuite {
        name: stem(dir),
        skill: None,
        cases,
        notes,
        base: root,
    };
    suite.check().map_err(|m| error(dir, m))?;
    Ok(suite)
}

fn is_case(dir: &Path) -> bool {
    dir.join("case.yaml").is_file() || dir.join("prompt.md").is_file()
}

/// Keys of `prompt.md`'s frontmatter that live under `execution`.
const EXECUTION_KEYS: [&str; 9] = [
    "model",
    "max_turns",
    "timeout_seconds",
    "allowed_tools",
    "disallowed_tools",
    "artifact_publish",
    "growthbook_overrides",
    "append_system_prompt",
    "env",
];

/// One case folder as `claude plugin eval` reads it: `case.yaml`, overlaid
/// by `prompt.md` and `graders/*.md`.
fn plugin_case(folder: &Path) -> Result<(TaskCase, Vec<String>), TaskSuiteError> {
    let read_yaml = |path: &Path, text: &str| -> Result<Json, TaskSuiteError> {
        yaml::parse(text, 0)
            .map(|node| node.to_json())
            .map_err(|e| error(path, e.message))
    };
    let case_file = folder.join("case.yaml");
    let mut case = if case_file.is_file() {
        let text =
            std::fs::read_to_string(&case_file).map_err(|e| error(&case_file, e.to_string()))?;
        read_yaml(&case_file, &text)?
    } else {
        json!({})
    };
    if !case.is_object() {
        return Err(error(&case_file, "case.yaml must be a YAML object"));
    }
    let prompt_file = folder.join("prompt.md");
    if prompt_file.is_file() {
        let text = std::fs::read_to_string(&prompt_file)
            .map_err(|e| error(&prompt_file, e.to_string()))?;
        let (front, body) = split_frontmatter(&text);
        if let Some(front) = front {
            let front = read_yaml(&prompt_file, front)?;
            for (key, value) in front.as_object().into_iter().flatten() {
                let slot = if EXECUTION_KEYS.contains(&key.as_str()) {
                    &mut case["execution"][key]
                } else {
                    &mut case[key]
                };
                *slot = value.clone();
            }
        }
        if !body.trim().is_empty() {
            case["execution"]["prompt"] = json!(body.trim());
        }
    }
    let graders_dir = folder.join("graders");
    if graders_dir.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(&graders_dir)
            .map_err(|e| error(&graders_dir, e.to_string()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        let mut graders = case["graders"].as_array().cloned().unwrap_or_default();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| error(&file, e.to_string()))?;
            let (Some(front), body) = split_frontmatter(&text) else {
                continue;
            };
            let mut grader = read_yaml(&file, front)?;
            grader["name"] = json!(stem(&file));
            let slot = match grader["type"].as_str() {
                Some("llm" | "baseline") => "criteria",
                Some("regex") => "pattern",
                _ => "",
            };
            if !slot.is_empty() && grader[slot].is_null() && !body.trim().is_empty() {
                grader[slot] = json!(body.trim());
            }
            graders.push(grader);
        }
        case["graders"] = Json::Array(graders);
    }
    let name = case["name"]
        .as_str()
        .map_or_else(|| stem(folder), str::to_string);
    let where_ = folder.join(if case_file.is_file() {
        "case.yaml"
    } else {
        "prompt.md"
    });
    let execution = &case["execution"];
    let prompt = execution["prompt"]
        .as_str()
        .filter(|p| !p.trim().is_empty())
        .ok_or_else(|| {
            error(
                &where_,
                "execution.prompt is required (a prompt.md body, or execution.prompt in case.yaml)",
            )
        })?;
    let mut notes = Vec::new();
    if case["context"]["scaffold_script"].is_string() {
        notes.push(format!(
            "{name}: its scaffold_script is not run (Hone never runs a case's set-up script)"
        ));
    }
    let mut graders = Vec::new();
    for grader in case["graders"].as_array().into_iter().flatten() {
        match plugin_grader(grader) {
            Ok(grader) => graders.push(grader),
            Err(why) => notes.push(format!("{name}: {why}")),
        }
    }
    name_graders(&mut graders);
    let strings = |value: &Json| -> Vec<String> {
        value
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok((
        TaskCase {
            name,
            prompt: prompt.to_string(),
            files: Default::default(),
            fixtures: None,
            copy: Vec::new(),
            allowed_tools: strings(&execution["allowed_tools"]),
            max_turns: execution["max_turns"].as_u64().unwrap_or(10) as u32,
            timeout: execution["timeout_seconds"].as_u64().unwrap_or(300),
            runs: case["runs"].as_u64().map(|r| r as u32),
            graders,
            script: Vec::new(),
        },
        notes,
    ))
}

/// One grader of a `claude plugin eval` case, or why it is left out.
fn plugin_grader(grader: &Json) -> Result<Grader, String> {
    let name = grader["name"].as_str().unwrap_or_default().to_string();
    let arm = match grader["arm"].as_str() {
        Some("with-only") => ArmScope::WithOnly,
        _ => ArmScope::Both,
    };
    let target = |value: &Json| -> Result<Target, String> {
        match value {
            Json::Null => Ok(Target::LastMessage),
            Json::String(s) if s == "last_message" => Ok(Target::LastMessage),
            Json::String(s) if s == "trace" => Ok(Target::Trace),
            Json::String(s) if s == "files" => Ok(Target::Files),
            Json::Object(o) if o.get("source").and_then(Json::as_str) == Some("file") => {
                Ok(Target::File(
                    o.get("path")
                        .and_then(Json::as_str)
                        .unwrap_or("")
                        .to_string(),
                ))
            }
            other => Err(format!(
                "grader `{name}` reads {other}, which Hone does not record"
            )),
        }
    };
    let text = |key: &str| grader[key].as_str().unwrap_or_default().to_string();
    let tool = |value: &Json| -> String {
        value
            .as_str()
            .or_else(|| value["tool"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let check = match grader["type"].as_str() {
        Some("regex") => Check::Regex {
            pattern: text("pattern"),
            target: target(&grader["target"])?,
            flags: text("flags"),
            matching: grader["match"].as_str().unwrap_or("contains").to_string(),
        },
        Some("tool_used") => Check::ToolUsed {
            tool: text("tool"),
            input_match: grader["input_match"].as_str().map(str::to_string),
            min: grader["min"].as_u64().map(|n| n as u32),
            max: grader["max"].as_u64().map(|n| n as u32),
        },
        Some("tool_order") => Check::ToolOrder {
            before: tool(&grader["before"]),
            after: tool(&grader["after"]),
        },
        Some("file_exists") => Check::FileExists {
            path: text("path"),
            exists: grader["exists"].as_bool().unwrap_or(true),
        },
        Some("llm") => Check::Llm {
            criteria: text("criteria"),
            focus: target(&grader["focus"])?,
            votes: 3,
        },
        Some(other) => {
            return Err(format!(
                "grader `{name}` is of type `{other}`, which Hone does not run"
            ));
        }
        None => return Err(format!("grader `{name}` has no type")),
    };
    Ok(Grader { name, arm, check })
}

/// The YAML between the opening and closing `---`, and the body after it.
fn split_frontmatter(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (Some(&rest[..offset]), &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (None, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_creator_expectations_become_llm_graders_and_files_are_copied() {
        let dir = tempfile::tempdir().unwrap();
        let evals = dir.path().join("skill/evals");
        std::fs::create_dir_all(&evals).unwrap();
        let path = evals.join("evals.json");
        std::fs::write(
            &path,
            r#"{"skill_name": "pdf", "evals": [
                {"id": 1, "prompt": "Fill the form", "expected_output": "a filled form",
                 "files": ["evals/files/form.pdf"], "expectations": ["Uses pypdf", "Saves out.pdf"]},
                {"id": 2, "prompt": "Merge", "expected_output": "one file"}]}"#,
        )
        .unwrap();
        let suite = TaskSuite::load(&path).unwrap();
        assert_eq!(suite.skill.as_deref(), Some("pdf"));
        assert_eq!(suite.base, dir.path().join("skill"));
        assert_eq!(suite.cases[0].name, "eval-1");
        assert_eq!(suite.cases[0].copy, ["evals/files/form.pdf"]);
        assert_eq!(suite.cases[0].graders.len(), 2);
        assert!(
            matches!(&suite.cases[1].graders[0].check, Check::Llm { criteria, .. } if criteria == "one file")
        );
    }

    #[test]
    fn plugin_eval_cases_in_both_layouts() {
        let dir = tempfile::tempdir().unwrap();
        let evals = dir.path().join("evals");
        std::fs::create_dir_all(evals.join("a")).unwrap();
        std::fs::write(
            evals.join("a/case.yaml"),
            r#"schema_version: "1.0"
name: writes-report
runs: 2
context: {scaffold_script: setup.sh}
execution: {prompt: "Write report.md", max_turns: 5, allowed_tools: [Write]}
graders:
  - {type: file_exists, name: report, path: report.md}
  - {type: tool_used, name: used-skill, tool: Skill, arm: with-only}
  - {type: tool_order, name: order, before: {tool: Read}, after: Write}
  - {type: regex, name: calls, target: mock_calls, pattern: x}
  - {type: baseline, name: base, baseline_file: b.md, criteria: better}
"#,
        )
        .unwrap();
        std::fs::create_dir_all(evals.join("b/graders")).unwrap();
        std::fs::write(
            evals.join("b/prompt.md"),
            "---\nruns: 4\nmax_turns: 7\n---\nSummarise the notes.\n",
        )
        .unwrap();
        std::fs::write(
            evals.join("b/graders/tone.md"),
            "---\ntype: llm\n---\nThe summary is neutral.\n",
        )
        .unwrap();
        std::fs::write(
            evals.join("b/graders/short.md"),
            "---\ntype: regex\nmatch: not_contains\n---\n(?s).{2000}\n",
        )
        .unwrap();
        let suite = TaskSuite::load(dir.path()).unwrap();
        assert_eq!(suite.cases.len(), 2);
        let a = &suite.cases[0];
        assert_eq!(
            (a.name.as_str(), a.runs, a.max_turns),
            ("writes-report", Some(2), 5)
        );
        assert_eq!(a.graders.len(), 3);
        assert_eq!(a.graders[1].arm, ArmScope::WithOnly);
        assert!(matches!(&a.graders[2].check, Check::ToolOrder { before, .. } if before == "Read"));
        assert_eq!(suite.notes.len(), 3, "{:?}", suite.notes);
        let b = &suite.cases[1];
        assert_eq!(
            (b.prompt.as_str(), b.runs, b.max_turns),
            ("Summarise the notes.", Some(4), 7)
        );
        assert_eq!(b.graders[0].name, "short");
        assert!(
            matches!(&b.graders[1].check, Check::Llm { criteria, .. } if criteria == "The summary is neutral.")
        );
    }

    #[test]
    fn a_case_without_a_prompt_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("c")).unwrap();
        std::fs::write(dir.path().join("c/case.yaml"), "name: c\ngraders: []\n").unwrap();
        let err = TaskSuite::load(dir.path()).unwrap_err();
        assert!(err.message.contains("execution.prompt"), "{err}");
    }
}
