//! The prompt a base model is given to choose a skill, split for caching.
//!
//! A base (not instruction-tuned) model continues text; it follows no
//! instructions, so the prompt is a document whose natural next words are a
//! skill's name: the listing as a bulleted list of `name: description`, a
//! sentence saying what happens next, the request, then `The skill to load:`.
//! Each candidate is scored as the continuation ` name` followed by a line
//! break: the line break ends the name, so a name that is the beginning of
//! another (`pdf`, `pdf-forms`) is not favoured for being shorter.
//!
//! The parts are cut where the caching wants them: [`listing_prefix`] is the
//! same for every request of a library (its keys and values are computed
//! once), [`request_middle`] is each request's own text, and
//! [`candidate_continuation`] is what is scored. Text is flattened to one line
//! (runs of whitespace, line breaks included, become one space) so a request
//! or a description cannot start a line of its own that looks like part of
//! the layout.

/// One listed skill: its name and what the listing says it is for.
#[derive(Debug, Clone, Copy)]
pub struct ListedSkill<'a> {
    pub name: &'a str,
    pub description: &'a str,
}

/// The three parts of a constrained-choice prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoicePrompt {
    pub prefix: String,
    pub middle: String,
    pub candidates: Vec<String>,
}

/// The prompt to choose among `skills` for `request`; the candidates are in
/// the order of `skills`.
pub fn choice_prompt(skills: &[ListedSkill<'_>], request: &str) -> ChoicePrompt {
    ChoicePrompt {
        prefix: listing_prefix(skills),
        middle: request_middle(request),
        candidates: skills
            .iter()
            .map(|s| candidate_continuation(s.name))
            .collect(),
    }
}

/// The listing and the sentence that introduces the request: the part every
/// request shares.
pub fn listing_prefix(skills: &[ListedSkill<'_>]) -> String {
    let mut text = String::from(
        "The assistant has the following skills. Each line gives a skill's name, then what it is for.\n\n",
    );
    for skill in skills {
        text.push_str("- ");
        text.push_str(&one_line(skill.name));
        let description = one_line(skill.description);
        if !description.is_empty() {
            text.push_str(": ");
            text.push_str(&description);
        }
        text.push('\n');
    }
    text.push_str(
        "\nFor each request below, the assistant loads the one skill from this list that fits it best.\n\n",
    );
    text
}

/// A request and the words after which a skill's name is expected.
pub fn request_middle(request: &str) -> String {
    format!("Request: {}\nThe skill to load:", one_line(request))
}

/// What is scored for the skill `name`.
pub fn candidate_continuation(name: &str) -> String {
    format!(" {}\n", one_line(name))
}

/// `text` with every run of whitespace (line breaks too) as one space, trimmed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_puts_the_listing_first_and_the_name_last() {
        let skills = [
            ListedSkill {
                name: "pdf",
                description: "Reads PDFs.\nFills forms.",
            },
            ListedSkill {
                name: "empty",
                description: "  ",
            },
        ];
        let prompt = choice_prompt(&skills, "fill\n\nthis form");
        assert!(
            prompt
                .prefix
                .contains("\n- pdf: Reads PDFs. Fills forms.\n- empty\n")
        );
        assert!(prompt.prefix.ends_with("fits it best.\n\n"));
        assert_eq!(prompt.middle, "Request: fill this form\nThe skill to load:");
        assert_eq!(prompt.candidates, vec![" pdf\n", " empty\n"]);
        // The listing does not depend on the request.
        assert_eq!(choice_prompt(&skills, "other").prefix, prompt.prefix);
    }
}
