//! The parser's edge cases, through the public model: every input yields a
//! skill (possibly with a recorded problem), never a panic.

use std::path::Path;

use hone_core::document::{FrontmatterBlock, SkillDocument};
use hone_core::skill::Skill;
use hone_core::yaml::Value;

fn skill(bytes: &[u8]) -> Skill {
    Skill::from_document(Path::new("/lib/edge"), SkillDocument::from_bytes(bytes))
}

#[test]
fn bom_and_crlf_give_the_same_model_as_plain_text() {
    let plain = skill(b"---\nname: edge\ndescription: Does x.\n---\nBody\n");
    let windows =
        skill(b"\xef\xbb\xbf---\r\nname: edge\r\ndescription: Does x.\r\n---\r\nBody\r\n");
    assert_eq!(plain.meta, windows.meta);
    assert_eq!(windows.body(), "Body\r\n");
}

#[test]
fn tabs_used_for_indentation_are_a_yaml_error_with_a_position() {
    let s = skill(b"---\nmetadata:\n\tversion: 1\n---\n");
    let Some(Err(err)) = &s.yaml else {
        panic!("expected a YAML error, got {:?}", s.yaml)
    };
    let pos = s.lines.position(s.text(), err.offset);
    assert_eq!(pos.line, 3, "{err:?}");
}

#[test]
fn tabs_inside_values_are_fine() {
    let s = skill(b"---\nname: edge\ndescription: \"a\tb\"\n---\n");
    assert_eq!(s.meta.description.as_deref(), Some("a\tb"));
}

#[test]
fn non_mapping_frontmatter_parses_but_has_no_fields() {
    for yaml in ["- a\n- b\n", "just a string\n", "42\n"] {
        let s = skill(format!("---\n{yaml}---\n").as_bytes());
        let root = s.yaml_root().expect("valid YAML");
        assert!(!matches!(root.value, Value::Map(_)));
        assert_eq!(s.meta.name, None);
        assert_eq!(s.id, "edge");
    }
}

#[test]
fn missing_and_unclosed_frontmatter() {
    let missing = skill(b"# Just markdown\n");
    assert_eq!(missing.doc.frontmatter, FrontmatterBlock::Missing);
    assert!(missing.yaml.is_none());
    let unclosed = skill(b"---\nname: edge\n# Body without a closing line\n");
    assert!(matches!(
        unclosed.doc.frontmatter,
        FrontmatterBlock::Unclosed { .. }
    ));
    assert!(unclosed.yaml.is_none());
}

#[test]
fn invalid_utf8_is_decoded_lossily_and_recorded() {
    let s = skill(b"---\nname: edge\ndescription: caf\xe9\n---\n");
    assert_eq!(s.doc.invalid_utf8_at, Some(31));
    assert_eq!(s.meta.description.as_deref(), Some("caf\u{fffd}"));
}

#[test]
fn a_ten_megabyte_body_loads() {
    let mut text = String::from("---\nname: edge\ndescription: Big.\n---\n");
    let line = "Some instructions with a [link](references/a.md) and `code`.\n";
    while text.len() < 10 * 1024 * 1024 {
        text.push_str(line);
    }
    let s = skill(text.as_bytes());
    assert_eq!(s.meta.name.as_deref(), Some("edge"));
    assert!(s.links.len() > 100_000);
    assert!(s.lines.line_count(s.text()) > 100_000);
}

#[test]
fn an_alias_bomb_is_an_error_not_a_hang() {
    let mut yaml = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"]
        .windows(2)
        .map(|w| (w[0], w[1]))
    {
        let refs = vec![format!("*{prev}"); 9].join(",");
        yaml.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    let s = skill(format!("---\n{yaml}---\n").as_bytes());
    assert!(
        matches!(&s.yaml, Some(Err(e)) if e.message.contains("alias")),
        "{:?}",
        s.yaml
    );
}

#[test]
fn dashes_in_values_and_fences() {
    let s = skill(b"---\nname: edge\ndescription: Long---description\n---\n```\n---\n```\n");
    assert_eq!(s.meta.description.as_deref(), Some("Long---description"));
    assert_eq!(s.body(), "```\n---\n```\n");
}
