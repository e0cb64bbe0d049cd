//! The body of a skill as safe HTML, for the app's preview.
//!
//! Skills come from strangers, and the preview runs inside the app's web view,
//! so the HTML is sanitised after rendering: `ammonia` keeps a fixed list of
//! harmless tags and attributes, which removes scripts, event handlers
//! (`onerror`), `javascript:` and other unknown URL schemes, styles, forms,
//! `svg` and `math` (both can carry script). The frontmatter is not rendered:
//! the preview shows what the agent reads once the skill is chosen.
//!
//! Relative links and images point into the skill directory, but the web view
//! has no notion of it. They are resolved against the skill directory and
//! rewritten to absolute URLs under a base the app serves (by default
//! [`RESOURCE_BASE`], `hone-resource://localhost/` followed by the
//! percent-encoded absolute path); [`resource_path`] turns such a URL back
//! into the file path, so the app's handler never parses URLs itself. A
//! relative target that climbs out of the skill directory, or an absolute
//! path, loses its URL: the app serves only the skill's own files.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use pulldown_cmark::Parser;

use crate::links::{MARKDOWN_OPTIONS, normalize, percent_decode, slash_path};
use crate::skill::Skill;

/// The URL prefix relative links and images are rewritten to by default.
pub const RESOURCE_BASE: &str = "hone-resource://localhost/";

/// The skill's body as sanitised HTML, resources under [`RESOURCE_BASE`].
pub fn render_body(skill: &Skill) -> String {
    render_body_with_base(skill, RESOURCE_BASE)
}

/// The skill's body as sanitised HTML, relative links and images rewritten to
/// `base` followed by the percent-encoded absolute path of the file (the app
/// may need another form of URL on some platforms).
pub fn render_body_with_base(skill: &Skill, base: &str) -> String {
    let mut html = String::with_capacity(skill.body().len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, Parser::new_ext(skill.body(), MARKDOWN_OPTIONS));
    sanitize(&html, &absolute_dir(&skill.dir), base)
}

fn absolute_dir(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Rewrites the relative URLs the sanitiser finds.
struct ResourceUrls {
    skill_dir: PathBuf,
    base: String,
}

impl<'a> ammonia::UrlRelativeEvaluate<'a> for ResourceUrls {
    fn evaluate<'url>(&self, url: &'url str) -> Option<Cow<'url, str>> {
        resolve(url, &self.skill_dir, &self.base).map(Cow::Owned)
    }
}

