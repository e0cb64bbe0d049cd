//! A markdown file taken apart for the security rules: code (blocks and
//! inline spans, which an agent may run), HTML comments and link titles
//! (which a reader of the rendered page never sees), and quoted text
//! (block quotes and code, where an injection is usually being shown, not
//! given).

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

use super::lex::Lang;

/// Code in a markdown file.
#[derive(Debug, Clone)]
pub(crate) struct CodeBlock {
    /// The code itself (without fences or backticks).
    pub range: Range<usize>,
    /// The language it is lexed as; `None` for data (JSON, YAML, text…).
    pub lang: Option<Lang>,
}

#[derive(Debug, Default)]
pub(crate) struct Markdown<'a> {
    pub text: &'a str,
    pub code: Vec<CodeBlock>,
    /// `<!-- … -->` outside code, the delimiters included.
    pub html_comments: Vec<Range<usize>>,
    /// The titles of links and images (`[a](b "title")`), without quotes.
    pub link_titles: Vec<Range<usize>>,
    /// Block quotes, code blocks and inline code.
    pub quoted: Vec<Range<usize>>,
}

impl<'a> Markdown<'a> {
    pub(crate) fn parse(text: &'a str) -> Markdown<'a> {
        let mut doc = Markdown {
            text,
            ..Markdown::default()
        };
        let mut block: Option<(Option<Lang>, Option<usize>)> = None;
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
            match event {
                Event::Start(Tag::CodeBlock(kind)) => {
                    let lang = match kind {
                        CodeBlockKind::Fenced(info) => Lang::of_fence(&info),
                        CodeBlockKind::Indented => Some(Lang::Shell),
                    };
                    doc.quoted.push(range);
                    block = Some((lang, None));
                }
                Event::Text(_) if block.is_some() => {
                    if let Some((_, start)) = &mut block {
                        start.get_or_insert(range.start);
                    }
                    if let Some((lang, Some(start))) = block {
                        // Consecutive text events of one block: extend it.
                        match doc.code.last_mut() {
                            Some(last) if last.range.start == start => last.range.end = range.end,
                            _ => doc.code.push(CodeBlock {
                                range: start..range.end,
                                lang,
                            }),
                        }
                    }
                }
                Event::End(pulldown_cmark::TagEnd::CodeBlock) => block = None,
                Event::Code(_) => {
                    let inner = trim_backticks(text, range.clone());
                    doc.quoted.push(range);
                    doc.code.push(CodeBlock {
                        range: inner,
                        lang: Some(Lang::Shell),
                    });
                }
                Event::Start(Tag::BlockQuote(_)) => doc.quoted.push(range),
                Event::Start(Tag::Link { title, .. } | Tag::Image { title, .. })
                    if !title.is_empty() =>
                {
                    if let Some(at) = text[range.clone()].rfind(&*title) {
                        let start = range.start + at;
                        doc.link_titles.push(start..start + title.len());
                    }
                }
                _ => {}
            }
        }
        let mut from = 0;
        while let Some(at) = memchr::memmem::find(&text.as_bytes()[from..], b"<!--") {
            let start = from + at;
            let end = memchr::memmem::find(&text.as_bytes()[start + 4..], b"-->")
                .map_or(text.len(), |n| start + 4 + n + 3);
            if !doc.in_code(start) {
                doc.html_comments.push(start..end);
            }
            from = end.max(start + 4);
        }
        doc
    }

    fn in_code(&self, offset: usize) -> bool {
        self.code.iter().any(|c| c.range.contains(&offset))
    }

    /// Whether `offset` lies in a block quote or code.
    pub(crate) fn is_quoted(&self, offset: usize) -> bool {
        self.quoted.iter().any(|q| q.contains(&offset))
    }
}

fn trim_backticks(text: &str, range: Range<usize>) -> Range<usize> {
    let inner = &text[range.clone()];
    let lead = inner.len() - inner.trim_start_matches('`').len();
    let trail = inner.len() - inner.trim_end_matches('`').len();
    if lead + trail >= inner.len() {
        return range;
    }
    range.start + lead..range.end - trail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_found() {
        let text = "Text <!-- hidden --> and `curl x | sh`.\n\n```bash\nrm -rf /\n```\n\n> quoted\n\n[a](b \"do it\")\n\n```json\n{}\n```\n";
        let doc = Markdown::parse(text);
        assert_eq!(&text[doc.html_comments[0].clone()], "<!-- hidden -->");
        let code: Vec<&str> = doc.code.iter().map(|c| &text[c.range.clone()]).collect();
        assert_eq!(code, ["curl x | sh", "rm -rf /\n", "{}\n"]);
        assert_eq!(doc.code[2].lang, None);
        assert_eq!(&text[doc.link_titles[0].clone()], "do it");
        assert!(doc.is_quoted(text.find("quoted").unwrap()));
        assert!(!doc.is_quoted(0));
    }

    #[test]
    fn odd_input_does_not_panic() {
        for text in [
            "<!--",
            "`",
            "```",
            "[a](b \"",
            "> ",
            "<!-- -->-->",
            "\u{e0041}`x`",
        ] {
            let _ = Markdown::parse(text);
        }
    }
}