fn sanitize(html: &str, skill_dir: &Path, base: &str) -> String {
    let urls = ResourceUrls {
        skill_dir: skill_dir.to_path_buf(),
        base: base.to_owned(),
    };
    let mut builder = ammonia::Builder::default();
    builder
        // The defaults already exclude both; removing them says it can never change.
        .rm_tags(["svg", "math"])
        // Task-list checkboxes; the filter below keeps only checkboxes.
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tag_attributes("code", ["class"])
        .attribute_filter(|element, attribute, value| match (element, attribute) {
            ("input", "type") => (value == "checkbox").then_some(value.into()),
            // Only the `language-*` class pulldown-cmark puts on code blocks.
            ("code", "class") => (value.starts_with("language-")
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_+#.".contains(&b)))
            .then_some(value.into()),
            _ => Some(value.into()),
        })
        .url_relative(ammonia::UrlRelative::Custom(Box::new(urls)));
    builder.clean(html).to_string()
}

/// A relative URL of the body, as a URL the app serves; `None` removes it.
fn resolve(url: &str, skill_dir: &Path, base: &str) -> Option<String> {
    if url.starts_with('#') {
        return Some(url.to_owned());
    }
    if url.starts_with('/') || url.starts_with('\\') {
        return None;
    }
    let (path, fragment) = match url.find(['#', '?']) {
        Some(at) => (
            &url[..at],
            url[at..]
                .strip_prefix('#')
                .map(|f| f.split('?').next().unwrap_or(f)),
        ),
        None => (url, None),
    };
    let relative = normalize(&percent_decode(path))?;
    if relative.is_empty() {
        return None;
    }
    let file = skill_dir.join(&relative);
    let mut out = format!("{base}{}", encode_path(&file));
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    Some(out)
}

/// The path with `/` separators, percent-encoded except unreserved characters
/// and separators, without a leading `/`.
fn encode_path(path: &Path) -> String {
    let text = slash_path(path);
    let text = text.trim_start_matches('/');
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The file a resource URL made by [`render_body_with_base`] points at, for
/// the app's handler of `base`; `None` when `url` is not under `base`.
pub fn resource_path(url: &str, base: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix(base)?;
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    let decoded = percent_decode(rest);
    if cfg!(windows) && decoded.as_bytes().get(1) == Some(&b':') {
        Some(PathBuf::from(decoded))
    } else {
        Some(PathBuf::from(format!("/{decoded}")))
    }
}

/// Tags the renderer may produce that the sanitiser lets through, for tests.
#[cfg(test)]
fn allowed_tags() -> std::collections::HashSet<&'static str> {
    ammonia::Builder::default().clone_tags()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::SkillDocument;

    fn render(body: &str) -> String {
        let text = format!("---\nname: demo\ndescription: Shows things.\n---\n{body}");
        let skill = Skill::from_document(Path::new("/lib/demo"), SkillDocument::parse(text));
        render_body(&skill)
    }

    #[test]
    fn renders_markdown_but_not_the_frontmatter() {
        let html = render("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains("type=\"checkbox\""), "{html}");
        assert!(!html.contains("Shows things"), "{html}");
    }

    #[test]
    fn scripts_and_event_handlers_are_removed() {
        let html = render("<script>alert(1)</script>\n\n<img src=x.png onerror=\"alert(2)\">\n");
        assert!(
            !html.contains("script") && !html.contains("alert"),
            "{html}"
        );
        assert!(!html.contains("onerror"), "{html}");
    }

    #[test]
    fn javascript_urls_are_removed() {
        let html = render("[click](javascript:alert(1)) <a href=\"JaVaScRiPt:alert(2)\">x</a>\n");
        assert!(!html.to_ascii_lowercase().contains("javascript"), "{html}");
    }

    #[test]
    fn svg_and_math_are_removed() {
        let html = render(
            "<svg><script>alert(1)</script><circle r=\"4\"/></svg>\n\n<math><mi>x</mi></math>\n",
        );
        assert!(
            !html.contains("<svg") && !html.contains("<circle"),
            "{html}"
        );
        assert!(!html.contains("<math") && !html.contains("<mi"), "{html}");
        assert!(!allowed_tags().contains("svg") && !allowed_tags().contains("math"));
    }

    #[test]
    fn relative_links_and_images_point_into_the_skill_directory() {
        let html = render("[ref](references/a%20b.md#part) ![logo](./assets/logo.png)\n");
        assert!(
            html.contains("href=\"hone-resource://localhost/lib/demo/references/a%20b.md#part\""),
            "{html}"
        );
        assert!(
            html.contains("src=\"hone-resource://localhost/lib/demo/assets/logo.png\""),
            "{html}"
        );
        let path = resource_path(
            "hone-resource://localhost/lib/demo/references/a%20b.md#part",
            RESOURCE_BASE,
        );
        assert_eq!(path, Some(PathBuf::from("/lib/demo/references/a b.md")));
    }

    #[test]
    fn links_leaving_the_skill_lose_their_url() {
        let html = render(
            "[up](../other/SKILL.md) [abs](/etc/passwd) [web](https://example.com/x) [top](#top)\n",
        );
        assert!(
            !html.contains("other/SKILL.md") && !html.contains("/etc/passwd"),
            "{html}"
        );
        assert!(html.contains("href=\"https://example.com/x\""), "{html}");
        assert!(html.contains("href=\"#top\""), "{html}");
    }

    #[test]
    fn code_blocks_keep_only_their_language_class() {
        let html =
            render("```rust\nfn main() {}\n```\n\n<code class=\"x\" onclick=\"y\">z</code>\n");
        assert!(html.contains("class=\"language-rust\""), "{html}");
        assert!(
            !html.contains("class=\"x\"") && !html.contains("onclick"),
            "{html}"
        );
    }
}
